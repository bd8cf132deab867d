/* Helpers shared by the GPU benchmarks (C and CUDA host code): wall-clock time, medians,
 * whole files, and the udfkit status check that stops the program with the message. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <udfkit/runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Exit status of a benchmark that found no GPU (as ctest's SKIP_RETURN_CODE in tests/). */
#define BENCH_SKIPPED 77
/* Exit status of a benchmark that this build left out (the runtime lacks what it measures). */
#define BENCH_NOT_BUILT 3

#ifdef __cplusplus
extern "C" {
#endif
/* The benchmarks, one per source file, called by bench_main.c with argv[0] their name. */
int bench_map_main(int argc, char **argv);
int bench_reduce_main(int argc, char **argv);
int bench_load_main(int argc, char **argv);
int bench_compress_main(int argc, char **argv);
int bench_link_main(int argc, char **argv);
int bench_bind_main(int argc, char **argv);
int bench_bind_engine_main(int argc, char **argv);
int bench_nullable_main(int argc, char **argv);
int bench_scan_main(int argc, char **argv);
int bench_sort_main(int argc, char **argv);
int bench_reduce_by_key_main(int argc, char **argv);
int bench_reductions_main(int argc, char **argv);
int bench_host_main(int argc, char **argv);
int bench_ops_main(int argc, char **argv);
int bench_launcher_checks_main(int argc, char **argv);
int bench_arrow_main(int argc, char **argv);
int bench_strings_main(int argc, char **argv);
int bench_decimals_main(int argc, char **argv);
#ifdef __cplusplus
}
#endif

static inline double bench_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static inline int bench_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v); n > 0. */
static inline double bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, bench_compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Stops the program where a udfkit call failed, naming the call and the runtime's detail. */
static inline void bench_check_udfkit(udfkit_status s, const char *what)
{
    if (s != UDFKIT_OK) {
        fprintf(stderr, "FAILED: %s: %s: %s\n", what, udfkit_status_string(s), udfkit_last_error());
        exit(1);
    }
}

/* The first udfkit call of a program: exits BENCH_SKIPPED where no GPU can be used, so that
 * the benchmarks say why and stop cleanly on a machine without one. */
static inline void bench_skip_without_gpu(udfkit_status s)
{
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: no GPU: %s\n", udfkit_last_error());
        fflush(stdout);
        exit(BENCH_SKIPPED);
    }
}

/* Makes the device's context current (a small allocation), skipping the benchmark without a GPU. */
static inline void bench_make_context(void)
{
    void *p = NULL;
    udfkit_status s = udfkit_device_alloc(16, &p);
    bench_skip_without_gpu(s);
    bench_check_udfkit(s, "udfkit_device_alloc (context creation)");
    udfkit_device_free(p);
}

/* The package at path (a manifest or a package fatbin), or the program stops naming it. */
static inline udfkit_package *bench_open_package(const char *path)
{
    udfkit_package *pkg = NULL;
    bench_check_udfkit(udfkit_package_open(path, &pkg), path);
    return pkg;
}

/* The whole file, with a NUL after its `*size` bytes (PTX is text); exits on failure. */
static inline void *bench_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    long end = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        end = ftell(f);
    if (end > 0 && fseek(f, 0, SEEK_SET) == 0 && (data = (char *)malloc((size_t)end + 1)) &&
        fread(data, 1, (size_t)end, f) == (size_t)end) {
        data[end] = '\0';
        *size = (size_t)end;
        fclose(f);
        return data;
    }
    fprintf(stderr, "FAILED: cannot read '%s'\n", path);
    exit(1);
}

#endif /* BENCH_COMMON_H */
