// A kernel of the engine's own, launched by name, that calls two slots.
#include "late_engine_slots.h"

extern "C" __global__ void late_price_kept(unsigned long long n, const float *a, const float *b, float *out)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        const float p = price(a[i], b[i]);
        out[i] = keep(p) ? p : -1.0f;
    }
}
