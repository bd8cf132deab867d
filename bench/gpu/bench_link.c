/* link: udfkit_library_link of LTO-IR parts (a kernel library and its UDFs, raw LTO-IR read
 * from files), the first call in a process with an empty cache (UDFKIT_CACHE_DIR a new
 * directory: nvJitLink links for the device, the result is stored), against the same call in
 * a new process (the linked code found in the cache). Each round uses a new cache directory:
 * one first call, then `CACHED_PER_ROUND` cached calls, each in a process of its own; each
 * process makes its context before the timed call and checks one linked kernel's results.
 * usage: udfkit_bench link ROUNDS KERNEL PART...; exits 77 without a GPU. KERNEL is a map kernel
 * of float32(float32) affine (out = 2 x + 1), launched with BENCH_LINK_BLOCK threads. */
#define _XOPEN_SOURCE 700
#include "bench_child.h"

#if !BENCH_HAS_LINK
/* Built with a runtime that has no udfkit_library_link (build.sh says so). */
int bench_link_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    printf("link: NOT BUILT: the runtime this was built with has no udfkit_library_link\n");
    return BENCH_NOT_BUILT;
}
#else

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef BENCH_LINK_BLOCK
#error "BENCH_LINK_BLOCK: the kernels' block size (UDFKIT_BLOCK of the generated kernels)"
#endif

#define CACHED_PER_ROUND 3
#define CHECK_ROWS 1000

/* In a process of its own: one timed udfkit_library_link, its time printed on stdout. */
static int child(const char *kind, const char *kernel, int count, char **paths)
{
    udfkit_image *parts = calloc((size_t)count, sizeof *parts);
    if (!parts)
        return 1;
    for (int i = 0; i < count; i++)
        parts[i].data = bench_read_file(paths[i], &parts[i].size);

    float host_in[CHECK_ROWS], host_out[CHECK_ROWS];
    for (int i = 0; i < CHECK_ROWS; i++)
        host_in[i] = (float)i * 0.5f - 100.0f;
    void *in = NULL, *out = NULL;
    udfkit_status s = udfkit_device_alloc(sizeof host_in, &in);
    bench_skip_without_gpu(s);
    bench_check_udfkit(s, "udfkit_device_alloc (context creation)");
    bench_check_udfkit(udfkit_device_alloc(sizeof host_out, &out), "udfkit_device_alloc");
    bench_check_udfkit(udfkit_copy_to_device(in, host_in, sizeof host_in), "udfkit_copy_to_device");

    udfkit_library *lib = NULL;
    const double start = bench_now_ms();
    s = udfkit_library_link(parts, (size_t)count, &lib);
    const double ms = bench_now_ms() - start;
    if (s != UDFKIT_OK)
        fprintf(stderr, "%s link:\n", kind);
    bench_check_udfkit(s, "udfkit_library_link");

    udfkit_kernel k;
    bench_check_udfkit(udfkit_library_get_kernel(lib, kernel, &k), "udfkit_library_get_kernel");
    /* map's kernel (templates/kernels/map.cu.in) as its launcher calls it: tiles of one row a
     * thread, shared memory for one float column's tile. */
    unsigned long long rows = CHECK_ROWS, tiles = (CHECK_ROWS + BENCH_LINK_BLOCK - 1) / BENCH_LINK_BLOCK;
    unsigned per_thread = 1;
    void *args[] = {&rows, &tiles, &per_thread, &in, &out};
    const udfkit_dim3 grid = {(unsigned)tiles, 1, 1}, block = {BENCH_LINK_BLOCK, 1, 1};
    bench_check_udfkit(udfkit_launch(k, grid, block, BENCH_LINK_BLOCK * sizeof(float) + 128, NULL, args), "udfkit_launch");
    bench_check_udfkit(udfkit_synchronize(), "udfkit_synchronize");
    bench_check_udfkit(udfkit_copy_to_host(host_out, out, sizeof host_out), "udfkit_copy_to_host");
    for (int i = 0; i < CHECK_ROWS; i++)
        if (host_out[i] != 2.0f * host_in[i] + 1.0f) {
            fprintf(stderr, "FAILED: %s link: %s(%g) gave %g, expected %g\n", kind, kernel, host_in[i], host_out[i],
                    2.0f * host_in[i] + 1.0f);
            return 1;
        }
    udfkit_library_unload(lib);
    udfkit_device_free(in);
    udfkit_device_free(out);
    printf("%.6f\n", ms);
    return 0;
}

static size_t cache_files;

/* Cache entries only: the cache also keeps hit and miss counters beside them. */
static int count_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    size_t len = strlen(path);
    cache_files += flag == FTW_F && len > 6 && strcmp(path + len - 6, ".entry") == 0;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static size_t files_under(const char *dir)
{
    cache_files = 0;
    if (nftw(dir, count_file, 16, FTW_PHYS) != 0)
        fprintf(stderr, "warning: cannot walk '%s': %s\n", dir, strerror(errno));
    return cache_files;
}

/* One round in the new cache directory `dir`: the first link, then the cached ones. */
static int round_of(const char *dir, char **child_args, double *first, double *cached, int round)
{
    child_args[3] = "first";
    int st = bench_run_child(child_args, "first-link", first);
    if (st)
        return st;
    const size_t stored = files_under(dir);
    printf("link_round_%d_first: %.3f ms (%zu files in the new cache directory after it)\n", round, *first, stored);
    if (stored == 0) {
        fprintf(stderr, "FAILED: the first link stored nothing under UDFKIT_CACHE_DIR=%s\n", dir);
        return 1;
    }
    child_args[3] = "cached";
    for (int c = 0; c < CACHED_PER_ROUND; c++) {
        if ((st = bench_run_child(child_args, "cached-link", &cached[c])))
            return st;
        const size_t now = files_under(dir);
        printf("link_round_%d_cached_%d: %.3f ms%s\n", round, c + 1, cached[c],
               now != stored ? " (WARNING: the cache gained files: not a hit?)" : "");
    }
    return 0;
}

int bench_link_main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "--child") == 0)
        return child(argv[2], argv[3], argc - 4, argv + 4);
    if (argc < 4 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: udfkit_bench link ROUNDS KERNEL PART...\n");
        return 2;
    }
    const int rounds = atoi(argv[1]), parts = argc - 3;
    /* udfkit_bench link --child KIND KERNEL PART... */
    char **child_args = calloc((size_t)parts + 6, sizeof *child_args);
    double *first = calloc((size_t)rounds, sizeof *first), *cached = calloc((size_t)rounds * CACHED_PER_ROUND, sizeof *cached);
    if (!child_args || !first || !cached)
        return 1;
    child_args[0] = "udfkit_bench";
    child_args[1] = argv[0];
    child_args[2] = "--child";
    child_args[4] = argv[2];
    for (int i = 0; i < parts; i++) {
        size_t size;
        free(bench_read_file(argv[3 + i], &size));
        printf("link_part: %s (%zu bytes)\n", argv[3 + i], size);
        child_args[5 + i] = argv[3 + i];
    }
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    unsetenv("UDFKIT_CACHE");
    for (int r = 0; r < rounds; r++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/udfkit-bench-link-XXXXXX", tmp);
        if (!mkdtemp(dir) || setenv("UDFKIT_CACHE_DIR", dir, 1) != 0) {
            fprintf(stderr, "FAILED: cannot make a cache directory under %s: %s\n", tmp, strerror(errno));
            return 1;
        }
        int st = round_of(dir, child_args, &first[r], &cached[r * CACHED_PER_ROUND], r + 1);
        if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
            fprintf(stderr, "warning: cannot remove %s\n", dir);
        if (st)
            return st;
    }
    const double first_ms = bench_median(first, (size_t)rounds),
                 cached_ms = bench_median(cached, (size_t)rounds * CACHED_PER_ROUND);
    printf("link_rounds: %d (a new empty cache each; %d cached calls per round; each call a new process; median)\n",
           rounds, CACHED_PER_ROUND);
    printf("link_first_time: %.3f ms (empty cache: nvJitLink links, the result is stored)\n", first_ms);
    printf("link_cached_time: %.3f ms (new process, same cache)\n", cached_ms);
    printf("link_first_vs_cached: %.1f ratio (first / cached)\n", first_ms / cached_ms);
    return 0;
}
#endif /* BENCH_HAS_LINK */
