/* Decimals, dates and times through the launchers `udfkit kernels` generates (library dk, built
 * at build time from tests/data/decimals/plumbing.cu): decimal128 (16-byte values, two C
 * parameters, a result through udfkit_decimal128 *out) in map, reduce, both scans,
 * segmented_reduce, sort, filter(p, values), nullable_map, nullable_reduce, transform_reduce and
 * as reduce_by_key's keys and values; date32 and timestamp[us] in map, reduce, sort and as
 * keys; over 0, 1, 7, 1000 and 2^20 + 7 rows; every result against the same integer operations
 * on the host (__int128).
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
    if (!check(dk_transform_reduce_dec_neg_dec_add(NULL, n, in, dec(7), one), "dk_transform_reduce_dec_neg_dec_add")) {
        udfkit_decimal128 *r = host_copy(one, 16);
        expect(same(*r, 14 - sum), "transform_reduce(dec_neg, dec_add): 7 - every row");
        free(r);
    }
    /* inclusive_scan and exclusive_scan */
    if (!check(dk_inclusive_scan_dec_add(NULL, n, in, out), "dk_inclusive_scan_dec_add")) {
        udfkit_decimal128 *r = host_copy(out, bytes);
        bool ok = true;
        i128 acc = 0;
        for (size_t i = 0; i < n; i++) {
            acc += h[i];
            ok &= same(r[i], acc);
        }
        expect(ok, "inclusive_scan(dec_add)");
        free(r);
    }
    if (!check(dk_exclusive_scan_dec_add(NULL, n, in, dec(-3), out), "dk_exclusive_scan_dec_add")) {
        udfkit_decimal128 *r = host_copy(out, bytes);
        bool ok = true;
        i128 acc = -3;
        for (size_t i = 0; i < n; i++) {
            ok &= same(r[i], acc);
            acc += h[i];
        }
        expect(ok, "exclusive_scan(dec_add)");
        free(r);
    }
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
    uint8_t *bits = calloc(nbytes + 1, 1);
    for (size_t i = 0; i < n; i++)
        if (i % 3)
            bits[i / 8] |= (uint8_t)(1u << (i % 8));
    uint8_t *dbits = device_copy(bits, nbytes), *obits = device_copy(NULL, nbytes);
    udfkit_mask m = {dbits, 0};
    uint64_t *nulls = device_copy(NULL, 8);
    if (!check(dk_nullable_map_dec_neg(NULL, n, in, m, out, obits, nulls), "dk_nullable_map_dec_neg")) {
        udfkit_decimal128 *r = host_copy(out, bytes);
        uint8_t *b = host_copy(obits, nbytes);
        uint64_t *nn = host_copy(nulls, 8), want = 0;
        bool ok = true;
        for (size_t i = 0; i < n; i++) {
            bool v = i % 3 != 0;
            want += !v;
            ok &= (((b[i / 8] >> (i % 8)) & 1) != 0) == v && (!v || same(r[i], -h[i]));
        }
        expect(ok && *nn == want, "nullable_map(dec_neg): values, bits, nulls");
        free(r);
        free(b);
        free(nn);
    }
    uint64_t *valid = device_copy(NULL, 8);
    if (!check(dk_nullable_reduce_dec_add(NULL, n, in, m, dec(0), one, valid), "dk_nullable_reduce_dec_add")) {
        udfkit_decimal128 *r = host_copy(one, 16);
        uint64_t *vc = host_copy(valid, 8), want = 0;
        i128 acc = 0;
        for (size_t i = 0; i < n; i++)
            if (i % 3) {
                acc += h[i];
                want++;
            }
        expect(same(*r, acc) && *vc == want, "nullable_reduce(dec_add)");
        free(r);
        free(vc);
    }
    /* reduce_by_key(dec_add, date32) and reduce_by_key(date_max, decimal128(38,2)): runs of keys. */
    int32_t *keys = calloc(n + 1, 4), *dates = calloc(n + 1, 4);
    udfkit_decimal128 *dkeys = calloc(n + 1, 16);
    for (size_t i = 0; i < n; i++) {
        keys[i] = i && next_random() % 4 ? keys[i - 1] : (int32_t)(next_random() % 50000) - 25000;
        dkeys[i] = i && next_random() % 4 ? dkeys[i - 1] : hd[i];
        dates[i] = (int32_t)(next_random() % 60000) - 30000;
    }
    int32_t *dk32 = device_copy(keys, n * 4), *ud32 = device_copy(NULL, n * 4), *ddates = device_copy(dates, n * 4);
    uint64_t *runs = device_copy(NULL, 8);
    if (!check(dk_reduce_by_key_dec_add_by_date32(NULL, n, dk32, in, ud32, out, runs), "reduce_by_key by date32")) {
        int32_t *uk = host_copy(ud32, n * 4);
        udfkit_decimal128 *r = host_copy(out, bytes);
        uint64_t *rr = host_copy(runs, 8), k = 0;
        bool ok = true;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            i128 acc = h[i];
            while (++j < n && keys[j] == keys[i])
                acc += h[j];
            ok &= k < *rr && uk[k] == keys[i] && same(r[k], acc);
            k++;
            i = j;
        }
        expect(ok && k == *rr, "reduce_by_key(dec_add, date32)");
        free(uk);
        free(r);
        free(rr);
    }
    udfkit_decimal128 *ddk = device_copy(dkeys, bytes);
    if (!check(dk_reduce_by_key_date_max_by_decimal128(NULL, n, ddk, ddates, out, ud32, runs),
               "reduce_by_key by decimal128")) {
        udfkit_decimal128 *uk = host_copy(out, bytes);
        int32_t *r = host_copy(ud32, n * 4);
        uint64_t *rr = host_copy(runs, 8), k = 0;
        bool ok = true;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            int32_t best = dates[i];
            while (++j < n && val(dkeys[j]) == val(dkeys[i]))
                best = dates[j] > best ? dates[j] : best;
            ok &= k < *rr && val(uk[k]) == val(dkeys[i]) && r[k] == best;
            k++;
            i = j;
        }
        expect(ok && k == *rr, "reduce_by_key(date_max, decimal128(38,2))");
        free(uk);
        free(r);
        free(rr);
    }
    udfkit_device_free(ddk);
    free(dkeys);
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
    if (!check(dk_sort_ts_less(NULL, n, dts, ots, order), "dk_sort_ts_less")) {
        int64_t *r = host_copy(ots, n * 8);
        uint64_t *o = host_copy(order, n * 8);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= o[i] < n && r[i] == ts[o[i]] && (!i || r[i - 1] <= r[i]);
        expect(ok, "sort(ts_less)");
        free(r);
        free(o);
    }
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
    }
    check(udfkit_synchronize(), "udfkit_synchronize");
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
