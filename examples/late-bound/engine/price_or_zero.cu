// A kernel of the engine's own, launched by name: it calls both slots, whatever they are
// bound to, through their device prototypes (engine_slots.h, from SLOTS).
#include "engine_slots.h"

// out[i] = price(a[i], b[i]) where keep() holds for it, else 0.
extern "C" __global__ void engine_price_or_zero(unsigned long long n, const float *a, const float *b, float *out)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        const float p = price(a[i], b[i]);
        out[i] = keep(p) ? p : 0.0f;
    }
}
