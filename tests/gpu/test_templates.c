/* The launchers `udfkit kernels` generates (map, filter, reduce), built at build time into
 * this program with their fatbin, run over n = 0, 1, 1000 and 2^20 + 7 rows (none a
 * multiple of the block size), the map also in place over columns off every alignment and
 * over sizes around its tiles, filter's three outputs and its UDF errors over sizes around
 * its tiles, a map's UDF errors (in tiles read directly and copied in bulk, in place and
 * not), and, where the GPU has the memory, a map and filters over 2^31 + 1000 one-byte
 * rows; every result is checked against the same arithmetic on the host.
 * usage: test_templates; exit 77 (skipped) without a GPU. */
#include "tpl.h"
#include "gpu_test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void expect(int ok, const char *what, size_t n)
{
    if (!ok) {
        fprintf(stderr, "FAIL %s (n = %zu)\n", what, n);
        failures++;
    }
}

/* The UDFs of tests/data/udfs.cu and tests/data/kernel_udfs.cu, on the host. */
static int64_t affine(int64_t first, int64_t second)
{
    uint64_t f = (uint64_t)first, s = (uint64_t)second;
    uint32_t fh = (uint32_t)(f >> 32), fl = (uint32_t)f, sh = (uint32_t)(s >> 32), sl = (uint32_t)s;
    uint32_t hi = sh * fh, lo = sh * fl + sl;
    return (int64_t)(((uint64_t)hi << 32) | lo);
}

static void run_map(size_t n)
{
    float *x = malloc((n + 1) * sizeof *x), *k = malloc((n + 1) * sizeof *k), *y = malloc((n + 1) * sizeof *y);
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(int64_t)(next_random() % 20001) * 0.25f - 2500.0f;
        k[i] = (float)(int64_t)(next_random() % 41) * 0.125f - 2.5f;
    }
    void *dx = device_copy(x, n * sizeof *x), *dk = device_copy(k, n * sizeof *k), *dy = device_copy(NULL, n * sizeof *y);
    if (dx && dk && dy && !check(tpl_map_scale(NULL, n, dx, dk, dy), "tpl_map_scale") &&
        !check(udfkit_synchronize(), "synchronize after map") && !check(udfkit_copy_to_host(y, dy, n * sizeof *y), "copy")) {
        size_t wrong = 0;
        for (size_t i = 0; i < n; i++) {
            float want = fmaf(x[i], k[i], 0.5f);
            /* The device may contract x*k+b into one FMA or not: allow one rounding. */
            wrong += fabsf(y[i] - want) > 1e-6f * fabsf(want) + 1e-6f;
        }
        expect(wrong == 0, "map(scale)", n);
    }
    udfkit_device_free(dx);
    udfkit_device_free(dk);
    udfkit_device_free(dy);
    free(x);
    free(k);
    free(y);
}

/* map(half_or_fail): rows holding 777 fail with code 5, rows holding 4242 with 6; every
 * output is x / 2 and <library>_udf_error gives the lowest failed row and its code. A tile
 * copied to shared memory looks for a failure once for a thread's rows and runs them again
 * where one failed: two failures of two codes sit among one thread's rows (256 rows apart),
 * and the first must be the one recorded; in place (the output over the input) the rows run
 * again must still see their inputs. `at` is the first failing row, or n for none. */
static void run_map_errors(size_t n, size_t at, int in_place)
{
    int32_t *v = malloc((n + 1) * sizeof *v), *got = malloc((n + 1) * sizeof *got);
    size_t first_bad = SIZE_MAX;
    int first_code = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = (int32_t)(next_random() % 100000);
        if (v[i] == 777 || v[i] == 4242)
            v[i] = 778;
    }
    if (at < n)
        v[at] = 4242;
    if (at + 256 < n)
        v[at + 256] = 777;
    for (size_t i = 0; i < n; i++)
        if ((v[i] == 777 || v[i] == 4242) && first_bad == SIZE_MAX) {
            first_bad = i;
            first_code = v[i] == 777 ? 5 : 6;
        }
    void *dv = device_copy(v, n * sizeof *v), *dout = in_place ? dv : device_copy(NULL, n * sizeof *v);
    uint64_t row = 0;
    int code = 0;
    char what[96];
    snprintf(what, sizeof what, "map(half_or_fail)%s failing at %zu", in_place ? " in place" : "", at);
    if ((n == 0 || (dv && dout)) && !check(tpl_map_half_or_fail(NULL, n, dv, dout), what) &&
        !check(udfkit_synchronize(), "synchronize after the map") &&
        !check(udfkit_copy_to_host(got, dout, n * sizeof *got), "copy")) {
        size_t wrong = 0;
        for (size_t i = 0; i < n; i++)
            wrong += got[i] != v[i] / 2;
        expect(wrong == 0, what, n);
        udfkit_status st = tpl_udf_error(NULL, &row, &code);
        if (first_bad == SIZE_MAX)
            expect(st == UDFKIT_OK, "map(half_or_fail): no failure reported where no row failed", n);
        else
            expect(st == UDFKIT_ERROR_UDF && row == first_bad && code == first_code,
                   "map(half_or_fail): the lowest failed row and its code", n);
    }
    udfkit_device_free(dv);
    if (!in_place)
        udfkit_device_free(dout);
    free(v);
    free(got);
}

/* map(scale) in place over columns that start off every alignment (x at element 1, k at
 * element 3 of their allocations; the output is x): the tiles a block copies into shared
 * memory begin between 128-byte boundaries, and each is read before it is written. */
static void run_map_offsets(size_t n)
{
    float *x = malloc((n + 4) * sizeof *x), *k = malloc((n + 4) * sizeof *k), *y = malloc((n + 4) * sizeof *y);
    for (size_t i = 0; i < n + 4; i++) {
        x[i] = (float)(int64_t)(next_random() % 20001) * 0.25f - 2500.0f;
        k[i] = (float)(int64_t)(next_random() % 41) * 0.125f - 2.5f;
    }
    float *dx = device_copy(x, (n + 4) * sizeof *x), *dk = device_copy(k, (n + 4) * sizeof *k);
    if (dx && dk && !check(tpl_map_scale(NULL, n, dx + 1, dk + 3, dx + 1), "tpl_map_scale in place") &&
        !check(udfkit_synchronize(), "synchronize after map") &&
        !check(udfkit_copy_to_host(y, dx, (n + 4) * sizeof *y), "copy")) {
        size_t wrong = y[0] != x[0];
        for (size_t i = 0; i < n; i++) {
            float want = fmaf(x[i + 1], k[i + 3], 0.5f);
            wrong += fabsf(y[i + 1] - want) > 1e-6f * fabsf(want) + 1e-6f;
        }
        for (size_t i = n + 1; i < n + 4; i++)
            wrong += y[i] != x[i];
        expect(wrong == 0, "map(scale) in place, off alignment", n);
    }
    udfkit_device_free(dx);
    udfkit_device_free(dk);
    free(x);
    free(k);
    free(y);
}

/* map(split2): two output columns, int32 and int64, from one input. */
static void run_map_outputs(size_t n)
{
    int32_t *x = malloc((n + 1) * sizeof *x), *half = malloc((n + 1) * sizeof *half);
    int64_t *square = malloc((n + 1) * sizeof *square);
    for (size_t i = 0; i < n; i++)
        x[i] = (int32_t)(next_random() % 2000001) - 1000000;
    void *dx = device_copy(x, n * sizeof *x), *dh = device_copy(NULL, n * sizeof *half);
    void *ds = device_copy(NULL, n * sizeof *square);
    if (dx && dh && ds && !check(tpl_map_split2(NULL, n, dx, dh, ds), "tpl_map_split2") &&
        !check(udfkit_synchronize(), "synchronize after map(split2)") &&
        !check(udfkit_copy_to_host(half, dh, n * sizeof *half), "copy") &&
        !check(udfkit_copy_to_host(square, ds, n * sizeof *square), "copy")) {
        size_t wrong = 0;
        for (size_t i = 0; i < n; i++)
            wrong += half[i] != x[i] / 2 || square[i] != (int64_t)x[i] * x[i];
        expect(wrong == 0, "map(split2) with two outputs", n);
    }
    udfkit_device_free(dx);
    udfkit_device_free(dh);
    udfkit_device_free(ds);
    free(x);
    free(half);
    free(square);
}

/* filter(is_even), filter(is_even, indices32) and filter(is_even, values): the rows in order,
 * as 64- and 32-bit row numbers and as their values, and their count. */
static void run_filter(size_t n)
{
    int32_t *v = malloc((n + 1) * sizeof *v);
    uint64_t *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
    uint32_t *got32 = malloc((n + 1) * sizeof *got32);
    int32_t *vals = malloc((n + 1) * sizeof *vals), *want_vals = malloc((n + 1) * sizeof *want_vals);
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = (int32_t)(next_random() % 2000001) - 1000000;
        if ((v[i] & 1) == 0) {
            want_vals[hits] = v[i];
            want[hits++] = i;
        }
    }
    /* Stale contents, so that a count or index left unwritten shows. */
    uint64_t stale = UINT64_MAX, count = 0, count32 = 0, count_vals = 0;
    void *dv = device_copy(v, n * sizeof *v), *di = device_copy(NULL, n * sizeof *got);
    void *di32 = device_copy(NULL, n * sizeof *got32), *dvals = device_copy(NULL, n * sizeof *vals);
    void *dc = device_copy(&stale, sizeof stale), *dc32 = device_copy(&stale, sizeof stale);
    void *dcv = device_copy(&stale, sizeof stale);
    if (dv && di && di32 && dvals && dc && dc32 && dcv &&
        !check(tpl_filter_is_even(NULL, n, dv, di, dc), "tpl_filter_is_even") &&
        !check(tpl_filter_is_even_indices32(NULL, n, dv, di32, dc32), "tpl_filter_is_even_indices32") &&
        !check(tpl_filter_is_even_values(NULL, n, dv, dvals, dcv), "tpl_filter_is_even_values") &&
        !check(udfkit_synchronize(), "synchronize after filter") &&
        !check(udfkit_copy_to_host(&count, dc, sizeof count), "copy") &&
        !check(udfkit_copy_to_host(&count32, dc32, sizeof count32), "copy") &&
        !check(udfkit_copy_to_host(&count_vals, dcv, sizeof count_vals), "copy") &&
        !check(udfkit_copy_to_host(got, di, hits * sizeof *got), "copy") &&
        !check(udfkit_copy_to_host(got32, di32, hits * sizeof *got32), "copy") &&
        !check(udfkit_copy_to_host(vals, dvals, hits * sizeof *vals), "copy")) {
        expect(count == hits, "filter(is_even): count", n);
        expect(count != hits || memcmp(got, want, hits * sizeof *got) == 0, "filter(is_even): indices", n);
        size_t wrong = 0;
        for (size_t i = 0; i < hits; i++)
            wrong += got32[i] != want[i];
        expect(count32 == hits && wrong == 0, "filter(is_even, indices32): count and indices", n);
        expect(count_vals == hits && memcmp(vals, want_vals, hits * sizeof *vals) == 0,
               "filter(is_even, values): count and the kept values", n);
    }
    udfkit_device_free(dvals);
    udfkit_device_free(dcv);
    free(vals);
    free(want_vals);
    udfkit_device_free(dv);
    udfkit_device_free(di);
    udfkit_device_free(di32);
    udfkit_device_free(dc);
    udfkit_device_free(dc32);
    free(v);
    free(got);
    free(got32);
    free(want);
}

/* filter(pick2, values): the kept rows' values of both columns (int32 and int64), in order. */
static void run_filter_values(size_t n)
{
    int32_t *a = malloc((n + 1) * sizeof *a), *got_a = malloc((n + 1) * sizeof *got_a);
    int64_t *b = malloc((n + 1) * sizeof *b), *got_b = malloc((n + 1) * sizeof *got_b);
    int32_t *want_a = malloc((n + 1) * sizeof *want_a);
    int64_t *want_b = malloc((n + 1) * sizeof *want_b);
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        a[i] = (int32_t)(next_random() % 2001) - 1000;
        b[i] = (int64_t)next_random();
        if (a[i] > 0 && (b[i] & 3) == 0) {
            want_a[hits] = a[i];
            want_b[hits++] = b[i];
        }
    }
    uint64_t stale = UINT64_MAX, count = 0;
    void *da = device_copy(a, n * sizeof *a), *db = device_copy(b, n * sizeof *b);
    void *oa = device_copy(NULL, n * sizeof *a), *ob = device_copy(NULL, n * sizeof *b);
    void *dc = device_copy(&stale, sizeof stale);
    if (da && db && oa && ob && dc && !check(tpl_filter_pick2_values(NULL, n, da, db, oa, ob, dc), "tpl_filter_pick2_values") &&
        !check(udfkit_synchronize(), "synchronize after filter(pick2, values)") &&
        !check(udfkit_copy_to_host(&count, dc, sizeof count), "copy") &&
        !check(udfkit_copy_to_host(got_a, oa, hits * sizeof *got_a), "copy") &&
        !check(udfkit_copy_to_host(got_b, ob, hits * sizeof *got_b), "copy")) {
        expect(count == hits, "filter(pick2, values): count", n);
        expect(count != hits || (memcmp(got_a, want_a, hits * sizeof *got_a) == 0 &&
                                 memcmp(got_b, want_b, hits * sizeof *got_b) == 0),
               "filter(pick2, values): both columns' kept values", n);
    }
    udfkit_device_free(da);
    udfkit_device_free(db);
    udfkit_device_free(oa);
    udfkit_device_free(ob);
    udfkit_device_free(dc);
    free(a);
    free(b);
    free(got_a);
    free(got_b);
    free(want_a);
    free(want_b);
}

/* filter(even_or_fail) and filter(even_or_fail, values): rows holding 777 fail with code 5,
 * rows holding 4242 (even) with 6; a failed row is not kept, and <library>_udf_error gives
 * the lowest and its code, through both kernels (the values one finds a row by its place
 * among the thread's rows of the tile). */
static void run_filter_errors(size_t n)
{
    int32_t *v = malloc((n + 1) * sizeof *v);
    uint64_t *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
    size_t hits = 0, first_bad = SIZE_MAX;
    int first_code = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = (int32_t)(next_random() % 100000);
        if (v[i] == 777 || v[i] == 4242)
            v[i] = 778;
        /* Two failures among one thread's rows (4000 and 4002 of every 4099), of two codes. */
        if (i % 4099 == 4000)
            v[i] = (i / 4099) % 2 ? 777 : 4242;
        if (i % 4099 == 4002)
            v[i] = (i / 4099) % 2 ? 4242 : 777;
        if ((v[i] == 777 || v[i] == 4242) && first_bad == SIZE_MAX) {
            first_bad = i;
            first_code = v[i] == 777 ? 5 : 6;
        }
        if ((v[i] & 1) == 0 && v[i] != 4242)
            want[hits++] = i;
    }
    uint64_t stale = UINT64_MAX, count = 0, row = 0;
    int code = 0;
    void *dv = device_copy(v, n * sizeof *v), *di = device_copy(NULL, n * sizeof *got), *dc = device_copy(&stale, 8);
    int32_t *vals = malloc((n + 1) * sizeof *vals);
    for (int values = 0; values <= 1 && dv && di && dc; values++) {
        const char *what = values ? "filter(even_or_fail, values)" : "filter(even_or_fail)";
        udfkit_status launched = values ? tpl_filter_even_or_fail_values(NULL, n, dv, di, dc)
                                        : tpl_filter_even_or_fail(NULL, n, dv, di, dc);
        if (check(launched, what) || check(udfkit_synchronize(), "synchronize after the filter") ||
            check(udfkit_copy_to_host(&count, dc, sizeof count), "copy") ||
            check(udfkit_copy_to_host(values ? (void *)vals : (void *)got, di,
                                      hits * (values ? sizeof *vals : sizeof *got)), "copy"))
            break;
        size_t wrong = 0;
        for (size_t i = 0; i < hits && count == hits; i++)
            wrong += values ? vals[i] != v[want[i]] : got[i] != want[i];
        expect(count == hits, what, n);
        expect(count == hits && wrong == 0, what, n);
        udfkit_status st = tpl_udf_error(NULL, &row, &code);
        if (first_bad == SIZE_MAX)
            expect(st == UDFKIT_OK, "filter(even_or_fail): no failure reported where no row failed", n);
        else
            expect(st == UDFKIT_ERROR_UDF && row == first_bad && code == first_code,
                   values ? "filter(even_or_fail, values): the lowest failed row and its code"
                          : "filter(even_or_fail): the lowest failed row and its code", n);
    }
    free(vals);
    udfkit_device_free(dv);
    udfkit_device_free(di);
    udfkit_device_free(dc);
    free(v);
    free(got);
    free(want);
}

static void run_reduce(size_t n)
{
    int64_t *w = malloc((n + 1) * sizeof *w), *a = malloc((n + 1) * sizeof *a);
    float *f = malloc((n + 1) * sizeof *f);
    /* Sums stay far from overflow: 2^21 rows of at most 2^40. */
    int64_t sum_init = -12345, sum = sum_init, affine_init = (int64_t)((3ull << 32) | 7u), composed = affine_init;
    float max_init = -1e30f, max = max_init;
    for (size_t i = 0; i < n; i++) {
        w[i] = (int64_t)(next_random() % (1ull << 41)) - (int64_t)(1ull << 40);
        a[i] = (int64_t)next_random();
        f[i] = (float)(int64_t)(next_random() % 2000001) * 0.5f - 500000.0f;
        sum += w[i];
        composed = affine(composed, a[i]);
        max = f[i] > max ? f[i] : max;
    }
    int64_t stale = 0x5a5a5a5a5a5a5a5a, got_sum = 0, got_composed = 0;
    float got_max = 0;
    void *dw = device_copy(w, n * sizeof *w), *da = device_copy(a, n * sizeof *a), *df = device_copy(f, n * sizeof *f);
    void *ds = device_copy(&stale, sizeof stale), *dco = device_copy(&stale, sizeof stale);
    void *dm = device_copy(&stale, sizeof stale);
    if (dw && da && df && ds && dco && dm && !check(tpl_reduce_add64(NULL, n, dw, sum_init, ds), "tpl_reduce_add64") &&
        !check(tpl_reduce_affine(NULL, n, da, affine_init, dco), "tpl_reduce_affine") &&
        !check(tpl_reduce_max_f32(NULL, n, df, max_init, dm), "tpl_reduce_max_f32") &&
        !check(udfkit_synchronize(), "synchronize after reduce") &&
        !check(udfkit_copy_to_host(&got_sum, ds, sizeof got_sum), "copy") &&
        !check(udfkit_copy_to_host(&got_composed, dco, sizeof got_composed), "copy") &&
        !check(udfkit_copy_to_host(&got_max, dm, sizeof got_max), "copy")) {
        expect(got_sum == sum, "reduce(add64)", n);
        expect(got_composed == composed, "reduce(affine): rows combined in order", n);
        expect(got_max == max, "reduce(max_f32)", n);
    }
    udfkit_device_free(dw);
    udfkit_device_free(da);
    udfkit_device_free(df);
    udfkit_device_free(ds);
    udfkit_device_free(dco);
    udfkit_device_free(dm);
    free(w);
    free(a);
    free(f);
}

/* More rows than a 32-bit index reaches: 2^31 + 1000 one-byte rows in and out. */
static void run_large_map(void)
{
    const size_t n = ((size_t)1 << 31) + 1000;
    size_t free_bytes = 0, total_bytes = 0;
    if (check(udfkit_device_memory(&free_bytes, &total_bytes), "udfkit_device_memory"))
        return;
    if (free_bytes < 2 * n + ((size_t)256 << 20)) {
        printf("map(inc8) over %zu rows skipped: %zu bytes of device memory free\n", n, free_bytes);
        return;
    }
    int8_t *x = malloc(n), *y = malloc(n);
    if (!x || !y) {
        printf("map(inc8) over %zu rows skipped: no host memory\n", n);
        free(x);
        free(y);
        return;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = (int8_t)(i * 7 + (i >> 31) * 3);
    void *dx = device_copy(x, n), *dy = device_copy(NULL, n);
    if (dx && dy && !check(tpl_map_inc8(NULL, n, dx, dy), "tpl_map_inc8") &&
        !check(udfkit_synchronize(), "synchronize after map") && !check(udfkit_copy_to_host(y, dy, n), "copy")) {
        size_t wrong = 0;
        for (size_t i = 0; i < n; i++)
            wrong += y[i] != (int8_t)(x[i] + 1);
        expect(wrong == 0, "map(inc8) beyond 2^31 rows", n);
    }
    udfkit_device_free(dx);
    udfkit_device_free(dy);
    free(x);
    free(y);
}

/* filter(multiple8, values): one-byte values, CUB's 256-thread tile of 22 rows a thread. */
static void run_filter_bytes(size_t n)
{
    int8_t *x = malloc(n + 1), *got = malloc(n + 1), *want = malloc(n + 1);
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        x[i] = (int8_t)(next_random() >> 24);
        if ((x[i] & 7) == 0)
            want[hits++] = x[i];
    }
    uint64_t stale = UINT64_MAX, count = 0;
    void *dx = device_copy(x, n), *dg = device_copy(NULL, n), *dc = device_copy(&stale, 8);
    if (dx && dg && dc && !check(tpl_filter_multiple8_values(NULL, n, dx, dg, dc), "tpl_filter_multiple8_values") &&
        !check(udfkit_synchronize(), "synchronize after filter(multiple8, values)") &&
        !check(udfkit_copy_to_host(&count, dc, 8), "copy") && !check(udfkit_copy_to_host(got, dg, hits), "copy"))
        expect(count == hits && memcmp(got, want, hits) == 0, "filter(multiple8, values): count and values", n);
    udfkit_device_free(dx);
    udfkit_device_free(dg);
    udfkit_device_free(dc);
    free(x);
    free(got);
    free(want);
}

/* filter(multiple8) and filter(multiple8, indices32) over 2^31 + 1000 one-byte rows: two
 * partitions (CUB's 2^31 - 1 rows a launch), the second's rows numbered after the first's;
 * and indices32 refuses more than 2^32 rows before it launches anything. */
static void run_large_filter(void)
{
    const size_t n = ((size_t)1 << 31) + 1000;
    expect(tpl_filter_multiple8_indices32(NULL, ((size_t)1 << 32) + 1, NULL, NULL, NULL) ==
               UDFKIT_ERROR_INVALID_ARGUMENT,
           "filter(multiple8, indices32) over 2^32 + 1 rows: UDFKIT_ERROR_INVALID_ARGUMENT", ((size_t)1 << 32) + 1);
    size_t free_bytes = 0, total_bytes = 0;
    if (check(udfkit_device_memory(&free_bytes, &total_bytes), "udfkit_device_memory"))
        return;
    size_t kept_max = n / 8 + 2;
    if (free_bytes < n + kept_max * 12 + ((size_t)256 << 20)) {
        printf("filter(multiple8) over %zu rows skipped: %zu bytes of device memory free\n", n, free_bytes);
        return;
    }
    int8_t *x = malloc(n);
    uint64_t *got = malloc(kept_max * sizeof *got);
    uint32_t *got32 = malloc(kept_max * sizeof *got32);
    if (!x || !got || !got32) {
        printf("filter(multiple8) over %zu rows skipped: no host memory\n", n);
        free(x);
        free(got);
        free(got32);
        return;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = (int8_t)(next_random() >> 24);
    uint64_t stale = UINT64_MAX, count = 0, count32 = 0;
    void *dx = device_copy(x, n), *di = device_copy(NULL, kept_max * sizeof *got);
    void *di32 = device_copy(NULL, kept_max * sizeof *got32);
    void *dc = device_copy(&stale, 8), *dc32 = device_copy(&stale, 8);
    size_t want = 0;
    for (size_t i = 0; i < n; i++)
        want += (x[i] & 7) == 0;
    if (dx && di && di32 && dc && dc32 && want <= kept_max &&
        !check(tpl_filter_multiple8(NULL, n, dx, di, dc), "tpl_filter_multiple8") &&
        !check(tpl_filter_multiple8_indices32(NULL, n, dx, di32, dc32), "tpl_filter_multiple8_indices32") &&
        !check(udfkit_synchronize(), "synchronize after the large filters") &&
        !check(udfkit_copy_to_host(&count, dc, 8), "copy") && !check(udfkit_copy_to_host(&count32, dc32, 8), "copy") &&
        !check(udfkit_copy_to_host(got, di, want * sizeof *got), "copy") &&
        !check(udfkit_copy_to_host(got32, di32, want * sizeof *got32), "copy")) {
        size_t wrong = 0, k = 0;
        for (size_t i = 0; i < n && k <= want; i++)
            if ((x[i] & 7) == 0) {
                wrong += k < want && (got[k] != i || got32[k] != (uint32_t)i);
                k++;
            }
        expect(count == want && count32 == want, "filter(multiple8) beyond 2^31 rows: counts", n);
        expect(wrong == 0, "filter(multiple8) beyond 2^31 rows: 64- and 32-bit indices", n);
        printf("filter(multiple8) over %zu rows: %zu kept, in two partitions\n", n, want);
    }
    udfkit_device_free(dx);
    udfkit_device_free(di);
    udfkit_device_free(di32);
    udfkit_device_free(dc);
    udfkit_device_free(dc32);
    free(x);
    free(got);
    free(got32);
}

int main(void)
{
    udfkit_status s = tpl_load();
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        return 77;
    }
    if (check(s, "tpl_load"))
        return 1;
    /* The handle reaches every kernel by name, as a SOURCES kernel would be. */
    udfkit_library *lib = tpl_library();
    udfkit_kernel k;
    if (!lib || check(udfkit_library_get_kernel(lib, "udfkit_tpl_map_scale", &k), "udfkit_library_get_kernel"))
        return 1;
    const size_t sizes[] = {0, 1, 1000, ((size_t)1 << 20) + 7};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        run_map(sizes[i]);
        run_map_outputs(sizes[i]);
        run_filter(sizes[i]);
        run_reduce(sizes[i]);
    }
    /* The map's tiles are 256 x (1 to 32) rows, the first and last two read directly. */
    const size_t map_sizes[] = {0, 1, 255, 256, 257, 3 * 768 + 1, 4 * 768, 4 * 768 + 1, 100003, ((size_t)1 << 22) + 5};
    for (size_t i = 0; i < sizeof map_sizes / sizeof map_sizes[0]; i++) {
        run_map(map_sizes[i]);
        run_map_offsets(map_sizes[i]);
    }
    /* Failures in the first tile (read directly), a middle one (copied in bulk on sm_90 and
     * later), the last one, and none. */
    const size_t error_sizes[] = {1000, 100003, ((size_t)1 << 22) + 5};
    for (size_t i = 0; i < sizeof error_sizes / sizeof error_sizes[0]; i++) {
        const size_t n = error_sizes[i], ats[] = {3, n / 2 + 17, n - 2, n};
        for (size_t a = 0; a < sizeof ats / sizeof ats[0]; a++)
            for (int in_place = 0; in_place <= 1; in_place++)
                run_map_errors(n, ats[a], in_place);
    }
    /* Around the filters' tiles: 4224 rows (64-bit rows), 6528 (32-bit), and warps. */
    const size_t filter_sizes[] = {0, 1, 31, 32, 33, 4223, 4224, 4225, 5632, 5633, 6527, 6528, 6529, 3 * 6528 + 1,
                                   ((size_t)1 << 20) + 7, (size_t)1 << 24};
    for (size_t i = 0; i < sizeof filter_sizes / sizeof filter_sizes[0]; i++) {
        run_filter(filter_sizes[i]);
        run_filter_values(filter_sizes[i]);
        run_filter_errors(filter_sizes[i]);
        run_filter_bytes(filter_sizes[i]);
    }
    /* After an unload, the next launch loads again. */
    tpl_unload();
    run_reduce(1000);
    run_large_map();
    run_large_filter();
    tpl_unload();
    printf("map, filter, reduce over 0, 1, 1000, 2^20 + 7 rows, the map in place and off alignment over 10 sizes up "
           "to 2^22 + 5, the map's errors in place and not, filter's outputs and errors over 16 sizes up to 2^24: "
           "%d failures\n",
           failures);
    return failures != 0;
}
