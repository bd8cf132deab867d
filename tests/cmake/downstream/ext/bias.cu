// External code the CUDA C UDFs need, compiled to LTO-IR at configure time and passed as LINK.
extern "C" __device__ float ext_bias()
{
    return 0.5f;
}
