__device__ float scale2(float x)
{
    return 2.0f * x;
}
