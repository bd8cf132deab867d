// A kernel compiled by nvcc that reaches the UDFs only through udfkit's header.
#include "udfs.h"

extern "C" __global__ void call_udfs(const float *x, const int *v, const long long *w, float *y, int *c,
                                     long long *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = scale(x[i], 2.5f);
        c[i] = clamp_i32(v[i], -10, 10);
        z[i] = mix64(w[i], i);
    }
}
