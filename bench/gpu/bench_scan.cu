/* scan: udfkit's inclusive_scan and exclusive_scan launchers against cub::DeviceScan with
 * the same operator written as a C++ functor (CUB's temporary storage allocated once,
 * outside the timing; udfkit's tile state allocated stream-ordered in every call, as its
 * launcher does), for int32 and float64 at 2^16 and 2^LOG2 rows; a device-to-device copy of
 * the same bytes as the limit. Every result is checked against CUB's (int32 exactly;
 * float64 on integer values, exact in any order).
 * usage: udfkit_bench scan [log2 elements (28)] [repetitions (50)]; exits 77 without a GPU. */
#include "bench_cuda.cuh"
#include "scanlib.h"

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <cstring>
#include <vector>

struct add_i32_functor {
    __device__ __forceinline__ int operator()(const int &a, const int &b) const
    {
        return (int)((unsigned)a + (unsigned)b);
    }
};
struct add_f64_functor {
    __device__ __forceinline__ double operator()(const double &a, const double &b) const { return a + b; }
};

template <typename T>
static __global__ void fill_values(size_t n, T *out)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = (T)(int)((i * 2654435761u >> 7) % 201) - (T)100;
}

template <typename T, typename Op, typename Inc, typename Exc>
static int bench_type(const char *type, size_t n, int reps, int sms, Inc udfkit_inclusive, Exc udfkit_exclusive)
{
    const size_t bytes = n * sizeof(T);
    T *in, *out_u, *out_c;
    BENCH_CUDA(cudaMalloc(&in, bytes));
    BENCH_CUDA(cudaMalloc(&out_u, bytes));
    BENCH_CUDA(cudaMalloc(&out_c, bytes));
    fill_values<<<sms * 8, 256>>>(n, in);
    BENCH_CUDA(cudaDeviceSynchronize());
    cudaStream_t s;
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void *temp = NULL;
    size_t temp_bytes = 0, exc_bytes = 0;
    BENCH_CUDA(cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out_c, Op(), (long long)n, s));
    BENCH_CUDA(cub::DeviceScan::ExclusiveScan(temp, exc_bytes, in, out_c, Op(), T(5), (long long)n, s));
    temp_bytes = temp_bytes > exc_bytes ? temp_bytes : exc_bytes;
    BENCH_CUDA(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));

    std::vector<bench_variant> v;
    v.push_back({"udfkit inclusive_scan", [&](cudaStream_t st) {
                     bench_check_udfkit(udfkit_inclusive((udfkit_stream)st, n, in, out_u), "inclusive_scan");
                 }});
    v.push_back({"cub::DeviceScan::InclusiveScan", [&](cudaStream_t st) {
                     BENCH_CUDA(cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out_c, Op(), (long long)n, st));
                 }});
    v.push_back({"udfkit exclusive_scan", [&](cudaStream_t st) {
                     bench_check_udfkit(udfkit_exclusive((udfkit_stream)st, n, in, T(5), out_u), "exclusive_scan");
                 }});
    v.push_back({"cub::DeviceScan::ExclusiveScan", [&](cudaStream_t st) {
                     BENCH_CUDA(
                         cub::DeviceScan::ExclusiveScan(temp, temp_bytes, in, out_c, Op(), T(5), (long long)n, st));
                 }});
    v.push_back({"cudaMemcpy device to device", [&](cudaStream_t st) {
                     BENCH_CUDA(cudaMemcpyAsync(out_c, in, bytes, cudaMemcpyDeviceToDevice, st));
                 }});
    bench_time_interleaved(v, s, 5, reps);

    /* The results, each checked against CUB's: the last timed call of each left them. */
    int ok = 1;
    std::vector<T> a(n), b(n);
    for (int exclusive = 0; exclusive <= 1; exclusive++) {
        if (exclusive) {
            bench_check_udfkit(udfkit_exclusive((udfkit_stream)s, n, in, T(5), out_u), "exclusive_scan");
            BENCH_CUDA(cub::DeviceScan::ExclusiveScan(temp, temp_bytes, in, out_c, Op(), T(5), (long long)n, s));
        } else {
            bench_check_udfkit(udfkit_inclusive((udfkit_stream)s, n, in, out_u), "inclusive_scan");
            BENCH_CUDA(cub::DeviceScan::InclusiveScan(temp, temp_bytes, in, out_c, Op(), (long long)n, s));
        }
        BENCH_CUDA(cudaStreamSynchronize(s));
        BENCH_CUDA(cudaMemcpy(a.data(), out_u, bytes, cudaMemcpyDeviceToHost));
        BENCH_CUDA(cudaMemcpy(b.data(), out_c, bytes, cudaMemcpyDeviceToHost));
        if (memcmp(a.data(), b.data(), bytes) != 0) {
            fprintf(stderr, "FAILED: %s %s scan of %zu rows differs from CUB's\n", type,
                    exclusive ? "exclusive" : "inclusive", n);
            ok = 0;
        }
    }
    const double inc = bench_median_ms(v[0]), cub_inc = bench_median_ms(v[1]), exc = bench_median_ms(v[2]),
                 cub_exc = bench_median_ms(v[3]), copy = bench_median_ms(v[4]);
    printf("scan_%s_n%zu: udfkit inclusive %.4f ms, CUB %.4f ms; exclusive %.4f ms, CUB %.4f ms; copy %.4f ms\n", type,
           n, inc, cub_inc, exc, cub_exc, copy);
    const bool large = n >= (1u << 24);
    printf("inclusive_scan_%s_n%zu_vs_cub: %.3f ratio of throughput (target >= 0.95%s: %s)\n", type, n, cub_inc / inc,
           large ? "" : ", reported", large ? bench_target(cub_inc / inc, 0.95) : "-");
    printf("exclusive_scan_%s_n%zu_vs_cub: %.3f ratio of throughput (target >= 0.95%s: %s)\n", type, n, cub_exc / exc,
           large ? "" : ", reported", large ? bench_target(cub_exc / exc, 0.95) : "-");
    printf("inclusive_scan_%s_n%zu_vs_copy: %.3f of a device-to-device copy (CUB: %.3f)\n", type, n, copy / inc,
           copy / cub_inc);
    BENCH_CUDA(cudaStreamDestroy(s));
    BENCH_CUDA(cudaFree(temp));
    BENCH_CUDA(cudaFree(in));
    BENCH_CUDA(cudaFree(out_u));
    BENCH_CUDA(cudaFree(out_c));
    return ok;
}

int bench_scan_main(int argc, char **argv)
{
    const int log2n = argc > 1 ? atoi(argv[1]) : 28, reps = argc > 2 ? atoi(argv[2]) : 50;
    if (log2n < 16 || log2n > 30 || reps < 1) {
        fprintf(stderr, "usage: udfkit_bench scan [log2 elements, 16..30] [repetitions]\n");
        return 2;
    }
    const int sms = bench_cuda_start("scan");
    bench_check_udfkit(scanlib_load(), "scanlib_load");
    printf("scan_repetitions: %d (after 5 warm-up calls each; median; interleaved)\n", reps);
    int ok = 1;
    for (size_t n : {(size_t)1 << 16, (size_t)1 << log2n}) {
        ok &= bench_type<int, add_i32_functor>("int32", n, reps, sms, scanlib_inclusive_scan_add_i32,
                                               scanlib_exclusive_scan_add_i32);
        ok &= bench_type<double, add_f64_functor>("float64", n, reps, sms, scanlib_inclusive_scan_add_f64,
                                                  scanlib_exclusive_scan_add_f64);
    }
    scanlib_unload();
    return ok ? 0 : 1;
}

/* reduce_by_key: keys in runs of 8 rows (int32 keys), values int32 or float64, udfkit's
 * reduce_by_key(op, int32) launcher against cub::DeviceReduce::ReduceByKey with the same
 * operator as a functor; results (runs, keys, values) checked against CUB's. */
static __global__ void fill_keys(size_t n, int *keys)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        keys[i] = (int)(i >> 3);
}

template <typename T, typename Op, typename Launcher>
static int bench_rbk_type(const char *type, size_t n, int reps, int sms, Launcher udfkit_rbk)
{
    int *keys, *ukeys_u, *ukeys_c;
    T *in, *out_u, *out_c;
    unsigned long long *runs;
    BENCH_CUDA(cudaMalloc(&keys, n * sizeof(int)));
    BENCH_CUDA(cudaMalloc(&ukeys_u, n * sizeof(int)));
    BENCH_CUDA(cudaMalloc(&ukeys_c, n * sizeof(int)));
    BENCH_CUDA(cudaMalloc(&in, n * sizeof(T)));
    BENCH_CUDA(cudaMalloc(&out_u, n * sizeof(T)));
    BENCH_CUDA(cudaMalloc(&out_c, n * sizeof(T)));
    BENCH_CUDA(cudaMalloc(&runs, 2 * sizeof(unsigned long long)));
    fill_keys<<<sms * 8, 256>>>(n, keys);
    fill_values<<<sms * 8, 256>>>(n, in);
    BENCH_CUDA(cudaDeviceSynchronize());
    cudaStream_t s;
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void *temp = NULL;
    size_t temp_bytes = 0;
    BENCH_CUDA(cub::DeviceReduce::ReduceByKey(temp, temp_bytes, keys, ukeys_c, in, out_c, runs + 1, Op(), (long long)n, s));
    BENCH_CUDA(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));
    std::vector<bench_variant> v;
    v.push_back({"udfkit reduce_by_key", [&](cudaStream_t st) {
                     bench_check_udfkit(udfkit_rbk((udfkit_stream)st, n, keys, in, ukeys_u, out_u, (uint64_t *)runs),
                                        "reduce_by_key");
                 }});
    v.push_back({"cub::DeviceReduce::ReduceByKey", [&](cudaStream_t st) {
                     BENCH_CUDA(cub::DeviceReduce::ReduceByKey(temp, temp_bytes, keys, ukeys_c, in, out_c, runs + 1,
                                                               Op(), (long long)n, st));
                 }});
    v.push_back({"cudaMemcpy device to device", [&](cudaStream_t st) {
                     BENCH_CUDA(cudaMemcpyAsync(out_c, in, n * sizeof(T), cudaMemcpyDeviceToDevice, st));
                 }});
    bench_time_interleaved(v, s, 5, reps);
    bench_check_udfkit(udfkit_rbk((udfkit_stream)s, n, keys, in, ukeys_u, out_u, (uint64_t *)runs), "reduce_by_key");
    BENCH_CUDA(cub::DeviceReduce::ReduceByKey(temp, temp_bytes, keys, ukeys_c, in, out_c, runs + 1, Op(), (long long)n, s));
    BENCH_CUDA(cudaStreamSynchronize(s));
    unsigned long long r[2];
    BENCH_CUDA(cudaMemcpy(r, runs, sizeof r, cudaMemcpyDeviceToHost));
    int ok = r[0] == r[1];
    if (ok) {
        std::vector<int> ka(r[0]), kb(r[0]);
        std::vector<T> a(r[0]), b(r[0]);
        BENCH_CUDA(cudaMemcpy(ka.data(), ukeys_u, r[0] * sizeof(int), cudaMemcpyDeviceToHost));
        BENCH_CUDA(cudaMemcpy(kb.data(), ukeys_c, r[0] * sizeof(int), cudaMemcpyDeviceToHost));
        BENCH_CUDA(cudaMemcpy(a.data(), out_u, r[0] * sizeof(T), cudaMemcpyDeviceToHost));
        BENCH_CUDA(cudaMemcpy(b.data(), out_c, r[0] * sizeof(T), cudaMemcpyDeviceToHost));
        ok = ka == kb && memcmp(a.data(), b.data(), r[0] * sizeof(T)) == 0;
    }
    if (!ok)
        fprintf(stderr, "FAILED: %s reduce_by_key of %zu rows differs from CUB's (runs %llu against %llu)\n", type, n,
                r[0], r[1]);
    const double u = bench_median_ms(v[0]), c = bench_median_ms(v[1]), copy = bench_median_ms(v[2]);
    const bool large = n >= (1u << 24);
    printf("reduce_by_key_%s_n%zu: udfkit %.4f ms, CUB %.4f ms, copy of the values %.4f ms; %llu runs\n", type, n, u, c,
           copy, r[0]);
    printf("reduce_by_key_%s_n%zu_vs_cub: %.3f ratio of throughput (target >= 0.95%s: %s)\n", type, n, c / u,
           large ? "" : ", reported", large ? bench_target(c / u, 0.95) : "-");
    BENCH_CUDA(cudaStreamDestroy(s));
    void *all[] = {temp, keys, ukeys_u, ukeys_c, in, out_u, out_c, runs};
    for (void *p : all)
        BENCH_CUDA(cudaFree(p));
    return ok;
}

int bench_reduce_by_key_main(int argc, char **argv)
{
    const int log2n = argc > 1 ? atoi(argv[1]) : 28, reps = argc > 2 ? atoi(argv[2]) : 50;
    if (log2n < 16 || log2n > 30 || reps < 1) {
        fprintf(stderr, "usage: udfkit_bench reduce_by_key [log2 elements, 16..30] [repetitions]\n");
        return 2;
    }
    const int sms = bench_cuda_start("reduce_by_key");
    bench_check_udfkit(scanlib_load(), "scanlib_load");
    printf("reduce_by_key_repetitions: %d (after 5 warm-up calls each; median; interleaved); keys in runs of 8\n", reps);
    int ok = 1;
    for (size_t n : {(size_t)1 << 16, (size_t)1 << log2n}) {
        ok &= bench_rbk_type<int, add_i32_functor>("int32", n, reps, sms, scanlib_reduce_by_key_add_i32_by_int32);
        ok &= bench_rbk_type<double, add_f64_functor>("float64", n, reps, sms, scanlib_reduce_by_key_add_f64_by_int32);
    }
    scanlib_unload();
    return ok ? 0 : 1;
}

/* transform_reduce and segmented_reduce: udfkit's launchers against
 * cub::DeviceReduce::TransformReduce (f = 3x for int32, x / 2 for float64, op add) and
 * cub::DeviceSegmentedReduce::Reduce (segments of 4096 rows) with the same functions as
 * functors; results checked against CUB's (int32 exactly; float64 on values whose sums are
 * exact in any order). udfkit keeps the rows' order (op need not commute); CUB does not. */
struct triple_i32_functor {
    __device__ __forceinline__ int operator()(const int &x) const { return (int)((unsigned)x * 3u); }
};
struct half_f64_functor {
    __device__ __forceinline__ double operator()(const double &x) const { return x * 0.5; }
};

static __global__ void fill_offsets(size_t segments, size_t len, unsigned long long *off)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i <= segments; i += (size_t)gridDim.x * blockDim.x)
        off[i] = i * len;
}

template <typename T, typename F, typename Op, typename TR, typename SR>
static int bench_reductions_type(const char *type, size_t n, int reps, int sms, TR udfkit_tr, SR udfkit_sr)
{
    const size_t len = 4096, segments = n / len;
    T *in, *out;
    unsigned long long *off;
    BENCH_CUDA(cudaMalloc(&in, n * sizeof(T)));
    BENCH_CUDA(cudaMalloc(&out, 2 * (segments + 1) * sizeof(T)));
    BENCH_CUDA(cudaMalloc(&off, (segments + 1) * sizeof(unsigned long long)));
    fill_values<<<sms * 8, 256>>>(n, in);
    fill_offsets<<<sms * 8, 256>>>(segments, len, off);
    BENCH_CUDA(cudaDeviceSynchronize());
    cudaStream_t s;
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    T *out_u = out, *out_c = out + segments + 1;
    void *temp = NULL;
    size_t tr_bytes = 0, sr_bytes = 0;
    BENCH_CUDA(cub::DeviceReduce::TransformReduce(temp, tr_bytes, in, out_c, (long long)n, Op(), F(), T(0), s));
    BENCH_CUDA(cub::DeviceSegmentedReduce::Reduce(temp, sr_bytes, in, out_c, (long long)segments, off, off + 1, Op(),
                                                  T(0), s));
    size_t temp_bytes = tr_bytes > sr_bytes ? tr_bytes : sr_bytes;
    BENCH_CUDA(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));
    std::vector<bench_variant> v;
    v.push_back({"udfkit transform_reduce", [&](cudaStream_t st) {
                     bench_check_udfkit(udfkit_tr((udfkit_stream)st, n, in, T(0), out_u), "transform_reduce");
                 }});
    v.push_back({"cub::DeviceReduce::TransformReduce", [&](cudaStream_t st) {
                     BENCH_CUDA(cub::DeviceReduce::TransformReduce(temp, tr_bytes, in, out_c, (long long)n, Op(), F(),
                                                                   T(0), st));
                 }});
    v.push_back({"udfkit segmented_reduce", [&](cudaStream_t st) {
                     bench_check_udfkit(udfkit_sr((udfkit_stream)st, segments, (const uint64_t *)off, in, T(0), out_u),
                                        "segmented_reduce");
                 }});
    v.push_back({"cub::DeviceSegmentedReduce::Reduce", [&](cudaStream_t st) {
                     BENCH_CUDA(cub::DeviceSegmentedReduce::Reduce(temp, sr_bytes, in, out_c, (long long)segments, off,
                                                                   off + 1, Op(), T(0), st));
                 }});
    v.push_back({"cudaMemcpy device to device", [&](cudaStream_t st) {
                     BENCH_CUDA(cudaMemcpyAsync(out_c, in, (segments + 1) * sizeof(T), cudaMemcpyDeviceToDevice, st));
                 }});
    bench_time_interleaved(v, s, 5, reps);
    int ok = 1;
    std::vector<T> a(segments), b(segments);
    bench_check_udfkit(udfkit_tr((udfkit_stream)s, n, in, T(0), out_u), "transform_reduce");
    BENCH_CUDA(cub::DeviceReduce::TransformReduce(temp, tr_bytes, in, out_c, (long long)n, Op(), F(), T(0), s));
    BENCH_CUDA(cudaStreamSynchronize(s));
    BENCH_CUDA(cudaMemcpy(a.data(), out_u, sizeof(T), cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(b.data(), out_c, sizeof(T), cudaMemcpyDeviceToHost));
    if (memcmp(a.data(), b.data(), sizeof(T)) != 0) {
        fprintf(stderr, "FAILED: %s transform_reduce of %zu rows differs from CUB's\n", type, n);
        ok = 0;
    }
    bench_check_udfkit(udfkit_sr((udfkit_stream)s, segments, (const uint64_t *)off, in, T(0), out_u), "segmented_reduce");
    BENCH_CUDA(cub::DeviceSegmentedReduce::Reduce(temp, sr_bytes, in, out_c, (long long)segments, off, off + 1, Op(),
                                                  T(0), s));
    BENCH_CUDA(cudaStreamSynchronize(s));
    BENCH_CUDA(cudaMemcpy(a.data(), out_u, segments * sizeof(T), cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(b.data(), out_c, segments * sizeof(T), cudaMemcpyDeviceToHost));
    if (memcmp(a.data(), b.data(), segments * sizeof(T)) != 0) {
        fprintf(stderr, "FAILED: %s segmented_reduce of %zu segments differs from CUB's\n", type, segments);
        ok = 0;
    }
    const double tr = bench_median_ms(v[0]), cub_tr = bench_median_ms(v[1]), sr = bench_median_ms(v[2]),
                 cub_sr = bench_median_ms(v[3]);
    const bool large = n >= (1u << 24);
    printf("transform_reduce_%s_n%zu: udfkit %.4f ms, CUB %.4f ms (%.1f GB/s against %.1f)\n", type, n, tr, cub_tr,
           n * sizeof(T) / tr * 1e-6, n * sizeof(T) / cub_tr * 1e-6);
    printf("transform_reduce_%s_n%zu_vs_cub: %.3f ratio of throughput (target >= 0.95%s: %s)\n", type, n, cub_tr / tr,
           large ? "" : ", reported", large ? bench_target(cub_tr / tr, 0.95) : "-");
    printf("segmented_reduce_%s_n%zu: %zu segments of %zu rows: udfkit %.4f ms, CUB %.4f ms\n", type, n, segments, len,
           sr, cub_sr);
    printf("segmented_reduce_%s_n%zu_vs_cub: %.3f ratio of throughput (target >= 0.95%s: %s)\n", type, n, cub_sr / sr,
           large ? "" : ", reported", large ? bench_target(cub_sr / sr, 0.95) : "-");
    BENCH_CUDA(cudaStreamDestroy(s));
    void *all[] = {temp, in, out, off};
    for (void *p : all)
        BENCH_CUDA(cudaFree(p));
    return ok;
}

int bench_reductions_main(int argc, char **argv)
{
    const int log2n = argc > 1 ? atoi(argv[1]) : 28, reps = argc > 2 ? atoi(argv[2]) : 50;
    if (log2n < 16 || log2n > 30 || reps < 1) {
        fprintf(stderr, "usage: udfkit_bench reductions [log2 elements, 16..30] [repetitions]\n");
        return 2;
    }
    const int sms = bench_cuda_start("reductions");
    bench_check_udfkit(scanlib_load(), "scanlib_load");
    printf("reductions_repetitions: %d (after 5 warm-up calls each; median; interleaved)\n", reps);
    int ok = 1;
    for (size_t n : {(size_t)1 << 16, (size_t)1 << log2n}) {
        ok &= bench_reductions_type<int, triple_i32_functor, add_i32_functor>(
            "int32", n, reps, sms, scanlib_transform_reduce_triple_i32_add_i32, scanlib_segmented_reduce_add_i32);
        ok &= bench_reductions_type<double, half_f64_functor, add_f64_functor>(
            "float64", n, reps, sms, scanlib_transform_reduce_half_f64_add_f64, scanlib_segmented_reduce_add_f64);
    }
    scanlib_unload();
    return ok ? 0 : 1;
}
