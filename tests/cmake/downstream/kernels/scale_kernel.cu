// A hand-written kernel that calls a UDF through the UDF target's header.
#include "kernel_config.h"
#include "shop_udfs.h"

extern "C" __global__ void ratio_rows(const float *a, const float *b, float *out, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = SCALED(ratio(a[i], b[i]));
}
