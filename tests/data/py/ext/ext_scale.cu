// External code a Python module names in __udfkit_link__.
extern "C" __device__ float ext_scale(float x)
{
    return 3.0f * x;
}
