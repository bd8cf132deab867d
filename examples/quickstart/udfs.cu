__device__ bool is_big(float price)
{
    return price >= 100.0f;
}

__device__ float add(float a, float b)
{
    return a + b;
}
