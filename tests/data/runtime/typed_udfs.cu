// One UDF for every type SPEC.md lists, for the map, filter and reduce GPU tests.
#include <cuda_fp16.h>

__device__ bool not_b(bool x) { return !x; }
__device__ signed char inc_i8(signed char x) { return (signed char)(x + 1); }
__device__ short inc_i16(short x) { return (short)(x + 1); }
__device__ int inc_i32(int x) { return x + 1; }
__device__ long long inc_i64(long long x) { return x + 1; }
__device__ unsigned char inc_u8(unsigned char x) { return (unsigned char)(x + 1); }
__device__ unsigned short inc_u16(unsigned short x) { return (unsigned short)(x + 1); }
__device__ unsigned inc_u32(unsigned x) { return x + 1; }
__device__ unsigned long long inc_u64(unsigned long long x) { return x + 1; }
__device__ __half twice_f16(__half x) { return __hadd(x, x); }
__device__ float twice_f32(float x) { return 2.0f * x; }
__device__ double twice_f64(double x) { return 2.0 * x; }

__device__ int add_i32(int a, int b) { return a + b; }
__device__ long long add_i64(long long a, long long b) { return a + b; }
__device__ unsigned long long add_u64(unsigned long long a, unsigned long long b) { return a + b; }
__device__ double add_f64(double a, double b) { return a + b; }

__device__ bool is_odd16(short x) { return (x & 1) != 0; }
__device__ bool is_neg64(double x) { return x < 0.0; }
