// The UDF a user supplies after the library was built.
__device__ float late_udf(float x)
{
    return x * x + 1.0f;
}
