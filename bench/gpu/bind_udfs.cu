// The functions the bind benchmark binds: by the slots' names (price, combine).
__device__ float price(float x) { return 2.0f * x + 1.0f; }
__device__ float combine(float a, float b) { return a + b; }
