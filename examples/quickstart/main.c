/* Applies the quickstart UDFs to a small table through the generated launchers. */
#include "quickstart_kernels.h"
#include "quickstart_udfs.h"

#include <stdio.h>

#define N 8

static int fail(const char *what, udfkit_status s)
{
    fprintf(stderr, "%s: %s: %s\n", what, udfkit_status_string(s), udfkit_last_error());
    return 1;
}

int main(void)
{
    size_t count;
    const udfkit_udf_info *udfs = quickstart_udfs_udfs(&count);
    printf("quickstart_kernels: map(discount), filter(is_big), reduce(add_f32) over these UDFs:\n");
    for (size_t i = 0; i < count; i++)
        printf("  %-9s %s\n", udfs[i].c_name, udfs[i].signature);

    udfkit_status s = quickstart_kernels_load();
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("no GPU visible (%s): nothing was run\n", udfkit_last_error());
        return 0;
    }
    if (s)
        return fail("loading the kernels", s);

    const float price[N] = {10.0f, 250.0f, 99.0f, 120.0f, 40.0f, 400.0f, 100.0f, 5.0f};
    const float rate[N] = {0.1f, 0.2f, 0.0f, 0.5f, 1.5f, 0.25f, 0.0f, -0.3f};
    float *d_price, *d_rate, *d_net, *d_total;
    uint64_t *d_indices, *d_count;
    if ((s = udfkit_device_alloc(sizeof price, (void **)&d_price)) || (s = udfkit_device_alloc(sizeof rate, (void **)&d_rate)) ||
        (s = udfkit_device_alloc(sizeof price, (void **)&d_net)) || (s = udfkit_device_alloc(sizeof(float), (void **)&d_total)) ||
        (s = udfkit_device_alloc(N * sizeof(uint64_t), (void **)&d_indices)) ||
        (s = udfkit_device_alloc(sizeof(uint64_t), (void **)&d_count)) ||
        (s = udfkit_copy_to_device(d_price, price, sizeof price)) || (s = udfkit_copy_to_device(d_rate, rate, sizeof rate)))
        return fail("device memory", s);

    /* All three on the default stream: no synchronization until the results are read. */
    if ((s = quickstart_kernels_map_discount(NULL, N, d_price, d_rate, d_net)) ||
        (s = quickstart_kernels_filter_is_big(NULL, N, d_net, d_indices, d_count)) ||
        (s = quickstart_kernels_reduce_add_f32(NULL, N, d_net, 0.0f, d_total)) || (s = udfkit_synchronize()))
        return fail("running the kernels", s);

    float net[N], total;
    uint64_t indices[N], big;
    if ((s = udfkit_copy_to_host(net, d_net, sizeof net)) || (s = udfkit_copy_to_host(&total, d_total, sizeof total)) ||
        (s = udfkit_copy_to_host(&big, d_count, sizeof big)) || (s = udfkit_copy_to_host(indices, d_indices, sizeof indices)))
        return fail("reading the results", s);

    printf("%8s %6s %10s\n", "price", "rate", "discount");
    for (int i = 0; i < N; i++)
        printf("%8.2f %6.2f %10.2f\n", price[i], rate[i], net[i]);
    printf("rows with a discounted price >= 100:");
    for (uint64_t i = 0; i < big; i++)
        printf(" %llu", (unsigned long long)indices[i]);
    printf("\nsum of discounted prices: %.2f\n", total);

    udfkit_device_free(d_price);
    udfkit_device_free(d_rate);
    udfkit_device_free(d_net);
    udfkit_device_free(d_total);
    udfkit_device_free(d_indices);
    udfkit_device_free(d_count);
    quickstart_kernels_unload();
    return 0;
}
