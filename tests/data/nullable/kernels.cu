// Applies each nullable UDF over n rows through the C ABI its header declares: values and
// validity bytes in, values and validity bytes out.
#include "nullable_cuda.h"
#include "nullable_py.h"

#define ROW (blockIdx.x * blockDim.x + threadIdx.x)

extern "C" __global__ void k_coalesce(const float *a, const bool *av, const float *b, float *out, bool *ov, int n)
{
    int i = ROW;
    if (i < n)
        ov[i] = coalesce(&out[i], a[i], av[i], b[i]);
}

extern "C" __global__ void k_safe_div(const double *a, const double *b, double *out, bool *ov, int n)
{
    int i = ROW;
    if (i < n)
        ov[i] = safe_div(&out[i], a[i], b[i]);
}

extern "C" __global__ void k_first_valid(const int *a, const bool *av, const int *b, const bool *bv, int *out,
                                         bool *ov, int n)
{
    int i = ROW;
    if (i < n)
        ov[i] = first_valid(&out[i], a[i], av[i], b[i], bv[i]);
}

extern "C" __global__ void k_halve(const float *x, float *out, bool *ov, int n)
{
    int i = ROW;
    if (i < n)
        halve(x[i], &out[i], &ov[i]);
}

extern "C" __global__ void k_py_coalesce(const float *a, const bool *av, const float *b, float *out, bool *ov, int n)
{
    int i = ROW;
    if (i < n)
        ov[i] = py_coalesce(&out[i], a[i], av[i], b[i]);
}

extern "C" __global__ void k_py_safe_div(const double *a, const double *b, double *out, bool *ov, int n)
{
    int i = ROW;
    if (i < n)
        ov[i] = py_safe_div(&out[i], a[i], b[i]);
}

extern "C" __global__ void k_py_both(const long long *a, const bool *av, const long long *b, const bool *bv,
                                     long long *out, bool *ov, int n)
{
    int i = ROW;
    if (i < n)
        ov[i] = py_both((int64_t *)&out[i], a[i], av[i], b[i], bv[i]);
}
