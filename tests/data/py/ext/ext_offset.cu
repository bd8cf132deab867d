// External code a Python UDF links through cuda.declare_device(..., link=[...]).
extern "C" __device__ double ext_offset(double x)
{
    return x + 0.25;
}
