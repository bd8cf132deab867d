// Nullable CUDA C UDFs in both forms udfkit accepts (tests/gpu/test_nullable.c).
#include <cuda/std/optional>

// cuda::std::optional in and out.
__device__ cuda::std::optional<float> coalesce(cuda::std::optional<float> a, float b)
{
    return a.has_value() ? a : cuda::std::optional<float>(b);
}

__device__ cuda::std::optional<double> safe_div(double a, double b)
{
    if (b == 0.0)
        return cuda::std::nullopt;
    return a / b;
}

// The C ABI pairs themselves.
__device__ bool first_valid(int *out, int a, bool a_valid, int b, bool b_valid)
{
    if (a_valid) {
        *out = a;
        return true;
    }
    if (b_valid) {
        *out = b;
        return true;
    }
    return false;
}

__device__ void halve(float x, float *half, bool *half_valid)
{
    *half = x * 0.5f;
    *half_valid = x > 0.0f;
}
