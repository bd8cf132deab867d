/* The example application: a fatbin built by udfkit is embedded in this program; with a
 * GPU it runs the kernel that applies the UDFs, without one it says what it carries. */
#include "price_fatbin.h"
#include "price_udfs.h"

#include <udfkit/runtime.h>

#include <stdio.h>

#define N 6

static int fail(const char *what, udfkit_status s)
{
    fprintf(stderr, "%s: %s: %s\n", what, udfkit_status_string(s), udfkit_last_error());
    return 1;
}

int main(void)
{
    size_t count;
    const udfkit_udf_info *udfs = price_udfs_udfs(&count);
    printf("embedded fatbin: %zu bytes (xxh3-128 %s)\n", price_fatbin_size, price_fatbin_hash);
    for (size_t i = 0; i < count; i++)
        printf("  UDF %-10s %-28s %s\n", udfs[i].c_name, udfs[i].signature, udfs[i].prototype);

    udfkit_library *lib;
    udfkit_status s = udfkit_library_load(price_fatbin, price_fatbin_size, &lib);
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("no GPU visible (%s): the kernel was not run\n", udfkit_last_error());
        return 0;
    }
    if (s)
        return fail("loading the fatbin", s);
    udfkit_kernel k;
    if ((s = udfkit_library_get_kernel(lib, "price_rows", &k)))
        return fail("finding price_rows", s);

    float price[N] = {10.0f, 2.5f, 99.99f, 0.5f, 1000.0f, 7.25f}, rate[N] = {0.1f, 0.0f, 0.5f, 0.2f, 0.25f, 1.0f};
    int stock[N] = {-5, 0, 50, 100, 250, 7};
    long long units[N] = {3, 40000000000LL, 1, 17, 2, 5};
    float net[N];
    int capped[N];
    long long total[N];
    void *d[7];
    size_t sizes[7] = {sizeof price, sizeof rate, sizeof stock, sizeof units, sizeof net, sizeof capped, sizeof total};
    const void *host_in[4] = {price, rate, stock, units};
    for (int i = 0; i < 7; i++)
        if ((s = udfkit_device_alloc(sizes[i], &d[i])) || (i < 4 && (s = udfkit_copy_to_device(d[i], host_in[i], sizes[i]))))
            return fail("device memory", s);
    int n = N;
    void *args[] = {&d[0], &d[1], &d[2], &d[3], &d[4], &d[5], &d[6], &n};
    if ((s = udfkit_launch(k, (udfkit_dim3){1, 1, 1}, (udfkit_dim3){64, 1, 1}, 0, NULL, args)) ||
        (s = udfkit_synchronize()))
        return fail("running price_rows", s);
    if ((s = udfkit_copy_to_host(net, d[4], sizeof net)) || (s = udfkit_copy_to_host(capped, d[5], sizeof capped)) ||
        (s = udfkit_copy_to_host(total, d[6], sizeof total)))
        return fail("copying results", s);
    printf("%8s %6s %6s %12s | %9s %6s %14s\n", "price", "rate", "stock", "units", "discount", "clamp", "cents");
    for (int i = 0; i < N; i++)
        printf("%8.2f %6.2f %6d %12lld | %9.3f %6d %14lld\n", price[i], rate[i], stock[i], units[i], net[i], capped[i],
               total[i]);
    for (int i = 0; i < 7; i++)
        udfkit_device_free(d[i]);
    udfkit_library_unload(lib);
    return 0;
}
