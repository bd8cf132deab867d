// The decimal and date UDFs of the `decimals` benchmark (bench_decimals.cu), over
// <udfkit/decimal.cuh> and <udfkit/datetime.cuh>.
#include <udfkit/decimal.cuh>
#include <udfkit/datetime.cuh>

// mul_s4:decimal128(38,4)(decimal128(18,2), decimal128(18,2)): the exact product (scale 4),
// its precision checked.
extern "C" __device__ void mul_s4(udfkit_decimal128 *out, unsigned long long a_lo, long long a_hi,
                                  unsigned long long b_lo, long long b_hi)
{
    using udfkit::decimal;
    if (int e = (decimal::from_abi(a_lo, a_hi, 2) * decimal::from_abi(b_lo, b_hi, 2)).store(out, 38, 4))
        udfkit_row_error(e);
}

// mul_s2:decimal128(38,2)(decimal128(18,2), decimal128(18,2)): the product rounded half away
// from zero to scale 2 (a rescale by 10^-2), its precision checked.
extern "C" __device__ void mul_s2(udfkit_decimal128 *out, unsigned long long a_lo, long long a_hi,
                                  unsigned long long b_lo, long long b_hi)
{
    using udfkit::decimal;
    if (int e = (decimal::from_abi(a_lo, a_hi, 2) * decimal::from_abi(b_lo, b_hi, 2)).store(out, 38, 2))
        udfkit_row_error(e);
}

// add_d:decimal128(38,2)(decimal128(38,2), decimal128(38,2)): the sum of reduce(add_d), past
// 38 digits a row error.
extern "C" __device__ void add_d(udfkit_decimal128 *out, unsigned long long a_lo, long long a_hi,
                                 unsigned long long b_lo, long long b_hi)
{
    using udfkit::decimal;
    if (int e = (decimal::from_abi(a_lo, a_hi, 2) + decimal::from_abi(b_lo, b_hi, 2)).store(out, 38, 2))
        udfkit_row_error(e);
}

// ymd:void(date32, int32*, int32*, int32*): a date's year, month and day.
extern "C" __device__ void ymd(int day, int *year, int *month, int *dom)
{
    const udfkit::civil_date c = udfkit::civil_from_days(day);
    *year = (int)c.year;
    *month = c.month;
    *dom = c.day;
}
