// The engine's own functions, linked into it when it is built (UDFS).
extern "C" __device__ float add_f32(float a, float b) { return a + b; }
extern "C" __device__ long long add_i64(long long a, long long b) { return a + b; }
