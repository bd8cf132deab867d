/* Runs every Python UDF of tests/data/py_dates_decimals through its CUDA C kernel on the GPU
 * and compares, row by row and exactly, each result and each row error code with what
 * build_python_dates_decimals.py computed on the build machine (Python's decimal module,
 * pyarrow.compute, numpy): a row whose expected code is not 0 must fail with that code, and
 * its value is not compared.
 * usage: test_python_dates_decimals <cases dir>; exit 77 (skipped) without a GPU, or where the
 * cases could not be built (<cases dir>/skip.txt says why). */
#include "gpu_test.h"

#include <udfkit/runtime.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS 8

/* A row's bytes as hex, for messages. */
static void hex(const unsigned char *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * (n - 1 - i), "%02x", p[i]);
}

/* One case: n rows of its inputs through kernel_name; 0 where every row is as expected. */
static int run_case(udfkit_library *lib, const char *dir, const char *name, const char *kernel_name, int n,
                    size_t out_size, const size_t *in_sizes, int nparams)
{
    void *device[MAX_PARAMS + 2] = {0};
    void *args[MAX_PARAMS + 3];
    int bad = 0;
    char file[256];
    for (int k = 0; k < nparams && !bad; k++) {
        size_t size;
        snprintf(file, sizeof file, "%s.%d.bin", name, k);
        void *host = read_dir_file(dir, file, &size);
        bad = !host || size != (size_t)n * in_sizes[k] || check(udfkit_device_alloc(size, &device[k]), "alloc") ||
              check(udfkit_copy_to_device(device[k], host, size), "copy in");
        free(host);
        args[k] = &device[k];
    }
    size_t out_bytes = (size_t)n * out_size, err_bytes = (size_t)n * sizeof(int32_t);
    bad = bad || check(udfkit_device_alloc(out_bytes, &device[nparams]), "alloc") ||
          check(udfkit_device_alloc(err_bytes, &device[nparams + 1]), "alloc");
    args[nparams] = &device[nparams];
    args[nparams + 1] = &device[nparams + 1];
    args[nparams + 2] = &n;
    udfkit_kernel k;
    unsigned blocks = (unsigned)(n + 127) / 128;
    bad = bad || check(udfkit_library_get_kernel(lib, kernel_name, &k), kernel_name) ||
          check(udfkit_launch(k, (udfkit_dim3){blocks, 1, 1}, (udfkit_dim3){128, 1, 1}, 0, NULL, args), kernel_name) ||
          check(udfkit_synchronize(), kernel_name);
    unsigned char *got = malloc(out_bytes ? out_bytes : 1);
    int32_t *got_err = malloc(err_bytes ? err_bytes : 1);
    size_t want_size = 0, want_err_size = 0;
    snprintf(file, sizeof file, "%s.out.bin", name);
    unsigned char *want = read_dir_file(dir, file, &want_size);
    snprintf(file, sizeof file, "%s.err.bin", name);
    int32_t *want_err = read_dir_file(dir, file, &want_err_size);
    bad = bad || !want || want_size != out_bytes || !want_err || want_err_size != err_bytes ||
          check(udfkit_copy_to_host(got, device[nparams], out_bytes), "copy out") ||
          check(udfkit_copy_to_host(got_err, device[nparams + 1], err_bytes), "copy errors out");
    int wrong = 0, errors = 0;
    for (int i = 0; !bad && i < n; i++) {
        const unsigned char *g = got + (size_t)i * out_size, *w = want + (size_t)i * out_size;
        errors += want_err[i] != 0;
        bool ok = got_err[i] == want_err[i] && (want_err[i] != 0 || memcmp(g, w, out_size) == 0);
        if (!ok && wrong++ < 5) {
            char gh[40], wh[40];
            hex(g, out_size, gh);
            hex(w, out_size, wh);
            fprintf(stderr, "  %s row %d: got 0x%s (error %d), expected 0x%s (error %d)\n", name, i, gh,
                    (int)got_err[i], wh, (int)want_err[i]);
        }
    }
    printf("%-22s %s: %d of %d rows wrong (%d rows expected to fail)\n", name, bad ? "ERROR" : wrong ? "FAIL" : "ok",
           wrong, n, errors);
    free(got);
    free(got_err);
    free(want);
    free(want_err);
    for (int d = 0; d < nparams + 2; d++)
        udfkit_device_free(device[d]);
    return bad || wrong;
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
    int rc = open_cases(dir, "dd.fatbin", &image, &lib, &cases);
    if (rc >= 0)
        return rc;
    char line[1024];
    int failed = 0, total = 0;
    while (fgets(line, sizeof line, cases)) {
        char name[128], kernel_name[160];
        int n, consumed;
        size_t out_size, in_sizes[MAX_PARAMS];
        if (sscanf(line, "%127s %159s %d %zu%n", name, kernel_name, &n, &out_size, &consumed) != 4)
            continue;
        int nparams = 0;
        for (char *p = line + consumed; nparams < MAX_PARAMS && sscanf(p, "%zu%n", &in_sizes[nparams], &consumed) == 1;
             p += consumed)
            nparams++;
        total++;
        failed += run_case(lib, dir, name, kernel_name, n, out_size, in_sizes, nparams);
    }
    fclose(cases);
    udfkit_library_unload(lib);
    free(image);
    printf("%d passed, %d failed\n", total - failed, failed);
    return failed != 0 || total == 0;
}
