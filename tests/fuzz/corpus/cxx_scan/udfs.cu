// Three UDFs and a kernel that calls them: a template instantiation in a namespace,
// a function exported under its own C++ name, and one taking int64.
#include "udf_helpers.cuh"

namespace ops {
template <class T> __device__ T clamp(T x, T lo, T hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}
} // namespace ops

__device__ float scale(float x, float k)
{
    return x * k + bias();
}

__device__ long long mix64(long long a, int b)
{
    return a * 1000003LL + b;
}

extern "C" __global__ void apply_udfs(const float *x, const int *v, const long long *w, float *y, int *c,
                                      long long *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = scale(x[i], 2.5f);
        c[i] = ops::clamp<int>(v[i], -10, 10);
        z[i] = mix64(w[i], i);
    }
}
