// A kernel of the library's own SOURCES, launched by name through the library's handle.
extern "C" __global__ void fill_triple(int *out, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = (int)(3 * i);
}

// Defined without extern "C": its symbol is the C++ name (_Z11fill_doublePiy), which a
// lookup by the plain name must point out.
__global__ void fill_double(int *out, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = (int)(2 * i);
}

// Keeps its stream busy until *release is set (by the host) or `timeout_ns` nanoseconds of the
// GPU's global timer have passed: work that is surely still queued when the host goes on.
extern "C" __global__ void spin_until(const volatile int *release, unsigned long long timeout_ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (!*release && now - start < timeout_ns);
}
