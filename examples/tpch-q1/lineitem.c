#include "lineitem.h"

#include <math.h>
#include <stdlib.h>

int32_t civil_days(int year, int month, int day)
{
    /* H. Hinnant's days_from_civil */
    const int y = year - (month <= 2);
    const int era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153u * (unsigned)(month + (month > 2 ? -3 : 9)) + 2u) / 5u + (unsigned)day - 1u;
    const unsigned doe = yoe * 365u + yoe / 4u - yoe / 100u + doy;
    return era * 146097 + (int32_t)doe - 719468;
}

/* splitmix64: one stream for the whole table. */
static uint64_t next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi] */
static int64_t uniform(uint64_t *state, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next(state) % (uint64_t)(hi - lo + 1));
}

int lineitem_generate(double scale_factor, lineitem *out)
{
    const size_t orders = (size_t)llround(1500000.0 * scale_factor);
    const int64_t parts = llround(200000.0 * scale_factor) > 0 ? llround(200000.0 * scale_factor) : 1;
    const size_t cap = orders * 7;
    lineitem li = {0};
    li.shipdate = malloc(cap * sizeof *li.shipdate);
    li.quantity = malloc(cap * sizeof *li.quantity);
    li.extendedprice = malloc(cap * sizeof *li.extendedprice);
    li.discount = malloc(cap * sizeof *li.discount);
    li.tax = malloc(cap * sizeof *li.tax);
    li.returnflag = malloc(cap + 1);
    li.linestatus = malloc(cap + 1);
    li.offsets = malloc((cap + 1) * sizeof *li.offsets);
    if (!li.shipdate || !li.quantity || !li.extendedprice || !li.discount || !li.tax || !li.returnflag ||
        !li.linestatus || !li.offsets) {
        lineitem_free(&li);
        return -1;
    }
    const int32_t start = civil_days(1992, 1, 1), end = civil_days(1998, 12, 31), current = civil_days(1995, 6, 17);
    uint64_t state = 20261126;
    size_t r = 0;
    for (size_t o = 0; o < orders; o++) {
        const int32_t orderdate = (int32_t)uniform(&state, start, end - 151);
        const int lines = (int)uniform(&state, 1, 7);
        for (int l = 0; l < lines; l++, r++) {
            const int64_t quantity = uniform(&state, 1, 50);
            const int64_t partkey = uniform(&state, 1, parts);
            const int64_t retail_cents = 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
            const int32_t ship = orderdate + (int32_t)uniform(&state, 1, 121);
            const int32_t receipt = ship + (int32_t)uniform(&state, 1, 30);
            li.quantity[r] = quantity * 100;
            li.extendedprice[r] = quantity * retail_cents;
            li.discount[r] = uniform(&state, 0, 10);
            li.tax[r] = uniform(&state, 0, 8);
            li.shipdate[r] = ship;
            li.returnflag[r] = receipt <= current ? (uniform(&state, 0, 1) ? 'R' : 'A') : 'N';
            li.linestatus[r] = ship > current ? 'O' : 'F';
            li.offsets[r] = (int32_t)r;
        }
    }
    li.offsets[r] = (int32_t)r;
    li.rows = r;
    *out = li;
    return 0;
}

void lineitem_free(lineitem *li)
{
    free(li->shipdate);
    free(li->quantity);
    free(li->extendedprice);
    free(li->discount);
    free(li->tax);
    free(li->returnflag);
    free(li->linestatus);
    free(li->offsets);
    *li = (lineitem){0};
}
