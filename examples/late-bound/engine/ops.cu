// The engine's own operators: fixed when the engine is built, linked into it.
extern "C" __device__ float add(float a, float b) { return a + b; }
extern "C" __device__ bool before(float a, float b) { return a < b; }
