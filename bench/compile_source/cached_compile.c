/* Time of udfkit_compile_source answered from the cache: a text that includes
 * <cuda/std/optional> (every CCCL header it reaches) against a one-line text. Both are
 * compiled once first (a miss, or a hit of an earlier run), then `rounds` times each,
 * alternating; prints the median of each and their ratio.
 *
 * usage: cached_compile [rounds]  (UDFKIT_CACHE_DIR, UDFKIT_CUDA_INCLUDE_DIR and
 * UDFKIT_NVRTC_LIBRARY as for any program using the runtime) */
#define _POSIX_C_SOURCE 200809L
#include <udfkit/runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const char one_line[] = "__device__ float twice(float x) { return 2.0f * x; }\n";
static const char with_optional[] = "#include <cuda/std/optional>\n"
                                    "__device__ cuda::std::optional<float> halve(cuda::std::optional<float> x)\n"
                                    "{\n"
                                    "    if (!x)\n"
                                    "        return cuda::std::nullopt;\n"
                                    "    return *x * 0.5f;\n"
                                    "}\n";

static double compile(const char *name, const char *text, const char *spec)
{
    static const char *const options[] = {"--arch=90"};
    udfkit_package *pkg = NULL;
    double start = now();
    udfkit_status s = udfkit_compile_source(name, text, &spec, 1, options, 1, &pkg);
    double t = now() - start;
    if (s != UDFKIT_OK) {
        fprintf(stderr, "%s: %s: %s\n", name, udfkit_status_string(s), udfkit_last_error());
        exit(1);
    }
    udfkit_package_close(pkg);
    return t;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 50;
    if (rounds < 1)
        rounds = 1;
    double *a = calloc((size_t)rounds, sizeof *a), *b = calloc((size_t)rounds, sizeof *b);
    if (!a || !b)
        return 1;
    const char *spec_a = "twice:float32(float32)", *spec_b = "halve:float32?(float32?)";
    double first_a = compile("one_line.cu", one_line, spec_a);
    double first_b = compile("optional.cu", with_optional, spec_b);
    for (int i = 0; i < rounds; i++) {
        a[i] = compile("one_line.cu", one_line, spec_a);
        b[i] = compile("optional.cu", with_optional, spec_b);
    }
    qsort(a, (size_t)rounds, sizeof *a, by_value);
    qsort(b, (size_t)rounds, sizeof *b, by_value);
    double ma = a[rounds / 2], mb = b[rounds / 2];
    printf("first compile: one-line text %.3f ms, <cuda/std/optional> text %.3f ms\n", first_a * 1e3, first_b * 1e3);
    printf("from the cache, median of %d: one-line text %.3f ms, <cuda/std/optional> text %.3f ms, ratio %.2f\n",
           rounds, ma * 1e3, mb * 1e3, mb / ma);
    free(a);
    free(b);
    return 0;
}
