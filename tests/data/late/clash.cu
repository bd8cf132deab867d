// A package that defines the engine's own add_f32, and a slot's name under another signature.
__device__ float add_f32(float a, float b) { return a - b; }
__device__ float keep2(float p) { return p; }
