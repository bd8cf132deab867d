// Kernels of the bind benchmark's engine of its own (as an engine's SOURCES): six more
// kernels calling the two slots, price and combine (bind_slots.h, `udfkit header
// --function`). With the 16 of its KERNELS entries, the engine has 22.
#include "bind_slots.h"

#define ROWS(i, n)                                                                                 \
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < (n); \
         i += (unsigned long long)gridDim.x * blockDim.x)

extern "C" __global__ void bind_price_twice(unsigned long long n, const float *a, float *out)
{
    ROWS(i, n) out[i] = price(price(a[i]));
}
extern "C" __global__ void bind_combine_pairs(unsigned long long n, const float *a, const float *b, float *out)
{
    ROWS(i, n) out[i] = combine(a[i], b[i]);
}
extern "C" __global__ void bind_price_combine(unsigned long long n, const float *a, const float *b, float *out)
{
    ROWS(i, n) out[i] = combine(price(a[i]), price(b[i]));
}
extern "C" __global__ void bind_combine_self(unsigned long long n, const float *a, float *out)
{
    ROWS(i, n) out[i] = combine(a[i], a[i]);
}
extern "C" __global__ void bind_price_clamped(unsigned long long n, const float *a, float lo, float hi, float *out)
{
    ROWS(i, n) out[i] = fminf(fmaxf(price(a[i]), lo), hi);
}
extern "C" __global__ void bind_combine_shifted(unsigned long long n, const float *a, float *out)
{
    ROWS(i, n) out[i] = combine(a[i], i + 1 < n ? a[i + 1] : 0.0f);
}
