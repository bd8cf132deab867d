/* UDFs over <udfkit/decimal.cuh> and <udfkit/datetime.cuh> through SPEC.md's C ABI (a
 * decimal128 as lo and hi words and a udfkit_decimal128 result, decimal64 and timestamps as
 * int64, date32 as int32), compiled by `udfkit compile` (NVRTC) and, as a kernel calling
 * them, by nvcc (tests/decimal_datetime/test_libs.py). */
#include <udfkit/datetime.cuh>
#include <udfkit/decimal.cuh>

using udfkit::decimal;
using udfkit::time_unit;

/* price decimal128(15,2) * (1 - discount decimal64(4,2)) as decimal128(38,4); out is the
 * udfkit_decimal128 a decimal128 result is written through. */
extern "C" __device__ void net_price(void *out, unsigned long price_lo, long price_hi, long discount)
{
    decimal r = decimal::from_abi(price_lo, price_hi, 2) * (decimal(1) - decimal(discount, 2));
    if (int e = r.store(static_cast<udfkit_decimal128 *>(out), 38, 4))
        udfkit_row_error(e);
}

/* a / b of two decimal64(18,2) as decimal64(18,6), rounded half away from zero. */
extern "C" __device__ long share(long a, long b)
{
    long long r = 0;
    if (int e = div(decimal(a, 2), decimal(b, 2), 6).store(&r, 18, 6))
        udfkit_row_error(e);
    return r;
}

extern "C" __device__ double as_double(unsigned long lo, long hi) { return decimal::from_abi(lo, hi, 10).to_double(); }

/* Text to decimal64(18,2). */
extern "C" __device__ long parse_cents(const char *text, long size)
{
    long long r = 0;
    if (int e = decimal::parse(udfkit::string_view(text, size), 2).store(&r, 18, 2))
        udfkit_row_error(e);
    return r;
}

/* decimal64(18,2) to text (a C++ function: udfkit exports it under the C name). */
__device__ void format_cents(udfkit::string_out *out, long cents) { decimal(cents, 2).write(out); }

/* date32 one month later, the day clamped. */
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

/* timestamp[ns] floored to its month. */
extern "C" __device__ long month_start(long t)
{
    long long r = 0;
    if (int e = udfkit::floor_to(&r, t, time_unit::nanosecond, time_unit::month))
        udfkit_row_error(e);
    return r;
}

/* Days from a timestamp[us] to a timestamp[s], as Arrow's days_between. */
extern "C" __device__ long days_apart(long a, long b)
{
    long long r = 0;
    if (int e = udfkit::units_between(&r, a, time_unit::microsecond, b, time_unit::second, time_unit::day))
        udfkit_row_error(e);
    return r;
}

extern "C" __device__ int weekday_of(int day) { return udfkit::weekday(day); }
