/* UDFs over <udfkit/decimal.cuh> and <udfkit/datetime.cuh> through SPEC.md's C ABI (a
 * decimal128 as its lo and hi halves and a udfkit_decimal128 result, decimal64 and timestamps
 * as int64, date32 as int32), compiled by `udfkit compile` (NVRTC) with the specs of
 * tests/decimal_datetime/test_libs.py and by nvcc (tests/decimal_datetime/test_libs.py). */
#include <udfkit/datetime.cuh>
#include <udfkit/decimal.cuh>

using udfkit::decimal;
using udfkit::time_unit;

/* net_price:decimal128(38,4)(decimal128(15,2), decimal64(4,2)): price * (1 - discount). */
extern "C" __device__ void net_price(udfkit_decimal128 *out, unsigned long long price_lo, long long price_hi,
                                     long long discount)
{
    decimal r = decimal::from_abi(price_lo, price_hi, 2) * (decimal(1) - decimal(discount, 2));
    if (int e = r.store(out, 38, 4))
        udfkit_row_error(e);
}

/* share:decimal64(18,6)(decimal64(18,2), decimal64(18,2)): a / b rounded half away from zero. */
extern "C" __device__ long long share(long long a, long long b)
{
    long long r = 0;
    if (int e = div(decimal(a, 2), decimal(b, 2), 6).store(&r, 18, 6))
        udfkit_row_error(e);
    return r;
}

/* as_double:float64(decimal128(38,10)). */
extern "C" __device__ double as_double(unsigned long long lo, long long hi)
{
    return decimal::from_abi(lo, hi, 10).to_double();
}

/* parse_cents:decimal64(18,2)(string) (a C++ function: udfkit exports it under the C name). */
__device__ long long parse_cents(udfkit::string_view text)
{
    long long r = 0;
    if (int e = decimal::parse(text, 2).store(&r, 18, 2))
        udfkit_row_error(e);
    return r;
}

/* format_cents:string(decimal64(18,2)). */
__device__ void format_cents(udfkit::string_out *out, long long cents) { decimal(cents, 2).write(out); }

/* next_month:date32(date32): a month later, the day clamped. */
extern "C" __device__ int next_month(int day)
{
    long long r = 0;
    int d = 0;
    if (int e = udfkit::add_months(&r, day, 1))
        udfkit_row_error(e);
    else if (int e2 = udfkit::to_date32(&d, r, time_unit::day))
        udfkit_row_error(e2);
    return d;
}

/* month_start:timestamp[ns](timestamp[ns]). */
extern "C" __device__ long long month_start(long long t)
{
    long long r = 0;
    if (int e = udfkit::floor_to(&r, t, time_unit::nanosecond, time_unit::month))
        udfkit_row_error(e);
    return r;
}

/* days_apart:int64(timestamp[us], timestamp[s]), as Arrow's days_between. */
extern "C" __device__ long long days_apart(long long a, long long b)
{
    long long r = 0;
    if (int e = udfkit::units_between(&r, a, time_unit::microsecond, b, time_unit::second, time_unit::day))
        udfkit_row_error(e);
    return r;
}

/* weekday_of:int32(date32). */
extern "C" __device__ int weekday_of(int day) { return udfkit::weekday(day); }

/* later:timestamp[ms](timestamp[s], duration[ms]), numpy's datetime64 + timedelta64. */
extern "C" __device__ long long later(long long t, long long d)
{
    long long r = 0;
    if (int e = udfkit::add_duration(&r, t, time_unit::second, d, time_unit::millisecond))
        udfkit_row_error(e);
    return r;
}
