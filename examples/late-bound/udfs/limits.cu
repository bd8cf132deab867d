// A predicate for the engine's filter: prices worth keeping.
__device__ bool is_big(float price) { return price > 50.0f; }
