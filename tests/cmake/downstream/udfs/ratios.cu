extern "C" __device__ float ext_bias();

__device__ float ratio(float a, float b)
{
    return b != 0.0f ? a / b + ext_bias() : 0.0f;
}
