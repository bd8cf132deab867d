/* Runs every Python UDF of tests/data/py through its CUDA C kernel over a few thousand
 * inputs, on the GPU, and compares with the results numba's CPU target computed on the
 * build machine (build_python_cases.py): integers and bools exactly, floats within the
 * case's units in the last place, or, where the GPU contracts a*b+c to an FMA, within one
 * rounding of the largest term.
 * usage: test_python_udfs <cases dir>; exit 77 (skipped) without a GPU, or where the cases
 * could not be built (<cases dir>/skip.txt says why: the Python frontend did not import). */
#include "gpu_test.h"

#include <udfkit/runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS 8

typedef struct type_info {
    const char *name;
    size_t size;
    int float_bits; /* 0: compared exactly */
} type_info;

static const type_info types[] = {
    {"bool", 1, 0},    {"int8", 1, 0},    {"int16", 2, 0},   {"int32", 4, 0},    {"int64", 8, 0},
    {"uint8", 1, 0},   {"uint16", 2, 0},  {"uint32", 4, 0},  {"uint64", 8, 0},   {"float16", 2, 16},
    {"float32", 4, 32}, {"float64", 8, 64},
};

static const type_info *type_named(const char *name)
{
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strcmp(types[i].name, name) == 0)
            return &types[i];
    return NULL;
}

/* Floats mapped to integers that are ordered like the floats, so a difference counts ulps. */
static int64_t ordered(const void *p, int bits)
{
    int64_t v;
    if (bits == 16) {
        int16_t h;
        memcpy(&h, p, 2);
        v = h;
        return v < 0 ? INT16_MIN - v : v;
    }
    if (bits == 32) {
        int32_t f;
        memcpy(&f, p, 4);
        v = f;
        return v < 0 ? INT32_MIN - v : v;
    }
    memcpy(&v, p, 8);
    return v < 0 ? INT64_MIN - v : v;
}

static int is_nan(const void *p, int bits)
{
    if (bits == 16) {
        uint16_t h;
        memcpy(&h, p, 2);
        return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    }
    if (bits == 32) {
        float f;
        memcpy(&f, p, 4);
        return isnan(f);
    }
    double d;
    memcpy(&d, p, 8);
    return isnan(d);
}

static double as_double(const void *p, int bits)
{
    if (bits == 32) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    if (bits == 64) {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    uint16_t h;
    memcpy(&h, p, 2);
    int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double v = exponent ? ldexp(1024 + mantissa, exponent - 25) : ldexp(mantissa, -24);
    return h & 0x8000 ? -v : v;
}

static double epsilon(int bits)
{
    return bits == 16 ? ldexp(1, -10) : bits == 32 ? ldexp(1, -23) : ldexp(1, -52);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <cases dir>\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    void *image;
    udfkit_library *lib;
    FILE *cases;
    int rc = open_cases(dir, "py_udfs.fatbin", &image, &lib, &cases);
    if (rc >= 0)
        return rc;
    char line[1024];
    int failed_cases = 0, total = 0;
    while (fgets(line, sizeof line, cases)) {
        char name[128], kernel_name[160], out_name[32], param_names[MAX_PARAMS][32];
        int ulps, n, consumed;
        if (sscanf(line, "%127s %159s %d %d %31s%n", name, kernel_name, &ulps, &n, out_name, &consumed) != 5)
            continue;
        int nparams = 0;
        for (char *p = line + consumed; nparams < MAX_PARAMS && sscanf(p, "%31s%n", param_names[nparams], &consumed) == 1;
             p += consumed)
            nparams++;
        total++;
        const type_info *out_type = type_named(out_name);
        void *device[MAX_PARAMS + 1] = {0};
        void *args[MAX_PARAMS + 2];
        int bad = 0;
        for (int k = 0; k < nparams && !bad; k++) {
            char file[200];
            size_t size;
            snprintf(file, sizeof file, "%s.%d.bin", name, k);
            void *host = read_dir_file(dir, file, &size);
            bad = !host || check(udfkit_device_alloc(size, &device[k]), "alloc") ||
                  check(udfkit_copy_to_device(device[k], host, size), "copy in");
            free(host);
            args[k] = &device[k];
        }
        size_t out_size = (size_t)n * out_type->size;
        bad = bad || check(udfkit_device_alloc(out_size, &device[nparams]), "alloc");
        args[nparams] = &device[nparams];
        args[nparams + 1] = &n;
        udfkit_kernel k;
        unsigned blocks = (unsigned)(n + 127) / 128;
        bad = bad || check(udfkit_library_get_kernel(lib, kernel_name, &k), kernel_name) ||
              check(udfkit_launch(k, (udfkit_dim3){blocks, 1, 1}, (udfkit_dim3){128, 1, 1}, 0, NULL, args), kernel_name) ||
              check(udfkit_synchronize(), kernel_name);
        unsigned char *got = malloc(out_size);
        size_t expected_size = 0;
        char file[200];
        snprintf(file, sizeof file, "%s.out.bin", name);
        unsigned char *want = read_dir_file(dir, file, &expected_size);
        size_t scale_size = 0;
        snprintf(file, sizeof file, "%s.scale.bin", name);
        double *scale = read_dir_file(dir, file, &scale_size);
        bad = bad || !scale || scale_size != (size_t)n * sizeof(double);
        bad = bad || !want || expected_size != out_size || check(udfkit_copy_to_host(got, device[nparams], out_size), "copy out");
        int wrong = 0;
        int64_t worst = 0;
        for (int i = 0; !bad && i < n; i++) {
            const void *g = got + (size_t)i * out_type->size, *w = want + (size_t)i * out_type->size;
            if (!out_type->float_bits) {
                wrong += memcmp(g, w, out_type->size) != 0;
                continue;
            }
            if (is_nan(g, out_type->float_bits) && is_nan(w, out_type->float_bits))
                continue;
            int64_t d = ordered(g, out_type->float_bits) - ordered(w, out_type->float_bits);
            d = d < 0 ? -d : d;
            /* Or within one rounding of the largest term, where the GPU contracts to FMA. */
            double diff = fabs(as_double(g, out_type->float_bits) - as_double(w, out_type->float_bits));
            if (d > ulps && diff <= 4 * epsilon(out_type->float_bits) * scale[i])
                continue;
            worst = d > worst ? d : worst;
            wrong += d > ulps;
        }
        if (bad || wrong)
            failed_cases++;
        printf("%-24s %-8s %s: %d of %d wrong, worst %lld ulp (allowed %d)\n", name, out_name,
               bad ? "ERROR" : wrong ? "FAIL" : "ok", wrong, n, (long long)worst, ulps);
        free(got);
        free(want);
        free(scale);
        for (int d = 0; d <= nparams; d++)
            udfkit_device_free(device[d]);
    }
    fclose(cases);
    udfkit_library_unload(lib);
    free(image);
    printf("%d passed, %d failed\n", total - failed_cases, failed_cases);
    return failed_cases != 0 || total == 0;
}
