/* reduce: the sum of 2^28 floats in [0, 1). udfkit's reduce(add_f32) launcher (two passes;
 * its partials allocated stream-ordered in every call, as the launcher does) against
 * cub::DeviceReduce::Sum with its temporary storage allocated once, outside the timing.
 * Both results are checked against each other and against a double-precision sum on the
 * host (relative 1e-3). usage: udfkit_bench reduce [log2 elements (28)] [repetitions (50)];
 * exits 77 without a GPU. */
#include "bench_cuda.cuh"
#include "benchlib.h"

#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <vector>

static int agree(const char *what, double got, double want)
{
    const double rel = std::fabs(got - want) / std::fabs(want);
    printf("%s_relative_difference: %.3g ratio\n", what, rel);
    if (!(rel <= 1e-3)) {
        fprintf(stderr, "FAILED: %s: %.9g against %.9g, relative difference %.3g > 1e-3\n", what, got, want, rel);
        return 0;
    }
    return 1;
}

int bench_reduce_main(int argc, char **argv)
{
    const int log2n = argc > 1 ? atoi(argv[1]) : 28, reps = argc > 2 ? atoi(argv[2]) : 50, warmup = 5;
    if (log2n < 10 || log2n > 30 || reps < 1) {
        fprintf(stderr, "usage: udfkit_bench reduce [log2 elements, 10..30] [repetitions]\n");
        return 2;
    }
    const int sms = bench_cuda_start("reduce");
    const size_t n = (size_t)1 << log2n, bytes = n * sizeof(float);
    bench_check_udfkit(benchlib_load(), "benchlib_load");

    float *in, *sums;
    BENCH_CUDA(cudaMalloc(&in, bytes));
    BENCH_CUDA(cudaMalloc(&sums, 2 * sizeof(float)));
    bench_fill(n, in, sms);
    cudaStream_t s;
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void *temp = NULL;
    size_t temp_bytes = 0;
    BENCH_CUDA(cub::DeviceReduce::Sum(temp, temp_bytes, in, sums + 1, (long long)n, s));
    BENCH_CUDA(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));

    std::vector<bench_variant> v;
    v.push_back({"udfkit reduce(add_f32)", [&](cudaStream_t st) {
                     bench_check_udfkit(benchlib_reduce_add_f32((udfkit_stream)st, n, in, 0.0f, sums),
                                        "benchlib_reduce_add_f32");
                 }});
    v.push_back({"cub::DeviceReduce::Sum", [&](cudaStream_t st) {
                     BENCH_CUDA(cub::DeviceReduce::Sum(temp, temp_bytes, in, sums + 1, (long long)n, st));
                 }});
    const float stale[2] = {-1.0f, -1.0f};
    BENCH_CUDA(cudaMemcpy(sums, stale, sizeof stale, cudaMemcpyHostToDevice));
    bench_time_interleaved(v, s, warmup, reps);

    float got[2];
    BENCH_CUDA(cudaMemcpy(got, sums, sizeof got, cudaMemcpyDeviceToHost));
    std::vector<float> host(n);
    BENCH_CUDA(cudaMemcpy(host.data(), in, bytes, cudaMemcpyDeviceToHost));
    double want = 0;
    for (size_t i = 0; i < n; i++)
        want += host[i];

    const double udfkit_ms = bench_median_ms(v[0]), cub_ms = bench_median_ms(v[1]);
    printf("reduce_elements: %zu floats\n", n);
    printf("reduce_repetitions: %d (after %d warm-up calls each; median; interleaved)\n", reps, warmup);
    printf("cub_temp_storage: %zu bytes\n", temp_bytes);
    printf("udfkit_reduce_sum: %.9g\n", (double)got[0]);
    printf("cub_reduce_sum: %.9g\n", (double)got[1]);
    printf("host_double_sum: %.9g\n", want);
    int ok = agree("udfkit_vs_cub", got[0], got[1]);
    ok &= agree("udfkit_vs_host", got[0], want);
    ok &= agree("cub_vs_host", got[1], want);
    printf("udfkit_reduce_time: %.4f ms\n", udfkit_ms);
    printf("cub_reduce_time: %.4f ms\n", cub_ms);
    printf("udfkit_reduce_throughput: %.1f GB/s\n", (double)bytes / udfkit_ms * 1e-6);
    printf("cub_reduce_throughput: %.1f GB/s\n", (double)bytes / cub_ms * 1e-6);
    printf("udfkit_reduce_vs_cub: %.3f ratio (udfkit throughput / CUB throughput; target >= 0.9: %s)\n",
           cub_ms / udfkit_ms, bench_target(cub_ms / udfkit_ms, 0.9));

    BENCH_CUDA(cudaStreamDestroy(s));
    BENCH_CUDA(cudaFree(temp));
    BENCH_CUDA(cudaFree(in));
    BENCH_CUDA(cudaFree(sums));
    benchlib_unload();
    return ok ? 0 : 1;
}
