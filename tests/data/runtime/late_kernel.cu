// A kernel shipped as LTO-IR whose UDF comes later, linked at load time.
extern "C" __device__ float late_udf(float x);

extern "C" __global__ void apply_late(const float *in, float *out, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = late_udf(in[i]);
}
