/* host: the host time of one launcher call, udfkit's against CUB's for the same work, at
 * 2^10 rows (so that the GPU keeps up and the time is the host's): map(affine) against
 * cub::DeviceTransform::Transform, reduce(add_f32) against cub::DeviceReduce::Sum (CUB's
 * temporary storage allocated once; udfkit's partials allocated stream-ordered in the call),
 * inclusive_scan(add_i32) against cub::DeviceScan::InclusiveScan, filter(above_half) against
 * cub::DeviceSelect::If over a counting iterator, and reduce over 2^16 rows (more than one
 * launch's worth: partials, then the final pass); reduce once more with its
 * partials in caller-owned scratch (udfkit_stream_scratch), as CUB's storage is. Per round, 100 calls
 * back to back on one stream are timed on the host's clock, then the stream is waited for
 * (untimed); median of 30 rounds, after 3 warm-up rounds.
 * usage: udfkit_bench host [rounds (30)]; exits 77 without a GPU. */
#include "bench_cuda.cuh"
#include "benchlib.h"
#include "opslib.h"
#include "scanlib.h"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/device_transform.cuh>

#include <algorithm>
#include <functional>
#include <vector>

#include <thrust/iterator/counting_iterator.h>

struct affine_functor {
    __device__ __forceinline__ float operator()(float x) const { return 2.0f * x + 1.0f; }
};
struct above_half_row {
    const float *x;
    __device__ __forceinline__ bool operator()(const unsigned long long &i) const { return x[i] > 0.5f; }
};
struct add_int_functor {
    __device__ __forceinline__ int operator()(const int &a, const int &b) const
    {
        return (int)((unsigned)a + (unsigned)b);
    }
};

/* Host microseconds per call: the median over rounds of 100 calls. */
static double host_us(cudaStream_t s, int rounds, const std::function<void()> &call)
{
    std::vector<double> per_call;
    for (int r = -3; r < rounds; r++) {
        const double start = bench_now_ms();
        for (int i = 0; i < 100; i++)
            call();
        const double ms = bench_now_ms() - start;
        BENCH_CUDA(cudaStreamSynchronize(s));
        if (r >= 0)
            per_call.push_back(ms * 1e3 / 100);
    }
    std::sort(per_call.begin(), per_call.end());
    return per_call[per_call.size() / 2];
}

int bench_host_main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 30;
    if (rounds < 1) {
        fprintf(stderr, "usage: udfkit_bench host [rounds]\n");
        return 2;
    }
    bench_cuda_start("host");
    bench_check_udfkit(benchlib_load(), "benchlib_load");
    bench_check_udfkit(scanlib_load(), "scanlib_load");
    bench_check_udfkit(opslib_load(), "opslib_load");
    const size_t n = 1024, big = (size_t)1 << 16;
    float *fin, *fout;
    int *iin, *iout;
    unsigned long long *rows_out;
    BENCH_CUDA(cudaMalloc(&fin, big * sizeof(float)));
    BENCH_CUDA(cudaMalloc(&fout, n * sizeof(float)));
    BENCH_CUDA(cudaMalloc(&rows_out, (n + 1) * sizeof(unsigned long long)));
    BENCH_CUDA(cudaMalloc(&iin, n * sizeof(int)));
    BENCH_CUDA(cudaMalloc(&iout, n * sizeof(int)));
    BENCH_CUDA(cudaMemset(fin, 0, big * sizeof(float)));
    BENCH_CUDA(cudaMemset(iin, 0, n * sizeof(int)));
    cudaStream_t s;
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    size_t reduce_bytes = 0, scan_bytes = 0, select_bytes = 0;
    BENCH_CUDA(cub::DeviceReduce::Sum(NULL, reduce_bytes, fin, fout, (long long)big, s));
    thrust::counting_iterator<unsigned long long> row_numbers(0);
    BENCH_CUDA(cub::DeviceSelect::If(NULL, select_bytes, row_numbers, rows_out, rows_out + n, (long long)n, above_half_row{fin}, s));
    BENCH_CUDA(cub::DeviceScan::InclusiveScan(NULL, scan_bytes, iin, iout, add_int_functor(), (long long)n, s));
    void *temp;
    BENCH_CUDA(cudaMalloc(&temp, std::max(std::max(reduce_bytes, scan_bytes), select_bytes) + 1));
    const udfkit_stream us = (udfkit_stream)s;
    struct row {
        const char *what;
        double udfkit, cub;
    } rows[] = {
        {"map", host_us(s, rounds, [&] { bench_check_udfkit(benchlib_map_affine(us, n, fin, fout), "map"); }),
         host_us(s, rounds, [&] { BENCH_CUDA(cub::DeviceTransform::Transform(fin, fout, (long long)n, affine_functor(), s)); })},
        {"reduce", host_us(s, rounds, [&] { bench_check_udfkit(benchlib_reduce_add_f32(us, n, fin, 0.0f, fout), "reduce"); }),
         host_us(s, rounds, [&] { BENCH_CUDA(cub::DeviceReduce::Sum(temp, reduce_bytes, fin, fout, (long long)n, s)); })},
        {"reduce_65536_rows",
         host_us(s, rounds, [&] { bench_check_udfkit(benchlib_reduce_add_f32(us, big, fin, 0.0f, fout), "reduce"); }),
         host_us(s, rounds, [&] { BENCH_CUDA(cub::DeviceReduce::Sum(temp, reduce_bytes, fin, fout, (long long)big, s)); })},
        {"filter",
         host_us(s, rounds,
                 [&] {
                     bench_check_udfkit(
                         opslib_filter_above_half(us, n, fin, (uint64_t *)rows_out, (uint64_t *)(rows_out + n)),
                         "filter");
                 }),
         host_us(s, rounds, [&] {
             BENCH_CUDA(cub::DeviceSelect::If(temp, select_bytes, row_numbers, rows_out, rows_out + n, (long long)n,
                                              above_half_row{fin}, s));
         })},
        {"inclusive_scan",
         host_us(s, rounds, [&] { bench_check_udfkit(scanlib_inclusive_scan_add_i32(us, n, iin, iout), "scan"); }),
         host_us(s, rounds, [&] {
             BENCH_CUDA(cub::DeviceScan::InclusiveScan(temp, scan_bytes, iin, iout, add_int_functor(), (long long)n, s));
         })},
    };
    /* reduce again with caller-owned scratch (udfkit_stream_scratch), as CUB's storage is. */
    void *scratch;
    BENCH_CUDA(cudaMalloc(&scratch, 1 << 20));
    bench_check_udfkit(udfkit_stream_scratch(us, scratch, 1 << 20), "udfkit_stream_scratch");
    const double scratch_us =
        host_us(s, rounds, [&] { bench_check_udfkit(benchlib_reduce_add_f32(us, n, fin, 0.0f, fout), "reduce"); });
    bench_check_udfkit(udfkit_stream_scratch(us, NULL, 0), "udfkit_stream_scratch");
    printf("host_rounds: %d of 100 calls each (median), %zu rows a call\n", rounds, n);
    printf("host_time_reduce_with_scratch: udfkit %.2f us, CUB %.2f us a call: %.3f ratio (CUB / udfkit; target >= 1: "
           "%s)\n",
           scratch_us, rows[1].cub, rows[1].cub / scratch_us, bench_target(rows[1].cub / scratch_us, 1.0));
    for (const row &r : rows)
        printf("host_time_%s: udfkit %.2f us, CUB %.2f us a call: %.3f ratio (CUB / udfkit; target >= 1: %s)\n", r.what,
               r.udfkit, r.cub, r.cub / r.udfkit, bench_target(r.cub / r.udfkit, 1.0));
    BENCH_CUDA(cudaStreamDestroy(s));
    void *all[] = {fin, fout, iin, iout, temp, scratch, rows_out};
    for (void *p : all)
        BENCH_CUDA(cudaFree(p));
    benchlib_unload();
    scanlib_unload();
    opslib_unload();
    return 0;
}
