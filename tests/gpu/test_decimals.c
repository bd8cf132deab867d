/* Decimals, dates and times through the launchers `udfkit kernels` generates (library dk, built
 * at build time from the CUDA C and Python UDFs of tests/data/decimals/plumbing.{cu,py}):
 * decimal128 (16-byte values, two C parameters, a result through udfkit_decimal128 *out) in
 * map, reduce, both scans, segmented_reduce, sort, filter (values, indices32), nullable_map,
 * nullable_filter, nullable_reduce, transform_reduce and as reduce_by_key's keys and values,
 * decimal128? through T? pairs; decimal32, decimal64, date32, date64, timestamp[us|ns|ms] and
 * duration in map, reduce, scans, sort, segmented_reduce, transform_reduce and as keys and
 * values; Python decimal, datetime64 and T? UDFs in the same templates; over 0, 1, 7, 1000 and
 * 2^20 + 7 rows; a reduce over decimal128 with an op that is not commutative (dec_then) over
 * up to 2^24 + 7 rows, the rows combined in order; every result against the same exact integer
 * operations on the host (__int128), and no row failed.
 * usage: test_decimals; exit 77 (skipped) without a GPU. */
#include "dk.h"
#include "gpu_test.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char current[160];

static void expect(bool ok, const char *what)
{
    if (!ok) {
        if (failures < 40)
            fprintf(stderr, "FAIL %s: %s\n", current, what);
        failures++;
    } else {
        passes++;
    }
}

typedef __int128 i128;

static udfkit_decimal128 dec(i128 v)
{
    return (udfkit_decimal128){(uint64_t)v, (int64_t)(v >> 64)};
}

static i128 val(udfkit_decimal128 d)
{
    return (i128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
}

static bool same(udfkit_decimal128 a, i128 b)
{
    return val(a) == b;
}

/* A random decimal: mostly small (either sign), some near 2^100, some with equal neighbours. */
static i128 random_decimal(void)
{
    uint64_t r = next_random();
    i128 v = (i128)(int64_t)(next_random() % 2000001) - 1000000;
    if (r % 10 == 0)
        v = ((i128)(int64_t)(next_random() >> 28) << 64) | next_random();
    return v;
}

/* A validity bitmap of n rows, every third row (0, 3, 6, ...) null. */
static uint8_t *third_rows_null(size_t n)
{
    uint8_t *bits = calloc((n + 7) / 8 + 1, 1);
    for (size_t i = 0; i < n; i++)
        if (i % 3)
            bits[i / 8] |= (uint8_t)(1u << (i % 8));
    return bits;
}

/* A scan of sums of h from start, on the device at d_out: each row's sum with it (inclusive)
 * or before it (exclusive). */
static void expect_running_sums(size_t n, const i128 *h, i128 start, bool inclusive, const udfkit_decimal128 *d_out,
                                const char *what)
{
    udfkit_decimal128 *r = host_copy(d_out, n * 16);
    bool ok = true;
    i128 acc = start;
    for (size_t i = 0; i < n; i++) {
        const i128 before = acc;
        acc += h[i];
        ok &= same(r[i], inclusive ? acc : before);
    }
    expect(ok, what);
    free(r);
}

/* A nullable_reduce's sum of the valid rows of h (every third row null, third_rows_null) and
 * its count of them. */
static void expect_sum_of_valid(size_t n, const i128 *h, const udfkit_decimal128 *d_one, const uint64_t *d_valid,
                                const char *what)
{
    udfkit_decimal128 *r = host_copy(d_one, 16);
    uint64_t *vc = host_copy(d_valid, 8), want = 0;
    i128 acc = 0;
    for (size_t i = 0; i < n; i++)
        if (i % 3) {
            acc += h[i];
            want++;
        }
    expect(same(*r, acc) && *vc == want, what);
    free(r);
    free(vc);
}

/* A nullable_map negating h over every third row null; where zero_is_null the UDF also
 * returns null for a zero: the values, the result's bits and its null count. */
static void expect_negated(size_t n, const i128 *h, bool zero_is_null, const udfkit_decimal128 *d_out,
                           const uint8_t *d_bits, const uint64_t *d_nulls, const char *what)
{
    udfkit_decimal128 *r = host_copy(d_out, n * 16);
    uint8_t *b = host_copy(d_bits, (n + 7) / 8);
    uint64_t *nn = host_copy(d_nulls, 8), want = 0;
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        const bool v = i % 3 != 0 && !(zero_is_null && h[i] == 0);
        want += !v;
        ok &= (((b[i / 8] >> (i % 8)) & 1) != 0) == v && (!v || same(r[i], -h[i]));
    }
    expect(ok && *nn == want, what);
    free(r);
    free(b);
    free(nn);
}

/* A sort of the int64 values t with its order: ascending, stable (ties in input order). */
static void expect_sorted64(size_t n, const int64_t *t, const int64_t *d_out, const uint64_t *d_order, const char *what)
{
    int64_t *r = host_copy(d_out, n * 8);
    uint64_t *o = host_copy(d_order, n * 8);
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        ok &= o[i] < n && r[i] == t[o[i]] && (!i || r[i - 1] < r[i] || (r[i - 1] == r[i] && o[i - 1] < o[i]));
    expect(ok, what);
    free(r);
    free(o);
}

/* reduce_by_key's sums of h over the runs of equal date32 keys: the runs' keys, sums and count. */
static void expect_sums_by_date32(size_t n, const int32_t *keys, const i128 *h, const int32_t *d_unique,
                                  const udfkit_decimal128 *d_sums, const uint64_t *d_runs, const char *what)
{
    int32_t *u = host_copy(d_unique, n * 4);
    udfkit_decimal128 *r = host_copy(d_sums, n * 16);
    uint64_t *rr = host_copy(d_runs, 8), k = 0;
    bool ok = true;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        i128 acc = h[i];
        while (++j < n && keys[j] == keys[i])
            acc += h[j];
        ok &= k < *rr && u[k] == keys[i] && same(r[k], acc);
        k++;
        i = j;
    }
    expect(ok && k == *rr, what);
    free(u);
    free(r);
    free(rr);
}

/* reduce_by_key's latest of the date32 days over the runs of equal decimal128 keys: the runs'
 * keys, latest days and count. */
static void expect_latest_by_decimal(size_t n, const i128 *keys, const int32_t *days, const udfkit_decimal128 *d_unique,
                                     const int32_t *d_latest, const uint64_t *d_runs, const char *what)
{
    udfkit_decimal128 *u = host_copy(d_unique, n * 16);
    int32_t *r = host_copy(d_latest, n * 4);
    uint64_t *rr = host_copy(d_runs, 8), k = 0;
    bool ok = true;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int32_t best = days[i];
        while (++j < n && keys[j] == keys[i])
            best = days[j] > best ? days[j] : best;
        ok &= k < *rr && same(u[k], keys[i]) && r[k] == best;
        k++;
        i = j;
    }
    expect(ok && k == *rr, what);
    free(u);
    free(r);
    free(rr);
}

/* reduce(dec_then) over hd[0..n) (on the device at in): the rows' affine maps composed in row
 * order from x -> 3x + 5 (a 16-byte reduce gives each lane a run of consecutive rows: any other
 * order gives another map). */
static void ordered_reduce(const udfkit_decimal128 *in, const udfkit_decimal128 *hd, size_t n, udfkit_decimal128 *one)
{
    uint64_t m = 3, c = 5;
    for (size_t i = 0; i < n; i++) {
        const uint64_t rm = (uint64_t)hd[i].lo | 1, rc = (uint64_t)hd[i].hi;
        m = (m | 1) * rm;
        c = c * rm + rc;
    }
    if (!check(dk_reduce_dec_then(NULL, n, in, (udfkit_decimal128){3, 5}, one), "dk_reduce_dec_then")) {
        udfkit_decimal128 *r = host_copy(one, 16);
        expect(r->lo == m && (uint64_t)r->hi == c, "reduce(dec_then): the rows' maps in order");
        free(r);
    }
}

/* reduce(dec_then) and reduce(dec_add) over columns long enough that each warp's part holds
 * runs of 8 rows a lane and more (and runs that end short of a round), from an aligned start
 * and one row after it. */
static void long_reduces(size_t n)
{
    udfkit_decimal128 *hd = calloc(n + 1, sizeof *hd);
    unsigned __int128 sum = 0; /* wrapping, as dec_add */
    for (size_t i = 0; i <= n; i++) {
        hd[i].lo = next_random();
        hd[i].hi = (int64_t)next_random() >> 20; /* any high half: dec_then reads it as c */
        sum += i ? (unsigned __int128)val(hd[i]) : 0;
    }
    udfkit_decimal128 *in = device_copy(hd, (n + 1) * sizeof *hd), *one = device_copy(NULL, 16);
    ordered_reduce(in, hd, n, one);
    ordered_reduce(in + 1, hd + 1, n, one);
    if (!check(dk_reduce_dec_add(NULL, n, in + 1, dec(0), one), "dk_reduce_dec_add (long)")) {
        udfkit_decimal128 *r = host_copy(one, 16);
        expect((unsigned __int128)val(*r) == sum, "reduce(dec_add) over a long column");
        free(r);
    }
    udfkit_device_free(in);
    udfkit_device_free(one);
    free(hd);
}

static void decimals(size_t n)
{
    i128 *h = calloc(n + 1, sizeof *h);
    udfkit_decimal128 *hd = calloc(n + 1, sizeof *hd);
    for (size_t i = 0; i < n; i++) {
        h[i] = random_decimal();
        hd[i] = dec(h[i]);
    }
    size_t bytes = n * sizeof(udfkit_decimal128);
    udfkit_decimal128 *in = device_copy(hd, bytes), *out = device_copy(NULL, bytes), *one = device_copy(NULL, 16);
    /* map(dec_neg) */
    if (!check(dk_map_dec_neg(NULL, n, in, out), "dk_map_dec_neg")) {
        udfkit_decimal128 *r = host_copy(out, bytes);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= same(r[i], -h[i]);
        expect(ok, "map(dec_neg)");
        free(r);
    }
    /* reduce(dec_add), transform_reduce(dec_neg, dec_add) */
    i128 sum = 7;
    for (size_t i = 0; i < n; i++)
        sum += h[i];
    if (!check(dk_reduce_dec_add(NULL, n, in, dec(7), one), "dk_reduce_dec_add")) {
        udfkit_decimal128 *r = host_copy(one, 16);
        expect(same(*r, sum), "reduce(dec_add): 7 + every row");
        free(r);
    }
    ordered_reduce(in, hd, n, one);
    if (!check(dk_transform_reduce_dec_neg_dec_add(NULL, n, in, dec(7), one), "dk_transform_reduce_dec_neg_dec_add")) {
        udfkit_decimal128 *r = host_copy(one, 16);
        expect(same(*r, 14 - sum), "transform_reduce(dec_neg, dec_add): 7 - every row");
        free(r);
    }
    /* inclusive_scan and exclusive_scan */
    if (!check(dk_inclusive_scan_dec_add(NULL, n, in, out), "dk_inclusive_scan_dec_add"))
        expect_running_sums(n, h, 0, true, out, "inclusive_scan(dec_add)");
    if (!check(dk_exclusive_scan_dec_add(NULL, n, in, dec(-3), out), "dk_exclusive_scan_dec_add"))
        expect_running_sums(n, h, -3, false, out, "exclusive_scan(dec_add)");
    /* segmented_reduce over segments of 0..9 rows (at most n + 1 of them empty: the offsets
     * hold 2n + 2 segments at most) */
    uint64_t *offs = calloc(2 * n + 3, sizeof *offs);
    size_t segments = 0;
    for (uint64_t at = 0; at < n; segments++) {
        offs[segments] = at;
        uint64_t step = next_random() % 10;
        at += step || segments <= n ? step : 1;
        if (at > n)
            at = n;
        offs[segments + 1] = at;
    }
    uint64_t *doffs = device_copy(offs, (segments + 1) * 8);
    udfkit_decimal128 *segs = device_copy(NULL, segments * 16);
    if (!check(dk_segmented_reduce_dec_add(NULL, segments, doffs, in, dec(1), segs), "dk_segmented_reduce_dec_add")) {
        udfkit_decimal128 *r = host_copy(segs, segments * 16);
        bool ok = true;
        for (size_t s = 0; s < segments; s++) {
            i128 acc = 1;
            for (uint64_t i = offs[s]; i < offs[s + 1]; i++)
                acc += h[i];
            ok &= same(r[s], acc);
        }
        expect(ok, "segmented_reduce(dec_add)");
        free(r);
    }
    /* sort(dec_less) with its order: ascending, stable (ties in input order). */
    uint64_t *order = device_copy(NULL, n * 8);
    if (!check(dk_sort_dec_less(NULL, n, in, out, order), "dk_sort_dec_less")) {
        udfkit_decimal128 *r = host_copy(out, bytes);
        uint64_t *o = host_copy(order, n * 8);
        bool ok = true;
        for (size_t i = 0; i < n; i++) {
            ok &= o[i] < n && same(r[i], h[o[i]]);
            if (i)
                ok &= val(r[i - 1]) < val(r[i]) || (val(r[i - 1]) == val(r[i]) && o[i - 1] < o[i]);
        }
        expect(ok, "sort(dec_less): ascending, stable, order right");
        free(r);
        free(o);
    }
    /* filter(dec_positive, values) */
    uint64_t *count = device_copy(NULL, 8);
    if (!check(dk_filter_dec_positive_values(NULL, n, in, out, count), "dk_filter_dec_positive_values")) {
        udfkit_decimal128 *r = host_copy(out, bytes);
        uint64_t *c = host_copy(count, 8), k = 0;
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            if (h[i] > 0)
                ok &= k < *c && same(r[k++], h[i]);
        expect(ok && k == *c, "filter(dec_positive, values)");
        free(r);
        free(c);
    }
    /* nullable_map(dec_neg), nullable_reduce(dec_add): every 3rd row null. */
    size_t nbytes = (n + 7) / 8;
    uint8_t *bits = third_rows_null(n);
    uint8_t *dbits = device_copy(bits, nbytes), *obits = device_copy(NULL, nbytes);
    udfkit_mask m = {dbits, 0};
    uint64_t *nulls = device_copy(NULL, 8);
    if (!check(dk_nullable_map_dec_neg(NULL, n, in, m, out, obits, nulls), "dk_nullable_map_dec_neg"))
        expect_negated(n, h, false, out, obits, nulls, "nullable_map(dec_neg): values, bits, nulls");
    uint64_t *valid = device_copy(NULL, 8);
    if (!check(dk_nullable_reduce_dec_add(NULL, n, in, m, dec(0), one, valid), "dk_nullable_reduce_dec_add"))
        expect_sum_of_valid(n, h, one, valid, "nullable_reduce(dec_add)");
    /* reduce_by_key(dec_add, date32) and reduce_by_key(date_max, decimal128(38,2)): runs of keys. */
    int32_t *keys = calloc(n + 1, 4), *dates = calloc(n + 1, 4);
    i128 *kv = calloc(n + 1, sizeof *kv);
    udfkit_decimal128 *dkeys = calloc(n + 1, 16);
    for (size_t i = 0; i < n; i++) {
        keys[i] = i && next_random() % 4 ? keys[i - 1] : (int32_t)(next_random() % 50000) - 25000;
        kv[i] = i && next_random() % 4 ? kv[i - 1] : h[i];
        dkeys[i] = dec(kv[i]);
        dates[i] = (int32_t)(next_random() % 60000) - 30000;
    }
    int32_t *dk32 = device_copy(keys, n * 4), *ud32 = device_copy(NULL, n * 4), *ddates = device_copy(dates, n * 4);
    uint64_t *runs = device_copy(NULL, 8);
    if (!check(dk_reduce_by_key_dec_add_by_date32(NULL, n, dk32, in, ud32, out, runs), "reduce_by_key by date32"))
        expect_sums_by_date32(n, keys, h, ud32, out, runs, "reduce_by_key(dec_add, date32)");
    udfkit_decimal128 *ddk = device_copy(dkeys, bytes);
    if (!check(dk_reduce_by_key_date_max_by_decimal128(NULL, n, ddk, ddates, out, ud32, runs),
               "reduce_by_key by decimal128"))
        expect_latest_by_decimal(n, kv, dates, out, ud32, runs, "reduce_by_key(date_max, decimal128(38,2))");
    udfkit_device_free(ddk);
    free(dkeys);
    free(kv);
    /* date32 and timestamp[us]: map, reduce, sort. */
    int64_t *ts = calloc(n + 1, 8), *durs = calloc(n + 1, 8);
    for (size_t i = 0; i < n; i++) {
        ts[i] = (int64_t)(next_random() % 4000000000000000ull) - 2000000000000000ll;
        durs[i] = (int64_t)(next_random() % 2000000000ull) - 1000000000ll;
    }
    int64_t *dts = device_copy(ts, n * 8), *ddur = device_copy(durs, n * 8), *ots = device_copy(NULL, n * 8);
    if (!check(dk_map_ts_add(NULL, n, dts, ddur, ots), "dk_map_ts_add")) {
        int64_t *r = host_copy(ots, n * 8);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= r[i] == ts[i] + durs[i];
        expect(ok, "map(ts_add): timestamp[us] + duration[us]");
        free(r);
    }
    if (!check(dk_map_days_between(NULL, n, dk32, ddates, ud32), "dk_map_days_between")) {
        int32_t *r = host_copy(ud32, n * 4);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= r[i] == dates[i] - keys[i];
        expect(ok, "map(days_between): date32s");
        free(r);
    }
    int32_t *best = device_copy(NULL, 4);
    if (!check(dk_reduce_date_max(NULL, n, ddates, -99999, best), "dk_reduce_date_max")) {
        int32_t *r = host_copy(best, 4), want = -99999;
        for (size_t i = 0; i < n; i++)
            want = dates[i] > want ? dates[i] : want;
        expect(*r == want, "reduce(date_max)");
        free(r);
    }
    if (!check(dk_sort_ts_less(NULL, n, dts, ots, order), "dk_sort_ts_less"))
        expect_sorted64(n, ts, ots, order, "sort(ts_less): ascending, stable");
    void *all[] = {in, out, one, doffs, segs, order, count, dbits, obits, nulls, valid, dk32, ud32, ddates, runs, dts, ddur,
                   ots, best};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        udfkit_device_free(all[i]);
    free(h);
    free(hd);
    free(offs);
    free(bits);
    free(keys);
    free(dates);
    free(ts);
    free(durs);
}

/* Rows of runs of equal keys: each row a new key with probability 1/4. */
static void runs_of(size_t n, int64_t *keys, int64_t step)
{
    for (size_t i = 0; i < n; i++)
        keys[i] = i && next_random() % 4 ? keys[i - 1] : ((int64_t)(next_random() % 50000) - 25000) * step;
}

/* decimal32(9,2) and decimal64(18,2) (int32 and int64 at the C ABI), date64, timestamp[ns] and
 * duration[ms] in map, reduce, inclusive_scan, sort, nullable_reduce, segmented_reduce,
 * transform_reduce and as reduce_by_key's keys and values; decimal128(38,2)? through a UDF's
 * T? pair in nullable_map and nullable_filter (bool?), a plain predicate over a nullable
 * decimal128 column in nullable_filter, and filter(indices32) over decimal128. */
static void more_types(size_t n)
{
    int64_t *a64 = calloc(n + 1, 8), *t = calloc(n + 1, 8), *d = calloc(n + 1, 8), *k64 = calloc(n + 1, 8);
    int32_t *b32 = calloc(n + 1, 4), *k32 = calloc(n + 1, 4);
    i128 *h = calloc(n + 1, sizeof *h);
    udfkit_decimal128 *hd = calloc(n + 1, sizeof *hd);
    for (size_t i = 0; i < n; i++) {
        a64[i] = (int64_t)(next_random() % 2000001) - 1000000;
        b32[i] = (int32_t)(next_random() % 2001) - 1000;
        t[i] = (int64_t)(next_random() % 8000000000000000000ull) - 4000000000000000000ll;
        d[i] = (int64_t)(next_random() % 2000000000000ull) - 1000000000000ll;
        h[i] = i % 11 == 0 ? 0 : random_decimal();
        hd[i] = dec(h[i]);
    }
    runs_of(n, k64, 86400000); /* date64: whole days in milliseconds */
    for (size_t i = 0; i < n; i++)
        k32[i] = i && next_random() % 4 ? k32[i - 1] : (int32_t)(next_random() % 200001) - 100000;
    int64_t *da = device_copy(a64, n * 8), *dt = device_copy(t, n * 8), *dd = device_copy(d, n * 8),
            *dk = device_copy(k64, n * 8), *o64 = device_copy(NULL, n * 8), *uk64 = device_copy(NULL, n * 8),
            *one64 = device_copy(NULL, 8);
    int32_t *db = device_copy(b32, n * 4), *dk32 = device_copy(k32, n * 4), *o32 = device_copy(NULL, n * 4),
            *uk32 = device_copy(NULL, n * 4), *one32 = device_copy(NULL, 4);
    uint64_t *order = device_copy(NULL, n * 8), *count = device_copy(NULL, 8), *idx = device_copy(NULL, n * 8);
    /* map(dec64_mul): decimal64(18,2) * decimal32(9,2) exactly at scale 4. */
    if (!check(dk_map_dec64_mul(NULL, n, da, db, o64), "dk_map_dec64_mul")) {
        int64_t *r = host_copy(o64, n * 8);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= r[i] == a64[i] * b32[i];
        expect(ok, "map(dec64_mul): decimal64(18,2) x decimal32(9,2)");
        free(r);
    }
    /* transform_reduce(dec64_mul, dec64_sum) */
    int64_t dot = 11;
    for (size_t i = 0; i < n; i++)
        dot += a64[i] * b32[i];
    if (!check(dk_transform_reduce_dec64_mul_dec64_sum(NULL, n, da, db, 11, one64), "dk_transform_reduce_dec64_mul")) {
        int64_t *r = host_copy(one64, 8);
        expect(*r == dot, "transform_reduce(dec64_mul, dec64_sum)");
        free(r);
    }
    /* reduce, inclusive_scan and sort over decimal32(9,2) */
    int32_t sum = 5;
    for (size_t i = 0; i < n; i++)
        sum += b32[i];
    if (!check(dk_reduce_dec32_add(NULL, n, db, 5, one32), "dk_reduce_dec32_add")) {
        int32_t *r = host_copy(one32, 4);
        expect(*r == sum, "reduce(dec32_add)");
        free(r);
    }
    if (!check(dk_inclusive_scan_dec32_add(NULL, n, db, o32), "dk_inclusive_scan_dec32_add")) {
        int32_t *r = host_copy(o32, n * 4), acc = 0;
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= r[i] == (acc += b32[i]);
        expect(ok, "inclusive_scan(dec32_add)");
        free(r);
    }
    if (!check(dk_sort_dec32_less(NULL, n, db, o32, order), "dk_sort_dec32_less")) {
        int32_t *r = host_copy(o32, n * 4);
        uint64_t *o = host_copy(order, n * 8);
        bool ok = true;
        for (size_t i = 0; i < n; i++) {
            ok &= o[i] < n && r[i] == b32[o[i]];
            if (i)
                ok &= r[i - 1] < r[i] || (r[i - 1] == r[i] && o[i - 1] < o[i]);
        }
        expect(ok, "sort(dec32_less): ascending, stable");
        free(r);
        free(o);
    }
    /* nullable_reduce(dec32_add): every 3rd row null */
    size_t nbytes = (n + 7) / 8;
    uint8_t *bits = third_rows_null(n);
    uint8_t *dbits = device_copy(bits, nbytes), *obits = device_copy(NULL, nbytes);
    udfkit_mask m = {dbits, 0};
    uint64_t *valid = device_copy(NULL, 8);
    if (!check(dk_nullable_reduce_dec32_add(NULL, n, db, m, 0, one32, valid), "dk_nullable_reduce_dec32_add")) {
        int32_t *r = host_copy(one32, 4), acc = 0;
        uint64_t *vc = host_copy(valid, 8), want = 0;
        for (size_t i = 0; i < n; i++)
            if (i % 3) {
                acc += b32[i];
                want++;
            }
        expect(*r == acc && *vc == want, "nullable_reduce(dec32_add)");
        free(r);
        free(vc);
    }
    /* reduce_by_key(dec32_add, date64) and reduce_by_key(date64_max, decimal32(9,2)) */
    uint64_t *runs = device_copy(NULL, 8);
    if (!check(dk_reduce_by_key_dec32_add_by_date64(NULL, n, dk, db, uk64, o32, runs), "reduce_by_key by date64")) {
        int64_t *uk = host_copy(uk64, n * 8);
        int32_t *r = host_copy(o32, n * 4);
        uint64_t *rr = host_copy(runs, 8), k = 0;
        bool ok = true;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            int32_t acc = b32[i];
            while (++j < n && k64[j] == k64[i])
                acc += b32[j];
            ok &= k < *rr && uk[k] == k64[i] && r[k] == acc;
            k++;
            i = j;
        }
        expect(ok && k == *rr, "reduce_by_key(dec32_add, date64)");
        free(uk);
        free(r);
        free(rr);
    }
    if (!check(dk_reduce_by_key_date64_max_by_decimal32(NULL, n, dk32, dt, uk32, o64, runs), "reduce_by_key by decimal32")) {
        int32_t *uk = host_copy(uk32, n * 4);
        int64_t *r = host_copy(o64, n * 8);
        uint64_t *rr = host_copy(runs, 8), k = 0;
        bool ok = true;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            int64_t best = t[i];
            while (++j < n && k32[j] == k32[i])
                best = t[j] > best ? t[j] : best;
            ok &= k < *rr && uk[k] == k32[i] && r[k] == best;
            k++;
            i = j;
        }
        expect(ok && k == *rr, "reduce_by_key(date64_max, decimal32(9,2))");
        free(uk);
        free(r);
        free(rr);
    }
    /* sort(date64_less), map(ns_add), segmented_reduce(ms_sum) */
    if (!check(dk_sort_date64_less(NULL, n, dt, o64, order), "dk_sort_date64_less"))
        expect_sorted64(n, t, o64, order, "sort(date64_less)");
    if (!check(dk_map_ns_add(NULL, n, dt, dd, o64), "dk_map_ns_add")) {
        int64_t *r = host_copy(o64, n * 8);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= r[i] == t[i] + d[i];
        expect(ok, "map(ns_add): timestamp[ns] + duration[ns]");
        free(r);
    }
    uint64_t *offs = calloc(n + 2, sizeof *offs);
    size_t segments = 0;
    for (uint64_t at = 0; at < n; segments++) {
        offs[segments] = at;
        at += next_random() % 9 + 1;
        offs[segments + 1] = at = at > n ? n : at;
    }
    uint64_t *doffs = device_copy(offs, (segments + 1) * 8);
    if (!check(dk_segmented_reduce_ms_sum(NULL, segments, doffs, dd, -1, o64), "dk_segmented_reduce_ms_sum")) {
        int64_t *r = host_copy(o64, segments * 8);
        bool ok = true;
        for (size_t s = 0; s < segments; s++) {
            int64_t acc = -1;
            for (uint64_t i = offs[s]; i < offs[s + 1]; i++)
                acc += d[i];
            ok &= r[s] == acc;
        }
        expect(ok, "segmented_reduce(ms_sum): duration[ms]");
        free(r);
    }
    /* decimal128(38,2)?: nullable_map(dec_maybe_neg), nullable_filter(dec_maybe_positive),
     * nullable_filter(dec_positive), filter(dec_positive, indices32) */
    udfkit_decimal128 *din = device_copy(hd, n * 16), *dout = device_copy(NULL, n * 16);
    uint64_t *nulls = device_copy(NULL, 8);
    if (!check(dk_nullable_map_dec_maybe_neg(NULL, n, din, m, dout, obits, nulls), "dk_nullable_map_dec_maybe_neg"))
        expect_negated(n, h, true, dout, obits, nulls, "nullable_map(dec_maybe_neg): decimal128? values, bits, nulls");
    for (int which = 0; which < 2; which++) {
        udfkit_status st = which ? dk_nullable_filter_dec_positive(NULL, n, din, m, idx, count)
                                 : dk_nullable_filter_dec_maybe_positive(NULL, n, din, m, idx, count);
        if (check(st, which ? "dk_nullable_filter_dec_positive" : "dk_nullable_filter_dec_maybe_positive"))
            continue;
        uint64_t *r = host_copy(idx, n * 8), *c = host_copy(count, 8), k = 0;
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            if (i % 3 && h[i] > 0 && (which || (uint64_t)h[i] % 7 != 0))
                ok &= k < *c && r[k++] == i;
        expect(ok && k == *c, which ? "nullable_filter(dec_positive) over decimal128 with nulls"
                                    : "nullable_filter(dec_maybe_positive): bool?(decimal128?)");
        free(r);
        free(c);
    }
    uint32_t *idx32 = device_copy(NULL, n * 4);
    if (!check(dk_filter_dec_positive_indices32(NULL, n, din, idx32, count), "dk_filter_dec_positive_indices32")) {
        uint32_t *r = host_copy(idx32, n * 4);
        uint64_t *c = host_copy(count, 8), k = 0;
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            if (h[i] > 0)
                ok &= k < *c && r[k++] == i;
        expect(ok && k == *c, "filter(dec_positive, indices32)");
        free(r);
        free(c);
    }
    expect(dk_udf_error(NULL, NULL, NULL) == UDFKIT_OK, "no row failed");
    void *all[] = {da, dt, dd, dk, o64, uk64, one64, db, dk32, o32, uk32, one32, order, count, idx, dbits, obits, valid,
                   runs, doffs, din, dout, nulls, idx32};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        udfkit_device_free(all[i]);
    free(a64);
    free(t);
    free(d);
    free(k64);
    free(b32);
    free(k32);
    free(h);
    free(hd);
    free(bits);
    free(offs);
}

/* Python UDFs (tests/data/decimals/plumbing.py, numba-cuda) in the same templates: decimal
 * arithmetic of udfkit.Decimal (exact products and sums, checked against the host's exact
 * integers), datetime64 + timedelta64, date64 order, decimal128? and decimal64? through the
 * wrappers' T? pairs. */
static void python_udfs(size_t n)
{
    int64_t *p = calloc(n + 1, 8), *q = calloc(n + 1, 8), *t = calloc(n + 1, 8), *d = calloc(n + 1, 8);
    int32_t *days = calloc(n + 1, 4), *keys = calloc(n + 1, 4);
    i128 *h = calloc(n + 1, sizeof *h);
    udfkit_decimal128 *hd = calloc(n + 1, sizeof *hd), *hk = calloc(n + 1, sizeof *hk);
    i128 *kv = calloc(n + 1, sizeof *kv);
    for (size_t i = 0; i < n; i++) {
        p[i] = (int64_t)(next_random() % 2000000000001ull) - 1000000000000ll; /* decimal64(15,2) */
        q[i] = (int64_t)(next_random() % 20001) - 10000;
        t[i] = (int64_t)(next_random() % 8000000000000000ull) - 4000000000000000ll; /* timestamp[ms] */
        d[i] = (int64_t)(next_random() % 2000000000001ull) - 1000000000000ll;
        h[i] = i % 11 == 0 ? 0 : random_decimal();
        hd[i] = dec(h[i]);
        days[i] = (int32_t)(next_random() % 120000) - 60000;
        keys[i] = i && next_random() % 4 ? keys[i - 1] : (int32_t)(next_random() % 50000) - 25000;
        kv[i] = i && next_random() % 4 ? kv[i - 1] : h[i];
        hk[i] = dec(kv[i]);
    }
    size_t bytes = n * 16;
    int64_t *dp = device_copy(p, n * 8), *dq = device_copy(q, n * 8), *dt = device_copy(t, n * 8),
            *dd = device_copy(d, n * 8), *o64 = device_copy(NULL, n * 8);
    int32_t *ddays = device_copy(days, n * 4), *dkeys = device_copy(keys, n * 4), *o32 = device_copy(NULL, n * 4);
    udfkit_decimal128 *din = device_copy(hd, bytes), *dout = device_copy(NULL, bytes), *one = device_copy(NULL, 16),
                      *dkv = device_copy(hk, bytes), *uk = device_copy(NULL, bytes);
    uint64_t *order = device_copy(NULL, n * 8), *count = device_copy(NULL, 8), *idx = device_copy(NULL, n * 8),
             *runs = device_copy(NULL, 8), *valid = device_copy(NULL, 8), *nulls = device_copy(NULL, 8);
    /* map(py_net): decimal64(15,2) * (1 - decimal64(15,2)) at scale 4 */
    if (!check(dk_map_py_net(NULL, n, dp, dq, dout), "dk_map_py_net")) {
        udfkit_decimal128 *r = host_copy(dout, bytes);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= same(r[i], (i128)p[i] * (100 - q[i]));
        expect(ok, "map(py_net): Python decimal64(15,2) * (1 - decimal64(15,2))");
        free(r);
    }
    /* reduce, inclusive_scan, nullable_reduce and reduce_by_key(.., date32) of py_add */
    i128 sum = 3;
    for (size_t i = 0; i < n; i++)
        sum += h[i];
    if (!check(dk_reduce_py_add(NULL, n, din, dec(3), one), "dk_reduce_py_add")) {
        udfkit_decimal128 *r = host_copy(one, 16);
        expect(same(*r, sum), "reduce(py_add)");
        free(r);
    }
    if (!check(dk_inclusive_scan_py_add(NULL, n, din, dout), "dk_inclusive_scan_py_add"))
        expect_running_sums(n, h, 0, true, dout, "inclusive_scan(py_add)");
    size_t nbytes = (n + 7) / 8;
    uint8_t *bits = third_rows_null(n);
    uint8_t *dbits = device_copy(bits, nbytes), *obits = device_copy(NULL, nbytes);
    udfkit_mask m = {dbits, 0};
    if (!check(dk_nullable_reduce_py_add(NULL, n, din, m, dec(0), one, valid), "dk_nullable_reduce_py_add"))
        expect_sum_of_valid(n, h, one, valid, "nullable_reduce(py_add)");
    if (!check(dk_reduce_by_key_py_add_by_date32(NULL, n, dkeys, din, o32, dout, runs), "py reduce_by_key by date32"))
        expect_sums_by_date32(n, keys, h, o32, dout, runs, "reduce_by_key(py_add, date32)");
    if (!check(dk_reduce_by_key_py_max_day_by_decimal128(NULL, n, dkv, ddays, uk, o32, runs),
               "py reduce_by_key by decimal128"))
        expect_latest_by_decimal(n, kv, days, uk, o32, runs, "reduce_by_key(py_max_day, decimal128(38,2))");
    /* map(py_later): timestamp[ms] + duration[ms]; sort(py_before) over date64 */
    if (!check(dk_map_py_later(NULL, n, dt, dd, o64), "dk_map_py_later")) {
        int64_t *r = host_copy(o64, n * 8);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= r[i] == t[i] + d[i];
        expect(ok, "map(py_later): datetime64[ms] + timedelta64[ms]");
        free(r);
    }
    if (!check(dk_sort_py_before(NULL, n, dt, o64, order), "dk_sort_py_before"))
        expect_sorted64(n, t, o64, order, "sort(py_before): date64");
    /* nullable_map(py_maybe_neg): decimal128?; nullable_filter(py_big): bool?(decimal64(18,2)?) */
    if (!check(dk_nullable_map_py_maybe_neg(NULL, n, din, m, dout, obits, nulls), "dk_nullable_map_py_maybe_neg"))
        expect_negated(n, h, true, dout, obits, nulls, "nullable_map(py_maybe_neg): decimal128? values, bits, nulls");
    if (!check(dk_nullable_filter_py_big(NULL, n, dp, m, idx, count), "dk_nullable_filter_py_big")) {
        uint64_t *r = host_copy(idx, n * 8), *c = host_copy(count, 8), k = 0;
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            if (i % 3 && p[i] > 10000)
                ok &= k < *c && r[k++] == i;
        expect(ok && k == *c, "nullable_filter(py_big): bool?(decimal64(18,2)?)");
        free(r);
        free(c);
    }
    expect(dk_udf_error(NULL, NULL, NULL) == UDFKIT_OK, "no row of the Python UDFs failed");
    void *all[] = {dp, dq, dt, dd, o64, ddays, dkeys, o32, din, dout, one, dkv, uk, order, count, idx, runs, valid, nulls,
                   dbits, obits};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        udfkit_device_free(all[i]);
    free(p);
    free(q);
    free(t);
    free(d);
    free(days);
    free(keys);
    free(h);
    free(hd);
    free(hk);
    free(kv);
    free(bits);
}

int main(void)
{
    udfkit_status st = dk_load();
    if (st == UDFKIT_ERROR_NO_DRIVER || st == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        return 77;
    }
    if (check(st, "dk_load"))
        return 1;
    const size_t sizes[] = {0, 1, 7, 1000, (1u << 20) + 7};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        snprintf(current, sizeof current, "n=%zu", sizes[z]);
        decimals(sizes[z]);
        more_types(sizes[z]);
        python_udfs(sizes[z]);
    }
    const size_t long_sizes[] = {(1u << 24) + 7, 3u * (1u << 22) + 5, (1u << 23) + 12345};
    for (size_t z = 0; z < sizeof long_sizes / sizeof *long_sizes; z++) {
        snprintf(current, sizeof current, "long n=%zu", long_sizes[z]);
        long_reduces(long_sizes[z]);
    }
    check(udfkit_synchronize(), "udfkit_synchronize");
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
