__device__ float ratio(float a, float b)
{
    return b != 0.0f ? a / b : 0.0f;
}
