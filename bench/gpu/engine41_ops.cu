// The engine's own functions (UDFS) of bench_bind_engine's engine.
__device__ float add(float a, float b) { return a + b; }
__device__ bool before(float a, float b) { return a < b; }
__device__ bool after(float a, float b) { return a > b; }
