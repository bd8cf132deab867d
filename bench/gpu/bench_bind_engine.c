/* bind_engine: late binding of an engine of issue 20's kernel mix (eng41: map, the three
 * filters, transform_reduce, reduce, a scan, nullable_map/filter/reduce, two sorts from
 * KERNELS entries, 10 SOURCES kernels of which 5 call a slot, the engine's own functions as
 * UDFS, two slots), packed as add_jit_library packs a SLOTS library (LTO-IR for compute_90 and
 * SASS for sm_90 of the kernels that call no slot), bound to a user package (its fatbin). Each
 * step in a new process with its context made first:
 *   first:    eng41_bind with an empty cache, then the first launch of each kernel kind (a
 *             kernel that calls a slot is linked then, alone);
 *   cached:   the same in a new process over that cache (the kernels linked before come from it);
 *   whole:    UDFKIT_BIND_WHOLE=1 with an empty cache: every kernel linked at the bind, as on a
 *             device without the engine's SASS;
 *   repeated: eng41_bind + eng41_release again and again in one process.
 * The first launches are printed per kind (launch and synchronize, 2^20 rows); map(price),
 * reduce(add), the filter's count and sort(before) are checked against the host.
 * usage: udfkit_bench bind_engine ROUNDS PACKAGE.fatbin; exits 77 without a GPU. */
#define _XOPEN_SOURCE 700
#include "bench_child.h"
#include "eng41.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#define ROWS (1u << 20)
#define REPEATS 2000

static void *device(size_t bytes)
{
    void *p = NULL;
    bench_check_udfkit(udfkit_device_alloc(bytes, &p), "udfkit_device_alloc");
    return p;
}

static float host_price(float list, float rate)
{
    return list * (1.0f - rate);
}

/* One first launch: the launcher's call and the wait for it, in ms, printed under `label`. */
static double timed(const char *label, const char *kind, double start, udfkit_status s)
{
    bench_check_udfkit(s, kind);
    bench_check_udfkit(udfkit_synchronize(), kind);
    const double ms = bench_now_ms() - start;
    fprintf(stderr, "bind_engine_first_launch[%s] %s: %.3f ms\n", label, kind, ms);
    return ms;
}

/* The first launch of each kernel kind of the instance, each checked where the host can say. */
static void first_launches(eng41_instance *inst, const char *label)
{
    float *a = malloc(ROWS * 4), *b = malloc(ROWS * 4), *out = malloc(ROWS * 4);
    uint8_t *bits = malloc(ROWS / 8);
    for (unsigned i = 0; i < ROWS; i++) {
        a[i] = (float)((i * 2654435761u) % 4096) * 0.01f;
        b[i] = (float)(i % 7) / 16.0f;
    }
    for (unsigned i = 0; i < ROWS / 8; i++)
        bits[i] = 0xb7;
    float *da = device(ROWS * 4), *db = device(ROWS * 4), *dout = device(ROWS * 4), *dscalar = device(8);
    uint64_t *didx = device(ROWS * 8), *dcount = device(8), *dorder = device(ROWS * 8);
    uint32_t *didx32 = device(ROWS * 4);
    uint8_t *dbits = device(ROWS / 8), *dout_bits = device(ROWS / 8);
    bench_check_udfkit(udfkit_copy_to_device(da, a, ROWS * 4), "copy");
    bench_check_udfkit(udfkit_copy_to_device(db, b, ROWS * 4), "copy");
    bench_check_udfkit(udfkit_copy_to_device(dbits, bits, ROWS / 8), "copy");
    const udfkit_mask m = {dbits, 0};
    double total = 0, t;

    t = bench_now_ms();
    total += timed(label, "map(price)", t, eng41_map_price(inst, NULL, ROWS, da, db, dout));
    bench_check_udfkit(udfkit_copy_to_host(out, dout, ROWS * 4), "copy");
    for (unsigned i = 0; i < ROWS; i++)
        if (out[i] != host_price(a[i], b[i])) {
            fprintf(stderr, "FAILED: map(price) row %u: %g, expected %g\n", i, out[i], host_price(a[i], b[i]));
            exit(1);
        }
    t = bench_now_ms();
    total += timed(label, "filter(keep)", t, eng41_filter_keep(inst, NULL, ROWS, da, didx, dcount));
    uint64_t count = 0, want = 0;
    bench_check_udfkit(udfkit_copy_to_host(&count, dcount, 8), "copy");
    for (unsigned i = 0; i < ROWS; i++)
        want += a[i] > 10.0f;
    if (count != want) {
        fprintf(stderr, "FAILED: filter(keep) kept %llu rows, expected %llu\n", (unsigned long long)count,
                (unsigned long long)want);
        exit(1);
    }
    t = bench_now_ms();
    total += timed(label, "filter(keep, indices32)", t,
                   eng41_filter_keep_indices32(inst, NULL, ROWS, da, didx32, dcount));
    t = bench_now_ms();
    total += timed(label, "filter(keep, values)", t, eng41_filter_keep_values(inst, NULL, ROWS, da, dout, dcount));
    t = bench_now_ms();
    total += timed(label, "transform_reduce(price, add)", t,
                   eng41_transform_reduce_price_add(inst, NULL, ROWS, da, db, 0.0f, dscalar));
    t = bench_now_ms();
    total += timed(label, "reduce(add)", t, eng41_reduce_add(inst, NULL, ROWS, da, 0.0f, dscalar));
    float sum = 0;
    double host_sum = 0;
    bench_check_udfkit(udfkit_copy_to_host(&sum, dscalar, 4), "copy");
    for (unsigned i = 0; i < ROWS; i++)
        host_sum += a[i];
    if (fabs(sum - host_sum) > 1e-3 * fabs(host_sum)) {
        fprintf(stderr, "FAILED: reduce(add) gave %g, expected %g\n", sum, host_sum);
        exit(1);
    }
    t = bench_now_ms();
    total += timed(label, "inclusive_scan(add)", t, eng41_inclusive_scan_add(inst, NULL, ROWS, da, dout));
    t = bench_now_ms();
    total += timed(label, "nullable_map(price)", t,
                   eng41_nullable_map_price(inst, NULL, ROWS, da, m, db, m, dout, dout_bits, dcount));
    t = bench_now_ms();
    total += timed(label, "nullable_filter(keep)", t, eng41_nullable_filter_keep(inst, NULL, ROWS, da, m, didx, dcount));
    t = bench_now_ms();
    total += timed(label, "nullable_reduce(add)", t,
                   eng41_nullable_reduce_add(inst, NULL, ROWS, da, m, 0.0f, dscalar, dcount));
    t = bench_now_ms();
    total += timed(label, "sort(before)", t, eng41_sort_before(inst, NULL, ROWS, da, dout, dorder));
    bench_check_udfkit(udfkit_copy_to_host(out, dout, ROWS * 4), "copy");
    for (unsigned i = 1; i < ROWS; i++)
        if (out[i] < out[i - 1]) {
            fprintf(stderr, "FAILED: sort(before): row %u (%g) after %g\n", i, out[i], out[i - 1]);
            exit(1);
        }
    t = bench_now_ms();
    total += timed(label, "sort(after)", t, eng41_sort_after(inst, NULL, ROWS, da, dout, NULL));
    /* A SOURCES kernel that calls a slot, and one that calls none, by name. */
    unsigned long long n = ROWS;
    void *args[] = {&n, &da, &dout};
    const udfkit_dim3 grid = {1024, 1, 1}, block = {256, 1, 1};
    udfkit_kernel k;
    t = bench_now_ms();
    bench_check_udfkit(udfkit_library_get_kernel(eng41_instance_library(inst), "src_slot0", &k), "src_slot0");
    total += timed(label, "SOURCES src_slot0 (calls slots)", t, udfkit_launch(k, grid, block, 0, NULL, args));
    t = bench_now_ms();
    bench_check_udfkit(udfkit_library_get_kernel(eng41_instance_library(inst), "src_plain0", &k), "src_plain0");
    total += timed(label, "SOURCES src_plain0 (calls none)", t, udfkit_launch(k, grid, block, 0, NULL, args));
    fprintf(stderr, "bind_engine_first_launch[%s] all 14 kinds: %.3f ms\n", label, total);
    void *frees[] = {da, db, dout, dscalar, didx, dcount, dorder, didx32, dbits, dout_bits};
    for (size_t i = 0; i < sizeof frees / sizeof *frees; i++)
        udfkit_device_free(frees[i]);
    free(a);
    free(b);
    free(out);
    free(bits);
}

/* In a process of its own: the bind (its ms on stdout), then the first launches (stderr). */
static int child(const char *what, const char *package)
{
    bench_make_context();
    udfkit_package *pkg = bench_open_package(package);
    const udfkit_slot_binding b[] = {{"price", pkg, NULL}, {"keep", pkg, NULL}};
    eng41_instance *inst = NULL;
    const double start = bench_now_ms();
    bench_check_udfkit(eng41_bind(b, 2, &inst), "eng41_bind");
    const double ms = bench_now_ms() - start;
    udfkit_package_close(pkg);
    first_launches(inst, what);
    eng41_release(inst);
    printf("%.6f\n", ms);
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void new_cache(void)
{
    static char dir[4096];
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    if (dir[0])
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    snprintf(dir, sizeof dir, "%s/udfkit-bench-bind-engine-XXXXXX", tmp);
    if (!mkdtemp(dir) || setenv("UDFKIT_CACHE_DIR", dir, 1) != 0) {
        fprintf(stderr, "FAILED: cannot make a cache directory under %s: %s\n", tmp, strerror(errno));
        exit(1);
    }
}

static void repeated(const char *package)
{
    bench_make_context();
    udfkit_package *pkg = bench_open_package(package);
    const udfkit_slot_binding b[] = {{"price", pkg, NULL}, {"keep", pkg, NULL}};
    eng41_instance *inst = NULL;
    bench_check_udfkit(eng41_bind(b, 2, &inst), "eng41_bind");
    eng41_release(inst);
    const double start = bench_now_ms();
    for (int i = 0; i < REPEATS; i++) {
        bench_check_udfkit(eng41_bind(b, 2, &inst), "eng41_bind");
        eng41_release(inst);
    }
    printf("bind_engine_repeated: %.2f us (mean of %d binds + releases in one process)\n",
           (bench_now_ms() - start) * 1e3 / REPEATS, REPEATS);
    udfkit_package_close(pkg);
}

int bench_bind_engine_main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child(argv[2], argv[3]);
    if (argc != 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: udfkit_bench bind_engine ROUNDS PACKAGE.fatbin\n");
        return 2;
    }
    const int rounds = atoi(argv[1]);
    char *args[] = {"udfkit_bench", argv[0], "--child", NULL, argv[2], NULL};
    unsetenv("UDFKIT_CACHE");
    unsetenv("UDFKIT_BIND_WHOLE");
    printf("bind_engine: eng41, %zu slots, LTO-IR and SASS %zu bytes; package %s\n", eng41_slot_count(),
           (size_t)eng41_fatbin_size, argv[2]);
    double *first = calloc((size_t)rounds, sizeof *first), *cached = calloc((size_t)rounds, sizeof *cached);
    double *whole = calloc((size_t)rounds, sizeof *whole);
    int st = 0;
    for (int r = 0; r < rounds && !st; r++) {
        new_cache();
        args[3] = "first";
        st = bench_run_child(args, "first", &first[r]);
        args[3] = "cached";
        if (!st)
            st = bench_run_child(args, "cached", &cached[r]);
        if (!st) {
            new_cache();
            setenv("UDFKIT_BIND_WHOLE", "1", 1);
            args[3] = "whole";
            st = bench_run_child(args, "whole", &whole[r]);
            unsetenv("UDFKIT_BIND_WHOLE");
        }
        if (!st)
            printf("bind_engine_round_%d: first %.2f ms, cached (new process) %.3f ms, whole %.2f ms\n", r + 1,
                   first[r], cached[r], whole[r]);
    }
    new_cache();
    if (st)
        return st;
    printf("bind_engine_first: %.2f ms (median of %d; empty cache, the engine's SASS loaded, nothing linked; "
           "goal <= 300)\n",
           bench_median(first, (size_t)rounds), rounds);
    printf("bind_engine_cached_new_process: %.3f ms\n", bench_median(cached, (size_t)rounds));
    printf("bind_engine_whole: %.2f ms (UDFKIT_BIND_WHOLE=1: every kernel linked at the bind)\n",
           bench_median(whole, (size_t)rounds));
    repeated(argv[2]);
    return 0;
}
