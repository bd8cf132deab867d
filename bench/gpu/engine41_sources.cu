// The 10 SOURCES kernels of bench_bind_engine's engine (issue 20's kernel mix): five call the
// slots price and keep (engine41_slots.h, `udfkit header --function`), five call none.
#include "engine41_slots.h"

#define ROWS(i, n)                                                                                 \
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < (n); \
         i += (unsigned long long)gridDim.x * blockDim.x)

#define SLOT_KERNEL(k)                                                                                      \
    extern "C" __global__ void src_slot##k(unsigned long long n, const float *a, float *out)               \
    {                                                                                                       \
        ROWS(i, n) out[i] = keep(a[i]) ? price(a[i], (k + 1) / 16.0f) : 0.0f;                              \
    }
#define PLAIN_KERNEL(k)                                                                                     \
    extern "C" __global__ void src_plain##k(unsigned long long n, const float *a, float *out)              \
    {                                                                                                       \
        ROWS(i, n) out[i] = a[i] * (k + 2.0f) + sqrtf(a[i] > 0.0f ? a[i] : 0.0f);                          \
    }
SLOT_KERNEL(0)
SLOT_KERNEL(1)
SLOT_KERNEL(2)
SLOT_KERNEL(3)
SLOT_KERNEL(4)
PLAIN_KERNEL(0)
PLAIN_KERNEL(1)
PLAIN_KERNEL(2)
PLAIN_KERNEL(3)
PLAIN_KERNEL(4)
