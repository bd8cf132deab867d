/* CUDA runtime helpers of the nvcc-built benchmarks (map, reduce): checked calls, the skip
 * where no GPU is visible, the device line, input data, and event timing. */
#ifndef BENCH_CUDA_CUH
#define BENCH_CUDA_CUH

#include "bench_common.h"

#include <cuda_runtime.h>

#include <functional>
#include <vector>

#define BENCH_CUDA(call) bench_check_cuda((call), #call, __FILE__, __LINE__)

static void bench_check_cuda(cudaError_t e, const char *what, const char *file, int line)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "FAILED: %s:%d: %s: %s (%s)\n", file, line, what, cudaGetErrorString(e), cudaGetErrorName(e));
        exit(1);
    }
}

/* Exits BENCH_SKIPPED without a usable GPU; else makes device 0's primary context current
 * (the one the udfkit runtime then uses too), checks that udfkit sees the same device, and
 * prints it. Returns its multiprocessor count. */
static int bench_cuda_start(const char *program)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && count == 0)) {
        printf("%s: skipped: no GPU: cudaGetDeviceCount: %s\n", program,
               e == cudaSuccess ? "0 devices" : cudaGetErrorName(e));
        fflush(stdout);
        exit(BENCH_SKIPPED);
    }
    BENCH_CUDA(e);
    BENCH_CUDA(cudaSetDevice(0));
    BENCH_CUDA(cudaFree(0));
    cudaDeviceProp p;
    BENCH_CUDA(cudaGetDeviceProperties(&p, 0));
    int driver = 0, runtime = 0;
    BENCH_CUDA(cudaDriverGetVersion(&driver));
    BENCH_CUDA(cudaRuntimeGetVersion(&runtime));
    int udfkit_sms = 0;
    bench_check_udfkit(udfkit_device_attribute(UDFKIT_DEVICE_MULTIPROCESSOR_COUNT, &udfkit_sms),
                       "udfkit_device_attribute (the udfkit runtime beside cudart)");
    if (udfkit_sms != p.multiProcessorCount) {
        fprintf(stderr, "FAILED: udfkit sees %d SMs, cudart %d: not the same device\n", udfkit_sms, p.multiProcessorCount);
        exit(1);
    }
    printf("device: %s, sm_%d%d, %d SMs, %.1f GiB, driver %d.%d, cudart %d.%d\n", p.name, p.major, p.minor,
           p.multiProcessorCount, (double)p.totalGlobalMem / (1 << 30), driver / 1000, driver % 1000 / 10,
           runtime / 1000, runtime % 1000 / 10);
    return p.multiProcessorCount;
}

/* in[i] = a hash of i mapped to [0, 1), exactly representable (24 bits). */
static __global__ void bench_fill_unit(size_t n, float *in)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned long long h = (i + 1) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 32;
        in[i] = (float)(unsigned)(h >> 40) * (1.0f / 16777216.0f);
    }
}

static void bench_fill(size_t n, float *in, int sms)
{
    bench_fill_unit<<<sms * 8, 256>>>(n, in);
    BENCH_CUDA(cudaGetLastError());
    BENCH_CUDA(cudaDeviceSynchronize());
}

/* One variant to time: `launch` queues one call on the stream and checks it. */
struct bench_variant {
    const char *name;
    std::function<void(cudaStream_t)> launch;
    std::vector<double> ms;
};

/* The L2 cache emptied of the benchmark's data before a timed call, as nvbench does (a
 * memset of a buffer of the L2's size, outside the events): otherwise a call finds in L2
 * what the call before it left there, and where the data is about the L2's size (2^24
 * 4-byte rows against the H100's 50 MiB) the order of the variants decides their times. */
static void bench_flush_l2(cudaStream_t s)
{
    static void *buffer;
    static int bytes;
    if (!buffer) {
        int device = 0;
        BENCH_CUDA(cudaGetDevice(&device));
        BENCH_CUDA(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
        if (bytes <= 0)
            return;
        BENCH_CUDA(cudaMalloc(&buffer, (size_t)bytes));
    }
    BENCH_CUDA(cudaMemsetAsync(buffer, 0, (size_t)bytes, s));
}

/* Times every variant `reps` times after `warmup` untimed calls, one call of each in turn,
 * so that clock and temperature drift touch all alike; each call between two events on the
 * stream, after an L2 flush (bench_flush_l2), waited for. Returns nothing; the times are in
 * each variant's `ms`. */
static void bench_time_interleaved(std::vector<bench_variant> &variants, cudaStream_t s, int warmup, int reps)
{
    cudaEvent_t start, stop;
    BENCH_CUDA(cudaEventCreate(&start));
    BENCH_CUDA(cudaEventCreate(&stop));
    for (bench_variant &v : variants) {
        for (int i = 0; i < warmup; i++)
            v.launch(s);
        BENCH_CUDA(cudaStreamSynchronize(s));
    }
    for (int r = 0; r < reps; r++) {
        for (bench_variant &v : variants) {
            bench_flush_l2(s);
            BENCH_CUDA(cudaEventRecord(start, s));
            v.launch(s);
            BENCH_CUDA(cudaEventRecord(stop, s));
            BENCH_CUDA(cudaEventSynchronize(stop));
            float ms = 0;
            BENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
            v.ms.push_back(ms);
        }
    }
    BENCH_CUDA(cudaEventDestroy(start));
    BENCH_CUDA(cudaEventDestroy(stop));
}

static double bench_median_ms(bench_variant &v)
{
    return bench_median(v.ms.data(), v.ms.size());
}

static const char *bench_target(double value, double target)
{
    return value >= target ? "met" : "NOT met";
}

#endif /* BENCH_CUDA_CUH */
