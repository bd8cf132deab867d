/* sort: udfkit's sort(less) launcher against cub::DeviceMergeSort with the same comparator
 * written as a C++ functor (CUB's temporary storage allocated once, outside the timing;
 * udfkit's allocated stream-ordered in every call, as its launcher does), int32 and float64 at
 * 2^16 and 2^LOG2 rows of random values (int32: 2^20 distinct, so with ties).
 * Keys only: sort(in, out, NULL) against cub::DeviceMergeSort::StableSortKeysCopy(in, out), the
 * same dispatch as StableSortKeys with the input kept. With the order: both sort in place from
 * a fresh copy of the input each call: udfkit sort(work, work, order) after copying in to
 * work; CUB StableSortPairs(work, rows) after copying in to work and a counting array 0..n-1 to
 * rows; the copies are timed alone too and subtracted, so that the ratio is of the sorts.
 * Every result is checked against CUB's (keys, and the order against CUB's carried rows).
 * usage: udfkit_bench sort [log2 elements (26)] [repetitions (30)]; exits 77 without a GPU. */
#include "bench_cuda.cuh"
#include "sortlib.h"

#include <cub/device/device_merge_sort.cuh>

#include <cstring>
#include <vector>

struct less_i32_functor {
    __device__ __forceinline__ bool operator()(const int &a, const int &b) const { return a < b; }
};
struct less_f64_functor {
    __device__ __forceinline__ bool operator()(const double &a, const double &b) const { return a < b; }
};

static __device__ unsigned long long sort_hash(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

template <typename T>
static __global__ void fill_sort_values(size_t n, T *out, unsigned long long *rows)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long h = sort_hash(i);
        if (sizeof(T) == 4)
            out[i] = (T)(int)(h % (1u << 20)) - (T)(1 << 19);
        else
            out[i] = (T)((double)(long long)(h >> 11) * 0x1p-40 - 4096.0);
        rows[i] = i;
    }
}

template <typename T, typename Less, typename Launcher>
static int bench_sort_type(const char *type, size_t n, int reps, int sms, Launcher udfkit_sort)
{
    const size_t bytes = n * sizeof(T), row_bytes = n * sizeof(unsigned long long);
    T *in, *out_u, *out_c;
    unsigned long long *iota, *order_u, *rows_c;
    BENCH_CUDA(cudaMalloc(&in, bytes));
    BENCH_CUDA(cudaMalloc(&out_u, bytes));
    BENCH_CUDA(cudaMalloc(&out_c, bytes));
    BENCH_CUDA(cudaMalloc(&iota, row_bytes));
    BENCH_CUDA(cudaMalloc(&order_u, row_bytes));
    BENCH_CUDA(cudaMalloc(&rows_c, row_bytes));
    fill_sort_values<<<sms * 8, 256>>>(n, in, iota);
    BENCH_CUDA(cudaDeviceSynchronize());
    cudaStream_t s;
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void *temp = NULL;
    size_t keys_bytes = 0, pairs_bytes = 0;
    BENCH_CUDA(cub::DeviceMergeSort::StableSortKeysCopy(temp, keys_bytes, in, out_c, (long long)n, Less(), s));
    BENCH_CUDA(cub::DeviceMergeSort::StableSortPairs(temp, pairs_bytes, out_c, rows_c, (long long)n, Less(), s));
    size_t temp_bytes = keys_bytes > pairs_bytes ? keys_bytes : pairs_bytes;
    BENCH_CUDA(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));

    std::vector<bench_variant> v;
    v.push_back({"udfkit sort keys", [&](cudaStream_t st) {
                     bench_check_udfkit(udfkit_sort((udfkit_stream)st, n, in, out_u, NULL), "sort");
                 }});
    v.push_back({"cub StableSortKeysCopy", [&](cudaStream_t st) {
                     BENCH_CUDA(cub::DeviceMergeSort::StableSortKeysCopy(temp, temp_bytes, in, out_c, (long long)n,
                                                                          Less(), st));
                 }});
    v.push_back({"copy, udfkit sort with order in place", [&](cudaStream_t st) {
                     BENCH_CUDA(cudaMemcpyAsync(out_u, in, bytes, cudaMemcpyDeviceToDevice, st));
                     bench_check_udfkit(udfkit_sort((udfkit_stream)st, n, out_u, out_u, (uint64_t *)order_u), "sort");
                 }});
    v.push_back({"copies, cub StableSortPairs", [&](cudaStream_t st) {
                     BENCH_CUDA(cudaMemcpyAsync(out_c, in, bytes, cudaMemcpyDeviceToDevice, st));
                     BENCH_CUDA(cudaMemcpyAsync(rows_c, iota, row_bytes, cudaMemcpyDeviceToDevice, st));
                     BENCH_CUDA(cub::DeviceMergeSort::StableSortPairs(temp, temp_bytes, out_c, rows_c, (long long)n,
                                                                       Less(), st));
                 }});
    v.push_back({"copy of the values", [&](cudaStream_t st) {
                     BENCH_CUDA(cudaMemcpyAsync(out_u, in, bytes, cudaMemcpyDeviceToDevice, st));
                 }});
    v.push_back({"copies of the values and rows", [&](cudaStream_t st) {
                     BENCH_CUDA(cudaMemcpyAsync(out_c, in, bytes, cudaMemcpyDeviceToDevice, st));
                     BENCH_CUDA(cudaMemcpyAsync(rows_c, iota, row_bytes, cudaMemcpyDeviceToDevice, st));
                 }});
    bench_time_interleaved(v, s, 3, reps);

    /* The results, each checked against CUB's. */
    int ok = 1;
    std::vector<T> a(n), b(n);
    std::vector<unsigned long long> ra(n), rb(n);
    for (int with_order = 0; with_order <= 1; with_order++) {
        v[with_order ? 2 : 0].launch(s);
        v[with_order ? 3 : 1].launch(s);
        BENCH_CUDA(cudaStreamSynchronize(s));
        BENCH_CUDA(cudaMemcpy(a.data(), out_u, bytes, cudaMemcpyDeviceToHost));
        BENCH_CUDA(cudaMemcpy(b.data(), out_c, bytes, cudaMemcpyDeviceToHost));
        bool same = memcmp(a.data(), b.data(), bytes) == 0;
        if (with_order) {
            BENCH_CUDA(cudaMemcpy(ra.data(), order_u, row_bytes, cudaMemcpyDeviceToHost));
            BENCH_CUDA(cudaMemcpy(rb.data(), rows_c, row_bytes, cudaMemcpyDeviceToHost));
            same = same && memcmp(ra.data(), rb.data(), row_bytes) == 0;
        }
        if (!same) {
            fprintf(stderr, "FAILED: %s sort%s of %zu rows differs from CUB's\n", type, with_order ? " with order" : "",
                    n);
            ok = 0;
        }
    }
    const double keys = bench_median_ms(v[0]), cub_keys = bench_median_ms(v[1]), pairs = bench_median_ms(v[2]),
                 cub_pairs = bench_median_ms(v[3]), copy = bench_median_ms(v[4]), copies = bench_median_ms(v[5]);
    const double pairs_sort = pairs - copy, cub_pairs_sort = cub_pairs - copies;
    printf("sort_%s_n%zu: keys: udfkit %.4f ms, CUB %.4f ms; with order: udfkit %.4f ms (%.4f after a copy of "
           "%.4f ms), CUB %.4f ms (%.4f after copies of %.4f ms)\n",
           type, n, keys, cub_keys, pairs_sort, pairs, copy, cub_pairs_sort, cub_pairs, copies);
    const bool large = n >= (1u << 24);
    printf("sort_keys_%s_n%zu_vs_cub: %.3f ratio of throughput (target >= 0.95%s: %s)\n", type, n, cub_keys / keys,
           large ? "" : ", reported", large ? bench_target(cub_keys / keys, 0.95) : "-");
    printf("sort_with_order_%s_n%zu_vs_cub: %.3f ratio of throughput, sorts alone (target >= 0.95%s: %s); %.3f "
           "with the copies\n",
           type, n, cub_pairs_sort / pairs_sort, large ? "" : ", reported",
           large ? bench_target(cub_pairs_sort / pairs_sort, 0.95) : "-", cub_pairs / pairs);
    BENCH_CUDA(cudaStreamDestroy(s));
    BENCH_CUDA(cudaFree(temp));
    T *bufs[] = {in, out_u, out_c};
    for (T *p : bufs)
        BENCH_CUDA(cudaFree(p));
    unsigned long long *rbufs[] = {iota, order_u, rows_c};
    for (unsigned long long *p : rbufs)
        BENCH_CUDA(cudaFree(p));
    return ok;
}

int bench_sort_main(int argc, char **argv)
{
    const int log2n = argc > 1 ? atoi(argv[1]) : 26, reps = argc > 2 ? atoi(argv[2]) : 30;
    if (log2n < 16 || log2n > 30 || reps < 1) {
        fprintf(stderr, "usage: udfkit_bench sort [log2 elements, 16..30] [repetitions]\n");
        return 2;
    }
    const int sms = bench_cuda_start("sort");
    bench_check_udfkit(sortlib_load(), "sortlib_load");
    printf("sort_repetitions: %d (after 3 warm-up calls each; median; interleaved)\n", reps);
    int ok = 1;
    for (size_t n : {(size_t)1 << 16, (size_t)1 << log2n}) {
        ok &= bench_sort_type<int, less_i32_functor>("int32", n, reps, sms, sortlib_sort_less_i32);
        ok &= bench_sort_type<double, less_f64_functor>("float64", n, reps, sms, sortlib_sort_less_f64);
    }
    sortlib_unload();
    return ok ? 0 : 1;
}
