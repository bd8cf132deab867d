/* load: udfkit_library_load (which resolves every kernel) of one module of 22 kernels around
 * 22 UDFs, as (1) a fatbin of SASS for sm_80 and sm_90, (2) PTX for compute_90 that the
 * driver JIT-compiles (UDFKIT_PTX_COMPILE=never), and (3) the same PTX compiled by the
 * runtime's nvPTXCompiler (UDFKIT_PTX_COMPILE=always). CUDA_CACHE_DISABLE=1 is set before
 * the driver starts, so that its JIT cache hides nothing. The context is made before the
 * first load; every timed load is followed by an unload, outside the timing; the three run in
 * turn, each `repetitions` times after one untimed load; medians.
 * usage: udfkit_bench load SASS.fatbin PTX.ptx KERNEL [repetitions (10)]; exits 77 without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#ifndef BENCH_RUNTIME_HAS_PTX_COMPILE
#define BENCH_RUNTIME_HAS_PTX_COMPILE 1
#endif

enum { SASS, PTX_DRIVER, PTX_NVPTXCOMPILER, MODES };

static const char *const mode_names[MODES] = {"sass_load", "ptx_driver_jit_load", "ptx_nvptxcompiler_load"};
static const char *const mode_env[MODES] = {"auto", "never", "always"};

/* One load and resolve of every kernel, timed; `kernel` must then be found. */
static double load_once(int mode, const void *image, size_t size, const char *kernel)
{
    if (setenv("UDFKIT_PTX_COMPILE", mode_env[mode], 1) != 0) {
        fprintf(stderr, "FAILED: setenv UDFKIT_PTX_COMPILE\n");
        exit(1);
    }
    udfkit_library *lib = NULL;
    const double start = bench_now_ms();
    udfkit_status s = udfkit_library_load(image, size, &lib);
    const double ms = bench_now_ms() - start;
    if (s != UDFKIT_OK)
        fprintf(stderr, "%s (UDFKIT_PTX_COMPILE=%s):\n", mode_names[mode], mode_env[mode]);
    bench_check_udfkit(s, "udfkit_library_load");
    udfkit_kernel k;
    bench_check_udfkit(udfkit_library_get_kernel(lib, kernel, &k), "udfkit_library_get_kernel");
    udfkit_library_unload(lib);
    return ms;
}

int bench_load_main(int argc, char **argv)
{
    if (argc < 4 || argc > 5 || (argc == 5 && atoi(argv[4]) < 1)) {
        fprintf(stderr, "usage: udfkit_bench load SASS.fatbin PTX.ptx KERNEL [repetitions]\n");
        return 2;
    }
    const int reps = argc == 5 ? atoi(argv[4]) : 10;
    /* The driver reads it when it starts, at the runtime's first call. */
    if (setenv("CUDA_CACHE_DISABLE", "1", 1) != 0) {
        fprintf(stderr, "FAILED: setenv CUDA_CACHE_DISABLE\n");
        return 1;
    }
    size_t sizes[MODES];
    const void *images[MODES];
    images[SASS] = bench_read_file(argv[1], &sizes[SASS]);
    images[PTX_DRIVER] = images[PTX_NVPTXCOMPILER] = bench_read_file(argv[2], &sizes[PTX_DRIVER]);
    sizes[PTX_NVPTXCOMPILER] = sizes[PTX_DRIVER];

    /* The context first: the first call of a process creates it. */
    void *p = NULL;
    udfkit_status s = udfkit_device_alloc(1, &p);
    bench_skip_without_gpu(s);
    bench_check_udfkit(s, "udfkit_device_alloc (context creation)");
    bench_check_udfkit(udfkit_device_free(p), "udfkit_device_free");

    const int modes = BENCH_RUNTIME_HAS_PTX_COMPILE ? MODES : PTX_NVPTXCOMPILER;
    double *ms[MODES];
    for (int m = 0; m < modes; m++) {
        ms[m] = malloc((size_t)reps * sizeof *ms[m]);
        if (!ms[m])
            return 1;
        load_once(m, images[m], sizes[m], argv[3]);
    }
    for (int r = 0; r < reps; r++)
        for (int m = 0; m < modes; m++)
            ms[m][r] = load_once(m, images[m], sizes[m], argv[3]);

    printf("load_images: %s (%zu bytes), %s (%zu bytes)\n", argv[1], sizes[SASS], argv[2], sizes[PTX_DRIVER]);
    printf("load_repetitions: %d (after 1 untimed load each; median; interleaved; CUDA_CACHE_DISABLE=%s)\n", reps,
           getenv("CUDA_CACHE_DISABLE"));
    double median[MODES];
    for (int m = 0; m < modes; m++) {
        median[m] = bench_median(ms[m], (size_t)reps);
        printf("%s_time: %.3f ms (UDFKIT_PTX_COMPILE=%s; min %.3f, max %.3f)\n", mode_names[m], median[m], mode_env[m],
               ms[m][0], ms[m][reps - 1]);
    }
    if (!BENCH_RUNTIME_HAS_PTX_COMPILE)
        printf("ptx_nvptxcompiler_load_time: not measured: the runtime this was built with has no UDFKIT_PTX_COMPILE\n");
    printf("ptx_driver_jit_vs_sass_load: %.1f ratio\n", median[PTX_DRIVER] / median[SASS]);
    if (BENCH_RUNTIME_HAS_PTX_COMPILE)
        printf("ptx_nvptxcompiler_vs_sass_load: %.1f ratio\n", median[PTX_NVPTXCOMPILER] / median[SASS]);
    for (int m = 0; m < modes; m++)
        free(ms[m]);
    return 0;
}

/* compress: the same module packed plain and compressed (udfkit link --compress), for each
 * label: sizes, and the median time of udfkit_library_load (SASS for this device, which the
 * driver decompresses) over `repetitions` interleaved loads after one untimed load each.
 * usage: udfkit_bench compress KERNEL REPETITIONS LABEL PLAIN.fatbin COMPRESSED.fatbin [LABEL PLAIN COMPRESSED]... */
int bench_compress_main(int argc, char **argv)
{
    if (argc < 6 || (argc - 3) % 3 != 0 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: udfkit_bench compress KERNEL REPETITIONS LABEL PLAIN.fatbin COMPRESSED.fatbin...\n");
        return 2;
    }
    const char *kernel = argv[1];
    const int reps = atoi(argv[2]);
    if (setenv("CUDA_CACHE_DISABLE", "1", 1) != 0)
        return 1;
    void *p = NULL;
    udfkit_status s = udfkit_device_alloc(1, &p);
    bench_skip_without_gpu(s);
    bench_check_udfkit(s, "udfkit_device_alloc (context creation)");
    bench_check_udfkit(udfkit_device_free(p), "udfkit_device_free");
    for (int at = 3; at + 2 < argc; at += 3) {
        size_t size[2];
        const void *image[2] = {bench_read_file(argv[at + 1], &size[0]), bench_read_file(argv[at + 2], &size[1])};
        double *ms[2] = {malloc((size_t)reps * sizeof(double)), malloc((size_t)reps * sizeof(double))};
        if (!ms[0] || !ms[1])
            return 1;
        for (int k = 0; k < 2; k++)
            load_once(SASS, image[k], size[k], kernel);
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < 2; k++)
                ms[k][r] = load_once(SASS, image[k], size[k], kernel);
        double median[2] = {bench_median(ms[0], (size_t)reps), bench_median(ms[1], (size_t)reps)};
        printf("compress_%s_files: %s, %s\n", argv[at], argv[at + 1], argv[at + 2]);
        printf("compress_%s_size: plain %zu bytes, compressed %zu bytes: %.3f ratio\n", argv[at], size[0], size[1],
               (double)size[1] / (double)size[0]);
        printf("compress_%s_load: plain %.3f ms, compressed %.3f ms (median of %d): %.3f ratio\n", argv[at], median[0],
               median[1], reps, median[1] / median[0]);
        free(ms[0]);
        free(ms[1]);
        free((void *)image[0]);
        free((void *)image[1]);
    }
    return 0;
}
