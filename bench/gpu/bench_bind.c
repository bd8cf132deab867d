/* bind: late binding (docs/late-binding.md) of an engine of 22 kernels calling two slots
 * (bindlib: LTO-IR for compute_90, `udfkit pack`), against loading the same code as SASS
 * (bindsass: the same kernels linked with the same two functions, `udfkit link --arch
 * 90-real --compress none`). Each timed call runs after its process made its context:
 *   first:      bindlib_bind with an empty cache (UDFKIT_CACHE_DIR a new directory): nvJitLink
 *               loaded, the link, the result stored; also with the slots bound to functions of
 *               other names (forwarders compiled with NVRTC too);
 *   cached:     bindlib_bind in a new process with that cache (read from disk, loaded);
 *   sass:       udfkit_library_load of the SASS fatbin in a new process (every kernel resolved);
 *   repeated:   bindlib_bind + bindlib_release again and again in one process (the process's
 *               table of bound code);
 *   compile:    udfkit_compile_source of a small UDF, with an empty cache, then cached in a new
 *               process.
 * Each bound instance is checked: map(price) over 1000 rows against the host.
 * usage: udfkit_bench bind ROUNDS ENGINE_UNUSED SASS.fatbin PACKAGE RENAMED_PACKAGE; exits 77
 * without a GPU. */
#define _XOPEN_SOURCE 700
#include "bench_child.h"
#include "bindlib.h"

#include <errno.h>
#include <ftw.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_ROWS 1000
#define REPEATS 2000

static const char small_udf[] = "__device__ float scaled(float x) { return 3.0f * x - 1.0f; }\n";
static const char *const small_spec[] = {"scaled:float32(float32)"};

/* The context first: what the timed calls must not pay. */
/* map(price) of the instance over CHECK_ROWS rows: price(x) = 2x + 1 whichever package. */
static void check_instance(bindlib_instance *inst)
{
    float in[CHECK_ROWS], out[CHECK_ROWS];
    for (int i = 0; i < CHECK_ROWS; i++)
        in[i] = (float)i * 0.25f - 50.0f;
    void *din = NULL, *dout = NULL;
    bench_check_udfkit(udfkit_device_alloc(sizeof in, &din), "udfkit_device_alloc");
    bench_check_udfkit(udfkit_device_alloc(sizeof out, &dout), "udfkit_device_alloc");
    bench_check_udfkit(udfkit_copy_to_device(din, in, sizeof in), "udfkit_copy_to_device");
    bench_check_udfkit(bindlib_map_price(inst, NULL, CHECK_ROWS, din, dout), "bindlib_map_price");
    bench_check_udfkit(udfkit_copy_to_host(out, dout, sizeof out), "udfkit_copy_to_host");
    for (int i = 0; i < CHECK_ROWS; i++)
        if (out[i] != 2.0f * in[i] + 1.0f) {
            fprintf(stderr, "FAILED: map(price)(%g) gave %g, expected %g\n", in[i], out[i], 2.0f * in[i] + 1.0f);
            exit(1);
        }
    udfkit_device_free(din);
    udfkit_device_free(dout);
}

/* In a process of its own: one timed step, its time in ms on stdout. */
static int child(const char *what, char **paths)
{
    bench_make_context();
    double ms = 0;
    if (strcmp(what, "bind") == 0 || strcmp(what, "bind-renamed") == 0) {
        const int renamed = strcmp(what, "bind-renamed") == 0;
        udfkit_package *pkg = bench_open_package(renamed ? paths[2] : paths[1]);
        const udfkit_slot_binding b[] = {{"price", pkg, renamed ? "affine2" : NULL},
                                         {"combine", pkg, renamed ? "plus" : NULL}};
        bindlib_instance *inst = NULL;
        const double start = bench_now_ms();
        bench_check_udfkit(bindlib_bind(b, 2, &inst), "bindlib_bind");
        ms = bench_now_ms() - start;
        /* The first launch after it (map(price) over 1000 rows and its copies), which links
         * that kernel where the bind loaded the engine's SASS. */
        const double use = bench_now_ms();
        check_instance(inst);
        const double use_ms = bench_now_ms() - use;
        bindlib_release(inst);
        udfkit_package_close(pkg);
        printf("%.6f %.6f\n", ms, use_ms);
        return 0;
    } else if (strcmp(what, "sass") == 0) {
        size_t size;
        void *image = bench_read_file(paths[0], &size);
        udfkit_library *lib = NULL;
        const double start = bench_now_ms();
        bench_check_udfkit(udfkit_library_load(image, size, &lib), "udfkit_library_load");
        ms = bench_now_ms() - start;
        udfkit_library_unload(lib);
        free(image);
    } else if (strcmp(what, "compile") == 0) {
        udfkit_package *pkg = NULL;
        const double start = bench_now_ms();
        bench_check_udfkit(udfkit_compile_source("small.cu", small_udf, small_spec, 1, NULL, 0, &pkg),
                           "udfkit_compile_source");
        ms = bench_now_ms() - start;
        udfkit_package_close(pkg);
    } else {
        fprintf(stderr, "FAILED: unknown step %s\n", what);
        return 1;
    }
    printf("%.6f\n", ms);
    return 0;
}

/* Runs this program as a child doing `what` (args[3]), storing the time it printed in *ms. */
static int run_child(char **args, const char *what, double *ms)
{
    args[3] = (char *)what;
    return bench_run_child(args, what, ms);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* A new empty cache directory for the children that follow. */
static char *new_cache(void)
{
    static char dir[4096];
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    if (dir[0])
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    snprintf(dir, sizeof dir, "%s/udfkit-bench-bind-XXXXXX", tmp);
    if (!mkdtemp(dir) || setenv("UDFKIT_CACHE_DIR", dir, 1) != 0) {
        fprintf(stderr, "FAILED: cannot make a cache directory under %s: %s\n", tmp, strerror(errno));
        exit(1);
    }
    return dir;
}

/* In this process: binding again and again, the instance released each time. */
static void repeated(const char *package_path)
{
    bench_make_context();
    udfkit_package *pkg = bench_open_package(package_path);
    const udfkit_slot_binding b[] = {{"price", pkg, NULL}, {"combine", pkg, NULL}};
    bindlib_instance *kept = NULL, *inst = NULL;
    bench_check_udfkit(bindlib_bind(b, 2, &kept), "bindlib_bind");
    check_instance(kept);
    double start = bench_now_ms();
    for (int i = 0; i < REPEATS; i++) {
        bench_check_udfkit(bindlib_bind(b, 2, &inst), "bindlib_bind");
        bindlib_release(inst);
    }
    const double live = (bench_now_ms() - start) * 1e3 / REPEATS;
    bindlib_release(kept);
    start = bench_now_ms();
    for (int i = 0; i < REPEATS; i++) {
        bench_check_udfkit(bindlib_bind(b, 2, &inst), "bindlib_bind");
        bindlib_release(inst);
    }
    const double idle = (bench_now_ms() - start) * 1e3 / REPEATS;
    printf("bind_repeated_in_process: %.2f us (mean of %d binds + releases while another instance lives; goal < 50)\n",
           live, REPEATS);
    printf("bind_repeated_after_release: %.2f us (mean of %d, no instance left between them)\n", idle, REPEATS);
    udfkit_package_close(pkg);
}

int bench_bind_main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "--child") == 0)
        return child(argv[2], argv + 3);
    if (argc != 5 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: udfkit_bench bind ROUNDS SASS.fatbin PACKAGE RENAMED_PACKAGE\n");
        return 2;
    }
    const int rounds = atoi(argv[1]);
    /* udfkit_bench bind --child WHAT SASS PACKAGE RENAMED */
    char *args[] = {"udfkit_bench", argv[0], "--child", NULL, argv[2], argv[3], argv[4], NULL};
    unsetenv("UDFKIT_CACHE");
    size_t size;
    free(bench_read_file(argv[2], &size));
    printf("bind_engine: bindlib, 22 kernels (%zu slots), LTO-IR %zu bytes; SASS fatbin %s %zu bytes\n",
           bindlib_slot_count(), (size_t)bindlib_fatbin_size, argv[2], size);
    double *first = calloc((size_t)rounds, sizeof *first), *renamed = calloc((size_t)rounds, sizeof *renamed);
    double *cached = calloc((size_t)rounds * 3, sizeof *cached), *sass = calloc((size_t)rounds * 3, sizeof *sass);
    double *cold = calloc((size_t)rounds, sizeof *cold), *warm = calloc((size_t)rounds, sizeof *warm);
    double *first_use = calloc((size_t)rounds, sizeof *first_use), *cached_use = calloc((size_t)rounds * 3, sizeof *cached_use);
    double *whole = calloc((size_t)rounds, sizeof *whole), *whole_use = calloc((size_t)rounds, sizeof *whole_use);
    int st = 0;
    for (int r = 0; r < rounds && !st; r++) {
        new_cache();
        st = run_child(args, "bind", &first[r]);
        first_use[r] = bench_child_second;
        for (int c = 0; c < 3 && !st; c++) {
            st = run_child(args, "bind", &cached[r * 3 + c]);
            cached_use[r * 3 + c] = bench_child_second;
        }
        for (int c = 0; c < 3 && !st; c++)
            st = run_child(args, "sass", &sass[r * 3 + c]);
        if (!st) {
            new_cache();
            st = run_child(args, "bind-renamed", &renamed[r]);
        }
        if (!st) { /* every kernel linked at the bind (UDFKIT_BIND_WHOLE=1), as without SASS */
            new_cache();
            setenv("UDFKIT_BIND_WHOLE", "1", 1);
            st = run_child(args, "bind", &whole[r]);
            whole_use[r] = bench_child_second;
            unsetenv("UDFKIT_BIND_WHOLE");
        }
        if (!st) {
            new_cache();
            st = run_child(args, "compile", &cold[r]);
        }
        if (!st)
            st = run_child(args, "compile", &warm[r]);
        if (!st)
            printf("bind_round_%d: first %.2f ms (first launch after it %.2f ms), whole %.2f ms, renamed first %.2f ms, cached %.3f / "
                   "%.3f / %.3f ms (first launch %.3f ms), SASS %.3f / %.3f / %.3f ms, compile_source cold %.2f ms "
                   "cached %.3f ms\n",
                   r + 1, first[r], first_use[r], whole[r], renamed[r], cached[r * 3], cached[r * 3 + 1], cached[r * 3 + 2],
                   cached_use[r * 3], sass[r * 3], sass[r * 3 + 1], sass[r * 3 + 2], cold[r], warm[r]);
    }
    new_cache();
    if (st)
        return st;
    const double first_ms = bench_median(first, (size_t)rounds), renamed_ms = bench_median(renamed, (size_t)rounds),
                 cached_ms = bench_median(cached, (size_t)rounds * 3), sass_ms = bench_median(sass, (size_t)rounds * 3),
                 cold_ms = bench_median(cold, (size_t)rounds), warm_ms = bench_median(warm, (size_t)rounds);
    printf("bind_rounds: %d (each a new empty cache; every timed call a new process with its context made; medians)\n",
           rounds);
    printf("bind_first: %.2f ms (empty cache; where the engine holds SASS for the device the bind loads it and "
           "links nothing, else nvJitLink links the engine with 2 UDFs for sm_90)\n",
           first_ms);
    printf("bind_first_launch_after: %.2f ms (map(price) over 1000 rows and its copies, after a first bind: its "
           "kernel linked then where the bind loaded SASS)\n",
           bench_median(first_use, (size_t)rounds));
    printf("bind_cached_launch_after: %.3f ms (the same after a bind in a new process over the cache)\n",
           bench_median(cached_use, (size_t)rounds * 3));
    printf("bind_first_whole: %.2f ms (UDFKIT_BIND_WHOLE=1: every kernel linked at the bind; first launch after it "
           "%.2f ms)\n",
           bench_median(whole, (size_t)rounds), bench_median(whole_use, (size_t)rounds));
    printf("bind_first_renamed: %.2f ms (the same, slots bound to functions of other names: NVRTC forwarders too)\n",
           renamed_ms);
    printf("bind_cached_new_process: %.3f ms\n", cached_ms);
    printf("sass_load_new_process: %.3f ms (the same code linked as SASS, udfkit_library_load)\n", sass_ms);
    printf("bind_cached_vs_sass: %.2f ratio (goal <= 2)\n", cached_ms / sass_ms);
    printf("compile_source_cold: %.2f ms (a one-line UDF, empty cache, NVRTC loaded)\n", cold_ms);
    printf("compile_source_cached: %.3f ms (new process, from the cache)\n", warm_ms);
    repeated(argv[3]);
    return 0;
}
