/* UDFs for the `_arrow` launchers' tests (tests/gpu/test_arrow.c): each is one operation that
 * pyarrow.compute also has, so that the results compare bit for bit with pyarrow's
 * (tests/gpu/build_arrow_cases.py writes both). */
#include <cuda/std/optional>
#include <cuda_fp16.h>
#include <udfkit/string.cuh>

__device__ long long add_i64(long long a, long long b)
{
    return a + b;
}

__device__ double mul_f64(double a, double b)
{
    return a * b;
}

__device__ float add_f32(float a, float b)
{
    return a + b;
}

__device__ __half neg_f16(__half a)
{
    return __hneg(a);
}

__device__ bool gt_f64(double a, double b)
{
    return a > b;
}

__device__ bool and_b(bool a, bool b)
{
    return a && b;
}

__device__ long long blen(udfkit::string_view s)
{
    return s.size();
}

/* A string result: the two strings one after the other. */
extern "C" __device__ void cat(udfkit_string_out *out, const char *a, long long a_size, const char *b, long long b_size)
{
    out->append(a, a_size);
    out->append(b, b_size);
}

__device__ long long coalesce_i64(cuda::std::optional<long long> a, long long b)
{
    return a ? *a : b;
}

__device__ int next_day(int d)
{
    return d + 1;
}

__device__ long long ts_add(long long t, long long d)
{
    return t + d;
}

extern "C" __device__ void dec_neg(udfkit_decimal128 *out, unsigned long long a_lo, long long a_hi)
{
    out->lo = ~a_lo + 1;
    out->hi = (long long)(~(unsigned long long)a_hi + (a_lo == 0));
}

__device__ bool positive(double a)
{
    return a > 0;
}

__device__ bool both(bool a, long long b)
{
    return a && b > 0;
}

/* A filter over a string column: the strings longer than 5 bytes. */
__device__ bool long_text(udfkit::string_view s)
{
    return s.size() > 5;
}

/* Several outputs, one a string: the string twice, and its size. */
extern "C" __device__ void twice_len(const char *a, long long a_size, udfkit_string_out *out1, long long *out2)
{
    out1->append(a, a_size);
    out1->append(a, a_size);
    *out2 = a_size;
}
