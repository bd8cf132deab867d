// The UDFs of the GPU benchmarks: affine and add (map and reduce against nvcc and CUB), and
// twenty more whose map kernels make the load and link benchmarks' module a realistic size
// (most pull in libdevice code).
__device__ float affine(float x) { return 2.0f * x + 1.0f; }
__device__ float add(float a, float b) { return a + b; }

__device__ float wave(float x) { return sinf(x) * x; }
__device__ float gauss(float x) { return expf(-x * x); }
__device__ float log_abs(float x) { return logf(1.0f + fabsf(x)); }
__device__ float squash(float x) { return tanhf(x); }
__device__ float root(float x) { return sqrtf(fabsf(x)) + 1.0f; }
__device__ float angle(float x) { return atan2f(x, 1.0f + x * x); }
__device__ float power(float x) { return powf(fabsf(x), 1.5f); }
__device__ float error_fn(float x) { return erff(x); }
__device__ float cube_root(float x) { return cbrtf(x); }
__device__ float modulo(float x) { return fmodf(x, 3.0f); }
__device__ float hypotenuse(float x) { return hypotf(x, 2.0f); }
__device__ float beat(float x) { return cosf(x) * sinf(2.0f * x); }
__device__ float poly(float x)
{
    float r = 0.5f;
    const float c[8] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, -0.03125f, 0.015625f, -0.0078125f};
    for (int i = 0; i < 8; i++)
        r = r * x + c[i];
    return r;
}
__device__ float newton_rsqrt(float x)
{
    float a = fabsf(x) + 1.0f, y = 1.0f;
    for (int i = 0; i < 6; i++)
        y = y * (1.5f - 0.5f * a * y * y);
    return y;
}
__device__ float log_gamma(float x) { return lgammaf(fabsf(x) + 1.0f); }
__device__ float exp_minus_one(float x) { return expm1f(x); }
__device__ float log_one_plus(float x) { return log1pf(fabsf(x)); }
__device__ float arc_sinh(float x) { return asinhf(x); }
__device__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
__device__ float softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }

// The nullable benchmark (bench_nullable.cu): affine with an error check no row trips, and a
// predicate.
__device__ float affine_checked(float x)
{
    if (x != x)
        udfkit_row_error(1);
    return 2.0f * x + 1.0f;
}
__device__ bool above_half(float x) { return x > 0.5f; }

// Scan operators (bench_scan.cu), as CUB's side writes them as functors.
__device__ int add_i32(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ double add_f64(double a, double b) { return a + b; }
// transform_reduce's functions (bench_scan.cu).
__device__ int triple_i32(int x) { return (int)((unsigned)x * 3u); }
__device__ double half_f64(double x) { return x * 0.5; }
// sort's comparators (bench_sort.cu).
__device__ bool less_i32(int a, int b) { return a < b; }
__device__ bool less_f64(double a, double b) { return a < b; }
// The existing operators against CUB (bench_ops.cu): a predicate keeping 1% of uniform
// [0, 1) values, and int64 addition.
__device__ bool above_99(float x) { return x > 0.99f; }
__device__ long long add_i64(long long a, long long b) { return (long long)((unsigned long long)a + (unsigned long long)b); }
