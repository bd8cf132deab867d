/* nullable: the nullable templates and UDF errors over 2^28 floats in [0, 1) (1 GiB).
 * - nullable_map(affine) with 10% nulls (Arrow bitmap, offset 0), as a fraction of a
 *   device-to-device cudaMemcpy's bandwidth; bytes counted: values and bitmaps read and written.
 * - nullable_map(affine) with no nulls (all-valid bitmap, and no bitmap) against map(affine).
 * - nullable_filter(above_half) (x > 0.5: half the rows, minus the nulls) against
 *   cub::DeviceSelect::If over a counting iterator with the same predicate and validity test,
 *   writing the same output (ascending uint64 row numbers and their count; CUB's temporary
 *   storage allocated once, outside the timing).
 * - map(affine_checked) (affine with a udfkit_row_error call no row reaches) against
 *   map(affine): what error recording costs when no row fails.
 * Median of interleaved calls timed with CUDA events on one stream; results checked (the 10%
 * and no-bitmap nullable_maps, the filter).
 * usage: udfkit_bench nullable [log2 elements (28)] [repetitions (30)]; exits 77 without a GPU. */
#include "bench_cuda.cuh"
#include "nulllib.h"

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <vector>

/* Row i is valid (10% nulls) where a hash of i says so; bit i of bits. */
static __global__ void fill_bits(size_t n, unsigned char *bits, int null_percent)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x, bytes = (n + 7) / 8;
    for (size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x; b < bytes; b += stride) {
        unsigned byte = 0;
        for (int k = 0; k < 8; k++) {
            unsigned long long h = (b * 8 + k + 1) * 0xd6e8feb86659fd93ull;
            h ^= h >> 32;
            byte |= (unsigned)((h % 100) >= (unsigned long long)null_percent) << k;
        }
        bits[b] = (unsigned char)byte;
    }
}

struct keep_valid_above_half {
    const float *x;
    const unsigned char *bits;
    __device__ bool operator()(unsigned long long i) const
    {
        return ((bits[i >> 3] >> (i & 7)) & 1u) && x[i] > 0.5f;
    }
};

static bool valid_at(const std::vector<unsigned char> &bits, size_t i)
{
    return (bits[i / 8] >> (i % 8)) & 1u;
}

int bench_nullable_main(int argc, char **argv)
{
    const int log2n = argc > 1 ? atoi(argv[1]) : 28, reps = argc > 2 ? atoi(argv[2]) : 30, warmup = 5;
    if (log2n < 10 || log2n > 30 || reps < 1) {
        fprintf(stderr, "usage: udfkit_bench nullable [log2 elements, 10..30] [repetitions]\n");
        return 2;
    }
    const int sms = bench_cuda_start("nullable");
    const size_t n = (size_t)1 << log2n, bytes = n * sizeof(float), nbytes = (n + 7) / 8;
    bench_check_udfkit(nulllib_load(), "nulllib_load");
    float *in, *out;
    unsigned char *bits10, *bits_all, *out_bits;
    unsigned long long *indices, *count, *null_count, *cub_indices, *cub_count;
    BENCH_CUDA(cudaMalloc(&in, bytes));
    BENCH_CUDA(cudaMalloc(&out, bytes));
    BENCH_CUDA(cudaMalloc(&bits10, nbytes));
    BENCH_CUDA(cudaMalloc(&bits_all, nbytes));
    BENCH_CUDA(cudaMalloc(&out_bits, nbytes));
    BENCH_CUDA(cudaMalloc(&indices, n * 8));
    BENCH_CUDA(cudaMalloc(&cub_indices, n * 8));
    BENCH_CUDA(cudaMalloc(&count, 8));
    BENCH_CUDA(cudaMalloc(&cub_count, 8));
    BENCH_CUDA(cudaMalloc(&null_count, 8));
    bench_fill(n, in, sms);
    fill_bits<<<sms * 8, 256>>>(n, bits10, 10);
    BENCH_CUDA(cudaMemset(bits_all, 0xff, nbytes));
    BENCH_CUDA(cudaDeviceSynchronize());
    cudaStream_t s;
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    keep_valid_above_half pred = {in, bits10};
    thrust::counting_iterator<unsigned long long> rows(0);
    size_t temp_bytes = 0;
    BENCH_CUDA(cub::DeviceSelect::If(nullptr, temp_bytes, rows, cub_indices, cub_count, (long long)n, pred, s));
    void *temp = nullptr;
    BENCH_CUDA(cudaMalloc(&temp, temp_bytes));

    const udfkit_mask m10 = {bits10, 0}, mall = {bits_all, 0}, mnone = {NULL, 0};
    udfkit_stream us;
    std::vector<bench_variant> v;
    v.push_back({"nullable_map(affine) 10% nulls", [&](cudaStream_t st) {
                     us = (udfkit_stream)st;
                     bench_check_udfkit(nulllib_nullable_map_affine(us, n, in, m10, out, out_bits, (uint64_t *)null_count), "nm");
                 }});
    v.push_back({"nullable_map(affine) all valid", [&](cudaStream_t st) {
                     us = (udfkit_stream)st;
                     bench_check_udfkit(nulllib_nullable_map_affine(us, n, in, mall, out, out_bits, (uint64_t *)null_count), "nm");
                 }});
    v.push_back({"nullable_map(affine) no bitmap", [&](cudaStream_t st) {
                     us = (udfkit_stream)st;
                     bench_check_udfkit(nulllib_nullable_map_affine(us, n, in, mnone, out, out_bits, (uint64_t *)null_count), "nm");
                 }});
    v.push_back({"map(affine)", [&](cudaStream_t st) {
                     bench_check_udfkit(nulllib_map_affine((udfkit_stream)st, n, in, out), "map");
                 }});
    v.push_back({"map(affine_checked)", [&](cudaStream_t st) {
                     bench_check_udfkit(nulllib_map_affine_checked((udfkit_stream)st, n, in, out), "map checked");
                 }});
    v.push_back({"nullable_filter(above_half) 10% nulls", [&](cudaStream_t st) {
                     bench_check_udfkit(nulllib_nullable_filter_above_half((udfkit_stream)st, n, in, m10,
                                                                           (uint64_t *)indices, (uint64_t *)count),
                                        "nf");
                 }});
    v.push_back({"cub::DeviceSelect::If", [&](cudaStream_t st) {
                     BENCH_CUDA(cub::DeviceSelect::If(temp, temp_bytes, rows, cub_indices, cub_count, (long long)n,
                                                      pred, st));
                 }});
    v.push_back({"cudaMemcpy device to device", [&](cudaStream_t st) {
                     BENCH_CUDA(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, st));
                 }});
    bench_time_interleaved(v, s, warmup, reps);

    /* Checks: the 10% run's values, bitmap and null count; the filter against CUB's rows. */
    std::vector<float> h_in(n), h_out(n);
    std::vector<unsigned char> h_bits(nbytes), h_out_bits(nbytes);
    unsigned long long nulls = 0, want_nulls = 0, got_count = 0, cub_got = 0;
    /* Each checked run writes into results cleared first on s, in its order: a cudaMemset on
     * the legacy stream does not wait for the kernels of the non-blocking s (nor they for it),
     * and could clear rows a kernel had written, or leave the timed runs' values to be
     * checked. The reads wait for s. */
    BENCH_CUDA(cudaStreamSynchronize(s));
    BENCH_CUDA(cudaMemsetAsync(out, 0, bytes, s));
    BENCH_CUDA(cudaMemsetAsync(out_bits, 0, nbytes, s));
    BENCH_CUDA(cudaMemsetAsync(null_count, 0xff, 8, s));
    v[0].launch(s);
    BENCH_CUDA(cudaStreamSynchronize(s));
    bench_check_udfkit(nulllib_udf_error((udfkit_stream)s, NULL, NULL), "nulllib_udf_error");
    BENCH_CUDA(cudaMemcpy(h_in.data(), in, bytes, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(h_out.data(), out, bytes, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(h_bits.data(), bits10, nbytes, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(h_out_bits.data(), out_bits, nbytes, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(&nulls, null_count, 8, cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) {
        want_nulls += !valid_at(h_bits, i);
        wrong += valid_at(h_bits, i) != valid_at(h_out_bits, i) || (valid_at(h_bits, i) && h_out[i] != 2.0f * h_in[i] + 1.0f);
    }
    if (wrong || nulls != want_nulls) {
        fprintf(stderr, "FAILED: nullable_map: %zu rows wrong, null count %llu (want %llu)\n", wrong, nulls, want_nulls);
        exit(1);
    }
    /* The run without bitmaps (the launcher's dense kernel): every row valid, no nulls. */
    BENCH_CUDA(cudaMemsetAsync(out, 0, bytes, s));
    BENCH_CUDA(cudaMemsetAsync(out_bits, 0, nbytes, s));
    BENCH_CUDA(cudaMemsetAsync(null_count, 0xff, 8, s));
    v[2].launch(s);
    BENCH_CUDA(cudaStreamSynchronize(s));
    BENCH_CUDA(cudaMemcpy(h_out.data(), out, bytes, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(h_out_bits.data(), out_bits, nbytes, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(&nulls, null_count, 8, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        wrong += !valid_at(h_out_bits, i) || h_out[i] != 2.0f * h_in[i] + 1.0f;
    if (wrong || nulls != 0) {
        fprintf(stderr, "FAILED: nullable_map without bitmaps: %zu rows wrong, null count %llu (want 0)\n", wrong,
                nulls);
        exit(1);
    }
    BENCH_CUDA(cudaMemsetAsync(count, 0xff, 8, s));
    BENCH_CUDA(cudaMemsetAsync(cub_count, 0xff, 8, s));
    v[5].launch(s);
    v[6].launch(s);
    BENCH_CUDA(cudaStreamSynchronize(s));
    BENCH_CUDA(cudaMemcpy(&got_count, count, 8, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(&cub_got, cub_count, 8, cudaMemcpyDeviceToHost));
    std::vector<unsigned long long> a(got_count), b(cub_got);
    BENCH_CUDA(cudaMemcpy(a.data(), indices, got_count * 8, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(b.data(), cub_indices, cub_got * 8, cudaMemcpyDeviceToHost));
    if (a != b) {
        fprintf(stderr, "FAILED: nullable_filter kept %llu rows, CUB %llu, or other rows\n", got_count, cub_got);
        exit(1);
    }

    const double copy_ms = bench_median_ms(v[7]), copy_gbs = 2.0 * (double)bytes / copy_ms * 1e-6;
    const double nm_moved = 2.0 * (double)bytes + 2.0 * (double)nbytes;
    const double nm_gbs = nm_moved / bench_median_ms(v[0]) * 1e-6;
    printf("nullable_elements: %zu floats, 10%% nulls: %llu null rows; filter keeps %llu\n", n, want_nulls, cub_got);
    printf("nullable_repetitions: %d (after %d warm-up calls each; median; interleaved)\n", reps, warmup);
    for (auto &x : v)
        printf("time %-42s %.4f ms\n", x.name, bench_median_ms(x));
    printf("memcpy_d2d_bandwidth: %.1f GB/s\n", copy_gbs);
    printf("nullable_map_10pct_throughput: %.1f GB/s (values and bitmaps, read and written)\n", nm_gbs);
    printf("nullable_map_10pct_fraction_of_memcpy: %.3f ratio (target >= 0.85: %s)\n", nm_gbs / copy_gbs,
           bench_target(nm_gbs / copy_gbs, 0.85));
    const double map_ms = bench_median_ms(v[3]);
    printf("nullable_map_all_valid_vs_map: %.3f ratio of throughput (target >= 0.97: %s)\n",
           map_ms / bench_median_ms(v[1]), bench_target(map_ms / bench_median_ms(v[1]), 0.97));
    printf("nullable_map_no_bitmap_vs_map: %.3f ratio of throughput (target >= 0.97: %s)\n",
           map_ms / bench_median_ms(v[2]), bench_target(map_ms / bench_median_ms(v[2]), 0.97));
    printf("nullable_filter_vs_cub_select_if: %.3f ratio of throughput (target >= 0.90: %s)\n",
           bench_median_ms(v[6]) / bench_median_ms(v[5]), bench_target(bench_median_ms(v[6]) / bench_median_ms(v[5]), 0.90));
    printf("map_error_check_vs_map: %.3f ratio of throughput (target >= 0.98: %s)\n", map_ms / bench_median_ms(v[4]),
           bench_target(map_ms / bench_median_ms(v[4]), 0.98));

    BENCH_CUDA(cudaStreamDestroy(s));
    void *ptrs[] = {in, out, bits10, bits_all, out_bits, indices, cub_indices, count, cub_count, null_count, temp};
    for (void *p : ptrs)
        BENCH_CUDA(cudaFree(p));
    nulllib_unload();
    return 0;
}
