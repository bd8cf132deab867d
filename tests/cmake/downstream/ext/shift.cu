// External code a Python UDF module names in __udfkit_link__.
extern "C" __device__ float ext_shift(float x)
{
    return x - 0.25f;
}
