// A user's CUDA C package for the engine's slots: every slot by its own name.
#include <cuda/std/optional>

__device__ float price(float list, float rate) { return list * (1.0f - rate); }
__device__ bool keep(float p) { return p >= 10.0f; }
__device__ long long widen(int x) { return (long long)x * 3 - 7; }
__device__ bool before(float a, float b) { return a > b; } // descending
__device__ cuda::std::optional<float> maybe_price(cuda::std::optional<float> list, float rate)
{
    if (!list || *list < 0.0f)
        return cuda::std::nullopt;
    return *list * (1.0f - rate);
}
// Not a slot's function: binding a slot to it is a mismatch.
__device__ float price3(float a, float b, float c) { return a + b + c; }
