/* The nullable kernel templates (nullable_map, nullable_filter, nullable_reduce) and UDF
 * errors, through the launchers `udfkit kernels` generates (library nk, built at build time
 * from tests/data/nullable/ and tests/data/kernel_udfs.cu), against the same semantics on
 * the host: every template over n = 0, 1, 7, 8, 9 and 2^20 + 3 rows, with 0%, 10% and 100%
 * nulls, validity bitmaps at bit offsets 0 and 3 (and no bitmap, and none on the first input
 * only), CUDA C and Python UDFs; errors at the first, middle and last row. nullable_map runs
 * its dense kernel where no input has a bitmap, its general kernel otherwise: both are run. Bitmaps are compared byte for byte (bits past
 * n are 0), null counts exactly, values of valid rows exactly.
 * usage: test_nullable_kernels; exit 77 (skipped) without a GPU. */
#include "nk.h"
#include "gpu_test.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The case being run, for messages. */
static char current[160];

static void expect(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL %s: %s\n", current, what);
        failures++;
    }
}

/* A column's validity: per row on the host, and as an Arrow bitmap on the device (random
 * bits around the rows, so that a wrong offset shows); with no bitmap where `none`. */
typedef struct validity {
    bool *valid;
    void *bits;
    udfkit_mask mask;
} validity;

static validity make_validity(size_t n, int null_percent, uint64_t offset, bool none)
{
    validity v = {calloc(n + 1, 1), NULL, {NULL, offset}};
    size_t bytes = (n + offset + 7) / 8 + 1;
    uint8_t *bits = malloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        bits[i] = (uint8_t)next_random();
    for (size_t i = 0; i < n; i++) {
        v.valid[i] = none || (int)(next_random() % 100) >= null_percent;
        uint64_t b = offset + i;
        bits[b / 8] = (uint8_t)(v.valid[i] ? bits[b / 8] | (1u << (b % 8)) : bits[b / 8] & ~(1u << (b % 8)));
    }
    if (!none) {
        v.bits = device_copy(bits, bytes);
        v.mask.bits = v.bits;
    }
    free(bits);
    return v;
}

static void free_validity(validity *v)
{
    free(v->valid);
    udfkit_device_free(v->bits);
}

/* An output bitmap from the device, compared with the expected validity: whole bytes, bits
 * past n zero; and the null count. */
static void expect_bits(const void *dbits, size_t n, const bool *want, uint64_t nulls, const char *what)
{
    size_t bytes = (n + 7) / 8;
    uint8_t *got = host_copy(dbits, bytes);
    bool same = true;
    uint64_t want_nulls = 0;
    for (size_t b = 0; b < bytes; b++) {
        uint8_t expected = 0;
        for (size_t k = 0; k < 8 && b * 8 + k < n; k++)
            expected |= (uint8_t)(want[b * 8 + k] ? 1u << k : 0u);
        same &= got[b] == expected;
    }
    for (size_t i = 0; i < n; i++)
        want_nulls += !want[i];
    char text[200];
    snprintf(text, sizeof text, "%s bitmap", what);
    expect(same, text);
    snprintf(text, sizeof text, "%s null count %llu, not %llu", what, (unsigned long long)nulls,
             (unsigned long long)want_nulls);
    expect(nulls == want_nulls, text);
    free(got);
}

/* The shape of one run: rows, nulls, bit offset, and which input bitmaps are left out
 * (none: 0 none of them, 1 all, 2 the first input's only). nullable_map's launcher runs its
 * dense kernel where no input has a bitmap, its general kernel otherwise. */
typedef struct shape {
    size_t n;
    int null_percent;
    uint64_t offset;
    int none;
} shape;

/* Whether input `input` (0-based) of a run of shape sh has no bitmap. */
static bool without(shape sh, int input)
{
    return sh.none == 1 || (sh.none == 2 && input == 0);
}

static float random_float(void)
{
    return (float)((int64_t)(next_random() % 2001) - 1000) * 0.25f;
}

/* nullable_map over float32 -> float32: twice (plain), coalesce and py_coalesce (T? in). */
static void run_map_float(shape sh, const char *fn)
{
    size_t n = sh.n;
    float *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
    for (size_t i = 0; i < n; i++) {
        a[i] = random_float();
        b[i] = random_float();
    }
    validity va = make_validity(n, sh.null_percent, sh.offset, without(sh, 0));
    validity vb = make_validity(n, sh.null_percent, sh.offset, without(sh, 1));
    void *da = device_copy(a, n * 4), *db = device_copy(b, n * 4), *dout = device_copy(NULL, n * 4);
    void *dbits = device_copy(NULL, (n + 7) / 8), *dcount = device_copy(NULL, 8);
    udfkit_status st;
    if (strcmp(fn, "twice") == 0)
        st = nk_nullable_map_twice(NULL, n, da, va.mask, dout, dbits, dcount);
    else if (strcmp(fn, "coalesce") == 0)
        st = nk_nullable_map_coalesce(NULL, n, da, va.mask, db, vb.mask, dout, dbits, dcount);
    else
        st = nk_nullable_map_py_coalesce(NULL, n, da, va.mask, db, vb.mask, dout, dbits, dcount);
    if (!check(st, fn) && !check(udfkit_synchronize(), "synchronize")) {
        float *out = host_copy(dout, n * 4);
        uint64_t *count = host_copy(dcount, 8);
        bool *want = calloc(n + 1, 1), values = true;
        for (size_t i = 0; i < n; i++) {
            float value;
            if (strcmp(fn, "twice") == 0) {
                want[i] = va.valid[i];
                value = 2.0f * a[i];
            } else {
                want[i] = vb.valid[i];
                value = va.valid[i] ? a[i] : b[i];
            }
            values &= !want[i] || out[i] == value;
        }
        expect(values, "values");
        expect_bits(dbits, n, want, *count, "out");
        free(out);
        free(count);
        free(want);
    }
    free_validity(&va);
    free_validity(&vb);
    void *dev[] = {da, db, dout, dbits, dcount};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        udfkit_device_free(dev[i]);
    free(a);
    free(b);
}

/* safe_div: float64?(float64, float64): null where an input is null or b is 0. */
static void run_safe_div(shape sh)
{
    size_t n = sh.n;
    double *a = malloc((n + 1) * 8), *b = malloc((n + 1) * 8);
    for (size_t i = 0; i < n; i++) {
        a[i] = random_float();
        b[i] = (double)((int64_t)(next_random() % 9) - 4);
    }
    validity va = make_validity(n, sh.null_percent, sh.offset, without(sh, 0));
    validity vb = make_validity(n, sh.null_percent, 0, without(sh, 1));
    void *da = device_copy(a, n * 8), *db = device_copy(b, n * 8), *dout = device_copy(NULL, n * 8);
    void *dbits = device_copy(NULL, (n + 7) / 8), *dcount = device_copy(NULL, 8);
    if (!check(nk_nullable_map_safe_div(NULL, n, da, va.mask, db, vb.mask, dout, dbits, dcount), "safe_div") &&
        !check(udfkit_synchronize(), "synchronize")) {
        double *out = host_copy(dout, n * 8);
        uint64_t *count = host_copy(dcount, 8);
        bool *want = calloc(n + 1, 1), values = true;
        for (size_t i = 0; i < n; i++) {
            want[i] = va.valid[i] && vb.valid[i] && b[i] != 0.0;
            values &= !want[i] || out[i] == a[i] / b[i];
        }
        expect(values, "values");
        expect_bits(dbits, n, want, *count, "out");
        free(out);
        free(count);
        free(want);
    }
    free_validity(&va);
    free_validity(&vb);
    void *dev[] = {da, db, dout, dbits, dcount};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        udfkit_device_free(dev[i]);
    free(a);
    free(b);
}

/* Several outputs: halve (void(float32, float32?*)) and split2 (void(int32, int32*, int64*)),
 * each output with its own bitmap and count. */
static void run_map_outputs(shape sh)
{
    size_t n = sh.n;
    float *x = malloc((n + 1) * 4);
    int32_t *k = malloc((n + 1) * 4);
    for (size_t i = 0; i < n; i++) {
        x[i] = random_float();
        k[i] = (int32_t)(next_random() % 200001) - 100000;
    }
    validity v = make_validity(n, sh.null_percent, sh.offset, without(sh, 0));
    void *dx = device_copy(x, n * 4), *dk = device_copy(k, n * 4), *dh = device_copy(NULL, n * 4);
    void *dhalf = device_copy(NULL, n * 4), *dsq = device_copy(NULL, n * 8);
    void *b1 = device_copy(NULL, (n + 7) / 8), *b2 = device_copy(NULL, (n + 7) / 8), *b3 = device_copy(NULL, (n + 7) / 8);
    void *c1 = device_copy(NULL, 8), *c23 = device_copy(NULL, 16);
    /* The Python twin of split2 first, into the same columns: split2 then overwrites them. */
    if (!check(nk_nullable_map_py_split(NULL, n, dk, v.mask, dhalf, b2, dsq, b3, c23), "py_split") &&
        !check(udfkit_synchronize(), "synchronize")) {
        int32_t *half = host_copy(dhalf, n * 4);
        int64_t *sq = host_copy(dsq, n * 8);
        uint64_t *n23 = host_copy(c23, 16);
        bool values = true;
        for (size_t i = 0; i < n; i++) {
            /* Python's floor division: rounds toward minus infinity. */
            int32_t floor_half = k[i] / 2 - (k[i] % 2 != 0 && k[i] < 0);
            values &= !v.valid[i] || (half[i] == floor_half && sq[i] == (int64_t)k[i] * k[i]);
        }
        expect(values, "py_split values");
        expect_bits(b2, n, v.valid, n23[0], "py_split out1");
        expect_bits(b3, n, v.valid, n23[1], "py_split out2");
        free(half);
        free(sq);
        free(n23);
    }
    if (!check(nk_nullable_map_halve(NULL, n, dx, v.mask, dh, b1, c1), "halve") &&
        !check(nk_nullable_map_split2(NULL, n, dk, v.mask, dhalf, b2, dsq, b3, c23), "split2") &&
        !check(udfkit_synchronize(), "synchronize")) {
        float *h = host_copy(dh, n * 4);
        int32_t *half = host_copy(dhalf, n * 4);
        int64_t *sq = host_copy(dsq, n * 8);
        uint64_t *n1 = host_copy(c1, 8), *n23 = host_copy(c23, 16);
        bool *want_h = calloc(n + 1, 1), values = true;
        for (size_t i = 0; i < n; i++) {
            want_h[i] = v.valid[i] && x[i] > 0.0f;
            values &= !want_h[i] || h[i] == x[i] * 0.5f;
            values &= !v.valid[i] || (half[i] == k[i] / 2 && sq[i] == (int64_t)k[i] * k[i]);
        }
        expect(values, "values");
        expect_bits(b1, n, want_h, n1[0], "halve");
        expect_bits(b2, n, v.valid, n23[0], "split2 out1");
        expect_bits(b3, n, v.valid, n23[1], "split2 out2");
        free(h);
        free(half);
        free(sq);
        free(n1);
        free(n23);
        free(want_h);
    }
    free_validity(&v);
    void *dev[] = {dx, dk, dh, dhalf, dsq, b1, b2, b3, c1, c23};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        udfkit_device_free(dev[i]);
    free(x);
    free(k);
}

/* py_both: int64?(int64?, int64?), None where either is. */
static void run_py_both(shape sh)
{
    size_t n = sh.n;
    int64_t *a = malloc((n + 1) * 8), *b = malloc((n + 1) * 8);
    for (size_t i = 0; i < n; i++) {
        a[i] = (int64_t)(next_random() % 1000000) - 500000;
        b[i] = (int64_t)(next_random() % 1000) - 500;
    }
    validity va = make_validity(n, sh.null_percent, sh.offset, without(sh, 0));
    validity vb = make_validity(n, sh.null_percent, 5, without(sh, 1));
    void *da = device_copy(a, n * 8), *db = device_copy(b, n * 8), *dout = device_copy(NULL, n * 8);
    void *dbits = device_copy(NULL, (n + 7) / 8);
    /* No null count asked for: NULL. */
    if (!check(nk_nullable_map_py_both(NULL, n, da, va.mask, db, vb.mask, dout, dbits, NULL), "py_both") &&
        !check(udfkit_synchronize(), "synchronize")) {
        int64_t *out = host_copy(dout, n * 8);
        bool *want = calloc(n + 1, 1), values = true;
        uint64_t nulls = 0;
        for (size_t i = 0; i < n; i++) {
            want[i] = va.valid[i] && vb.valid[i];
            nulls += !want[i];
            values &= !want[i] || out[i] == a[i] * 10 + b[i];
        }
        expect(values, "values");
        expect_bits(dbits, n, want, nulls, "out");
        free(out);
        free(want);
    }
    free_validity(&va);
    free_validity(&vb);
    void *dev[] = {da, db, dout, dbits};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        udfkit_device_free(dev[i]);
    free(a);
    free(b);
}

/* Defined with the error runs below. */
static void expect_error(uint64_t want_row, int want_code, bool row_at_most, const char *what);

/* parts: void(int32, float32?*, int32?*, int64*), three outputs: f = x / 2 left unset (null)
 * where x is a multiple of 3, q = x / 7 null where x < 0, w = 3x always; a row with
 * x % 1000 == 777 fails with code x (recorded, null in every output). */
static void run_parts(shape sh)
{
    size_t n = sh.n;
    int32_t *x = malloc((n + 1) * 4);
    for (size_t i = 0; i < n; i++)
        x[i] = (int32_t)(next_random() % 200001) - 100000;
    validity v = make_validity(n, sh.null_percent, sh.offset, without(sh, 0));
    void *dx = device_copy(x, n * 4), *df = device_copy(NULL, n * 4), *dq = device_copy(NULL, n * 4);
    void *dw = device_copy(NULL, n * 8), *dcount = device_copy(NULL, 24);
    void *bf = device_copy(NULL, (n + 7) / 8), *bq = device_copy(NULL, (n + 7) / 8), *bw = device_copy(NULL, (n + 7) / 8);
    if (!check(nk_nullable_map_parts(NULL, n, dx, v.mask, df, bf, dq, bq, dw, bw, dcount), "parts") &&
        !check(udfkit_synchronize(), "synchronize")) {
        float *f = host_copy(df, n * 4);
        int32_t *q = host_copy(dq, n * 4);
        int64_t *w = host_copy(dw, n * 8);
        uint64_t *count = host_copy(dcount, 24), failed = UINT64_MAX;
        bool *want_f = calloc(n + 1, 1), *want_q = calloc(n + 1, 1), *want_w = calloc(n + 1, 1), values = true;
        for (size_t i = 0; i < n; i++) {
            bool fails = v.valid[i] && x[i] % 1000 == 777;
            failed = fails && failed == UINT64_MAX ? i : failed;
            want_w[i] = v.valid[i] && !fails;
            want_f[i] = want_w[i] && x[i] % 3 != 0;
            want_q[i] = want_w[i] && x[i] >= 0;
            values &= !want_f[i] || f[i] == (float)x[i] * 0.5f;
            values &= !want_q[i] || q[i] == x[i] / 7;
            values &= !want_w[i] || w[i] == (int64_t)x[i] * 3;
        }
        expect(values, "parts values");
        expect_bits(bf, n, want_f, count[0], "parts f (T?*, left unset)");
        expect_bits(bq, n, want_q, count[1], "parts q (T?*)");
        expect_bits(bw, n, want_w, count[2], "parts w (T*)");
        expect_error(failed, failed == UINT64_MAX ? 0 : x[failed], false, "parts");
        free(f);
        free(q);
        free(w);
        free(count);
        free(want_f);
        free(want_q);
        free(want_w);
    }
    free_validity(&v);
    void *dev[] = {dx, df, dq, dw, dcount, bf, bq, bw};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        udfkit_device_free(dev[i]);
    free(x);
}

/* The rows a filter keeps, from the device, against the expected ones. */
static void expect_rows(void *dindices, void *dcount, const bool *keep, size_t n)
{
    uint64_t *count = host_copy(dcount, 8);
    size_t want = 0;
    for (size_t i = 0; i < n; i++)
        want += keep[i];
    expect(*count == want, "count");
    if (*count == want) {
        uint64_t *rows = host_copy(dindices, want * 8);
        bool same = true;
        for (size_t i = 0, j = 0; i < n; i++)
            if (keep[i])
                same &= rows[j++] == i;
        expect(same, "rows");
        free(rows);
    }
    free(count);
}

/* nullable_filter: positive (bool(float32)), above (bool?(float32?, float32)), py_small
 * (bool?(int32?)). */
static void run_filters(shape sh)
{
    size_t n = sh.n;
    float *x = malloc((n + 1) * 4), *t = malloc((n + 1) * 4);
    int32_t *k = malloc((n + 1) * 4);
    for (size_t i = 0; i < n; i++) {
        x[i] = random_float();
        t[i] = random_float();
        k[i] = (int32_t)(next_random() % 40) - 10;
    }
    validity vx = make_validity(n, sh.null_percent, sh.offset, without(sh, 0));
    validity vt = make_validity(n, sh.null_percent, 1, without(sh, 1));
    void *dx = device_copy(x, n * 4), *dt = device_copy(t, n * 4), *dk = device_copy(k, n * 4);
    void *dind = device_copy(NULL, n * 8), *dcount = device_copy(NULL, 8);
    bool *keep = calloc(n + 1, 1);
    snprintf(current + strlen(current), sizeof current - strlen(current), " positive");
    if (!check(nk_nullable_filter_positive(NULL, n, dx, vx.mask, dind, dcount), "positive") &&
        !check(udfkit_synchronize(), "synchronize")) {
        for (size_t i = 0; i < n; i++)
            keep[i] = vx.valid[i] && x[i] > 0.0f;
        expect_rows(dind, dcount, keep, n);
    }
    snprintf(current + strlen(current), sizeof current - strlen(current), " above");
    if (!check(nk_nullable_filter_above(NULL, n, dx, vx.mask, dt, vt.mask, dind, dcount), "above") &&
        !check(udfkit_synchronize(), "synchronize")) {
        for (size_t i = 0; i < n; i++)
            keep[i] = vt.valid[i] && (vx.valid[i] ? x[i] > t[i] : t[i] < 0.0f);
        expect_rows(dind, dcount, keep, n);
    }
    snprintf(current + strlen(current), sizeof current - strlen(current), " py_small");
    if (!check(nk_nullable_filter_py_small(NULL, n, dk, vx.mask, dind, dcount), "py_small") &&
        !check(udfkit_synchronize(), "synchronize")) {
        for (size_t i = 0; i < n; i++)
            keep[i] = vx.valid[i] && k[i] < 10;
        expect_rows(dind, dcount, keep, n);
    }
    free(keep);
    free_validity(&vx);
    free_validity(&vt);
    void *dev[] = {dx, dt, dk, dind, dcount};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        udfkit_device_free(dev[i]);
    free(x);
    free(t);
    free(k);
}

static int64_t affine(int64_t first, int64_t second)
{
    uint64_t f = (uint64_t)first, s = (uint64_t)second;
    uint32_t fh = (uint32_t)(f >> 32), fl = (uint32_t)f, sh = (uint32_t)(s >> 32), sl = (uint32_t)s;
    uint32_t hi = sh * fh, lo = sh * fl + sl;
    return (int64_t)(((uint64_t)hi << 32) | lo);
}

/* nullable_reduce: add64, affine (associative, not commutative: order shows), py_max. */
static void run_reduces(shape sh)
{
    size_t n = sh.n;
    int64_t *x = malloc((n + 1) * 8);
    int32_t *k = malloc((n + 1) * 4);
    for (size_t i = 0; i < n; i++) {
        /* affine's factors odd, so no product collapses to 0. */
        x[i] = (int64_t)((next_random() & 0xffffffff00000000ull) | 1ull << 32 | next_random() % 1000);
        k[i] = (int32_t)(next_random() % 2000001) - 1000000;
    }
    validity v = make_validity(n, sh.null_percent, sh.offset, without(sh, 0));
    void *dx = device_copy(x, n * 8), *dk = device_copy(k, n * 4), *dout = device_copy(NULL, 8);
    void *dcount = device_copy(NULL, 8);
    const int64_t init_add = 5, init_affine = (int64_t)1 << 32;
    const int32_t init_max = -2000000;
    int64_t sum = init_add, comp = init_affine;
    int32_t max = init_max;
    uint64_t valid = 0;
    for (size_t i = 0; i < n; i++)
        if (v.valid[i]) {
            sum = (int64_t)((uint64_t)sum + (uint64_t)x[i]); /* wraps, as on the device */
            comp = affine(comp, x[i]);
            max = k[i] > max ? k[i] : max;
            valid++;
        }
    int64_t got = 0;
    uint64_t count = 0;
    if (!check(nk_nullable_reduce_add64(NULL, n, dx, v.mask, init_add, dout, dcount), "add64") &&
        !check(udfkit_copy_to_host(&got, dout, 8), "copy") && !check(udfkit_copy_to_host(&count, dcount, 8), "copy")) {
        expect(got == sum, "add64 value");
        expect(count == valid, "add64 valid count");
    }
    if (!check(nk_nullable_reduce_affine(NULL, n, dx, v.mask, init_affine, dout, NULL), "affine") &&
        !check(udfkit_copy_to_host(&got, dout, 8), "copy"))
        expect(got == comp, "affine value (order)");
    int32_t got32 = 0;
    if (!check(nk_nullable_reduce_py_max(NULL, n, dk, v.mask, init_max, dout, dcount), "py_max") &&
        !check(udfkit_copy_to_host(&got32, dout, 4), "copy") && !check(udfkit_copy_to_host(&count, dcount, 8), "copy")) {
        expect(got32 == max, "py_max value");
        expect(count == valid, "py_max valid count");
    }
    free_validity(&v);
    void *dev[] = {dx, dk, dout, dcount};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        udfkit_device_free(dev[i]);
    free(x);
    free(k);
}

/* The library's error record after a launch: `want_row` (UINT64_MAX: none) and its code;
 * for reduce the row is the first of the rows combined, so at most the failing one. */
static void expect_error(uint64_t want_row, int want_code, bool row_at_most, const char *what)
{
    uint64_t row = 0;
    int code = 0;
    udfkit_status st = nk_udf_error(NULL, &row, &code);
    char text[200];
    if (want_row == UINT64_MAX) {
        snprintf(text, sizeof text, "%s: no UDF error expected, got %s (%s)", what, udfkit_status_string(st),
                 udfkit_last_error());
        expect(st == UDFKIT_OK, text);
        return;
    }
    snprintf(text, sizeof text, "%s: UDFKIT_ERROR_UDF at row %llu code %d expected, got %s row %llu code %d", what,
             (unsigned long long)want_row, want_code, udfkit_status_string(st), (unsigned long long)row, code);
    expect(st == UDFKIT_ERROR_UDF && (row_at_most ? row <= want_row : row == want_row) && code == want_code, text);
    if (st == UDFKIT_ERROR_UDF) {
        char detail[64];
        snprintf(detail, sizeof detail, "failed row %llu with code %d", (unsigned long long)row, code);
        expect(strstr(udfkit_last_error(), detail) != NULL, "udfkit_last_error names the row and code");
    }
    /* Read once, the record is clear. */
    expect(nk_udf_error(NULL, NULL, NULL) == UDFKIT_OK, "the record is cleared");
}

/* UDF errors at the rows in `bad` (count of them; none with 0): map, nullable_map (recorded,
 * and null), nullable_map nullify (null only), filter, reduce, Python map and raise. The
 * nullable_maps run twice: without bitmaps (their dense kernels) and with all-valid bitmaps at
 * bit offset 3 (their general kernels). */
static void run_errors(size_t n, const size_t *bad, size_t nbad)
{
    int32_t *a = malloc((n + 1) * 4), *b = malloc((n + 1) * 4), *x = malloc((n + 1) * 4);
    int64_t *v = malloc((n + 1) * 8);
    bool *is_bad = calloc(n + 1, 1);
    for (size_t j = 0; j < nbad; j++)
        is_bad[bad[j]] = true;
    size_t lowest = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        a[i] = (int32_t)(i % 100000) + 1;
        b[i] = is_bad[i] ? 0 : (int32_t)(next_random() % 9) + 1;
        x[i] = is_bad[i] ? -(int32_t)(i % 1000) - 1 : (int32_t)(next_random() % 1000);
        v[i] = is_bad[i] ? -7 : (int64_t)(next_random() % 100);
        lowest = is_bad[i] && i < lowest ? i : lowest;
    }
    uint64_t want_row = lowest == SIZE_MAX ? UINT64_MAX : lowest;
    int code_div = lowest == SIZE_MAX ? 0 : a[lowest], code_even = lowest == SIZE_MAX ? 0 : x[lowest];
    void *da = device_copy(a, n * 4), *db = device_copy(b, n * 4), *dx = device_copy(x, n * 4), *dv = device_copy(v, n * 8);
    void *dout = device_copy(NULL, n * 8), *dbits = device_copy(NULL, (n + 7) / 8), *dcount = device_copy(NULL, 8);
    void *dind = device_copy(NULL, n * 8);
    validity all_valid = make_validity(n, 0, 3, false);
    bool *want = calloc(n + 1, 1);
    for (size_t i = 0; i < n; i++)
        want[i] = !is_bad[i];
    expect(nk_udf_error(NULL, NULL, NULL) == UDFKIT_OK, "no error before any launch");

    check(nk_map_checked_div(NULL, n, da, db, dout), "map(checked_div)");
    expect_error(want_row, code_div, false, "map(checked_div)");
    check(nk_map_py_checked(NULL, n, da, db, dout), "map(py_checked)");
    expect_error(want_row, code_div, false, "map(py_checked)");
    check(nk_map_py_raise(NULL, n, dx, dout), "map(py_raise)");
    expect_error(want_row, 5, false, "map(py_raise)");

    for (int bitmaps = 0; bitmaps < 2; bitmaps++) {
        const udfkit_mask all = bitmaps ? all_valid.mask : (udfkit_mask){NULL, 0};
        uint64_t nulls = 0;
        check(nk_nullable_map_checked_div(NULL, n, da, all, db, all, dout, dbits, dcount), "nullable_map(checked_div)");
        expect_error(want_row, code_div, false, "nullable_map(checked_div)");
        check(udfkit_copy_to_host(&nulls, dcount, 8), "copy");
        expect_bits(dbits, n, want, nulls, "nullable_map(checked_div): failed rows are null");
        check(nk_nullable_map_checked_div_quiet_nullify(NULL, n, da, all, db, all, dout, dbits, dcount), "nullify");
        expect_error(UINT64_MAX, 0, false, "nullable_map(checked_div_quiet, nullify)");
        check(udfkit_copy_to_host(&nulls, dcount, 8), "copy");
        expect_bits(dbits, n, want, nulls, "nullable_map(checked_div_quiet, nullify)");
        check(nk_nullable_map_py_raise_nullify(NULL, n, dx, all, dout, dbits, dcount), "nullable_map(py_raise, nullify)");
        expect_error(UINT64_MAX, 0, false, "nullable_map(py_raise, nullify)");
        check(udfkit_copy_to_host(&nulls, dcount, 8), "copy");
        expect_bits(dbits, n, want, nulls, "nullable_map(py_raise, nullify)");
    }

    check(nk_filter_checked_even(NULL, n, dx, dind, dcount), "filter(checked_even)");
    expect_error(want_row, code_even, false, "filter(checked_even)");
    for (size_t i = 0; i < n; i++)
        want[i] = !is_bad[i] && (x[i] & 1) == 0;
    expect_rows(dind, dcount, want, n);

    check(nk_reduce_checked_add(NULL, n, dv, 0, dout), "reduce(checked_add)");
    expect_error(want_row, 77, true, "reduce(checked_add)");

    free(want);
    free_validity(&all_valid);
    void *dev[] = {da, db, dx, dv, dout, dbits, dcount, dind};
    for (size_t i = 0; i < sizeof dev / sizeof *dev; i++)
        udfkit_device_free(dev[i]);
    free(a);
    free(b);
    free(x);
    free(v);
    free(is_bad);
}

int main(void)
{
    udfkit_status st = nk_load();
    if (st == UDFKIT_ERROR_NO_DRIVER || st == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        return 77;
    }
    if (check(st, "nk_load"))
        return 1;
    const size_t sizes[] = {0, 1, 7, 8, 9, (1u << 20) + 3};
    const int percents[] = {0, 10, 100};
    size_t runs = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t p = 0; p < sizeof percents / sizeof *percents; p++)
            for (uint64_t offset = 0; offset <= 3; offset += 3)
                for (int none = 0; none <= 2; none++) {
                    /* Without bitmaps: all (no nulls), and the first input's only (10%, offset 3). */
                    if ((none == 1 && (percents[p] != 0 || offset != 0)) ||
                        (none == 2 && (percents[p] != 10 || offset != 3)))
                        continue;
                    shape sh = {sizes[s], percents[p], offset, none};
                    const char *bitmaps[] = {"", " no bitmaps", " no first bitmap"};
                    snprintf(current, sizeof current, "n=%zu nulls=%d%% offset=%llu%s", sh.n, sh.null_percent,
                             (unsigned long long)offset, bitmaps[none]);
                    const char *maps[] = {"twice", "coalesce", "py_coalesce"};
                    for (size_t m = 0; m < 3; m++)
                        run_map_float(sh, maps[m]);
                    run_safe_div(sh);
                    run_map_outputs(sh);
                    run_py_both(sh);
                    run_parts(sh);
                    run_filters(sh);
                    snprintf(current, sizeof current, "n=%zu nulls=%d%% offset=%llu%s reduce", sh.n,
                             sh.null_percent, (unsigned long long)offset, bitmaps[none]);
                    run_reduces(sh);
                    runs++;
                }
    const size_t error_sizes[] = {1, 1000, (1u << 20) + 3};
    for (size_t s = 0; s < 3; s++) {
        size_t n = error_sizes[s];
        const size_t first = 0, middle = n / 2, last = n - 1, all[] = {first, middle, last};
        snprintf(current, sizeof current, "errors n=%zu none", n);
        run_errors(n, NULL, 0);
        for (size_t k = 0; k < 3; k++) {
            snprintf(current, sizeof current, "errors n=%zu row %zu", n, all[k]);
            run_errors(n, &all[k], 1);
        }
        snprintf(current, sizeof current, "errors n=%zu rows first, middle, last", n);
        run_errors(n, all, 3);
    }
    printf("%zu shapes x 15 launchers, errors at 3 sizes: %d failure(s)\n", runs, failures);
    return failures ? 1 : 0;
}
