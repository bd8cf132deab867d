/* Loads a fatbin built on the CPU machine and runs its kernel over a few thousand inputs,
 * checking every result against the same arithmetic on the host.
 * usage: test_udf_kernels <fatbin> <kernel name>; exit 77 (skipped) without a GPU. */
#include <udfkit/runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4099 /* not a multiple of the block size */

static int check(udfkit_status s, const char *what)
{
    if (s != UDFKIT_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, udfkit_status_string(s), udfkit_last_error());
        return 1;
    }
    return 0;
}

static int read_file(const char *path, void **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 1;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc(*size);
    size_t got = fread(*data, 1, *size, f);
    fclose(f);
    return got != *size;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s <fatbin> <kernel>\n", argv[0]);
        return 2;
    }
    void *image;
    size_t image_size;
    if (read_file(argv[1], &image, &image_size)) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    udfkit_library *lib = NULL;
    udfkit_status s = udfkit_library_load(image, image_size, &lib);
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        free(image);
        return 77;
    }
    if (check(s, "udfkit_library_load"))
        return 1;
    udfkit_kernel k;
    if (check(udfkit_library_get_kernel(lib, argv[2], &k), "udfkit_library_get_kernel"))
        return 1;

    static float x[N], y[N];
    static int v[N], c[N];
    static long long w[N], z[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)i * 0.37f - 700.0f;
        v[i] = (i * 7919) % 61 - 30;
        w[i] = (long long)i * 40000007LL - 90000000000LL; /* beyond 32 bits, no overflow */
    }
    void *dx, *dv, *dw, *dy, *dc, *dz;
    int failed = check(udfkit_device_alloc(sizeof x, &dx), "alloc") || check(udfkit_device_alloc(sizeof v, &dv), "alloc") ||
                 check(udfkit_device_alloc(sizeof w, &dw), "alloc") || check(udfkit_device_alloc(sizeof y, &dy), "alloc") ||
                 check(udfkit_device_alloc(sizeof c, &dc), "alloc") || check(udfkit_device_alloc(sizeof z, &dz), "alloc") ||
                 check(udfkit_copy_to_device(dx, x, sizeof x), "copy") || check(udfkit_copy_to_device(dv, v, sizeof v), "copy") ||
                 check(udfkit_copy_to_device(dw, w, sizeof w), "copy");
    if (failed)
        return 1;
    int n = N;
    void *args[] = {&dx, &dv, &dw, &dy, &dc, &dz, &n};
    udfkit_dim3 block = {256, 1, 1}, grid = {(N + 255) / 256, 1, 1};
    if (check(udfkit_launch(k, grid, block, 0, NULL, args), "udfkit_launch") ||
        check(udfkit_synchronize(), "udfkit_synchronize") || check(udfkit_copy_to_host(y, dy, sizeof y), "copy back") ||
        check(udfkit_copy_to_host(c, dc, sizeof c), "copy back") || check(udfkit_copy_to_host(z, dz, sizeof z), "copy back"))
        return 1;

    int wrong = 0;
    for (int i = 0; i < N; i++) {
        float ey = fmaf(x[i], 2.5f, 0.5f);
        int ec = v[i] < -10 ? -10 : (v[i] > 10 ? 10 : v[i]);
        long long ez = w[i] * 1000003LL + i;
        /* The device may contract x*k+b into one FMA or not: allow one rounding. */
        if (fabsf(y[i] - ey) > 1e-6f * fabsf(ey) + 1e-6f || c[i] != ec || z[i] != ez) {
            if (wrong++ < 5)
                fprintf(stderr, "row %d: got (%g, %d, %lld), want (%g, %d, %lld)\n", i, y[i], c[i], z[i], ey, ec, ez);
        }
    }
    udfkit_device_free(dx);
    udfkit_device_free(dv);
    udfkit_device_free(dw);
    udfkit_device_free(dy);
    udfkit_device_free(dc);
    udfkit_device_free(dz);
    udfkit_library_unload(lib);
    free(image);
    printf("%s: %s over %d rows: %d wrong\n", argv[1], argv[2], N, wrong);
    return wrong != 0;
}
