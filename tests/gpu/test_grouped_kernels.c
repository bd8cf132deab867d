/* The grouped and ordered kernel templates (inclusive_scan, exclusive_scan, reduce_by_key,
 * transform_reduce, segmented_reduce, sort) through the
 * launchers `udfkit kernels` generates (library gk, built at build time from
 * tests/data/grouped/), against a sequential scan on the host: n = 0, 1, 31, 32, 33, 1919,
 * 1920, 1921 (a tile's edges) and 2^20 + 7; int32, float64 (integer values, so every
 * order gives the same sums), uint8, bool, float16 and int64 operators, two of them not
 * commutative (keep the left one; 2x2 matrix products) and a Python one (affine maps), so
 * that any reordering shows; a scan in place; one of more than 2^31 rows where the device
 * has the memory; UDF errors at the first, middle and last row; the same launchers with
 * caller-owned scratch memory (udfkit_stream_scratch), too small and ended. reduce_by_key over keys all
 * equal, all distinct, and in random runs of 1 to 40 rows, sizes up to a tile's edges (768
 * rows) and 2^20 + 7, against runs found on the host, and with an op that fails a row on
 * any operand outside what the rows make (bounded_add), last tiles of 1 to 767 rows: no
 * failure recorded (the op never sees a place that was not loaded). transform_reduce with one and two
 * input columns (of different types), a predicate, matrices and Python affine maps, n = 0 to
 * 2^20 + 7 and unaligned inputs; segmented_reduce over random segments of 0 to 70 rows (many
 * empty and of one row, starting anywhere), one segment of 2^20 + 7 rows, no segments, and
 * 2^31 + 1000 segments (two launches) where the device has the memory.
 * sort against a stable sort on the host, with the order and without, in place and not: int32
 * ascending and by absolute value, float64 ascending and descending, uint8, bool, float16 and a
 * Python comparator (by the last digit), values with many ties; n = 0 to 2^20 + 7 (a tile's
 * edges, several merge passes); comparator errors; 2^31 + 4099 rows of uint8.
 * usage: test_grouped_kernels; exit 77 (skipped) without a GPU. */
#include "gk.h"
#include "gpu_test.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char current[160];

static void expect(bool ok, const char *what)
{
    if (!ok && failures++ < 50)
        fprintf(stderr, "FAIL %s: %s\n", current, what);
}

/* The host's operators, as tests/data/grouped/ops.{cu,py} define them. */
static int32_t add_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static double add_f64(double a, double b) { return a + b; }
static uint8_t add_u8(uint8_t a, uint8_t b) { return (uint8_t)(a + b); }
static bool or_bool(bool a, bool b) { return a || b; }
static int32_t keep_left(int32_t a, int32_t b) { (void)b; return a; }

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
    if (exp == 0 && mant == 0)
        bits = sign;
    else if (exp == 0) { /* subnormal */
        exp = 127 - 15 + 1;
        while (!(mant & 0x400)) {
            mant <<= 1;
            exp--;
        }
        bits = sign | exp << 23 | (mant & 0x3ff) << 13;
    } else if (exp == 31)
        bits = sign | 0xff << 23 | mant << 13;
    else
        bits = sign | (exp + 127 - 15) << 23 | mant << 13;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t max_f16(uint16_t a, uint16_t b) { return half_to_float(b) > half_to_float(a) ? b : a; }

static int64_t mat2_mul(int64_t x, int64_t y)
{
    uint64_t a = (uint64_t)x, b = (uint64_t)y;
    uint64_t a00 = a & 0xffff, a01 = (a >> 16) & 0xffff, a10 = (a >> 32) & 0xffff, a11 = (a >> 48) & 0xffff;
    uint64_t b00 = b & 0xffff, b01 = (b >> 16) & 0xffff, b10 = (b >> 32) & 0xffff, b11 = (b >> 48) & 0xffff;
    uint64_t c00 = (a00 * b00 + a01 * b10) & 0xffff, c01 = (a00 * b01 + a01 * b11) & 0xffff;
    uint64_t c10 = (a10 * b00 + a11 * b10) & 0xffff, c11 = (a10 * b01 + a11 * b11) & 0xffff;
    return (int64_t)(c00 | c01 << 16 | c10 << 32 | c11 << 48);
}

static int64_t py_affine(int64_t f, int64_t g)
{
    int64_t a1 = (f >> 16) & 0xffff, b1 = f & 0xffff, a2 = (g >> 16) & 0xffff, b2 = g & 0xffff;
    return ((a1 * a2) & 0xffff) << 16 | ((a2 * b1 + b2) & 0xffff);
}

/* One typed case: T, the host op, and the launchers. */
#define SCAN_CASE(NAME, T, OP, INCLUSIVE, EXCLUSIVE, GEN)                                                           \
    static void run_##NAME(size_t n, T init, bool in_place)                                                     \
    {                                                                                                           \
        T *in = calloc(n ? n : 1, sizeof(T)), *want = malloc((n ? n : 1) * sizeof(T));                     \
        T *got = malloc((n ? n : 1) * sizeof(T));                                                               \
        for (size_t i = 0; i < n; i++)                                                                          \
            in[i] = (T)(GEN);                                                                                   \
        void *din = device_copy(in, n * sizeof(T)), *dout = in_place ? din : device_copy(NULL, n * sizeof(T));   \
        for (int exclusive = 0; exclusive <= 1; exclusive++) {                                                   \
            udfkit_status (*inc)(udfkit_stream, size_t, const T *, T *) = INCLUSIVE;                             \
            udfkit_status (*exc)(udfkit_stream, size_t, const T *, T, T *) = EXCLUSIVE;                          \
            if ((exclusive ? (void *)exc : (void *)inc) == NULL)                                                 \
                continue;                                                                                       \
            if (in_place && n)                                                                                  \
                check(udfkit_copy_to_device(din, in, n * sizeof(T)), "udfkit_copy_to_device");                  \
            T acc = init;                                                                                       \
            for (size_t i = 0; i < n; i++) {                                                                    \
                if (exclusive) {                                                                                \
                    want[i] = acc;                                                                              \
                    acc = OP(acc, in[i]);                                                                       \
                } else                                                                                          \
                    want[i] = acc = i ? OP(acc, in[i]) : in[i];                                                 \
            }                                                                                                   \
            udfkit_status st = exclusive ? exc(NULL, n, din, init, dout) : inc(NULL, n, din, dout);             \
            snprintf(current, sizeof current, "%s_scan(%s) n=%zu%s", exclusive ? "exclusive" : "inclusive",      \
                     #NAME, n, in_place ? " in place" : "");                                                    \
            if (check(st, current) || check(udfkit_synchronize(), current))                                     \
                continue;                                                                                       \
            if (n)                                                                                              \
                check(udfkit_copy_to_host(got, dout, n * sizeof(T)), "udfkit_copy_to_host");                    \
            size_t bad = 0;                                                                                     \
            for (size_t i = 0; i < n; i++)                                                                      \
                if (memcmp(&got[i], &want[i], sizeof(T)) != 0 && bad++ == 0) {                                  \
                    char what[96];                                                                              \
                    snprintf(what, sizeof what, "row %zu differs (first of the rows that do)", i);              \
                    expect(false, what);                                                                        \
                }                                                                                               \
        }                                                                                                       \
        udfkit_device_free(din);                                                                                \
        if (!in_place)                                                                                          \
            udfkit_device_free(dout);                                                                           \
        free(in);                                                                                               \
        free(want);                                                                                             \
        free(got);                                                                                              \
    }

SCAN_CASE(add_i32, int32_t, add_i32, gk_inclusive_scan_add_i32, gk_exclusive_scan_add_i32, next_random())
SCAN_CASE(add_f64, double, add_f64, gk_inclusive_scan_add_f64, gk_exclusive_scan_add_f64,
          (double)(int)(next_random() % 2001) - 1000.0)
SCAN_CASE(add_u8, uint8_t, add_u8, gk_inclusive_scan_add_u8, NULL, next_random())
SCAN_CASE(or_bool, bool, or_bool, gk_inclusive_scan_or_bool, NULL, next_random() % 1000 == 0)
SCAN_CASE(max_f16, uint16_t, max_f16, gk_inclusive_scan_max_f16, NULL, next_random() % 0x7c00) /* finite */
SCAN_CASE(keep_left, int32_t, keep_left, gk_inclusive_scan_keep_left, gk_exclusive_scan_keep_left, next_random())
SCAN_CASE(mat2_mul, int64_t, mat2_mul, gk_inclusive_scan_mat2_mul, gk_exclusive_scan_mat2_mul, next_random())
SCAN_CASE(py_affine, int64_t, py_affine, gk_inclusive_scan_py_affine, gk_exclusive_scan_py_affine,
          next_random() & 0xffffffffu)

/* Keys: 0 all equal, 1 all distinct, 2 random runs of 1 to 40 rows. */
static uint64_t key_at(int pattern, size_t i, uint64_t *run_key, size_t *run_left)
{
    if (pattern == 0)
        return 5;
    if (pattern == 1)
        return i;
    if (*run_left == 0) {
        *run_key += 1 + next_random() % 3;
        *run_left = 1 + next_random() % 40;
    }
    (*run_left)--;
    return *run_key;
}

#define RBK_CASE(NAME, K, T, OP, LAUNCHER, GEN)                                                                    \
    static void run_rbk_##NAME(size_t n, int pattern)                                                           \
    {                                                                                                           \
        K *keys = malloc((n ? n : 1) * sizeof(K)), *want_keys = malloc((n ? n : 1) * sizeof(K));                \
        K *got_keys = malloc((n ? n : 1) * sizeof(K));                                                          \
        T *in = malloc((n ? n : 1) * sizeof(T)), *want = malloc((n ? n : 1) * sizeof(T));                       \
        T *got = malloc((n ? n : 1) * sizeof(T));                                                               \
        uint64_t run_key = 0, runs = 0, got_runs = ~0ull;                                                       \
        size_t run_left = 0;                                                                                    \
        for (size_t i = 0; i < n; i++) {                                                                        \
            keys[i] = (K)key_at(pattern, i, &run_key, &run_left);                                               \
            in[i] = (T)(GEN);                                                                                   \
            if (i == 0 || keys[i] != keys[i - 1]) {                                                             \
                want_keys[runs] = keys[i];                                                                      \
                want[runs++] = in[i];                                                                           \
            } else                                                                                              \
                want[runs - 1] = OP(want[runs - 1], in[i]);                                                     \
        }                                                                                                       \
        void *dkeys = device_copy(keys, n * sizeof(K)), *din = device_copy(in, n * sizeof(T));                  \
        void *dukeys = device_copy(NULL, n * sizeof(K)), *dout = device_copy(NULL, n * sizeof(T));              \
        void *druns = device_copy(&got_runs, sizeof got_runs);                                                  \
        snprintf(current, sizeof current, "reduce_by_key(%s) n=%zu keys %s", #NAME, n,                          \
                 pattern == 0 ? "all equal" : pattern == 1 ? "all distinct" : "in random runs");                \
        if (!check(LAUNCHER(NULL, n, dkeys, din, dukeys, dout, druns), current) &&                               \
            !check(udfkit_synchronize(), current)) {                                                            \
            check(udfkit_copy_to_host(&got_runs, druns, sizeof got_runs), "udfkit_copy_to_host");               \
            expect(got_runs == runs, "the number of runs");                                                     \
            if (got_runs == runs && runs) {                                                                     \
                check(udfkit_copy_to_host(got_keys, dukeys, runs * sizeof(K)), "udfkit_copy_to_host");          \
                check(udfkit_copy_to_host(got, dout, runs * sizeof(T)), "udfkit_copy_to_host");                 \
                expect(memcmp(got_keys, want_keys, runs * sizeof(K)) == 0, "the runs' keys");                   \
                expect(memcmp(got, want, runs * sizeof(T)) == 0, "the runs' values");                           \
            }                                                                                                   \
        }                                                                                                       \
        void *all[] = {dkeys, din, dukeys, dout, druns};                                                        \
        for (size_t k = 0; k < 5; k++)                                                                          \
            udfkit_device_free(all[k]);                                                                         \
        free(keys);                                                                                             \
        free(want_keys);                                                                                        \
        free(got_keys);                                                                                         \
        free(in);                                                                                               \
        free(want);                                                                                             \
        free(got);                                                                                              \
    }

RBK_CASE(add_i32, int32_t, int32_t, add_i32, gk_reduce_by_key_add_i32_by_int32, next_random())
RBK_CASE(add_f64, uint64_t, double, add_f64, gk_reduce_by_key_add_f64_by_uint64, (double)(int)(next_random() % 2001) - 1000.0)
RBK_CASE(keep_left, uint8_t, int32_t, keep_left, gk_reduce_by_key_keep_left_by_uint8, next_random())
RBK_CASE(mat2_mul, int64_t, int64_t, mat2_mul, gk_reduce_by_key_mat2_mul_by_int64, next_random())
RBK_CASE(py_affine, int16_t, int64_t, py_affine, gk_reduce_by_key_py_affine_by_int16, next_random() & 0xffffffffu)
static int32_t bounded_add(int32_t a, int32_t b) { return a + b; }
RBK_CASE(bounded_add, int32_t, int32_t, bounded_add, gk_reduce_by_key_bounded_add_by_int32, next_random() % 8)

/* bounded_add fails a row (code 11) where an operand lies outside [0, 2^24), which no row or
 * sum of rows 0 to 7 does: only a place of the last tile that was not loaded (CUB's agent
 * combined those with the op) would. Right results, and no failure recorded. */
static void run_rbk_bounded(size_t n, int pattern)
{
    uint64_t row = 0;
    int code = 0;
    gk_udf_error(NULL, &row, &code); /* nothing left from before */
    run_rbk_bounded_add(n, pattern);
    row = 0;
    code = 0;
    udfkit_status st = gk_udf_error(NULL, &row, &code);
    snprintf(current, sizeof current, "reduce_by_key(bounded_add) n=%zu keys pattern %d: %s (row %llu, code %d)", n,
             pattern, udfkit_status_string(st), (unsigned long long)row, code);
    expect(st == UDFKIT_OK, "no failure recorded: the op never saw a place that was not loaded");
}

static int64_t square64(int32_t x) { return (int64_t)x * x; }
static double scaled(float x, int8_t k) { return (double)x * k; }
static bool is_negative(int32_t x) { return x < 0; }
static int64_t add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t upper(int32_t a, int32_t b)
{
    return (int64_t)(1ull | (uint64_t)(a & 0xffff) << 16 | (uint64_t)(b & 0xffff) << 48);
}
static int64_t py_pair(int32_t a, int32_t b) { return (int64_t)((a & 0xffff) << 16 | (b & 0xffff)); }

/* transform_reduce of NAME over columns A (and B) into T, by OP, from `skip` rows into the
 * arrays (so that the columns start unaligned where skip is not 0). */
#define TR_CASE(NAME, T, A, B, OP, LAUNCHER, GENA, GENB)                                                 \
    static void run_tr_##NAME(size_t n, size_t skip, T init)                                                    \
    {                                                                                                           \
        A *a = malloc((n + skip + 1) * sizeof(A));                                                              \
        B *b = malloc((n + skip + 1) * sizeof(B));                                                              \
        T want = init, got;                                                                                     \
        memset(&got, 0xa5, sizeof got);                                                                         \
        for (size_t i = 0; i < n + skip; i++) {                                                                 \
            a[i] = (A)(GENA);                                                                                   \
            b[i] = (B)(GENB);                                                                                   \
            if (i >= skip)                                                                                      \
                want = OP(want, h_##NAME(a[i], b[i]));                                                          \
        }                                                                                                       \
        A *da = device_copy(a, (n + skip) * sizeof(A));                                                         \
        B *db = device_copy(b, (n + skip) * sizeof(B));                                                         \
        T *dout = device_copy(NULL, sizeof(T));                                                                 \
        snprintf(current, sizeof current, "transform_reduce(%s) n=%zu skip=%zu", #NAME, n, skip);               \
        udfkit_status st = LAUNCHER;                                                                            \
        if (!check(st, current) && !check(udfkit_synchronize(), current)) {                                     \
            check(udfkit_copy_to_host(&got, dout, sizeof got), "udfkit_copy_to_host");                          \
            expect(memcmp(&got, &want, sizeof(T)) == 0, "the result");                                          \
        }                                                                                                       \
        udfkit_device_free(da);                                                                                 \
        udfkit_device_free(db);                                                                                 \
        udfkit_device_free(dout);                                                                               \
        free(a);                                                                                                \
        free(b);                                                                                                \
    }

/* The functions as the cases call them: two columns each (the second unused by some). */
static int64_t h_square64(int32_t a, int32_t b) { (void)b; return square64(a); }
static double h_scaled(float a, int8_t b) { return scaled(a, b); }
static bool h_is_negative(int32_t a, int32_t b) { (void)b; return is_negative(a); }
static int64_t h_upper(int32_t a, int32_t b) { return upper(a, b); }
static int64_t h_py_pair(int32_t a, int32_t b) { return py_pair(a, b); }

TR_CASE(square64, int64_t, int32_t, int32_t, add_i64,
        gk_transform_reduce_square64_add_i64(NULL, n, da + skip, init, dout), (int32_t)next_random(), 0)
TR_CASE(scaled, double, float, int8_t, add_f64, gk_transform_reduce_scaled_add_f64(NULL, n, da + skip, db + skip, init, dout),
        (float)((int)(next_random() % 2001) - 1000), (int8_t)next_random())
/* Negative about once in 10^5 rows: false for small n, true for large. */
TR_CASE(is_negative, bool, int32_t, int32_t, or_bool, gk_transform_reduce_is_negative_or_bool(NULL, n, da + skip, init, dout),
        (int32_t)(next_random() % 100000) - 1, 0)
TR_CASE(upper, int64_t, int32_t, int32_t, mat2_mul,
        gk_transform_reduce_upper_mat2_mul(NULL, n, da + skip, db + skip, init, dout), next_random(), next_random())
TR_CASE(py_pair, int64_t, int32_t, int32_t, py_affine,
        gk_transform_reduce_py_pair_py_affine(NULL, n, da + skip, db + skip, init, dout), next_random(), next_random())

/* segmented_reduce over `segments` random segments of 0 to 70 rows after `lead` rows, or one
 * segment of all n rows where segments is 1. */
#define SEG_CASE(NAME, T, OP, LAUNCHER, GEN)                                                                      \
    static void run_seg_##NAME(size_t segments, size_t whole, T init)                                           \
    {                                                                                                           \
        uint64_t *off = malloc((segments + 1) * sizeof *off);                                                   \
        off[0] = next_random() % 5;                                                                             \
        for (size_t k = 0; k < segments; k++) {                                                                 \
            uint64_t r = next_random() % 10, len = whole ? whole : r < 3 ? 0 : r < 5 ? 1 : next_random() % 71;  \
            off[k + 1] = off[k] + len;                                                                          \
        }                                                                                                       \
        size_t rows = off[segments];                                                                            \
        T *in = malloc((rows + 1) * sizeof(T)), *want = malloc((segments + 1) * sizeof(T));                     \
        T *got = malloc((segments + 1) * sizeof(T));                                                            \
        for (size_t i = 0; i < rows; i++)                                                                       \
            in[i] = (T)(GEN);                                                                                   \
        for (size_t k = 0; k < segments; k++) {                                                                 \
            want[k] = init;                                                                                     \
            for (uint64_t i = off[k]; i < off[k + 1]; i++)                                                      \
                want[k] = OP(want[k], in[i]);                                                                   \
        }                                                                                                       \
        void *doff = device_copy(off, (segments + 1) * sizeof *off), *din = device_copy(in, rows * sizeof(T));   \
        void *dout = device_copy(NULL, segments * sizeof(T));                                                   \
        snprintf(current, sizeof current, "segmented_reduce(%s) segments=%zu rows=%zu", #NAME, segments, rows); \
        if (!check(LAUNCHER(NULL, segments, doff, din, init, dout), current) &&                                 \
            !check(udfkit_synchronize(), current) && segments) {                                                \
            check(udfkit_copy_to_host(got, dout, segments * sizeof(T)), "udfkit_copy_to_host");                 \
            size_t bad = 0;                                                                                     \
            for (size_t k = 0; k < segments; k++)                                                               \
                if (memcmp(&got[k], &want[k], sizeof(T)) != 0 && bad++ == 0) {                                  \
                    char what[96];                                                                              \
                    snprintf(what, sizeof what, "segment %zu (%llu rows) differs (first of those that do)", k,   \
                             (unsigned long long)(off[k + 1] - off[k]));                                        \
                    expect(false, what);                                                                        \
                }                                                                                               \
        }                                                                                                       \
        udfkit_device_free(doff);                                                                               \
        udfkit_device_free(din);                                                                                \
        udfkit_device_free(dout);                                                                               \
        free(off);                                                                                              \
        free(in);                                                                                               \
        free(want);                                                                                             \
        free(got);                                                                                              \
    }

SEG_CASE(add_i32, int32_t, add_i32, gk_segmented_reduce_add_i32, next_random())
SEG_CASE(add_u8, uint8_t, add_u8, gk_segmented_reduce_add_u8, next_random())
SEG_CASE(add_f64, double, add_f64, gk_segmented_reduce_add_f64, (double)(int)(next_random() % 2001) - 1000.0)
SEG_CASE(keep_left, int32_t, keep_left, gk_segmented_reduce_keep_left, next_random())
SEG_CASE(mat2_mul, int64_t, mat2_mul, gk_segmented_reduce_mat2_mul, next_random())
SEG_CASE(py_affine, int64_t, py_affine, gk_segmented_reduce_py_affine, next_random() & 0xffffffffu)

/* checked_square fails the rows below 0 with code 9: recorded at the row itself. */
static void run_transform_errors(size_t n, size_t bad_row)
{
    int32_t *in = malloc(n * sizeof *in);
    for (size_t i = 0; i < n; i++)
        in[i] = (int32_t)(i % 1000);
    in[bad_row] = -1;
    void *din = device_copy(in, n * sizeof *in), *dout = device_copy(NULL, sizeof(int64_t));
    uint64_t row = 0;
    int code = 0;
    snprintf(current, sizeof current, "transform_reduce(checked_square) n=%zu failing row %zu", n, bad_row);
    check(gk_transform_reduce_checked_square_add_i64(NULL, n, din, 0, dout), current);
    expect(gk_udf_error(NULL, &row, &code) == UDFKIT_ERROR_UDF, "the failure is recorded");
    expect(row == bad_row && code == 9, "at the failing row, with its code");
    free(in);
    udfkit_device_free(din);
    udfkit_device_free(dout);
}

/* sort: the host's comparators, as tests/data/grouped/ops.{cu,py} define them. */
static bool less_i32(int32_t a, int32_t b) { return a < b; }
static bool abs_less_i32(int32_t a, int32_t b) { return llabs((long long)a) < llabs((long long)b); }
static bool less_f64(double a, double b) { return a < b; }
static bool greater_f64(double a, double b) { return a > b; }
static bool less_u8(uint8_t a, uint8_t b) { return a < b; }
static bool less_bool(bool a, bool b) { return !a && b; }
static bool less_f16(uint16_t a, uint16_t b) { return half_to_float(a) < half_to_float(b); }
static bool py_last_digit_less(int64_t a, int64_t b) { return a % 10 < b % 10; }

/* One typed sort case: the host's answer is a stable sort of the row numbers (qsort, which is
 * not stable, of (value, row) pairs: rows the comparator leaves equivalent go by row), the
 * values at those rows and the rows themselves as the order. Sorts with order and without, out
 * of place and, with in_place, in place (out = in). */
#define SORT_CASE(NAME, T, LESS, LAUNCHER, GEN)                                                                    \
    static const T *NAME##_keys;                                                                                \
    static int NAME##_cmp(const void *x, const void *y)                                                         \
    {                                                                                                           \
        uint64_t i = *(const uint64_t *)x, j = *(const uint64_t *)y;                                            \
        if (LESS(NAME##_keys[i], NAME##_keys[j]))                                                               \
            return -1;                                                                                          \
        if (LESS(NAME##_keys[j], NAME##_keys[i]))                                                               \
            return 1;                                                                                           \
        return i < j ? -1 : i > j;                                                                              \
    }                                                                                                           \
    static void run_sort_##NAME(size_t n, bool in_place)                                                        \
    {                                                                                                           \
        size_t m = n ? n : 1;                                                                                   \
        T *in = malloc(m * sizeof(T)), *got = malloc(m * sizeof(T));                                            \
        uint64_t *rows = malloc(m * sizeof *rows), *order = malloc(m * sizeof *order);                          \
        for (size_t i = 0; i < n; i++) {                                                                        \
            in[i] = (T)(GEN);                                                                                   \
            rows[i] = i;                                                                                        \
        }                                                                                                       \
        NAME##_keys = in;                                                                                       \
        qsort(rows, n, sizeof *rows, NAME##_cmp);                                                               \
        void *din = device_copy(in, n * sizeof(T)), *dout = in_place ? din : device_copy(NULL, n * sizeof(T));   \
        void *dorder = device_copy(NULL, n * sizeof *order);                                                    \
        for (int with_order = 0; with_order <= 1; with_order++) {                                               \
            snprintf(current, sizeof current, "sort(%s) n=%zu%s%s", #NAME, n, with_order ? " with order" : "",  \
                     in_place ? " in place" : "");                                                              \
            if (in_place && n)                                                                                  \
                check(udfkit_copy_to_device(din, in, n * sizeof(T)), "udfkit_copy_to_device");                  \
            udfkit_status st = LAUNCHER(NULL, n, din, dout, with_order ? dorder : NULL);                         \
            if (check(st, current) || check(udfkit_synchronize(), current))                                     \
                continue;                                                                                       \
            if (n)                                                                                              \
                check(udfkit_copy_to_host(got, dout, n * sizeof(T)), "udfkit_copy_to_host");                     \
            if (n && with_order)                                                                                \
                check(udfkit_copy_to_host(order, dorder, n * sizeof *order), "udfkit_copy_to_host");            \
            size_t bad = 0, bad_order = 0;                                                                      \
            for (size_t i = 0; i < n; i++) {                                                                    \
                if (memcmp(&got[i], &in[rows[i]], sizeof(T)) != 0 && bad++ == 0) {                              \
                    char what[96];                                                                              \
                    snprintf(what, sizeof what, "row %zu differs (first of the rows that do)", i);              \
                    expect(false, what);                                                                        \
                }                                                                                               \
                if (with_order && order[i] != rows[i] && bad_order++ == 0) {                                    \
                    char what[128];                                                                             \
                    snprintf(what, sizeof what, "order[%zu] = %llu, not %llu (first of the rows that differ)", i, \
                             (unsigned long long)order[i], (unsigned long long)rows[i]);                         \
                    expect(false, what);                                                                        \
                }                                                                                               \
            }                                                                                                   \
        }                                                                                                       \
        udfkit_device_free(din);                                                                                \
        if (!in_place)                                                                                          \
            udfkit_device_free(dout);                                                                           \
        udfkit_device_free(dorder);                                                                             \
        free(in);                                                                                               \
        free(got);                                                                                              \
        free(rows);                                                                                             \
        free(order);                                                                                            \
    }

/* Values with many ties (stability shows in the order), negatives, -0.0 and 0.0 (float16). */
SORT_CASE(less_i32, int32_t, less_i32, gk_sort_less_i32, (int32_t)(next_random() % 20001) - 10000)
SORT_CASE(abs_less_i32, int32_t, abs_less_i32, gk_sort_abs_less_i32, (int32_t)(next_random() % 2001) - 1000)
SORT_CASE(less_f64, double, less_f64, gk_sort_less_f64, ((double)(int)(next_random() % 4001) - 2000.0) / 4)
SORT_CASE(greater_f64, double, greater_f64, gk_sort_greater_f64, (double)(int)(next_random() % 3001) - 1500.0)
SORT_CASE(less_u8, uint8_t, less_u8, gk_sort_less_u8, next_random())
SORT_CASE(less_bool, bool, less_bool, gk_sort_less_bool, next_random() % 3 == 0)
SORT_CASE(less_f16, uint16_t, less_f16, gk_sort_less_f16, (next_random() % 0x7c00) | (next_random() % 2) << 15)
SORT_CASE(py_last_digit_less, int64_t, py_last_digit_less, gk_sort_py_last_digit_less,
          (int64_t)(next_random() % 1000000))

/* The sort cases at n rows: those of T of 4 bytes or less (tiles of 4352 rows), those of
 * 8-byte T (tiles of 2048 rows). */
static void run_sort_cases(size_t n, bool narrow, bool wide, bool in_place)
{
    if (narrow) {
        run_sort_less_i32(n, in_place);
        run_sort_abs_less_i32(n, in_place);
        run_sort_less_u8(n, in_place);
        run_sort_less_bool(n, in_place);
        run_sort_less_f16(n, in_place);
    }
    if (wide) {
        run_sort_less_f64(n, in_place);
        run_sort_greater_f64(n, in_place);
        run_sort_py_last_digit_less(n, in_place);
    }
}

/* n = 0, 1, 31, 32, 33, a tile's edges, 5 tiles + 3 (3 merge passes, the last run alone in
 * the last), 2^20 + 7; in place at a tile + 1 and 2^20 + 7. */
static void run_sorts(void)
{
    const size_t both[] = {0, 1, 31, 32, 33, (1u << 20) + 7};
    for (size_t k = 0; k < sizeof both / sizeof *both; k++)
        run_sort_cases(both[k], true, true, false);
    for (size_t n = 4351; n <= 4353; n++)
        run_sort_cases(n, true, false, false);
    for (size_t n = 2047; n <= 2049; n++)
        run_sort_cases(n, false, true, false);
    run_sort_cases(5 * 4352 + 3, true, false, false);
    run_sort_cases(5 * 2048 + 3, false, true, false);
    run_sort_cases(4353, true, false, true);
    run_sort_cases(2049, false, true, true);
    run_sort_cases((1u << 20) + 7, true, true, true);
}

/* checked_less fails where an operand is negative, with code 8: a -1 at bad_row among values
 * >= 0. The block sort compares every row of its tile, so the launch records the first row of
 * bad_row's tile (4352 rows); with order and without. */
static void run_sort_errors(size_t n, size_t bad_row)
{
    int32_t *in = malloc(n * sizeof *in);
    for (size_t i = 0; i < n; i++)
        in[i] = (int32_t)(next_random() % 1000);
    in[bad_row] = -1;
    void *din = device_copy(in, n * sizeof *in), *dout = device_copy(NULL, n * sizeof *in);
    void *dorder = device_copy(NULL, n * sizeof(uint64_t));
    for (int with_order = 0; with_order <= 1; with_order++) {
        uint64_t row = 0;
        int code = 0;
        snprintf(current, sizeof current, "sort(checked_less) n=%zu failing row %zu%s", n, bad_row,
                 with_order ? " with order" : "");
        check(gk_sort_checked_less(NULL, n, din, dout, with_order ? dorder : NULL), current);
        udfkit_status st = gk_udf_error(NULL, &row, &code);
        expect(st == UDFKIT_ERROR_UDF, "the failure is recorded");
        expect(row == bad_row / 4352 * 4352, "at the first row of the failing row's tile (4352 rows)");
        expect(code == 8, "with its code");
        expect(gk_udf_error(NULL, &row, &code) == UDFKIT_OK, "cleared after reading");
    }
    /* Values all >= 0: no error. */
    in[bad_row] = 5;
    check(udfkit_copy_to_device(din, in, n * sizeof *in), "udfkit_copy_to_device");
    snprintf(current, sizeof current, "sort(checked_less) n=%zu no failing row", n);
    check(gk_sort_checked_less(NULL, n, din, dout, dorder), current);
    uint64_t row = 0;
    int code = 0;
    expect(gk_udf_error(NULL, &row, &code) == UDFKIT_OK, "no failure recorded");
    free(in);
    udfkit_device_free(din);
    udfkit_device_free(dout);
    udfkit_device_free(dorder);
}

/* sort(less_u8) of more than 2^31 rows (2 GiB in, out and the launcher's copy), where the
 * device has room: the values alone (the order, 16 GiB more and its copy, would double the
 * test's time), every row checked: out ascending, each value as many times as in in. */
static void run_sort_over_2_31(void)
{
    const size_t n = (1ull << 31) + 4099;
    snprintf(current, sizeof current, "sort(less_u8) n=2^31+4099");
    void *din = NULL, *dout = NULL, *spare = NULL;
    /* The launcher's temporary memory, another n bytes and the bounds, asked for here first. */
    if (udfkit_device_alloc(n, &din) != UDFKIT_OK || udfkit_device_alloc(n, &dout) != UDFKIT_OK ||
        udfkit_device_alloc(n + (1u << 24), &spare) != UDFKIT_OK) {
        printf("skipped the sort of 2^31 + 4099 rows: the device has not 6 GiB free (%s)\n", udfkit_last_error());
        udfkit_device_free(din);
        udfkit_device_free(dout);
        return;
    }
    udfkit_device_free(spare);
    uint8_t *in = malloc(n), *got = malloc(n);
    for (size_t i = 0; i < n; i++)
        in[i] = (uint8_t)(i * 2654435761u >> 13);
    check(udfkit_copy_to_device(din, in, n), "udfkit_copy_to_device");
    if (!check(gk_sort_less_u8(NULL, n, din, dout, NULL), current) && !check(udfkit_synchronize(), current)) {
        check(udfkit_copy_to_host(got, dout, n), "udfkit_copy_to_host");
        size_t counts[256] = {0}, bad = 0;
        for (size_t i = 0; i < n; i++)
            counts[in[i]]++;
        for (size_t i = 0; i < n; i++)
            if ((counts[got[i]]-- == 0 || (i && got[i - 1] > got[i])) && bad++ == 0) {
                char what[96];
                snprintf(what, sizeof what, "row %zu is out of order or one too many (first of the rows)", i);
                expect(false, what);
            }
    }
    free(in);
    free(got);
    udfkit_device_free(din);
    udfkit_device_free(dout);
}

/* More than 2^31 rows of uint8 (2 GiB in, 2 GiB out), where the device has room; a sample
 * of rows is compared (every 4099th and the last 10^6), the scan being sequential on the host. */
/* The same 2^31 + 4099 rows through transform_reduce (their sum as int64), segmented_reduce
 * (two segments, split past 2^31) and reduce_by_key (keys in runs of 2^20 rows, a uint8 key
 * each, wrapping), against the host. */
static void over_2_31_reductions(size_t n, const uint8_t *in, void *din)
{
    int64_t sum = 0, got_sum = -1;
    uint8_t seg_want[2] = {0, 0}, seg_got[2] = {1, 1}, run_want[2100], run_got[2100];
    const uint64_t off[3] = {0, (1ull << 31) + 17, n};
    memset(run_want, 0, sizeof run_want);
    for (size_t i = 0; i < n; i++) {
        sum += in[i];
        seg_want[i >= off[1]] = (uint8_t)(seg_want[i >= off[1]] + in[i]);
        run_want[i >> 20] = (uint8_t)(run_want[i >> 20] + in[i]);
    }
    const uint64_t runs = ((n - 1) >> 20) + 1;
    void *dsum = device_copy(NULL, sizeof got_sum), *doff = device_copy(off, sizeof off);
    void *dseg = device_copy(NULL, sizeof seg_got), *druns = device_copy(NULL, sizeof(uint64_t));
    void *dukeys = device_copy(NULL, sizeof run_got), *dvals = device_copy(NULL, sizeof run_got);
    uint8_t *keys = malloc(n);
    for (size_t i = 0; i < n; i++)
        keys[i] = (uint8_t)(i >> 20);
    void *dkeys = NULL;
    if (udfkit_device_alloc(n, &dkeys) != UDFKIT_OK) {
        printf("skipped reduce_by_key of 2^31 + 4099 rows: no 2 GiB more on the device (%s)\n", udfkit_last_error());
        dkeys = NULL;
    }
    snprintf(current, sizeof current, "transform_reduce(widen) and segmented_reduce(add_u8) n=2^31+4099");
    if (!check(gk_transform_reduce_widen_add_i64(NULL, n, din, 0, dsum), current) &&
        !check(gk_segmented_reduce_add_u8(NULL, 2, doff, din, 0, dseg), current) &&
        !check(udfkit_synchronize(), current)) {
        check(udfkit_copy_to_host(&got_sum, dsum, sizeof got_sum), "udfkit_copy_to_host");
        check(udfkit_copy_to_host(seg_got, dseg, sizeof seg_got), "udfkit_copy_to_host");
        expect(got_sum == sum, "transform_reduce's sum");
        expect(memcmp(seg_got, seg_want, 2) == 0, "segmented_reduce's two sums");
    }
    snprintf(current, sizeof current, "reduce_by_key(add_u8, uint8) n=2^31+4099");
    uint64_t got_runs = 0;
    if (dkeys && !check(udfkit_copy_to_device(dkeys, keys, n), "udfkit_copy_to_device") &&
        !check(gk_reduce_by_key_add_u8_by_uint8(NULL, n, dkeys, din, dukeys, dvals, druns), current) &&
        !check(udfkit_synchronize(), current)) {
        check(udfkit_copy_to_host(&got_runs, druns, sizeof got_runs), "udfkit_copy_to_host");
        expect(got_runs == runs, "the number of runs");
        if (got_runs == runs) {
            check(udfkit_copy_to_host(run_got, dvals, runs), "udfkit_copy_to_host");
            expect(memcmp(run_got, run_want, runs) == 0, "every run's sum");
        }
    }
    void *all[] = {dsum, doff, dseg, druns, dukeys, dvals, dkeys};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        udfkit_device_free(all[k]);
    free(keys);
}

static void run_over_2_31(void)
{
    const size_t n = (1ull << 31) + 4099;
    snprintf(current, sizeof current, "inclusive_scan(add_u8) n=2^31+4099");
    void *din = NULL, *dout = NULL;
    if (udfkit_device_alloc(n, &din) != UDFKIT_OK || udfkit_device_alloc(n, &dout) != UDFKIT_OK) {
        printf("skipped the case of 2^31 + 4099 rows: the device has not 4 GiB free (%s)\n", udfkit_last_error());
        udfkit_device_free(din);
        return;
    }
    uint8_t *in = malloc(n), *got = malloc(n);
    for (size_t i = 0; i < n; i++)
        in[i] = (uint8_t)(i * 2654435761u >> 13);
    check(udfkit_copy_to_device(din, in, n), "udfkit_copy_to_device");
    if (!check(gk_inclusive_scan_add_u8(NULL, n, din, dout), current) && !check(udfkit_synchronize(), current)) {
        check(udfkit_copy_to_host(got, dout, n), "udfkit_copy_to_host");
        uint8_t acc = 0;
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            acc = (uint8_t)(acc + in[i]);
            if ((i % 4099 == 0 || i + 1000000 >= n) && got[i] != acc && bad++ == 0)
                expect(false, "a sampled row differs");
        }
    }
    over_2_31_reductions(n, in, din);
    free(in);
    free(got);
    udfkit_device_free(din);
    udfkit_device_free(dout);
}

/* More segments than a launch has blocks (2^31 - 1): 2^31 + 1000 segments of 0 to 2 rows
 * (17 GiB of offsets, a byte each of input and output), where the device has room. Every
 * segment's sum is compared: those of the second launch start at segment 2^31 - 1. */
static void run_segments_over_2_31(void)
{
    const size_t segments = (1ull << 31) + 1000;
    uint64_t *off = malloc((segments + 1) * sizeof *off);
    if (!off) {
        printf("skipped segmented_reduce of 2^31 + 1000 segments: no 17 GiB of host memory\n");
        return;
    }
    off[0] = 0;
    for (size_t k = 0; k < segments; k++)
        off[k + 1] = off[k] + k % 3; /* 0, 1 or 2 rows */
    const size_t rows = off[segments];
    void *doff = NULL, *din = NULL, *dout = NULL;
    if (udfkit_device_alloc((segments + 1) * sizeof *off, &doff) != UDFKIT_OK ||
        udfkit_device_alloc(rows, &din) != UDFKIT_OK || udfkit_device_alloc(segments, &dout) != UDFKIT_OK) {
        printf("skipped segmented_reduce of 2^31 + 1000 segments: no 21 GiB free on the device (%s)\n",
               udfkit_last_error());
        udfkit_device_free(doff);
        udfkit_device_free(din);
        free(off);
        return;
    }
    uint8_t *in = malloc(rows), *got = malloc(segments);
    for (size_t i = 0; i < rows; i++)
        in[i] = (uint8_t)(i * 2654435761u >> 11);
    snprintf(current, sizeof current, "segmented_reduce(add_u8) segments=2^31+1000");
    if (!check(udfkit_copy_to_device(doff, off, (segments + 1) * sizeof *off), "udfkit_copy_to_device") &&
        !check(udfkit_copy_to_device(din, in, rows), "udfkit_copy_to_device") &&
        !check(gk_segmented_reduce_add_u8(NULL, segments, doff, din, 5, dout), current) &&
        !check(udfkit_synchronize(), current) && !check(udfkit_copy_to_host(got, dout, segments), "udfkit_copy_to_host")) {
        size_t bad = 0;
        for (size_t k = 0; k < segments; k++) {
            uint8_t want = 5;
            for (uint64_t i = off[k]; i < off[k + 1]; i++)
                want = (uint8_t)(want + in[i]);
            if (got[k] != want && bad++ == 0) {
                char what[96];
                snprintf(what, sizeof what, "segment %zu differs (first of those that do)", k);
                expect(false, what);
            }
        }
    }
    udfkit_device_free(doff);
    udfkit_device_free(din);
    udfkit_device_free(dout);
    free(off);
    free(in);
    free(got);
}

/* checked_add fails where an operand is negative, with code 7: at the row of value -7 (and
 * the few after it whose prefix stays negative, all in its tile); the launch records the
 * first row of that tile (no later than the failing one) and the code. */
static void run_errors(size_t n, size_t bad_row)
{
    int32_t *in = malloc(n * sizeof *in);
    for (size_t i = 0; i < n; i++)
        in[i] = (int32_t)(i % 100);
    in[bad_row] = -7;
    void *din = device_copy(in, n * sizeof *in), *dout = device_copy(NULL, n * sizeof *in);
    uint64_t row = 0;
    int code = 0;
    snprintf(current, sizeof current, "inclusive_scan(checked_add) n=%zu failing row %zu", n, bad_row);
    check(gk_inclusive_scan_checked_add(NULL, n, din, dout), current);
    udfkit_status st = gk_udf_error(NULL, &row, &code);
    expect(st == UDFKIT_ERROR_UDF, "the failure is recorded");
    expect(row == bad_row / 1920 * 1920, "at the first row of the failing row's tile (int32 tiles: 1920 rows)");
    expect(code == 7, "with its code");
    expect(gk_udf_error(NULL, &row, &code) == UDFKIT_OK, "cleared after reading");
    /* The same under reduce_by_key, all keys equal: tiles of 768 rows. */
    int32_t *keys = calloc(n, sizeof *keys);
    void *dkeys = device_copy(keys, n * sizeof *keys), *dukeys = device_copy(NULL, n * sizeof *keys);
    void *druns = device_copy(NULL, sizeof(uint64_t));
    snprintf(current, sizeof current, "reduce_by_key(checked_add) n=%zu failing row %zu", n, bad_row);
    check(gk_reduce_by_key_checked_add_by_int32(NULL, n, dkeys, din, dukeys, dout, druns), current);
    st = gk_udf_error(NULL, &row, &code);
    expect(st == UDFKIT_ERROR_UDF, "the failure is recorded");
    expect(row == bad_row / 768 * 768, "at the first row of the failing row's tile (768 rows)");
    expect(code == 7, "with its code");
    free(keys);
    udfkit_device_free(dkeys);
    udfkit_device_free(dukeys);
    udfkit_device_free(druns);
    free(in);
    udfkit_device_free(din);
    udfkit_device_free(dout);
}

/* Caller-owned scratch (udfkit_stream_scratch) on the default stream: the same results with
 * the temporary memory taken from it, with one too small for any launcher (each falls back
 * to the pool), and after it ends; it cannot end while nothing holds it only in name. */
static void run_with_scratch(void)
{
    const size_t n = (1u << 20) + 7;
    void *scratch = device_copy(NULL, 64u << 20), *tiny = device_copy(NULL, 64);
    for (int round = 0; round < 3; round++) {
        void *mem = round == 0 ? scratch : round == 1 ? tiny : NULL;
        snprintf(current, sizeof current, "udfkit_stream_scratch round %d", round);
        if (check(udfkit_stream_scratch(NULL, mem, mem == tiny ? 64 : 64u << 20), current))
            continue;
        run_add_i32(n, 17, false);
        run_mat2_mul(n, 0x0001000000000001ll, true);
        run_rbk_add_i32(n, 2);
        run_rbk_py_affine(n, 2);
        run_tr_upper(n, 3, 0x0001000000000001ll);
        run_seg_mat2_mul(1000, 0, 0x0001000000000001ll);
        run_sort_cases(n, true, true, false);
        run_sort_cases(4097, true, true, true);
    }
    /* Two streams' scratch at once, and a second call replacing the first. */
    expect(udfkit_stream_scratch((udfkit_stream)(uintptr_t)1, tiny, 64) == UDFKIT_OK &&
               udfkit_stream_scratch((udfkit_stream)(uintptr_t)1, scratch, 4096) == UDFKIT_OK &&
               udfkit_stream_scratch((udfkit_stream)(uintptr_t)1, NULL, 0) == UDFKIT_OK,
           "registering, replacing and ending a scratch");
    udfkit_device_free(scratch);
    udfkit_device_free(tiny);
}

int main(void)
{
    udfkit_status st = gk_load();
    if (st == UDFKIT_ERROR_NO_DRIVER || st == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        return 77;
    }
    if (check(st, "gk_load"))
        return 1;
    const size_t sizes[] = {0, 1, 31, 32, 33, 1919, 1920, 1921, (1u << 20) + 7};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        for (int in_place = 0; in_place <= (n == (1u << 20) + 7); in_place++) {
            run_add_i32(n, 17, in_place);
            run_add_f64(n, -3.0, in_place);
            run_add_u8(n, 0, in_place);
            run_or_bool(n, false, in_place);
            run_max_f16(n, 0, in_place);
            run_keep_left(n, 42, in_place);
            run_mat2_mul(n, 0x0001000000000001ll, in_place); /* the identity matrix */
            run_py_affine(n, 0x10000ll, in_place);         /* x -> 1*x + 0 */
        }
    }
    const size_t rbk_sizes[] = {0, 1, 31, 32, 33, 767, 768, 769, (1u << 20) + 7};
    for (size_t s = 0; s < sizeof rbk_sizes / sizeof *rbk_sizes; s++)
        for (int pattern = 0; pattern < 3; pattern++) {
            run_rbk_add_i32(rbk_sizes[s], pattern);
            run_rbk_add_f64(rbk_sizes[s], pattern);
            run_rbk_keep_left(rbk_sizes[s], pattern);
            run_rbk_mat2_mul(rbk_sizes[s], pattern);
            run_rbk_py_affine(rbk_sizes[s], pattern);
            run_rbk_bounded(rbk_sizes[s], pattern);
        }
    const size_t tr_sizes[] = {0, 1, 31, 32, 33, 127, 128, 129, 255, 256, 257, 777, (1u << 20) + 7};
    for (size_t s = 0; s < sizeof tr_sizes / sizeof *tr_sizes; s++)
        for (size_t skip = 0; skip <= 3; skip += 3) {
            run_tr_square64(tr_sizes[s], skip, 11);
            run_tr_scaled(tr_sizes[s], skip, 0.5);
            run_tr_is_negative(tr_sizes[s], skip, false);
            run_tr_upper(tr_sizes[s], skip, 0x0001000000000001ll);
            run_tr_py_pair(tr_sizes[s], skip, 0x10000ll);
        }
    /* More last tiles of every fill: 1 to 767 places not loaded. */
    const size_t partial[] = {100, 1000, 768 * 5 + 1, 768 * 7 + 700, 768 * 40 + 384, 768 * 1000 + 2};
    for (size_t s = 0; s < sizeof partial / sizeof *partial; s++)
        for (int pattern = 0; pattern < 3; pattern++)
            run_rbk_bounded(partial[s], pattern);
    const size_t seg_counts[] = {0, 1, 2, 7, 1000, 100000};
    for (size_t s = 0; s < sizeof seg_counts / sizeof *seg_counts; s++) {
        run_seg_add_i32(seg_counts[s], 0, 3);
        run_seg_add_u8(seg_counts[s], 0, 1);
        run_seg_add_f64(seg_counts[s], 0, 0.0);
        run_seg_keep_left(seg_counts[s], 0, -1);
        run_seg_mat2_mul(seg_counts[s], 0, 0x0001000000000001ll);
        run_seg_py_affine(seg_counts[s], 0, 0x10000ll);
    }
    run_seg_add_i32(1, (1u << 20) + 7, 0);
    run_seg_add_u8(3, (1u << 20) + 7, 0);
    run_seg_mat2_mul(2, (1u << 20) + 7, 0x0001000000000001ll);
    run_seg_py_affine(1, (1u << 20) + 7, 0x10000ll);
    const size_t n = (1u << 20) + 7;
    const size_t rows[] = {0, n / 2, n - 1, 1920 * 3};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
        run_transform_errors(n, rows[k]);
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
        run_errors(n, rows[k]);
    run_sorts();
    const size_t sort_rows[] = {0, n / 2, n - 1, 4352 * 3 + 5};
    for (size_t k = 0; k < sizeof sort_rows / sizeof *sort_rows; k++)
        run_sort_errors(n, sort_rows[k]);
    run_with_scratch();
    run_over_2_31();
    run_segments_over_2_31();
    run_sort_over_2_31();
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "ok", failures);
    return failures ? 1 : 0;
}
