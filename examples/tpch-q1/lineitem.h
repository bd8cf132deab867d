/* lineitem's columns for TPC-H Q1, generated as TPC-H's dbgen distributes them (TPC-H 3.0.1,
 * 4.2.3): 1,500,000 orders per scale factor of 1 to 7 lines each (about 6 million rows at
 * scale factor 1), o_orderdate uniform in [1992-01-01, 1998-12-31 - 151 days], l_quantity
 * uniform in [1, 50], l_partkey uniform in [1, 200,000 * SF] with p_retailprice =
 * (90000 + ((partkey / 10) mod 20001) + 100 * (partkey mod 1000)) / 100, l_extendedprice =
 * l_quantity * p_retailprice, l_discount uniform in [0.00, 0.10], l_tax in [0.00, 0.08],
 * l_shipdate = o_orderdate + [1, 121], l_receiptdate = l_shipdate + [1, 30], l_returnflag R
 * or A at random where l_receiptdate <= 1995-06-17 else N, l_linestatus O where l_shipdate >
 * 1995-06-17 else F. A fixed seed: the same scale factor gives the same bytes everywhere,
 * so that the GPU's answer can be checked against pyarrow's computed on another machine. */
#ifndef TPCH_LINEITEM_H
#define TPCH_LINEITEM_H

#include <stddef.h>
#include <stdint.h>

typedef struct lineitem {
    size_t rows;
    int32_t *shipdate;      /* date32: days since 1970-01-01 */
    int64_t *quantity;      /* decimal64(15,2), unscaled: hundredths */
    int64_t *extendedprice; /* decimal64(15,2) */
    int64_t *discount;      /* decimal64(15,2) */
    int64_t *tax;           /* decimal64(15,2) */
    char *returnflag;       /* utf8 of one byte a row: the bytes ... */
    char *linestatus;
    int32_t *offsets;       /* ... and the offsets both share, 0, 1, ..., rows */
} lineitem;

/* Days since 1970-01-01 of a civil date (proleptic Gregorian). */
int32_t civil_days(int year, int month, int day);

/* 0 on success; -1 where memory runs out. */
int lineitem_generate(double scale_factor, lineitem *out);
void lineitem_free(lineitem *li);

#endif
