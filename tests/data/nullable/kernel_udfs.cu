// CUDA C UDFs for the nullable kernel templates and UDF errors (tests/gpu/test_nullable_kernels.c).
#include <cuda/std/optional>

// No T?: under nullable_map, a null input gives a null output without a call.
__device__ float twice(float x)
{
    return 2.0f * x;
}

__device__ bool positive(float x)
{
    return x > 0.0f;
}

// A null-aware predicate: a null x is kept where t < 0, and is unknown (dropped) otherwise.
__device__ cuda::std::optional<bool> above(cuda::std::optional<float> x, float t)
{
    if (!x)
        return t < 0.0f ? cuda::std::optional<bool>(true) : cuda::std::nullopt;
    return *x > t;
}

// UDF errors: the row fails with code a where b is 0.
__device__ int checked_div(int a, int b)
{
    if (b == 0) {
        udfkit_row_error(a);
        return 0;
    }
    return a / b;
}

__device__ int checked_div_quiet(int a, int b)
{
    if (b == 0) {
        udfkit_row_error(a);
        return 0;
    }
    return a / b;
}

// A predicate failing its negative rows with their value as the code.
__device__ bool checked_even(int x)
{
    if (x < 0)
        udfkit_row_error(x);
    return (x & 1) == 0;
}

// An op failing when it meets -7.
__device__ long long checked_add(long long a, long long b)
{
    if (b == -7 || a == -7)
        udfkit_row_error(77);
    return a + b;
}

// Three outputs, two of them T?*: f left unset (null) where x is a multiple of 3, q null
// where x < 0, w always set; the row fails with code x where x % 1000 == 777.
__device__ void parts(int x, float *f, bool *f_valid, int *q, bool *q_valid, long long *w)
{
    if (x % 3 != 0) {
        *f = x * 0.5f;
        *f_valid = true;
    }
    *q = x / 7;
    *q_valid = x >= 0;
    *w = 3ll * x;
    if (x % 1000 == 777)
        udfkit_row_error(x);
}
