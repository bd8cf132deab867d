// Functions already exported with C linkage under their own name, and one taking `long`
// for an int64 parameter (the matching rule accepts long and long long).
extern "C" __device__ double twice_c(double x)
{
    return 2.0 * x;
}

extern "C" {
__device__ float negate_c(float x)
{
    return -x;
}
}

__device__ long widen(long a, unsigned long long b)
{
    return a + (long)b;
}

extern "C" __global__ void use_c(const double *x, const float *y, const long *a, double *out, float *out2, long *out3, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = twice_c(x[i]);
        out2[i] = negate_c(y[i]);
        out3[i] = widen(a[i], 3);
    }
}
