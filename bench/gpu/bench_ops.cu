/* ops: the first operators against CUB at 2^20, 2^24 and 2^LOG2 rows, CUB's temporary
 * storage allocated once outside the timing, udfkit's stream-ordered in every call (as its
 * launchers do), a device-to-device copy of the input as the limit:
 * - filter(above_half) and filter(above_99) (x > 0.5: half the rows of uniform [0, 1)
 *   floats; x > 0.99: 1%) against cub::DeviceSelect::If over a counting iterator of row
 *   numbers with the same predicate (the same output: ascending uint64 rows and their count);
 *   filter(above_half, indices32) against the same over 32-bit row numbers; filter(above_half,
 *   values) against cub::DeviceSelect::If over the values;
 * - map(add_f32) over two float columns against cub::DeviceTransform::Transform;
 * - reduce(add_i32 / add_i64 / add_f64) against cub::DeviceReduce::Sum.
 * Every result is checked against CUB's (filters and integer sums exactly; the float64 sum
 * of integer values, exact in any order).
 * usage: udfkit_bench ops [log2 elements (28)] [repetitions (50)]; exits 77 without a GPU. */
#include "bench_cuda.cuh"
#include "opslib.h"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/device_transform.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <cstring>
#include <vector>

/* The predicate as CUB's side writes it: by row number, reading the column, or by value. */
template <typename R>
struct above_row {
    const float *x;
    float t;
    __device__ __forceinline__ bool operator()(const R &i) const { return x[i] > t; }
};
struct above_value {
    float t;
    __device__ __forceinline__ bool operator()(const float &v) const { return v > t; }
};
struct add_f32_functor {
    __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};

static __global__ void fill_uniform(size_t n, float *x)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (float)((unsigned)(i * 2654435761u) >> 8) * (1.0f / 16777216.0f);
}

template <typename T>
static __global__ void fill_ints(size_t n, T *out)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = (T)(int)((i * 2654435761u >> 7) % 201) - (T)100;
}

static void report(const char *what, size_t n, double udfkit_ms, double cub_ms, double copy_ms)
{
    printf("%s_n%zu: udfkit %.4f ms, CUB %.4f ms, copy %.4f ms\n", what, n, udfkit_ms, cub_ms, copy_ms);
    printf("%s_n%zu_vs_cub: %.3f ratio of throughput (target >= 0.95: %s)\n", what, n, cub_ms / udfkit_ms,
           bench_target(cub_ms / udfkit_ms, 0.95));
}

static int bench_filters(size_t n, int reps, int sms, cudaStream_t s)
{
    float *x, *vals_u, *vals_c;
    unsigned long long *idx_u, *idx_c, *counts;
    BENCH_CUDA(cudaMalloc(&x, n * sizeof(float)));
    BENCH_CUDA(cudaMalloc(&vals_u, n * sizeof(float)));
    BENCH_CUDA(cudaMalloc(&vals_c, n * sizeof(float)));
    BENCH_CUDA(cudaMalloc(&idx_u, n * sizeof(unsigned long long)));
    BENCH_CUDA(cudaMalloc(&idx_c, n * sizeof(unsigned long long)));
    BENCH_CUDA(cudaMalloc(&counts, 2 * sizeof(unsigned long long)));
    fill_uniform<<<sms * 8, 256>>>(n, x);
    BENCH_CUDA(cudaDeviceSynchronize());
    thrust::counting_iterator<unsigned long long> rows(0);
    thrust::counting_iterator<unsigned> rows32(0);
    unsigned *idx32_u = (unsigned *)idx_u, *idx32_c = (unsigned *)idx_c;
    const above_row<unsigned long long> half{x, 0.5f}, one{x, 0.99f};
    const above_row<unsigned> half32{x, 0.5f};
    size_t b1 = 0, b2 = 0, b3 = 0, temp_bytes;
    BENCH_CUDA(cub::DeviceSelect::If(nullptr, b1, rows, idx_c, counts + 1, (long long)n, half, s));
    BENCH_CUDA(cub::DeviceSelect::If(nullptr, b2, rows32, idx32_c, counts + 1, (long long)n, half32, s));
    BENCH_CUDA(cub::DeviceSelect::If(nullptr, b3, x, vals_c, counts + 1, (long long)n, above_value{0.5f}, s));
    temp_bytes = std::max(b1, std::max(b2, b3));
    void *temp, *scratch;
    const size_t scratch_bytes = 16 << 20;
    BENCH_CUDA(cudaMalloc(&temp, temp_bytes));
    BENCH_CUDA(cudaMalloc(&scratch, scratch_bytes));
    const udfkit_stream us = (udfkit_stream)s;
    uint64_t *cu = (uint64_t *)counts;
    struct filter_case {
        const char *what;
        std::function<void(cudaStream_t)> u, c;
        size_t item;
    } cases[] = {
        {"filter_half",
         [&](cudaStream_t st) { bench_check_udfkit(opslib_filter_above_half((udfkit_stream)st, n, x, (uint64_t *)idx_u, cu), "filter"); },
         [&](cudaStream_t st) { BENCH_CUDA(cub::DeviceSelect::If(temp, temp_bytes, rows, idx_c, counts + 1, (long long)n, half, st)); },
         8},
        {"filter_1pct",
         [&](cudaStream_t st) { bench_check_udfkit(opslib_filter_above_99((udfkit_stream)st, n, x, (uint64_t *)idx_u, cu), "filter"); },
         [&](cudaStream_t st) { BENCH_CUDA(cub::DeviceSelect::If(temp, temp_bytes, rows, idx_c, counts + 1, (long long)n, one, st)); },
         8},
        {"filter_half_indices32",
         [&](cudaStream_t st) {
             bench_check_udfkit(opslib_filter_above_half_indices32((udfkit_stream)st, n, x, idx32_u, cu), "filter");
         },
         [&](cudaStream_t st) { BENCH_CUDA(cub::DeviceSelect::If(temp, temp_bytes, rows32, idx32_c, counts + 1, (long long)n, half32, st)); },
         4},
        {"filter_half_values",
         [&](cudaStream_t st) { bench_check_udfkit(opslib_filter_above_half_values((udfkit_stream)st, n, x, vals_u, cu), "filter"); },
         [&](cudaStream_t st) {
             BENCH_CUDA(cub::DeviceSelect::If(temp, temp_bytes, x, vals_c, counts + 1, (long long)n, above_value{0.5f}, st));
         },
         0},
    };
    int ok = 1;
    for (filter_case &fc : cases) {
        std::vector<bench_variant> v;
        v.push_back({"udfkit", fc.u});
        v.push_back({"cub", fc.c});
        v.push_back({"copy", [&](cudaStream_t st) {
                         BENCH_CUDA(cudaMemcpyAsync(vals_c, x, n * sizeof(float), cudaMemcpyDeviceToDevice, st));
                     }});
        /* udfkit again with its tile state in memory given to the stream once, as CUB's is. */
        v.push_back({"udfkit, scratch", [&](cudaStream_t st) {
                         bench_check_udfkit(udfkit_stream_scratch((udfkit_stream)st, scratch, scratch_bytes), "scratch");
                         fc.u(st);
                         bench_check_udfkit(udfkit_stream_scratch((udfkit_stream)st, NULL, 0), "scratch");
                     }});
        bench_time_interleaved(v, s, 5, reps);
        /* Checked: both again, then count and output compared. */
        fc.u(s);
        fc.c(s);
        BENCH_CUDA(cudaStreamSynchronize(s));
        unsigned long long c[2];
        BENCH_CUDA(cudaMemcpy(c, counts, sizeof c, cudaMemcpyDeviceToHost));
        const size_t bytes = c[1] * (fc.item ? fc.item : sizeof(float));
        std::vector<char> a(bytes + 1), b(bytes + 1);
        BENCH_CUDA(cudaMemcpy(a.data(), fc.item ? (void *)idx_u : (void *)vals_u, bytes, cudaMemcpyDeviceToHost));
        BENCH_CUDA(cudaMemcpy(b.data(), fc.item ? (void *)idx_c : (void *)vals_c, bytes, cudaMemcpyDeviceToHost));
        if (c[0] != c[1] || memcmp(a.data(), b.data(), bytes) != 0) {
            fprintf(stderr, "FAILED: %s of %zu rows: %llu rows against CUB's %llu, or other rows\n", fc.what, n, c[0], c[1]);
            ok = 0;
        }
        report(fc.what, n, bench_median_ms(v[0]), bench_median_ms(v[1]), bench_median_ms(v[2]));
        printf("%s_n%zu_scratch: udfkit %.4f ms with udfkit_stream_scratch: %.3f of CUB's throughput\n", fc.what, n,
               bench_median_ms(v[3]), bench_median_ms(v[1]) / bench_median_ms(v[3]));
        printf("%s_n%zu_kept: %llu rows\n", fc.what, n, c[1]);
    }
    void *all[] = {x, vals_u, vals_c, idx_u, idx_c, counts, temp, scratch};
    for (void *p : all)
        BENCH_CUDA(cudaFree(p));
    return ok;
}

static int bench_map2(size_t n, int reps, int sms, cudaStream_t s)
{
    float *a, *b, *out_u, *out_c;
    BENCH_CUDA(cudaMalloc(&a, n * sizeof(float)));
    BENCH_CUDA(cudaMalloc(&b, n * sizeof(float)));
    BENCH_CUDA(cudaMalloc(&out_u, n * sizeof(float)));
    BENCH_CUDA(cudaMalloc(&out_c, n * sizeof(float)));
    fill_uniform<<<sms * 8, 256>>>(n, a);
    fill_ints<<<sms * 8, 256>>>(n, b);
    BENCH_CUDA(cudaDeviceSynchronize());
    std::vector<bench_variant> v;
    v.push_back({"udfkit", [&](cudaStream_t st) {
                     bench_check_udfkit(opslib_map_add_f32((udfkit_stream)st, n, a, b, out_u), "map");
                 }});
    v.push_back({"cub", [&](cudaStream_t st) {
                     BENCH_CUDA(cub::DeviceTransform::Transform(::cuda::std::make_tuple(a, b), out_c, (long long)n,
                                                                add_f32_functor(), st));
                 }});
    /* A copy of one column: 2n floats moved, the map 3n. */
    v.push_back({"copy", [&](cudaStream_t st) {
                     BENCH_CUDA(cudaMemcpyAsync(out_c, a, n * sizeof(float), cudaMemcpyDeviceToDevice, st));
                 }});
    bench_time_interleaved(v, s, 5, reps);
    std::vector<float> x(n), y(n);
    BENCH_CUDA(cudaMemcpy(x.data(), out_u, n * sizeof(float), cudaMemcpyDeviceToHost));
    BENCH_CUDA(cub::DeviceTransform::Transform(::cuda::std::make_tuple(a, b), out_c, (long long)n, add_f32_functor(), s));
    BENCH_CUDA(cudaStreamSynchronize(s));
    BENCH_CUDA(cudaMemcpy(y.data(), out_c, n * sizeof(float), cudaMemcpyDeviceToHost));
    int ok = memcmp(x.data(), y.data(), n * sizeof(float)) == 0;
    if (!ok)
        fprintf(stderr, "FAILED: map(add_f32) of %zu rows differs from CUB's\n", n);
    const double u = bench_median_ms(v[0]), c = bench_median_ms(v[1]), copy = bench_median_ms(v[2]);
    report("map_add_f32", n, u, c, copy);
    printf("map_add_f32_n%zu_bandwidth: udfkit %.1f GB/s, CUB %.1f GB/s, copy %.1f GB/s: udfkit %.3f of the copy's, "
           "CUB %.3f\n",
           n, 12.0 * n / u * 1e-6, 12.0 * n / c * 1e-6, 8.0 * n / copy * 1e-6, 1.5 * copy / u, 1.5 * copy / c);
    void *all[] = {a, b, out_u, out_c};
    for (void *p : all)
        BENCH_CUDA(cudaFree(p));
    return ok;
}

template <typename T, typename Launcher>
static int bench_sum(const char *what, size_t n, int reps, int sms, cudaStream_t s, Launcher udfkit_reduce)
{
    T *in, *out, *half;
    BENCH_CUDA(cudaMalloc(&in, n * sizeof(T)));
    BENCH_CUDA(cudaMalloc(&half, n / 2 * sizeof(T)));
    BENCH_CUDA(cudaMalloc(&out, 2 * sizeof(T)));
    fill_ints<<<sms * 8, 256>>>(n, in);
    BENCH_CUDA(cudaDeviceSynchronize());
    size_t temp_bytes = 0;
    BENCH_CUDA(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, out + 1, (long long)n, s));
    void *temp, *scratch;
    const size_t scratch_bytes = 1 << 20;
    BENCH_CUDA(cudaMalloc(&temp, temp_bytes));
    BENCH_CUDA(cudaMalloc(&scratch, scratch_bytes));
    std::vector<bench_variant> v;
    v.push_back({"udfkit", [&](cudaStream_t st) { bench_check_udfkit(udfkit_reduce((udfkit_stream)st, n, in, T(0), out), "reduce"); }});
    v.push_back({"cub", [&](cudaStream_t st) {
                     BENCH_CUDA(cub::DeviceReduce::Sum(temp, temp_bytes, in, out + 1, (long long)n, st));
                 }});
    v.push_back({"copy", [&](cudaStream_t st) {
                     BENCH_CUDA(cudaMemcpyAsync(half, in, n / 2 * sizeof(T), cudaMemcpyDeviceToDevice, st));
                 }});
    /* udfkit again with its partials in memory given to the stream once (udfkit_stream_scratch),
     * as CUB's storage is. */
    v.push_back({"udfkit, scratch", [&](cudaStream_t st) {
                     bench_check_udfkit(udfkit_stream_scratch((udfkit_stream)st, scratch, scratch_bytes), "scratch");
                     bench_check_udfkit(udfkit_reduce((udfkit_stream)st, n, in, T(0), out), "reduce");
                     bench_check_udfkit(udfkit_stream_scratch((udfkit_stream)st, NULL, 0), "scratch");
                 }});
    /* The copy moves n / 2 rows each way: as many bytes as the reduce reads. */
    bench_time_interleaved(v, s, 5, reps);
    bench_check_udfkit(udfkit_reduce((udfkit_stream)s, n, in, T(0), out), "reduce");
    BENCH_CUDA(cub::DeviceReduce::Sum(temp, temp_bytes, in, out + 1, (long long)n, s));
    BENCH_CUDA(cudaStreamSynchronize(s));
    T r[2];
    BENCH_CUDA(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
    int ok = memcmp(&r[0], &r[1], sizeof(T)) == 0;
    if (!ok)
        fprintf(stderr, "FAILED: %s of %zu rows differs from CUB's\n", what, n);
    report(what, n, bench_median_ms(v[0]), bench_median_ms(v[1]), bench_median_ms(v[2]));
    printf("%s_n%zu_scratch: udfkit %.4f ms with udfkit_stream_scratch: %.3f of CUB's throughput\n", what, n,
           bench_median_ms(v[3]), bench_median_ms(v[1]) / bench_median_ms(v[3]));
    void *all[] = {in, half, out, temp, scratch};
    for (void *p : all)
        BENCH_CUDA(cudaFree(p));
    return ok;
}

int bench_ops_main(int argc, char **argv)
{
    const int log2n = argc > 1 ? atoi(argv[1]) : 28, reps = argc > 2 ? atoi(argv[2]) : 50;
    if (log2n < 24 || log2n > 30 || reps < 1) {
        fprintf(stderr, "usage: udfkit_bench ops [log2 elements, 24..30] [repetitions]\n");
        return 2;
    }
    const int sms = bench_cuda_start("ops");
    bench_check_udfkit(opslib_load(), "opslib_load");
    printf("ops_repetitions: %d (after 5 warm-up calls each; median; interleaved)\n", reps);
    cudaStream_t s;
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int ok = 1;
    std::vector<size_t> sizes = {(size_t)1 << 20, (size_t)1 << 24};
    if (log2n > 24)
        sizes.push_back((size_t)1 << log2n);
    for (size_t n : sizes) {
        ok &= bench_filters(n, reps, sms, s);
        ok &= bench_map2(n, reps, sms, s);
        ok &= bench_sum<int>("reduce_int32", n, reps, sms, s, opslib_reduce_add_i32);
        ok &= bench_sum<int64_t>("reduce_int64", n, reps, sms, s, opslib_reduce_add_i64);
        ok &= bench_sum<double>("reduce_float64", n, reps, sms, s, opslib_reduce_add_f64);
    }
    BENCH_CUDA(cudaStreamDestroy(s));
    opslib_unload();
    return ok ? 0 : 1;
}
