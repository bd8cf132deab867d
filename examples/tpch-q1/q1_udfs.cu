/* TPC-H Q1's expressions as UDFs over Arrow's columns of lineitem: the money columns
 * decimal64(15,2) (decimal(15,2) in SQL), l_shipdate date32, l_returnflag and l_linestatus
 * utf8 strings. Every result is exact: SPEC.md's decimal rules through <udfkit/decimal.cuh>.
 *
 *   select l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice),
 *          sum(l_extendedprice * (1 - l_discount)),
 *          sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
 *          avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*)
 *   from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day
 *   group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus */
#include <udfkit/datetime.cuh>
#include <udfkit/decimal.cuh>
#include <udfkit/string.cuh>

using udfkit::decimal;

/* q1_group:int32(string, string, date32): the row's group, (flag A/N/R) * 2 + (status O),
 * or Q1_DROPPED (6) where the row is shipped after the query's date. */
__device__ int q1_group(udfkit::string_view flag, udfkit::string_view status, int shipdate)
{
    /* date '1998-12-01' - interval '90' day */
    const long long last = udfkit::days_from_civil(1998, 12, 1) - 90;
    if (shipdate > last)
        return 6;
    const int f = flag == udfkit::string_view("A") ? 0 : flag == udfkit::string_view("N") ? 1 : 2;
    return f * 2 + (status == udfkit::string_view("O") ? 1 : 0);
}

/* widen:decimal128(38,2)(decimal64(15,2)): a sum's input, 38 digits wide. */
__device__ void widen(udfkit_decimal128 *out, long long v)
{
    out->lo = (unsigned long long)v;
    out->hi = v < 0 ? -1 : 0;
}

/* disc_price:decimal128(38,4)(decimal64(15,2), decimal64(15,2)): l_extendedprice * (1 - l_discount) */
__device__ void disc_price(udfkit_decimal128 *out, long long price, long long discount)
{
    const decimal r = decimal(price, 2) * (decimal(1) - decimal(discount, 2));
    if (int e = r.store(out, 38, 4))
        udfkit_row_error(e);
}

/* charge:decimal128(38,6)(decimal64(15,2), decimal64(15,2), decimal64(15,2)):
 * l_extendedprice * (1 - l_discount) * (1 + l_tax) */
__device__ void charge(udfkit_decimal128 *out, long long price, long long discount, long long tax)
{
    const decimal r = decimal(price, 2) * (decimal(1) - decimal(discount, 2)) * (decimal(1) + decimal(tax, 2));
    if (int e = r.store(out, 38, 6))
        udfkit_row_error(e);
}

/* one:int64(int32): the count's input. */
__device__ long long one(int) { return 1; }

/* group_less:bool(int32, int32): the order of sort(). */
__device__ bool group_less(int a, int b) { return a < b; }

/* The sums' ops, one per scale: decimal128(38,s)(decimal128(38,s), decimal128(38,s)). Both
 * terms have the same scale, so the sum is the sum of the unscaled values; one past 38 digits
 * is DECIMAL_OVERFLOW. Plain 128-bit code: a reduce_by_key kernel calls its op many times. */
__device__ __forceinline__ udfkit_decimal128 add38(udfkit_decimal128 a, udfkit_decimal128 b)
{
    const __int128 most = (__int128)10000000000000000000ull * 10000000000000000000ull - 1; /* 10^38 - 1 */
    const __int128 x = (__int128)(((unsigned __int128)(unsigned long long)a.hi << 64) | a.lo);
    const __int128 y = (__int128)(((unsigned __int128)(unsigned long long)b.hi << 64) | b.lo);
    udfkit_decimal128 r = {0, 0};
    if ((y > 0 && x > most - y) || (y < 0 && x < -most - y)) {
        udfkit_row_error(UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW);
        return r;
    }
    const __int128 sum = x + y;
    r.lo = (unsigned long long)sum;
    r.hi = (long long)(sum >> 64);
    return r;
}

__device__ udfkit_decimal128 add_s2(udfkit_decimal128 a, udfkit_decimal128 b) { return add38(a, b); }
__device__ udfkit_decimal128 add_s4(udfkit_decimal128 a, udfkit_decimal128 b) { return add38(a, b); }
__device__ udfkit_decimal128 add_s6(udfkit_decimal128 a, udfkit_decimal128 b) { return add38(a, b); }

__device__ long long add_i64(long long a, long long b) { return a + b; }
