// A CUDA C UDF that Python UDFs call (bool and float16 crossing from Python to CUDA C).
#include <cuda_fp16.h>

__device__ __half c_half_gate(__half h, bool open)
{
    return open ? __hmul(h, __float2half(2.0f)) : __float2half(0.0f);
}
