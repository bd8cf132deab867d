// The user package bench_bind_engine binds its engine's slots to.
__device__ float price(float list, float rate) { return list * (1.0f - rate); }
__device__ bool keep(float p) { return p > 10.0f; }
