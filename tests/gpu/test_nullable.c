/* Nullable UDFs on a GPU (tests/data/nullable): CUDA C in both forms (cuda::std::optional,
 * and the C ABI pairs themselves) and Python (None in, None out), called by kernels through
 * the pairs their headers declare, over rows with and without nulls; every row checked.
 *
 * usage: test_nullable <fatbin>   (exit 77 where no GPU is visible) */
#include <udfkit/runtime.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1000 };
static int failures, passes;

static void *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        exit(2);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    void *data = malloc(*size);
    if (fread(data, 1, *size, f) != *size)
        exit(2);
    fclose(f);
    return data;
}

static void *up(const void *host, size_t bytes)
{
    void *d = NULL;
    if (udfkit_device_alloc(bytes, &d) || udfkit_copy_to_device(d, host, bytes))
        exit(1);
    return d;
}

static void down(void *host, void *device, size_t bytes)
{
    if (udfkit_synchronize() || udfkit_copy_to_host(host, device, bytes))
        exit(1);
}

static void launch(udfkit_library *lib, const char *name, void **args)
{
    udfkit_kernel k;
    if (udfkit_library_get_kernel(lib, name, &k) || udfkit_launch(k, (udfkit_dim3){(N + 127) / 128, 1, 1},
                                                                   (udfkit_dim3){128, 1, 1}, 0, NULL, args)) {
        fprintf(stderr, "%s: %s\n", name, udfkit_last_error());
        exit(1);
    }
}

static void report(const char *name, int wrong)
{
    printf("%-16s %s (%d of %d rows wrong)\n", name, wrong ? "FAIL" : "ok", wrong, N);
    wrong ? failures++ : passes++;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    size_t size;
    void *image = read_all(argv[1], &size);
    udfkit_library *lib;
    udfkit_status s = udfkit_library_load(image, size, &lib);
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        free(image);
        return 77;
    }
    if (s) {
        fprintf(stderr, "load: %s\n", udfkit_last_error());
        return 1;
    }
    static float fa[N], fb[N], fo[N];
    static double da[N], db[N], dout[N];
    static int ia[N], ib[N], io[N];
    static long long la[N], lb[N], lo[N];
    static bool av[N], bv[N], ov[N];
    int n = N;
    for (int i = 0; i < N; i++) {
        fa[i] = (float)i * 0.25f - 50.0f;
        fb[i] = (float)(N - i);
        da[i] = i * 1.5 - 100.0;
        db[i] = (i % 7) - 3.0; /* zero every 7th row */
        ia[i] = i;
        ib[i] = -i;
        la[i] = i;
        lb[i] = i % 10;
        av[i] = i % 3 != 0;   /* a third null */
        bv[i] = i % 5 != 0;   /* a fifth null */
    }
    void *dfa = up(fa, sizeof fa), *dfb = up(fb, sizeof fb), *dfo = up(fo, sizeof fo);
    void *dda = up(da, sizeof da), *ddb = up(db, sizeof db), *ddo = up(dout, sizeof dout);
    void *dia = up(ia, sizeof ia), *dib = up(ib, sizeof ib), *dio = up(io, sizeof io);
    void *dla = up(la, sizeof la), *dlb = up(lb, sizeof lb), *dlo = up(lo, sizeof lo);
    void *dav = up(av, sizeof av), *dbv = up(bv, sizeof bv), *dov = up(ov, sizeof ov);

    const char *coalesce_kernels[] = {"k_coalesce", "k_py_coalesce"};
    for (int k = 0; k < 2; k++) {
        launch(lib, coalesce_kernels[k], (void *[]){&dfa, &dav, &dfb, &dfo, &dov, &n});
        down(fo, dfo, sizeof fo);
        down(ov, dov, sizeof ov);
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += !ov[i] || fo[i] != (av[i] ? fa[i] : fb[i]);
        report(coalesce_kernels[k], wrong);
    }
    const char *div_kernels[] = {"k_safe_div", "k_py_safe_div"};
    for (int k = 0; k < 2; k++) {
        launch(lib, div_kernels[k], (void *[]){&dda, &ddb, &ddo, &dov, &n});
        down(dout, ddo, sizeof dout);
        down(ov, dov, sizeof ov);
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += db[i] == 0.0 ? ov[i] : (!ov[i] || dout[i] != da[i] / db[i]);
        report(div_kernels[k], wrong);
    }
    launch(lib, "k_first_valid", (void *[]){&dia, &dav, &dib, &dbv, &dio, &dov, &n});
    down(io, dio, sizeof io);
    down(ov, dov, sizeof ov);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += av[i] ? (!ov[i] || io[i] != ia[i]) : bv[i] ? (!ov[i] || io[i] != ib[i]) : ov[i];
    report("k_first_valid", wrong);

    launch(lib, "k_halve", (void *[]){&dfa, &dfo, &dov, &n});
    down(fo, dfo, sizeof fo);
    down(ov, dov, sizeof ov);
    wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += ov[i] != (fa[i] > 0.0f) || fo[i] != fa[i] * 0.5f;
    report("k_halve", wrong);

    launch(lib, "k_py_both", (void *[]){&dla, &dav, &dlb, &dbv, &dlo, &dov, &n});
    down(lo, dlo, sizeof lo);
    down(ov, dov, sizeof ov);
    wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += (av[i] && bv[i]) ? (!ov[i] || lo[i] != la[i] * 10 + lb[i]) : ov[i];
    report("k_py_both", wrong);

    udfkit_library_unload(lib);
    free(image);
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
