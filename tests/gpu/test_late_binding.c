/* Late binding on a GPU (docs/late-binding.md): an engine library whose kernels call five
 * slots (late_engine, built with add_jit_library(... SLOTS ...) for the lowest
 * architecture, and late_engine_each, per architecture), bound to a CUDA C package (its
 * manifest), a Python package (its fatbin, every slot bound to a function of another name)
 * and CUDA C text compiled here at run time; each instance's launchers and the engine's
 * own kernel against the same functions on the host, instances side by side, binding the
 * same code again, and the bindings that must fail, each with its status, leaving nothing
 * loaded; an engine with optional slots (late_hooks_engine) bound with and without them.
 *
 * usage: test_late_binding <dir with cuda.json, cuda.fatbin, py.json, py.fatbin, clash.json,
 *                           future.json, newer.json>; exit 77 (skipped) without a GPU. */
#include "gpu_test.h"
#include "late_calls_engine.h"
#include "late_engine.h"
#include "late_engine_each.h"
#include "late_hooks_engine.h"

#include <udfkit/arrow.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The runtime's count of bound libraries it holds (bind.c), to see that a failed bind leaves
 * nothing loaded. */
size_t udfkit_bound_library_count(void);

static const char *dir;

static char *path_of(const char *name)
{
    static char buf[4][4096];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* The functions each binding computes, on the host. */
typedef struct host_fns {
    const char *name;
    float (*price)(float, float);
    int (*keep)(float);
    long long (*widen)(int);
    int (*before)(float, float);
    /* maybe_price(list valid?, list, rate) -> valid?, value */
    int (*maybe_price)(int valid, float list, float rate, float *out);
} host_fns;

static float c_price(float l, float r) { return l * (1.0f - r); }
static int c_keep(float p) { return p >= 10.0f; }
static long long c_widen(int x) { return (long long)x * 3 - 7; }
static int c_before(float a, float b) { return a > b; }
static int c_maybe(int valid, float l, float r, float *out)
{
    if (!valid || l < 0.0f)
        return 0;
    *out = l * (1.0f - r);
    return 1;
}
static float p_price(float p, float r) { return (float)((double)p * (1.0 + (double)r)); }
static int p_keep(float p) { return floorf(p) == p; }
static long long p_widen(int x) { return (long long)x * 3; }
static int p_maybe(int valid, float p, float r, float *out)
{
    if (!valid)
        return 0;
    *out = (float)((double)p * 2.0 + (double)r);
    return 1;
}
static float t_price(float l, float r) { return l - r * 10.0f; }
static int t_keep(float p) { return p < 40.0f; }
static long long t_widen(int x) { return -(long long)x; }
static int t_before(float a, float b) { return a < b; }
static int t_maybe(int valid, float l, float r, float *out)
{
    (void)r;
    if (!valid)
        return 0;
    *out = l + 1.0f;
    return 1;
}

static const host_fns cuda_fns = {"the CUDA C package", c_price, c_keep, c_widen, c_before, c_maybe};
static const host_fns python_fns = {"the Python package", p_price, p_keep, p_widen, c_before, p_maybe};
static const host_fns text_fns = {"the run-time compiled text", t_price, t_keep, t_widen, t_before, t_maybe};

static int close_enough(float got, float want)
{
    return fabsf(got - want) <= 1e-5f * (1.0f + fabsf(want));
}

/* Every launcher of one instance, and the engine's own kernel, over n rows. The launchers
 * are late_engine's or late_engine_each's (the same entries); `each` picks. */
static void run_instance(void *inst, int each, const host_fns *f, size_t n)
{
    char what[256];
    float *a = malloc(n * sizeof *a + 1), *b = malloc(n * sizeof *b + 1), *out = malloc(n * sizeof *out + 1);
    int32_t *x = malloc(n * sizeof *x + 1);
    int64_t *wide = malloc(n * sizeof *wide + 1);
    uint64_t *rows = malloc(n * sizeof *rows + 1), *order = malloc(n * sizeof *order + 1);
    uint8_t *bits = calloc(n / 8 + 1, 1), *out_bits = calloc(n / 8 + 1, 1);
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(next_random() % 400) / 4.0f - 5.0f;
        b[i] = (float)(next_random() % 8) / 16.0f;
        x[i] = (int32_t)(next_random() % 20001) - 10000;
        if (next_random() % 10)
            bits[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    float *da = device_copy(a, n * sizeof *a), *db = device_copy(b, n * sizeof *b), *dout = device_copy(NULL, n * 4);
    float *dsum = device_copy(NULL, 4), *dvals = device_copy(NULL, n * 4);
    int32_t *dx = device_copy(x, n * sizeof *x);
    int64_t *dwide = device_copy(NULL, n * 8), *dtotal = device_copy(NULL, 8);
    uint64_t *drows = device_copy(NULL, n * 8), *dcount = device_copy(NULL, 8), *dorder = device_copy(NULL, n * 8),
             *dnulls = device_copy(NULL, 8);
    uint8_t *dbits = device_copy(bits, n / 8 + 1), *dout_bits = device_copy(NULL, n / 8 + 1);
    if (!da || !db || !dout || !dsum || !dvals || !dx || !dwide || !dtotal || !drows || !dcount || !dorder || !dnulls || !dbits ||
        !dout_bits)
        return;
#define CALL(fn, ...) (each ? late_engine_each_##fn((late_engine_each_instance *)inst, __VA_ARGS__) \
                            : late_engine_##fn((late_engine_instance *)inst, __VA_ARGS__))
    snprintf(what, sizeof what, "%s%s, %zu rows", f->name, each ? " (per architecture)" : "", n);
    /* map(price) */
    if (!check(CALL(map_price, NULL, n, da, db, dout), "map(price)") &&
        !check(udfkit_copy_to_host(out, dout, n * 4), "copy")) {
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += !close_enough(out[i], f->price(a[i], b[i]));
        if (bad) {
            fprintf(stderr, "%s: map(price): %zu rows wrong\n", what, bad);
            failures++;
        }
    }
    /* filter(keep) over the prices, and filter(keep, values) */
    uint64_t count = 0;
    if (!check(CALL(filter_keep, NULL, n, dout, drows, dcount), "filter(keep)") &&
        !check(udfkit_copy_to_host(&count, dcount, 8), "copy") &&
        !check(udfkit_copy_to_host(rows, drows, n * 8), "copy")) {
        uint64_t k = 0, bad = 0;
        for (size_t i = 0; i < n; i++)
            if (f->keep(out[i]))
                bad += k >= count || rows[k++] != i;
        if (bad || k != count) {
            fprintf(stderr, "%s: filter(keep): %llu kept, %llu expected, %llu wrong\n", what,
                    (unsigned long long)count, (unsigned long long)k, (unsigned long long)bad);
            failures++;
        }
    }
    if (!check(CALL(filter_keep_values, NULL, n, dout, dvals, dcount), "filter(keep, values)") &&
        !check(udfkit_copy_to_host(&count, dcount, 8), "copy")) {
        float *kept = malloc(n * 4 + 4);
        uint64_t k = 0, bad = 0;
        udfkit_copy_to_host(kept, dvals, n * 4);
        for (size_t i = 0; i < n; i++)
            if (f->keep(out[i]))
                bad += k >= count || kept[k++] != out[i];
        if (bad || k != count) {
            fprintf(stderr, "%s: filter(keep, values): %llu wrong\n", what, (unsigned long long)bad);
            failures++;
        }
        free(kept);
    }
    /* transform_reduce(price, add_f32): the engine's own op over the bound function */
    float sum = 0;
    double want = 0;
    for (size_t i = 0; i < n; i++)
        want += f->price(a[i], b[i]);
    if (!check(CALL(transform_reduce_price_add_f32, NULL, n, da, db, 0.5f, dsum), "transform_reduce") &&
        !check(udfkit_copy_to_host(&sum, dsum, 4), "copy") &&
        fabs((double)sum - (want + 0.5)) > 1e-3 * (1.0 + fabs(want))) {
        fprintf(stderr, "%s: transform_reduce: %g, %g expected\n", what, (double)sum, want + 0.5);
        failures++;
    }
    /* map(widen), then reduce(add_i64) of it */
    int64_t total = 0, want_total = 3;
    if (!check(CALL(map_widen, NULL, n, dx, dwide), "map(widen)") &&
        !check(CALL(reduce_add_i64, NULL, n, dwide, 3, dtotal), "reduce(add_i64)") &&
        !check(udfkit_copy_to_host(wide, dwide, n * 8), "copy") && !check(udfkit_copy_to_host(&total, dtotal, 8), "copy")) {
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            bad += wide[i] != f->widen(x[i]);
            want_total += f->widen(x[i]);
        }
        if (bad || total != want_total) {
            fprintf(stderr, "%s: map(widen): %zu wrong, reduce %lld / %lld\n", what, bad, (long long)total,
                    (long long)want_total);
            failures++;
        }
    }
    /* sort(before), stable, with the order */
    if (!check(CALL(sort_before, NULL, n, da, dout, dorder), "sort(before)") &&
        !check(udfkit_copy_to_host(out, dout, n * 4), "copy") && !check(udfkit_copy_to_host(order, dorder, n * 8), "copy")) {
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            bad += order[i] >= n || out[i] != a[order[i]];
            if (i && (f->before(out[i], out[i - 1]) ||
                      (!f->before(out[i - 1], out[i]) && order[i] < order[i - 1]))) /* stable */
                bad++;
        }
        if (bad) {
            fprintf(stderr, "%s: sort(before): %zu wrong\n", what, bad);
            failures++;
        }
    }
    /* nullable_map(maybe_price): a T? function over an Arrow column */
    uint64_t nulls = 0;
    udfkit_mask m = {dbits, 0};
    if (!check(CALL(nullable_map_maybe_price, NULL, n, da, m, db, (udfkit_mask){NULL, 0}, dout, dout_bits, dnulls),
               "nullable_map(maybe_price)") &&
        !check(udfkit_copy_to_host(out, dout, n * 4), "copy") &&
        !check(udfkit_copy_to_host(out_bits, dout_bits, n / 8 + (n % 8 != 0)), "copy") &&
        !check(udfkit_copy_to_host(&nulls, dnulls, 8), "copy")) {
        size_t bad = 0, want_nulls = 0;
        for (size_t i = 0; i < n; i++) {
            float v = 0;
            int valid = f->maybe_price((bits[i / 8] >> (i % 8)) & 1, a[i], b[i], &v);
            int got = (out_bits[i / 8] >> (i % 8)) & 1;
            want_nulls += !valid;
            bad += got != valid || (valid && !close_enough(out[i], v));
        }
        if (bad || nulls != want_nulls) {
            fprintf(stderr, "%s: nullable_map(maybe_price): %zu wrong, %llu nulls (%zu expected)\n", what, bad,
                    (unsigned long long)nulls, want_nulls);
            failures++;
        }
    }
    /* The engine's own kernel, by name (late_engine only: late_engine_each has no SOURCES). */
    if (!each && n) {
        udfkit_kernel k;
        unsigned long long rows_n = n;
        void *args[] = {&rows_n, &da, &db, &dout};
        if (!check(udfkit_library_get_kernel(late_engine_instance_library(inst), "late_price_kept", &k), "get_kernel") &&
            !check(udfkit_launch(k, (udfkit_dim3){64, 1, 1}, (udfkit_dim3){256, 1, 1}, 0, NULL, args), "launch") &&
            !check(udfkit_copy_to_host(out, dout, n * 4), "copy")) {
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) {
                float p = f->price(a[i], b[i]);
                bad += !close_enough(out[i], f->keep(p) ? p : -1.0f);
            }
            if (bad) {
                fprintf(stderr, "%s: late_price_kept: %zu wrong\n", what, bad);
                failures++;
            }
        }
    }
    /* No UDF failed a row. */
    check(each ? late_engine_each_udf_error(inst, NULL, NULL, NULL) : late_engine_udf_error(inst, NULL, NULL, NULL),
          "udf_error");
#undef CALL
    void *ptrs[] = {da, db, dout, dsum, dvals, dx, dwide, dtotal, drows, dcount, dorder, dnulls, dbits, dout_bits};
    for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++)
        udfkit_device_free(ptrs[i]);
    void *hosts[] = {a, b, out, x, wide, rows, order, bits, out_bits};
    for (size_t i = 0; i < sizeof hosts / sizeof *hosts; i++)
        free(hosts[i]);
}

/* A bind that must fail: its status, a message naming `needle`, no instance, nothing loaded. */
static void expect_failure(const char *what, const udfkit_slot_binding *b, size_t count, udfkit_status want,
                           const char *needle)
{
    size_t before = udfkit_bound_library_count();
    late_engine_instance *inst = (late_engine_instance *)1;
    udfkit_status s = late_engine_bind(b, count, &inst);
    if (s != want || inst != NULL || !strstr(udfkit_last_error(), needle) || udfkit_bound_library_count() != before) {
        fprintf(stderr, "%s: %s expected with '%s', got %s: %s (instance %p, %zu bound, %zu before)\n", what,
                udfkit_status_string(want), needle, udfkit_status_string(s), udfkit_last_error(), (void *)inst,
                udfkit_bound_library_count(), before);
        failures++;
    } else {
        printf("  %s: %s: %s\n", what, udfkit_status_string(s), udfkit_last_error());
    }
}

static udfkit_package *open_package(const char *name)
{
    udfkit_package *pkg = NULL;
    check(udfkit_package_open(path_of(name), &pkg), name);
    return pkg;
}

static const char text_source[] =
    "// Bound at run time: compiled from this text by udfkit_compile_source.\n"
    "#include <cuda/std/optional>\n"
    "__device__ float t_price(float l, float r) { return l - r * 10.0f; }\n"
    "__device__ bool t_keep(float p) { return p < 40.0f; }\n"
    "__device__ long long t_widen(int x) { return -(long long)x; }\n"
    "__device__ bool t_before(float a, float b) { return a < b; }\n"
    "__device__ cuda::std::optional<float> t_maybe(cuda::std::optional<float> l, float r)\n"
    "{\n"
    "    (void)r;\n"
    "    if (!l)\n"
    "        return cuda::std::nullopt;\n"
    "    return *l + 1.0f;\n"
    "}\n";
static const char *const text_specs[] = {"t_price:float32(float32, float32)", "t_keep:bool(float32)",
                                         "t_widen:int64(int32)", "t_before:bool(float32, float32)",
                                         "t_maybe:float32?(float32?, float32)"};

/* late_calls_engine: the engine's own comparator by_price(a, b) = price(a, 0.25) < price(b, 0.25)
 * (add_ptx_udf CALLS) calls the slot price, so its sort orders by whatever price is bound to:
 * ascending with the CUDA C package's (list * 0.75), descending with text whose price is -list.
 * Each result against a stable sort on the host with the same comparator. */
static float neg_price(float l, float r)
{
    (void)r;
    return -l;
}

static void sort_through_a_slot(const char *what, udfkit_package *pkg, const char *function,
                                float (*price)(float, float))
{
    const udfkit_slot_binding b[] = {{"price", pkg, function}};
    late_calls_engine_instance *inst = NULL;
    if (check(late_calls_engine_bind(b, 1, &inst), what))
        return;
    const size_t n = 5000;
    float *a = malloc(n * 4), *out = malloc(n * 4);
    uint64_t *order = malloc(n * 8);
    void *da = NULL, *dout = NULL, *dorder = NULL;
    for (size_t i = 0; i < n; i++)
        a[i] = (float)(int)(next_random() % 200) - 100.0f; /* many equal keys: stability shows */
    if (!check(udfkit_device_alloc(n * 4, &da), "alloc") && !check(udfkit_device_alloc(n * 4, &dout), "alloc") &&
        !check(udfkit_device_alloc(n * 8, &dorder), "alloc") && !check(udfkit_copy_to_device(da, a, n * 4), "copy") &&
        !check(late_calls_engine_sort_by_price(inst, NULL, n, da, dout, dorder), what) &&
        !check(udfkit_copy_to_host(out, dout, n * 4), "copy") &&
        !check(udfkit_copy_to_host(order, dorder, n * 8), "copy")) {
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            bad += order[i] >= n || out[i] != a[order[i]];
            if (i && (price(out[i], 0.25f) < price(out[i - 1], 0.25f) ||
                      (!(price(out[i - 1], 0.25f) < price(out[i], 0.25f)) && order[i] < order[i - 1])))
                bad++;
        }
        CHECK(bad == 0, "%s: sort(by_price) calling the slot: %zu rows out of order", what, bad);
    }
    udfkit_device_free(da);
    udfkit_device_free(dout);
    udfkit_device_free(dorder);
    free(a);
    free(out);
    free(order);
    late_calls_engine_release(inst);
}

/* An Arrow schema of one format (no children), released by the test. */
static void schema_release(struct ArrowSchema *t)
{
    t->release = NULL;
}

static struct ArrowSchema schema_of(const char *format)
{
    struct ArrowSchema t;
    memset(&t, 0, sizeof t);
    t.format = format;
    t.name = "";
    t.flags = ARROW_FLAG_NULLABLE;
    t.release = schema_release;
    return t;
}

static void array_release(struct ArrowArray *a)
{
    a->release = NULL;
}

/* A device array of `length` rows at `offset` over device buffers (validity may be NULL). */
static struct ArrowDeviceArray array_of(const void **buffers, const void *bits, const void *values, int64_t length,
                                        int64_t offset, int64_t nulls)
{
    struct ArrowDeviceArray a;
    memset(&a, 0, sizeof a);
    buffers[0] = bits;
    buffers[1] = values;
    a.array.length = length;
    a.array.offset = offset;
    a.array.null_count = nulls;
    a.array.n_buffers = 2;
    a.array.buffers = buffers;
    a.array.release = array_release;
    a.device_type = ARROW_DEVICE_CUDA;
    return a;
}

static int bit_at(const uint8_t *bits, int64_t i)
{
    return bits[i / 8] >> (i % 8) & 1;
}

/* late_hooks_engine's `_arrow` launchers (ARROW; docs/arrow.md) on a bound instance: map(price)
 * over a float32 column at offset 5 with nulls (every 7th row) and one without nulls, the
 * result's validity and values against the host; filter(keep) over the same column: the kept
 * rows' values; map(widen) over an int32 column at offset 3 to int64; a schema of the wrong
 * type refused naming the argument; bound without `keep`, its `_arrow` filter refused naming
 * the slot, its output untouched. */
static void arrow_on_slots(udfkit_package *cuda)
{
    enum { n = 2000, at = 5, xat = 3 };
    float a[n + at], b[n], got[n];
    int32_t x[n + xat];
    int64_t wide[n];
    uint8_t bits[(n + at + 7) / 8], got_bits[(n + 7) / 8];
    memset(bits, 0, sizeof bits);
    int64_t nulls = 0;
    for (int i = 0; i < n + at; i++) {
        a[i] = (float)(next_random() % 400) / 4.0f - 5.0f;
        if (i < at || (i - at) % 7 != 3)
            bits[i / 8] |= (uint8_t)(1u << (i % 8));
        else
            nulls++;
    }
    for (int i = 0; i < n; i++)
        b[i] = (float)(next_random() % 8) / 16.0f;
    for (int i = 0; i < n + xat; i++)
        x[i] = (int32_t)(next_random() % 20001) - 10000;
    void *da = device_copy(a, sizeof a), *db = device_copy(b, sizeof b), *dbits = device_copy(bits, sizeof bits),
         *dx = device_copy(x, sizeof x);
    for (int all = 0; all < 2 && da && db && dbits && dx; all++) {
        const udfkit_slot_binding slots[] = {{"price", cuda, NULL}, {"keep", cuda, NULL}, {"widen", cuda, NULL}};
        late_hooks_engine_instance *inst = NULL;
        if (check(late_hooks_engine_bind(slots, all ? 3 : 1, &inst), "arrow: bind"))
            break;
        const void *ba[2], *bb[2], *bx[2];
        struct ArrowDeviceArray in_a = array_of(ba, dbits, da, n, at, nulls), in_b = array_of(bb, NULL, db, n, 0, 0),
                                in_x = array_of(bx, NULL, dx, n, xat, 0);
        struct ArrowSchema f32 = schema_of("f"), i32 = schema_of("i");
        struct ArrowDeviceArray out;
        struct ArrowSchema out_type;
        memset(&out, 0, sizeof out);
        memset(&out_type, 0, sizeof out_type);
        if (!all) {
            udfkit_status st = late_hooks_engine_filter_keep_arrow(inst, NULL, &in_a, &f32, &out, &out_type);
            CHECK(st == UDFKIT_ERROR_INVALID_ARGUMENT && strstr(udfkit_last_error(), "optional slot 'keep'") &&
                      out.array.release == NULL && out_type.release == NULL,
                  "arrow: filter(keep) without its slot gave %s: %s", udfkit_status_string(st), udfkit_last_error());
            late_hooks_engine_release(inst);
            continue;
        }
        udfkit_status st = late_hooks_engine_map_price_arrow(inst, NULL, &in_a, &i32, &in_b, &f32, &out, &out_type);
        CHECK(st == UDFKIT_ERROR_INVALID_ARGUMENT && strstr(udfkit_last_error(), "t1 has type 'i'") && out.array.release == NULL,
              "arrow: map(price) over an int32 schema gave %s: %s", udfkit_status_string(st), udfkit_last_error());
        if (!check(late_hooks_engine_map_price_arrow(inst, NULL, &in_a, &f32, &in_b, &f32, &out, &out_type),
                   "arrow: map(price)")) {
            CHECK(out.array.length == n && out.array.offset == 0 && strcmp(out_type.format, "f") == 0 &&
                      out.array.n_buffers == 2 && out.array.buffers[0] != NULL,
                  "arrow: map(price)'s result: length %lld, format %s", (long long)out.array.length, out_type.format);
            if (out.array.length == n && out.array.buffers[0] &&
                !check(udfkit_copy_to_host(got, out.array.buffers[1], sizeof got), "copy") &&
                !check(udfkit_copy_to_host(got_bits, out.array.buffers[0], sizeof got_bits), "copy")) {
                int bad = 0;
                for (int i = 0; i < n; i++) {
                    const int valid = bit_at(bits, at + i);
                    bad += bit_at(got_bits, i) != valid || (valid && !close_enough(got[i], c_price(a[at + i], b[i])));
                }
                CHECK(bad == 0, "arrow: map(price): %d rows wrong", bad);
            }
            out.array.release(&out.array);
            out_type.release(&out_type);
        }
        if (!check(late_hooks_engine_filter_keep_arrow(inst, NULL, &in_a, &f32, &out, &out_type), "arrow: filter(keep)")) {
            int k = 0, bad = 0;
            for (int i = 0; i < n; i++)
                k += bit_at(bits, at + i) && c_keep(a[at + i]);
            CHECK(out.array.length == k && strcmp(out_type.format, "f") == 0, "arrow: filter(keep) kept %lld rows of %d",
                  (long long)out.array.length, k);
            if (out.array.length == k && !check(udfkit_copy_to_host(got, out.array.buffers[1], (size_t)k * 4), "copy")) {
                int j = 0;
                for (int i = 0; i < n; i++)
                    if (bit_at(bits, at + i) && c_keep(a[at + i]))
                        bad += got[j++] != a[at + i];
                CHECK(bad == 0, "arrow: filter(keep): %d rows wrong", bad);
            }
            out.array.release(&out.array);
            out_type.release(&out_type);
        }
        if (!check(late_hooks_engine_map_widen_arrow(inst, NULL, &in_x, &i32, &out, &out_type), "arrow: map(widen)")) {
            int bad = out.array.length != n || strcmp(out_type.format, "l") != 0;
            if (!bad && !check(udfkit_copy_to_host(wide, out.array.buffers[1], sizeof wide), "copy"))
                for (int i = 0; i < n; i++)
                    bad += wide[i] != c_widen(x[xat + i]);
            CHECK(bad == 0, "arrow: map(widen): %d rows wrong", bad);
            out.array.release(&out.array);
            out_type.release(&out_type);
        }
        late_hooks_engine_release(inst);
    }
    udfkit_device_free(da);
    udfkit_device_free(db);
    udfkit_device_free(dbits);
    udfkit_device_free(dx);
}

/* late_hooks_engine: price required, keep and widen optional (OPTIONAL_SLOTS). Bound to price
 * alone, map(price) runs and matches the host; filter(keep) and map(widen) fail naming their
 * slot and launch nothing (their outputs keep the values written before). Bound to all
 * three, every kernel matches the host. A device without the engine's SASS (it has sm_90's
 * only) links every kernel at the bind, which refuses to leave a slot unbound. */
static void optional_slots(udfkit_package *cuda, int sm)
{
    const size_t n = 3000;
    float *a = malloc(n * 4), *b = malloc(n * 4), *out = malloc(n * 4);
    int32_t *x = malloc(n * 4);
    int64_t *wide = malloc(n * 8);
    uint64_t *rows = malloc(n * 8), count = 0;
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(next_random() % 400) / 4.0f - 5.0f;
        b[i] = (float)(next_random() % 8) / 16.0f;
        x[i] = (int32_t)(next_random() % 20001) - 10000;
    }
    const uint64_t untouched = 0x5eed5eed5eed5eedull;
    float *da = device_copy(a, n * 4), *db = device_copy(b, n * 4), *dout = device_copy(NULL, n * 4);
    int32_t *dx = device_copy(x, n * 4);
    int64_t *dwide = device_copy(NULL, n * 8);
    uint64_t *drows = device_copy(NULL, n * 8), *dcount = device_copy(&untouched, 8);
    for (int all = 0; all < 2 && da && db && dout && dx && dwide && drows && dcount; all++) {
        const udfkit_slot_binding b_all[] = {{"price", cuda, NULL}, {"keep", cuda, NULL}, {"widen", cuda, NULL}};
        const char *what = all ? "optional slots bound" : "optional slots left unbound";
        late_hooks_engine_instance *inst = NULL;
        udfkit_status st = late_hooks_engine_bind(b_all, all ? 3 : 1, &inst);
        if (!all && sm != 90) {
            CHECK(st == UDFKIT_ERROR_INVALID_ARGUMENT && strstr(udfkit_last_error(), "no SASS for sm_"),
                  "%s on sm_%d (no SASS): the whole bind gave %s: %s", what, sm, udfkit_status_string(st),
                  udfkit_last_error());
            continue;
        }
        if (check(st, what))
            continue;
        CHECK(late_hooks_engine_slot_bound(inst, "price") && late_hooks_engine_slot_bound(inst, "keep") == all &&
                  late_hooks_engine_slot_bound(inst, "widen") == all,
              "%s: late_hooks_engine_slot_bound", what);
        if (!check(late_hooks_engine_map_price(inst, NULL, n, da, db, dout), what) &&
            !check(udfkit_copy_to_host(out, dout, n * 4), "copy")) {
            size_t bad = 0;
            for (size_t i = 0; i < n; i++)
                bad += !close_enough(out[i], c_price(a[i], b[i]));
            CHECK(bad == 0, "%s: map(price): %zu rows wrong", what, bad);
        }
        st = late_hooks_engine_filter_keep(inst, NULL, n, dout, drows, dcount);
        if (!all) {
            CHECK(st == UDFKIT_ERROR_INVALID_ARGUMENT && strstr(udfkit_last_error(), "optional slot 'keep'"),
                  "%s: filter(keep) gave %s: %s", what, udfkit_status_string(st), udfkit_last_error());
            st = late_hooks_engine_map_widen(inst, NULL, n, dx, dwide);
            CHECK(st == UDFKIT_ERROR_INVALID_ARGUMENT && strstr(udfkit_last_error(), "optional slot 'widen'"),
                  "%s: map(widen) gave %s: %s", what, udfkit_status_string(st), udfkit_last_error());
            if (!check(udfkit_copy_to_host(&count, dcount, 8), "copy"))
                CHECK(count == untouched, "%s: filter(keep) wrote its count", what);
        } else if (!check(st, "filter(keep)") && !check(udfkit_copy_to_host(&count, dcount, 8), "copy") &&
                   !check(udfkit_copy_to_host(rows, drows, n * 8), "copy") &&
                   !check(late_hooks_engine_map_widen(inst, NULL, n, dx, dwide), "map(widen)") &&
                   !check(udfkit_copy_to_host(wide, dwide, n * 8), "copy")) {
            uint64_t k = 0, bad = 0;
            for (size_t i = 0; i < n; i++)
                if (c_keep(out[i]))
                    bad += k >= count || rows[k++] != i;
            for (size_t i = 0; i < n; i++)
                bad += wide[i] != c_widen(x[i]);
            CHECK(bad == 0 && k == count, "%s: filter(keep) and map(widen): %llu rows wrong", what,
                  (unsigned long long)bad);
        }
        late_hooks_engine_release(inst);
    }
    udfkit_device_free(da);
    udfkit_device_free(db);
    udfkit_device_free(dout);
    udfkit_device_free(dx);
    udfkit_device_free(dwide);
    udfkit_device_free(drows);
    udfkit_device_free(dcount);
    free(a);
    free(b);
    free(out);
    free(x);
    free(wide);
    free(rows);
}

static void udfs_call_slots(udfkit_package *cuda)
{
    sort_through_a_slot("the engine's comparator calling price, bound to the CUDA C package", cuda, NULL, c_price);
    udfkit_package *neg = NULL;
    const char *spec = "neg:float32(float32, float32)";
    if (!check(udfkit_compile_source("neg.cu", "__device__ float neg(float l, float r) { return -l; }\n", &spec, 1,
                                     NULL, 0, &neg),
               "udfkit_compile_source neg"))
        sort_through_a_slot("the engine's comparator calling price, bound to run-time text (descending)", neg, "neg",
                            neg_price);
    udfkit_package_close(neg);
}

/* Binds whose link runs in the sandbox helper (the cache off, so that the link runs): text
 * compiled with a time limit (the helper unconfined), and text compiled untrusted (confined by
 * Landlock; where this machine's kernel cannot, the compile says so and that part is left
 * out), each run as the text compiled in the process is; and a bind cancelled by its
 * package's token, which fails leaving nothing loaded. */
static void bind_and_run_sandboxed(const char *what, const udfkit_compile_options *copts)
{
    udfkit_package *pkg = NULL;
    udfkit_status s = udfkit_compile_source_with(what, text_source, text_specs, 5, NULL, 0, copts, &pkg);
    if (s == UDFKIT_ERROR_TOOLCHAIN && copts->untrusted) {
        printf("  %s: left out: %s\n", what, udfkit_last_error());
        return;
    }
    if (check(s, what))
        return;
    const udfkit_slot_binding to_pkg[] = {{"price", pkg, "t_price"}, {"keep", pkg, "t_keep"}, {"widen", pkg, "t_widen"},
                                          {"before", pkg, "t_before"}, {"maybe_price", pkg, "t_maybe"}};
    late_engine_instance *inst = NULL;
    if (!check(late_engine_bind(to_pkg, 5, &inst), what)) {
        run_instance(inst, 0, &text_fns, 1000);
        run_instance(inst, 0, &text_fns, ((size_t)1 << 20) + 7);
        printf("  %s: bound in the sandbox and run\n", what);
    }
    late_engine_release(inst);
    udfkit_package_close(pkg);
}

static void sandboxed_binds(void)
{
    setenv("UDFKIT_CACHE", "0", 1);
    udfkit_compile_options copts = UDFKIT_COMPILE_OPTIONS_INIT;
    copts.time_limit = 300;
    bind_and_run_sandboxed("limited.cu", &copts);
    copts.untrusted = 1;
    bind_and_run_sandboxed("untrusted.cu", &copts);
    udfkit_cancel *token = NULL;
    udfkit_package *stopped = NULL;
    check(udfkit_cancel_create(&token), "udfkit_cancel_create");
    copts = (udfkit_compile_options)UDFKIT_COMPILE_OPTIONS_INIT;
    copts.cancel = token;
    if (!check(udfkit_compile_source_with("cancelled.cu", text_source, text_specs, 5, NULL, 0, &copts, &stopped),
               "udfkit_compile_source_with (to be cancelled)")) {
        udfkit_cancel_trigger(token);
        const udfkit_slot_binding to_stopped[] = {{"price", stopped, "t_price"}, {"keep", stopped, "t_keep"},
                                                  {"widen", stopped, "t_widen"}, {"before", stopped, "t_before"},
                                                  {"maybe_price", stopped, "t_maybe"}};
        expect_failure("a bind cancelled by its package's token", to_stopped, 5, UDFKIT_ERROR_COMPILE,
                       "it was cancelled");
    }
    unsetenv("UDFKIT_CACHE");
    udfkit_package_close(stopped);
    udfkit_cancel_destroy(token);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_late_binding <dir of the test packages>\n");
        return 2;
    }
    dir = argv[1];
    int major = 0;
    udfkit_status s = udfkit_device_attribute(UDFKIT_DEVICE_COMPUTE_CAPABILITY_MAJOR, &major);
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        return 77;
    }
    if (check(s, "udfkit_device_attribute"))
        return 1;
    udfkit_package *cuda = open_package("cuda.json"), *cuda_fatbin = open_package("cuda.fatbin");
    udfkit_package *py = open_package("py.fatbin"), *clash = open_package("clash.json");
    udfkit_package *future = open_package("future.json"), *newer = open_package("newer.json"), *text = NULL;
    check(udfkit_compile_source("user.cu", text_source, text_specs, 5, NULL, 0, &text), "udfkit_compile_source");
    if (failures)
        return 1;

    const udfkit_slot_binding to_cuda[] = {{"price", cuda, NULL}, {"keep", cuda, NULL}, {"widen", cuda, NULL},
                                           {"before", cuda, NULL}, {"maybe_price", cuda, NULL}};
    const udfkit_slot_binding to_cuda_fatbin[] = {{"maybe_price", cuda_fatbin, NULL}, {"price", cuda_fatbin, NULL},
                                                  {"keep", cuda_fatbin, "keep"}, {"widen", cuda_fatbin, NULL},
                                                  {"before", cuda_fatbin, NULL}};
    const udfkit_slot_binding to_py[] = {{"price", py, "surcharge"}, {"keep", py, "is_round"}, {"widen", py, "triple"},
                                         {"before", py, "larger_first"}, {"maybe_price", py, "maybe_double"}};
    const udfkit_slot_binding to_text[] = {{"price", text, "t_price"}, {"keep", text, "t_keep"},
                                           {"widen", text, "t_widen"}, {"before", text, "t_before"},
                                           {"maybe_price", text, "t_maybe"}};
    /* Three instances of the engine and one of the per-architecture engine, side by side. */
    late_engine_instance *e_cuda = NULL, *e_py = NULL, *e_text = NULL, *again = NULL;
    late_engine_each_instance *each_py = NULL;
    check(late_engine_bind(to_cuda, 5, &e_cuda), "bind to the CUDA C package");
    check(late_engine_bind(to_py, 5, &e_py), "bind to the Python package");
    check(late_engine_bind(to_text, 5, &e_text), "bind to the run-time compiled text");
    check(late_engine_each_bind(to_py, 5, &each_py), "bind the per-architecture engine to the Python package");
    /* The same code bound again (the manifest's package and its fatbin hold the same
     * functions but are different packages; the same package object is a lookup). */
    check(late_engine_bind(to_cuda, 5, &again), "bind to the CUDA C package again");
    if (failures)
        return 1;
    if (late_engine_instance_library(again) != late_engine_instance_library(e_cuda)) {
        fprintf(stderr, "binding the same packages again linked anew\n");
        failures++;
    }
    if (late_engine_instance_library(e_py) == late_engine_instance_library(e_cuda) ||
        late_engine_instance_library(e_text) == late_engine_instance_library(e_cuda)) {
        fprintf(stderr, "different bindings share their code\n");
        failures++;
    }
    late_engine_release(again);
    /* A launcher starts a pass after the first dependently only where the bound code waits for
     * the pass before (code compiled for compute_90 or later has udfkit_dependent_launch): the
     * engine's LTO-IR is compute_80's, so its passes launch one after the other; the
     * per-architecture engine's is the device's, so on compute capability 9.0 and later they
     * overlap. Both run every template below. */
    if (udfkit_library_has_kernel(late_engine_instance_library(e_cuda), "udfkit_dependent_launch")) {
        fprintf(stderr, "the engine linked from compute_80 LTO-IR has udfkit_dependent_launch\n");
        failures++;
    }
    if (udfkit_library_has_kernel(late_engine_each_instance_library(each_py), "udfkit_dependent_launch") != (major >= 9)) {
        fprintf(stderr, "the per-architecture engine on compute capability %d.x: udfkit_dependent_launch %s\n", major,
                major >= 9 ? "missing" : "present");
        failures++;
    }
    /* The packages can go: bound code stays. */
    udfkit_package_close(py);
    udfkit_package_close(text);
    const size_t sizes[] = {0, 1, 31, 33, 1000, ((size_t)1 << 20) + 7};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        run_instance(e_cuda, 0, &cuda_fns, sizes[i]);
        run_instance(e_py, 0, &python_fns, sizes[i]);
        run_instance(e_text, 0, &text_fns, sizes[i]);
        run_instance(each_py, 1, &python_fns, sizes[i]);
    }
    sandboxed_binds();
    udfs_call_slots(cuda);
    int minor = 0;
    if (!check(udfkit_device_attribute(UDFKIT_DEVICE_COMPUTE_CAPABILITY_MINOR, &minor), "compute capability")) {
        optional_slots(cuda, major * 10 + minor);
        if (major * 10 + minor == 90) /* late_hooks_engine's SASS: a bind may leave a slot unbound */
            arrow_on_slots(cuda);
    }
    /* The package's fatbin binds as its manifest does. */
    late_engine_instance *e_fatbin = NULL;
    if (!check(late_engine_bind(to_cuda_fatbin, 5, &e_fatbin), "bind to the CUDA C package's fatbin"))
        run_instance(e_fatbin, 0, &cuda_fns, 1000);
    late_engine_release(e_fatbin);

    printf("bindings that fail:\n");
    expect_failure("a slot left unbound", to_cuda, 4, UDFKIT_ERROR_INVALID_ARGUMENT,
                   "slot 'maybe_price' (float32?(float32?, float32)) is not bound");
    const udfkit_slot_binding wrong_sig[] = {{"price", cuda, "price3"}, {"keep", cuda, NULL}, {"widen", cuda, NULL},
                                             {"before", cuda, NULL}, {"maybe_price", cuda, NULL}};
    expect_failure("a function of another signature", wrong_sig, 5, UDFKIT_ERROR_INVALID_ARGUMENT,
                   "slot 'price' is float32(float32, float32), but 'price3' of");
    const udfkit_slot_binding missing[] = {{"price", cuda, "no_such"}, {"keep", cuda, NULL}, {"widen", cuda, NULL},
                                           {"before", cuda, NULL}, {"maybe_price", cuda, NULL}};
    expect_failure("a function the package lacks", missing, 5, UDFKIT_ERROR_NOT_FOUND, "'no_such'");
    const udfkit_slot_binding twice[] = {{"price", cuda, NULL}, {"price", cuda, NULL}};
    expect_failure("a slot bound twice", twice, 2, UDFKIT_ERROR_INVALID_ARGUMENT, "slot 'price' is bound twice");
    const udfkit_slot_binding unknown[] = {{"cost", cuda, "price"}};
    expect_failure("a slot the engine lacks", unknown, 1, UDFKIT_ERROR_INVALID_ARGUMENT,
                   "names the slot 'cost', which the library does not have");
    const udfkit_slot_binding with_clash[] = {{"price", cuda, NULL}, {"keep", clash, "keep2"}, {"widen", cuda, NULL},
                                              {"before", cuda, NULL}, {"maybe_price", cuda, NULL}};
    expect_failure("a function of a slot's name but another type", with_clash, 5, UDFKIT_ERROR_INVALID_ARGUMENT,
                   "slot 'keep' is bool(float32), but 'keep2'");
    const udfkit_slot_binding to_future[] = {{"price", future, NULL}, {"keep", future, NULL}, {"widen", future, NULL},
                                             {"before", future, NULL}, {"maybe_price", future, NULL}};
    if (major < 10) /* future.json holds compute_100 alone */
        expect_failure("a package with no LTO-IR for this device", to_future, 5, UDFKIT_ERROR_NO_BINARY,
                       "has no LTO-IR this device");
    const udfkit_slot_binding to_newer[] = {{"price", newer, NULL}, {"keep", newer, NULL}, {"widen", newer, NULL},
                                            {"before", newer, NULL}, {"maybe_price", newer, NULL}};
    expect_failure("a package made by a newer NVRTC than nvJitLink", to_newer, 5, UDFKIT_ERROR_TOOLCHAIN,
                   "newer than this nvJitLink");
    /* The engine's own add_f32 defined again by a package bound beside it (every slot bound to
     * it, so that no other package is linked). */
    udfkit_package *clash_text = NULL;
    const char *clash_specs[] = {"add_f32:float32(float32, float32)", "price:float32(float32, float32)",
                                 "keep:bool(float32)", "widen:int64(int32)", "before:bool(float32, float32)",
                                 "maybe_price:float32?(float32?, float32)"};
    if (!check(udfkit_compile_source("clash.cu",
                                     "#include <cuda/std/optional>\n"
                                     "__device__ float add_f32(float a, float b) { return a - b; }\n"
                                     "__device__ float price(float a, float b) { return a; }\n"
                                     "__device__ bool keep(float p) { return p > 1.0f; }\n"
                                     "__device__ long long widen(int x) { return x; }\n"
                                     "__device__ bool before(float a, float b) { return a < b; }\n"
                                     "__device__ cuda::std::optional<float> maybe_price(cuda::std::optional<float> l, "
                                     "float r) { return l; }\n",
                                     clash_specs, 6, NULL, 0, &clash_text),
               "udfkit_compile_source (clash)")) {
        const udfkit_slot_binding engine_clash[] = {{"price", clash_text, NULL}, {"keep", clash_text, NULL},
                                                    {"widen", clash_text, NULL}, {"before", clash_text, NULL},
                                                    {"maybe_price", clash_text, NULL}};
        expect_failure("a package defining the engine's own function", engine_clash, 5, UDFKIT_ERROR_INVALID_ARGUMENT,
                       "defines 'add_f32', which the library defines itself");
    }
    udfkit_package_close(clash_text);

    late_engine_release(e_cuda);
    late_engine_release(e_py);
    late_engine_release(e_text);
    late_engine_each_release(each_py);
    late_engine_release(NULL);
    /* A launcher without an instance is an error, not a crash. */
    s = late_engine_map_price(NULL, NULL, 0, NULL, NULL, NULL);
    if (s != UDFKIT_ERROR_INVALID_ARGUMENT) {
        fprintf(stderr, "a launcher without an instance gave %s\n", udfkit_status_string(s));
        failures++;
    }
    udfkit_package_close(cuda);
    udfkit_package_close(cuda_fatbin);
    udfkit_package_close(clash);
    udfkit_package_close(future);
    udfkit_package_close(newer);
    printf("late binding: %d failure%s\n", failures, failures == 1 ? "" : "s");
    return failures != 0;
}
