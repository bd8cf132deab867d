// Example UDFs in CUDA C++, and a kernel that applies them to columns of a table.
namespace pricing {
// A template instantiated for the export (pricing::clamp<int>).
template <class T> __device__ T clamp(T x, T lo, T hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}
} // namespace pricing

// Exported under its own C++ name.
__device__ float discount(float price, float rate)
{
    return price * (1.0f - rate);
}

// int64 in and out.
__device__ long long cents(long long units, int price_cents)
{
    return units * price_cents;
}

extern "C" __global__ void price_rows(const float *price, const float *rate, const int *stock,
                                      const long long *units, float *net, int *capped, long long *total, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        net[i] = discount(price[i], rate[i]);
        capped[i] = pricing::clamp<int>(stock[i], 0, 100);
        total[i] = cents(units[i], (int)(price[i] * 100.0f));
    }
}
