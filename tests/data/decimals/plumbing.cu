/* Decimal, date and time UDFs whose results are plain integer operations (the C ABI itself:
 * a decimal128 as its two halves, its result through udfkit_decimal128 *out), so that
 * tests/gpu/test_decimals.c checks the kernels' handling of these types (16-byte values in every
 * template, decimal128 keys, dates and times as keys and sort keys) against the same
 * operations on the host. */

/* Wrapping 128-bit addition, as the host's __int128. */
extern "C" __device__ void dec_add(udfkit_decimal128 *out, unsigned long long a_lo, long long a_hi, unsigned long long b_lo,
                                   long long b_hi)
{
    const unsigned long long lo = a_lo + b_lo;
    out->lo = lo;
    out->hi = (long long)((unsigned long long)a_hi + (unsigned long long)b_hi + (lo < a_lo));
}

extern "C" __device__ void dec_neg(udfkit_decimal128 *out, unsigned long long a_lo, long long a_hi)
{
    out->lo = ~a_lo + 1;
    out->hi = (long long)(~(unsigned long long)a_hi + (a_lo == 0));
}

extern "C" __device__ bool dec_less(unsigned long long a_lo, long long a_hi, unsigned long long b_lo, long long b_hi)
{
    return a_hi < b_hi || (a_hi == b_hi && a_lo < b_lo);
}

extern "C" __device__ bool dec_positive(unsigned long long a_lo, long long a_hi)
{
    return a_hi > 0 || (a_hi == 0 && a_lo > 0);
}

__device__ int days_between(int a, int b)
{
    return b - a;
}

__device__ int date_max(int a, int b)
{
    return a > b ? a : b;
}

__device__ long long ts_add(long long t, long long d)
{
    return t + d;
}

__device__ bool ts_less(long long a, long long b)
{
    return a < b;
}

/* decimal32 and decimal64 (int and long long), date64, timestamp[ns] and duration[ms]
 * (long long); spec names bind some of these to the definitions above. */
__device__ long long dec64_mul(long long a, int b)
{
    return a * b;
}

__device__ int dec32_add(int a, int b)
{
    return a + b;
}

__device__ bool dec32_less(int a, int b)
{
    return a < b;
}

__device__ long long time_max(long long a, long long b)
{
    return a > b ? a : b;
}

__device__ long long time_sum(long long a, long long b)
{
    return a + b;
}

/* decimal128(38,2)?(decimal128(38,2)?): -a, null where a is null or zero. */
extern "C" __device__ bool dec_maybe_neg(udfkit_decimal128 *out, unsigned long long a_lo, long long a_hi, bool a_valid)
{
    dec_neg(out, a_lo, a_hi);
    return a_valid && (a_lo != 0 || a_hi != 0);
}

/* bool?(decimal128(38,2)?): a > 0, null where a is null or a multiple of 7. */
extern "C" __device__ bool dec_maybe_positive(bool *out, unsigned long long a_lo, long long a_hi, bool a_valid)
{
    *out = dec_positive(a_lo, a_hi);
    return a_valid && a_lo % 7 != 0;
}
