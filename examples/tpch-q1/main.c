/* TPC-H Q1 over generated lineitem columns, on the GPU through udfkit's launchers:
 *
 *   tpch_q1 [--sf X] --write DIR    the columns as files, for check.py (no GPU needed)
 *   tpch_q1 [--sf X] [--expect F]   the query on the GPU; its answer printed, and compared
 *                                   line for line with F (check.py's pyarrow answer)
 *
 * The plan: map(q1_group) gives each row its group (flag, status) or 6 where l_shipdate is
 * past the query's date; sort(group_less) orders the groups and gives the rows' order; the
 * decimal64 inputs become exact decimal128 terms (map(widen), map(disc_price), map(charge));
 * reduce_by_key counts each group (map(one)); the engine's own gather128 puts the terms in the
 * sorted order, and segmented_reduce sums each term over each group's rows. Averages are the sums divided by the counts on the host,
 * rounded half away from zero to scale 2, as pyarrow's mean of a decimal(15,2) is. */
#include "lineitem.h"
#include "tpch_q1_kernels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GROUPS 7 /* six (flag, status) pairs and the rows the date filter drops */

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static int fail(const char *what, udfkit_status s)
{
    fprintf(stderr, "tpch_q1: %s: %s: %s\n", what, udfkit_status_string(s), udfkit_last_error());
    return 1;
}

static i128 value(udfkit_decimal128 d)
{
    return (i128)(((u128)(uint64_t)d.hi << 64) | d.lo);
}

/* v * 10^-scale as text, exactly */
static void format(char *out, size_t size, i128 v, int scale)
{
    char digits[64];
    int n = 0;
    u128 u = v < 0 ? -(u128)v : (u128)v;
    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u || n <= scale);
    size_t k = 0;
    if (v < 0 && k + 1 < size)
        out[k++] = '-';
    for (int i = n - 1; i >= 0 && k + 2 < size; i--) {
        out[k++] = digits[i];
        if (i == scale && scale > 0)
            out[k++] = '.';
    }
    out[k] = '\0';
}

/* sum / count, rounded half away from zero, at the sum's scale */
static i128 average(i128 sum, int64_t count)
{
    const i128 q = sum / count, r = sum % count;
    const i128 twice = (r < 0 ? -r : r) * 2;
    return twice >= count ? q + (sum < 0 ? -1 : 1) : q;
}

static int write_file(const char *dir, const char *name, const void *data, size_t bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes || fclose(f) != 0) {
        fprintf(stderr, "tpch_q1: %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

static int write_columns(const lineitem *li, const char *dir)
{
    mkdir(dir, 0777);
    size_t n = li->rows;
    if (write_file(dir, "l_shipdate.i32", li->shipdate, n * 4) || write_file(dir, "l_quantity.i64", li->quantity, n * 8) ||
        write_file(dir, "l_extendedprice.i64", li->extendedprice, n * 8) ||
        write_file(dir, "l_discount.i64", li->discount, n * 8) || write_file(dir, "l_tax.i64", li->tax, n * 8) ||
        write_file(dir, "l_returnflag.u8", li->returnflag, n) || write_file(dir, "l_linestatus.u8", li->linestatus, n))
        return 1;
    printf("tpch_q1: %zu lineitem rows written to %s\n", n, dir);
    return 0;
}

typedef struct device_columns {
    int32_t *shipdate, *offsets, *group, *sorted_group, *unique;
    int64_t *quantity, *extendedprice, *discount, *tax, *ones, *counts;
    char *returnflag, *linestatus;
    uint64_t *order, *runs, *segments;
    udfkit_decimal128 *term, *sorted, *sums;
} device_columns;

static udfkit_status upload(const lineitem *li, device_columns *d)
{
    const size_t n = li->rows;
    udfkit_status s;
    void **allocs[] = {(void **)&d->shipdate, (void **)&d->offsets, (void **)&d->group, (void **)&d->sorted_group,
                       (void **)&d->unique, (void **)&d->quantity, (void **)&d->extendedprice, (void **)&d->discount,
                       (void **)&d->tax, (void **)&d->ones, (void **)&d->counts, (void **)&d->returnflag,
                       (void **)&d->linestatus, (void **)&d->order, (void **)&d->runs, (void **)&d->term,
                       (void **)&d->sorted, (void **)&d->sums, (void **)&d->segments};
    const size_t sizes[] = {n * 4, (n + 1) * 4, n * 4, n * 4, GROUPS * 4, n * 8, n * 8, n * 8, n * 8, n * 8, GROUPS * 8,
                            n, n, n * 8, 8, n * 16, n * 16, GROUPS * 16, (GROUPS + 1) * 8};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        if ((s = udfkit_device_alloc(sizes[i] ? sizes[i] : 1, allocs[i])))
            return s;
    if ((s = udfkit_copy_to_device(d->shipdate, li->shipdate, n * 4)) ||
        (s = udfkit_copy_to_device(d->offsets, li->offsets, (n + 1) * 4)) ||
        (s = udfkit_copy_to_device(d->quantity, li->quantity, n * 8)) ||
        (s = udfkit_copy_to_device(d->extendedprice, li->extendedprice, n * 8)) ||
        (s = udfkit_copy_to_device(d->discount, li->discount, n * 8)) ||
        (s = udfkit_copy_to_device(d->tax, li->tax, n * 8)) ||
        (s = udfkit_copy_to_device(d->returnflag, li->returnflag, n)) ||
        (s = udfkit_copy_to_device(d->linestatus, li->linestatus, n)))
        return s;
    return UDFKIT_OK;
}

static void release(device_columns *d)
{
    void *all[] = {d->shipdate, d->offsets, d->group, d->sorted_group, d->unique, d->quantity, d->extendedprice,
                   d->discount, d->tax, d->ones, d->counts, d->returnflag, d->linestatus, d->order, d->runs,
                   d->term, d->sorted, d->sums, d->segments};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        udfkit_device_free(all[i]);
}

/* The term's sums per group: the term in sorted order, then segmented_reduce over the groups'
 * rows (d->segments: each group's first row, and n). */
typedef udfkit_status (*sum_fn)(udfkit_stream, size_t, const uint64_t *, const udfkit_decimal128 *, udfkit_decimal128,
                                udfkit_decimal128 *);

static udfkit_status sum_term(device_columns *d, size_t n, uint64_t groups, sum_fn sum, i128 out[GROUPS])
{
    udfkit_kernel gather;
    udfkit_status s = udfkit_library_get_kernel(tpch_q1_kernels_library(), "gather128", &gather);
    unsigned long long rows = n;
    void *args[] = {&d->term, &d->order, &d->sorted, &rows};
    const unsigned blocks = (unsigned)((n + 255) / 256 < 65536 ? (n + 255) / 256 + 1 : 65536);
    const udfkit_decimal128 zero = {0, 0};
    udfkit_decimal128 sums[GROUPS];
    if (s || (s = udfkit_launch(gather, (udfkit_dim3){blocks, 1, 1}, (udfkit_dim3){256, 1, 1}, 0, NULL, args)) ||
        (s = sum(NULL, groups, d->segments, d->sorted, zero, d->sums)) || (s = udfkit_synchronize()) ||
        (s = udfkit_copy_to_host(sums, d->sums, groups * sizeof *sums)))
        return s;
    for (uint64_t i = 0; i < groups; i++)
        out[i] = value(sums[i]);
    return UDFKIT_OK;
}

int main(int argc, char **argv)
{
    double sf = 1.0;
    const char *write_dir = NULL, *expect = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sf") && i + 1 < argc)
            sf = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--write") && i + 1 < argc)
            write_dir = argv[++i];
        else if (!strcmp(argv[i], "--expect") && i + 1 < argc)
            expect = argv[++i];
        else {
            fprintf(stderr, "usage: tpch_q1 [--sf X] [--write DIR | --expect FILE]\n");
            return 2;
        }
    }
    if (!(sf > 0 && sf <= 300)) {
        fprintf(stderr, "tpch_q1: error: --sf must be in (0, 300] (utf8 offsets are int32)\n");
        return 2;
    }
    lineitem li;
    if (lineitem_generate(sf, &li)) {
        fprintf(stderr, "tpch_q1: error: out of memory generating scale factor %g\n", sf);
        return 1;
    }
    if (write_dir) {
        int rc = write_columns(&li, write_dir);
        lineitem_free(&li);
        return rc;
    }
    udfkit_status s = tpch_q1_kernels_load();
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("tpch_q1: no GPU visible (%s): nothing was run\n", udfkit_last_error());
        lineitem_free(&li);
        return 0;
    }
    if (s)
        return fail("loading the kernels", s);

    const size_t n = li.rows;
    device_columns d = {0};
    if ((s = upload(&li, &d)))
        return fail("device memory", s);
    const udfkit_strings flag = {UDFKIT_STRINGS_UTF8, d.offsets, d.returnflag, NULL, 0};
    const udfkit_strings status = {UDFKIT_STRINGS_UTF8, d.offsets, d.linestatus, NULL, 0};

    /* Groups, their order, and the count of each. */
    if ((s = tpch_q1_kernels_map_q1_group(NULL, n, flag, status, d.shipdate, d.group)) ||
        (s = tpch_q1_kernels_sort_group_less(NULL, n, d.group, d.sorted_group, d.order)) ||
        (s = tpch_q1_kernels_map_one(NULL, n, d.group, d.ones)) ||
        (s = tpch_q1_kernels_reduce_by_key_add_i64_by_int32(NULL, n, d.sorted_group, d.ones, d.unique, d.counts,
                                                             d.runs)) ||
        (s = udfkit_synchronize()))
        return fail("grouping", s);
    uint64_t groups;
    int32_t keys[GROUPS];
    int64_t counts[GROUPS];
    if ((s = udfkit_copy_to_host(&groups, d.runs, sizeof groups)) ||
        (s = udfkit_copy_to_host(keys, d.unique, groups * sizeof *keys)) ||
        (s = udfkit_copy_to_host(counts, d.counts, groups * sizeof *counts)))
        return fail("reading the groups", s);

    /* Each group's rows in sorted order: its first row, and n after the last group. */
    uint64_t segments[GROUPS + 1];
    segments[0] = 0;
    for (uint64_t g = 0; g < groups; g++)
        segments[g + 1] = segments[g] + (uint64_t)counts[g];
    if (segments[groups] != n) {
        fprintf(stderr, "tpch_q1: the groups count %llu rows of %zu\n", (unsigned long long)segments[groups], n);
        return 1;
    }
    /* The four sums and the sum of discounts, each in the groups' order. */
    i128 sum_qty[GROUPS], sum_base[GROUPS], sum_disc_price[GROUPS], sum_charge[GROUPS], sum_disc[GROUPS];
    if ((s = udfkit_copy_to_device(d.segments, segments, (groups + 1) * sizeof *segments)) ||
        (s = tpch_q1_kernels_map_widen(NULL, n, d.quantity, d.term)) ||
        (s = sum_term(&d, n, groups, tpch_q1_kernels_segmented_reduce_add_s2, sum_qty)) ||
        (s = tpch_q1_kernels_map_widen(NULL, n, d.extendedprice, d.term)) ||
        (s = sum_term(&d, n, groups, tpch_q1_kernels_segmented_reduce_add_s2, sum_base)) ||
        (s = tpch_q1_kernels_map_widen(NULL, n, d.discount, d.term)) ||
        (s = sum_term(&d, n, groups, tpch_q1_kernels_segmented_reduce_add_s2, sum_disc)) ||
        (s = tpch_q1_kernels_map_disc_price(NULL, n, d.extendedprice, d.discount, d.term)) ||
        (s = sum_term(&d, n, groups, tpch_q1_kernels_segmented_reduce_add_s4, sum_disc_price)) ||
        (s = tpch_q1_kernels_map_charge(NULL, n, d.extendedprice, d.discount, d.tax, d.term)) ||
        (s = sum_term(&d, n, groups, tpch_q1_kernels_segmented_reduce_add_s6, sum_charge)))
        return fail("summing", s);
    uint64_t bad_row;
    int code;
    if ((s = tpch_q1_kernels_udf_error(NULL, &bad_row, &code))) {
        fprintf(stderr, "tpch_q1: row %llu failed with code %d\n", (unsigned long long)bad_row, code);
        return fail("a row of the query", s);
    }

    /* The answer, in the query's order, as check.py prints pyarrow's. */
    static const char flags[] = "ANR", statuses[] = "FO";
    char answer[GROUPS][512];
    int lines = 0;
    for (uint64_t g = 0; g < groups; g++) {
        if (keys[g] == 6)
            continue; /* shipped after the query's date */
        char q[64], b[64], dp[64], c[64], aq[64], ap[64], ad[64];
        format(q, sizeof q, sum_qty[g], 2);
        format(b, sizeof b, sum_base[g], 2);
        format(dp, sizeof dp, sum_disc_price[g], 4);
        format(c, sizeof c, sum_charge[g], 6);
        format(aq, sizeof aq, average(sum_qty[g], counts[g]), 2);
        format(ap, sizeof ap, average(sum_base[g], counts[g]), 2);
        format(ad, sizeof ad, average(sum_disc[g], counts[g]), 2);
        snprintf(answer[lines++], sizeof answer[0], "%c %c %s %s %s %s %s %s %s %lld", flags[keys[g] / 2],
                 statuses[keys[g] % 2], q, b, dp, c, aq, ap, ad, (long long)counts[g]);
    }
    printf("tpch_q1: scale factor %g, %zu lineitem rows on the GPU\n", sf, n);
    printf("returnflag linestatus sum_qty sum_base_price sum_disc_price sum_charge avg_qty avg_price avg_disc count_order\n");
    for (int i = 0; i < lines; i++)
        printf("%s\n", answer[i]);
    release(&d);
    lineitem_free(&li);

    if (!expect)
        return 0;
    FILE *f = fopen(expect, "r");
    if (!f) {
        fprintf(stderr, "tpch_q1: %s: %s\n", expect, strerror(errno));
        return 1;
    }
    char line[512];
    int i = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (i >= lines || strcmp(line, answer[i])) {
            fprintf(stderr, "tpch_q1: line %d: pyarrow gives '%s', the GPU '%s'\n", i + 1, line, i < lines ? answer[i] : "");
            bad = 1;
        }
        i++;
    }
    fclose(f);
    if (i != lines) {
        fprintf(stderr, "tpch_q1: pyarrow gives %d groups, the GPU %d\n", i, lines);
        bad = 1;
    }
    printf(bad ? "tpch_q1: DIFFERS from pyarrow's answer (%s)\n" : "tpch_q1: equal to pyarrow's answer (%s), to the cent\n",
           expect);
    return bad;
}
