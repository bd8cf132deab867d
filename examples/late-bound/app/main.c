/* The application: binds the engine's slots (price, keep) to a user's UDF package,
 * installed by another project, and to UDFs it compiles from CUDA C text at run time, and
 * runs the engine's kernels with each binding side by side.
 *
 *   late_bound_app <package: an installed manifest or package fatbin>
 *
 * Without a GPU it opens the package, compiles the text for sm_75, and says why it stops
 * before binding. */
#include <engine.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static int fail(const char *what, udfkit_status s)
{
    fprintf(stderr, "%s: %s: %s\n", what, udfkit_status_string(s), udfkit_last_error());
    return 1;
}

/* What the user's text defines, compiled at run time. */
static const char user_source[] = "// Compiled by the application at run time.\n"
                                  "__device__ float surcharge(float price, float rate) { return price * (1.0f + rate); }\n"
                                  "__device__ bool is_cheap(float price) { return price < 20.0f; }\n";
static const char *const user_specs[] = {"surcharge:float32(float32, float32)", "is_cheap:bool(float32)"};

static void list(const char *what, const udfkit_package *pkg)
{
    printf("%s:", what);
    for (size_t i = 0; i < udfkit_package_function_count(pkg); i++) {
        const char *name, *sig;
        udfkit_package_function(pkg, i, &name, &sig);
        printf(" %s %s;", name, sig);
    }
    printf("\n");
}

/* Runs map(price), filter(keep), transform_reduce(price, add) and the engine's own kernel
 * with one instance, and checks them against the same functions on the host. */
static int run(const char *name, engine_instance *inst, float (*price)(float, float), int (*keep)(float))
{
    float a[N], b[N], out[N], sum = 0, want_sum = 0;
    uint64_t rows[N], count = 0;
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 200);
        b[i] = (float)(i % 10) / 20.0f;
    }
    float *da, *db, *dout, *dsum;
    uint64_t *drows, *dcount;
    udfkit_status s;
    if ((s = udfkit_device_alloc(sizeof a, (void **)&da)) || (s = udfkit_device_alloc(sizeof b, (void **)&db)) ||
        (s = udfkit_device_alloc(sizeof out, (void **)&dout)) || (s = udfkit_device_alloc(sizeof sum, (void **)&dsum)) ||
        (s = udfkit_device_alloc(sizeof rows, (void **)&drows)) ||
        (s = udfkit_device_alloc(sizeof count, (void **)&dcount)))
        return fail("udfkit_device_alloc", s);
    udfkit_copy_to_device(da, a, sizeof a);
    udfkit_copy_to_device(db, b, sizeof b);
    if ((s = engine_map_price(inst, NULL, N, da, db, dout)) || (s = udfkit_copy_to_host(out, dout, sizeof out)))
        return fail("engine_map_price", s);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += fabsf(out[i] - price(a[i], b[i])) > 1e-4f * (1 + fabsf(out[i]));
    /* The filter keeps the rows whose price passes keep. */
    if ((s = engine_filter_keep(inst, NULL, N, dout, drows, dcount)) ||
        (s = udfkit_copy_to_host(&count, dcount, sizeof count)) || (s = udfkit_copy_to_host(rows, drows, sizeof rows)))
        return fail("engine_filter_keep", s);
    uint64_t want = 0;
    for (int i = 0; i < N; i++)
        if (keep(out[i]))
            bad += want >= count || rows[want++] != (uint64_t)i;
    bad += want != count;
    if ((s = engine_transform_reduce_price_add(inst, NULL, N, da, db, 0.0f, dsum)) ||
        (s = udfkit_copy_to_host(&sum, dsum, sizeof sum)))
        return fail("engine_transform_reduce_price_add", s);
    for (int i = 0; i < N; i++)
        want_sum += price(a[i], b[i]);
    bad += fabsf(sum - want_sum) > 1e-3f * fabsf(want_sum);
    /* The engine's own kernel, by name, calls the bound functions too. */
    udfkit_kernel k;
    unsigned long long n = N;
    void *args[] = {&n, &da, &db, &dout};
    if ((s = udfkit_library_get_kernel(engine_instance_library(inst), "engine_price_or_zero", &k)) ||
        (s = udfkit_launch(k, (udfkit_dim3){4, 1, 1}, (udfkit_dim3){256, 1, 1}, 0, NULL, args)) ||
        (s = udfkit_copy_to_host(out, dout, sizeof out)))
        return fail("engine_price_or_zero", s);
    for (int i = 0; i < N; i++) {
        float p = price(a[i], b[i]);
        bad += fabsf(out[i] - (keep(p) ? p : 0.0f)) > 1e-4f * (1 + fabsf(p));
    }
    printf("%s: map, filter (%llu of %d rows kept), transform_reduce (%.1f) and engine_price_or_zero: %s\n", name,
           (unsigned long long)count, N, sum, bad ? "WRONG" : "as on the host");
    void *ptrs[] = {da, db, dout, dsum, drows, dcount};
    for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++)
        udfkit_device_free(ptrs[i]);
    return bad != 0;
}

static float discount(float price, float rate)
{
    float p = price * (1.0f - rate);
    return p > 0.0f ? p : 0.0f;
}
static int is_big(float p) { return p > 50.0f; }
static float surcharge(float price, float rate) { return price * (1.0f + rate); }
static int is_cheap(float p) { return p < 20.0f; }

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <UDF package: manifest or fatbin>\n", argv[0]);
        return 2;
    }
    printf("engine slots:");
    for (size_t i = 0; i < engine_slot_count(); i++)
        printf(" %s %s;", engine_slot(i)->name, engine_slot(i)->signature);
    printf("\n");
    udfkit_package *shop = NULL, *user = NULL;
    udfkit_status s = udfkit_package_open(argv[1], &shop);
    if (s)
        return fail(argv[1], s);
    list(argv[1], shop);

    int major = 0;
    udfkit_status gpu = udfkit_device_attribute(UDFKIT_DEVICE_COMPUTE_CAPABILITY_MAJOR, &major);
    char why[512];
    snprintf(why, sizeof why, "%s", udfkit_last_error()); /* the next calls set their own */
    /* Without a GPU the text is compiled for sm_75, to show it compiles; binding needs one. */
    const char *no_gpu_options[] = {"--arch=75"};
    s = udfkit_compile_source("user.cu", user_source, user_specs, 2, gpu ? no_gpu_options : NULL, gpu ? 1 : 0, &user);
    if (s)
        return fail("udfkit_compile_source", s);
    list("user.cu (compiled at run time)", user);
    if (gpu) {
        printf("no GPU here (%s): the engine is bound where one is\n", why);
        udfkit_package_close(shop);
        udfkit_package_close(user);
        return 0;
    }

    /* A slot takes a function of its own signature only: told before anything is linked. */
    engine_instance *wrong = NULL;
    const udfkit_slot_binding mismatched[] = {{"price", shop, "is_big"}, {"keep", shop, "is_big"}};
    s = engine_bind(mismatched, 2, &wrong);
    printf("binding price to is_big: %s: %s\n", udfkit_status_string(s), udfkit_last_error());

    engine_instance *shop_engine = NULL, *user_engine = NULL;
    const udfkit_slot_binding to_shop[] = {{"price", shop, "discount"}, {"keep", shop, "is_big"}};
    const udfkit_slot_binding to_user[] = {{"price", user, "surcharge"}, {"keep", user, "is_cheap"}};
    if ((s = engine_bind(to_shop, 2, &shop_engine)))
        return fail("engine_bind (shop package)", s);
    if ((s = engine_bind(to_user, 2, &user_engine)))
        return fail("engine_bind (compiled text)", s);
    /* The packages can go: what was bound stays. */
    udfkit_package_close(shop);
    udfkit_package_close(user);
    int bad = run("engine bound to the shop package", shop_engine, discount, is_big);
    bad |= run("engine bound to run-time compiled text", user_engine, surcharge, is_cheap);
    engine_release(shop_engine);
    engine_release(user_engine);
    return bad;
}
