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

// Keeps its stream busy for about `ns` nanoseconds (the GPU's global timer): work that is
// still queued when the host goes on.
extern "C" __global__ void spin_ns(unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}
