/* decimals: decimal128 and date32 UDFs (docs/decimals-and-dates.md), udfkit's generated
 * launchers (decimal_udfs.cu over <udfkit/decimal.cuh> and <udfkit/datetime.cuh>, compiled by
 * NVRTC, linked by nvJitLink) against the same logic written by hand in CUDA with __int128 and
 * built by nvcc -O3 (maps in two forms, one thread per row and grid-stride, the better of
 * which is the reference), over 2^LOG2 rows:
 * - map(mul_s4): decimal128(38,4) from two decimal128(18,2), the exact product (scale 4),
 *   its 38 digits checked; by hand: the __int128 product and the same check;
 * - map(mul_s2): the product rounded half away from zero to decimal128(38,2) (SPEC.md's
 *   rounding: a rescale by 10^-2); by hand: p / 100 and p % 100 of the __int128 product;
 * - reduce(add_d): the sum of a decimal128(38,2) column, every addition's 38 digits checked;
 *   by hand: the same additions and checks in __int128, a block's partial sum per block of a
 *   grid-stride pass, then one block over the partials (its storage allocated once, udfkit's
 *   stream-ordered in every call as its launchers do);
 * - map(ymd): year, month and day of a date32 (three int32 outputs), udfkit::civil_from_days
 *   against Hinnant's civil_from_days written by hand in int arithmetic.
 * reduce(add_d) is timed also in variants of the template's 16-byte path (bench/gpu/build.sh's
 * decimal_variants: libraries of reduce(add_d) alone, their kernels and launchers built with
 * other UDFKIT_RUNS16, UDFKIT_STRIPES16, UDFKIT_REDUCE16_MIN_BLOCKS and UDFKIT_REDUCE16_WAVES),
 * each checked as the others are; the ratios of the variants are printed beside, the worst
 * ratio is declib's.
 * A row that fails its check is recorded (the lowest row) on both sides; none does here.
 * Data: unscaled values sign * (uniform below 10^k), k uniform in 1..17 (decimal(18,2): the
 * products reach 34 digits), a half-way case (a product ending in 50) in every 16th row; days
 * uniform over 1600-01-01 .. 2400-12-31. Median of interleaved calls, each after an L2 flush,
 * CUDA events. Checked: every result of both sides against the host (__int128 products,
 * rounding and sum; the dates against a calendar walked day by day).
 * usage: udfkit_bench decimals [log2 rows (26)] [repetitions (30)]; exits 77 without a GPU. */
#include "bench_cuda.cuh"
#include "declib.h"
#include "decm4.h"
#include "decm4w1.h"
#include "decr8.h"
#include "decs0.h"
#include "decs2m4.h"
#include "decs2m4w1.h"
#include "decw1.h"

#include <algorithm>
#include <cstring>
#include <vector>

#define HAND_BLOCK 256

typedef __int128 i128;

/* 10^38, the first value past 38 digits. */
__host__ __device__ __forceinline__ i128 ten38() { return (i128)10000000000000000000ull * (i128)10000000000000000000ull; }

__device__ __forceinline__ i128 load(const udfkit_decimal128 *p, size_t i)
{
    const i128 v = *reinterpret_cast<const i128 *>(p + i);
    return v;
}

__device__ __forceinline__ void store(udfkit_decimal128 *p, size_t i, i128 v) { *reinterpret_cast<i128 *>(p + i) = v; }

/* A failed row: the lowest recorded, as udfkit's launchers record theirs. */
__device__ __forceinline__ void fail(unsigned long long *row, size_t i) { atomicMin(row, (unsigned long long)i); }

struct mul_s4_op {
    __device__ __forceinline__ void operator()(size_t i, const udfkit_decimal128 *a, const udfkit_decimal128 *b,
                                               udfkit_decimal128 *out, unsigned long long *error) const
    {
        const i128 p = load(a, i) * load(b, i);
        if (p >= ten38() || p <= -ten38()) {
            fail(error, i);
            return;
        }
        store(out, i, p);
    }
};

struct mul_s2_op {
    __device__ __forceinline__ void operator()(size_t i, const udfkit_decimal128 *a, const udfkit_decimal128 *b,
                                               udfkit_decimal128 *out, unsigned long long *error) const
    {
        const i128 p = load(a, i) * load(b, i);
        i128 q = p / 100;
        const int r = (int)(p % 100);
        q += (r >= 50) - (r <= -50);
        if (q >= ten38() || q <= -ten38()) {
            fail(error, i);
            return;
        }
        store(out, i, q);
    }
};

template <class Op>
static __global__ void __launch_bounds__(HAND_BLOCK) decimal_map_per_row(size_t n, const udfkit_decimal128 *a,
                                                                        const udfkit_decimal128 *b, udfkit_decimal128 *out,
                                                                        unsigned long long *error)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        Op()(i, a, b, out, error);
}

template <class Op>
static __global__ void __launch_bounds__(HAND_BLOCK) decimal_map_grid_stride(size_t n, const udfkit_decimal128 *a,
                                                                            const udfkit_decimal128 *b,
                                                                            udfkit_decimal128 *out, unsigned long long *error)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        Op()(i, a, b, out, error);
}

/* a + b, 38 digits checked: a failed addition sets *bad. */
__device__ __forceinline__ i128 add_checked(i128 a, i128 b, bool *bad)
{
    const i128 s = a + b;
    *bad |= s >= ten38() || s <= -ten38();
    return s;
}

__device__ __forceinline__ i128 shfl_down(i128 v, int d)
{
    const unsigned long long lo = __shfl_down_sync(0xffffffffu, (unsigned long long)v, d);
    const long long hi = __shfl_down_sync(0xffffffffu, (long long)(v >> 64), d);
    return (i128)hi << 64 | lo;
}

/* The block's sum of v (thread 0's result). */
__device__ __forceinline__ i128 block_sum(i128 v, bool *bad)
{
    __shared__ i128 warp_sums[HAND_BLOCK / 32];
    for (int d = 16; d > 0; d /= 2)
        v = add_checked(v, shfl_down(v, d), bad);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < HAND_BLOCK / 32 ? warp_sums[threadIdx.x] : 0;
        for (int d = 16; d > 0; d /= 2)
            v = add_checked(v, shfl_down(v, d), bad);
    }
    return v;
}

/* Pass 1: each block's partial sum of a grid-stride share. */
static __global__ void __launch_bounds__(HAND_BLOCK) sum_partials(size_t n, const udfkit_decimal128 *in, i128 *partials,
                                                                 unsigned long long *error)
{
    i128 v = 0;
    bool bad = false;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        v = add_checked(v, load(in, i), &bad);
    v = block_sum(v, &bad);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;
    if (__syncthreads_or(bad) && threadIdx.x == 0)
        fail(error, 0);
}

/* Pass 2: one block over the partials, with the initial value. */
static __global__ void __launch_bounds__(HAND_BLOCK) sum_final(int count, const i128 *partials, udfkit_decimal128 init,
                                                              udfkit_decimal128 *out, unsigned long long *error)
{
    i128 v = threadIdx.x == 0 ? (i128)init.hi << 64 | init.lo : 0;
    bool bad = false;
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        v = add_checked(v, partials[i], &bad);
    v = block_sum(v, &bad);
    if (threadIdx.x == 0)
        store(out, 0, v);
    if (__syncthreads_or(bad) && threadIdx.x == 0)
        fail(error, 0);
}

/* Hinnant's civil_from_days, in int: any date32. */
__host__ __device__ __forceinline__ void civil(int z, int *year, int *month, int *day)
{
    z += 719468;
    const int era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = (int)yoe + era * 400 + (*month <= 2);
}

static __global__ void __launch_bounds__(HAND_BLOCK) ymd_per_row(size_t n, const int *days, int *y, int *m, int *d)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        civil(days[i], y + i, m + i, d + i);
}

static __global__ void __launch_bounds__(HAND_BLOCK) ymd_grid_stride(size_t n, const int *days, int *y, int *m, int *d)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        civil(days[i], y + i, m + i, d + i);
}

/* ---- the data and the host's answers ---- */

static unsigned long long mix(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static udfkit_decimal128 host_abi(i128 v) { return udfkit_decimal128{(uint64_t)v, (int64_t)(v >> 64)}; }

/* sign * (uniform below 10^k), k uniform in 1..17. */
static i128 random_unscaled(unsigned long long r)
{
    unsigned long long p = 10;
    for (unsigned k = 1 + (unsigned)(r % 17); k > 1; k--)
        p *= 10;
    const long long v = (long long)((r >> 8) % p);
    return (r >> 7) & 1 ? -v : v;
}

static int days_of(int y, int m, int d) /* days_from_civil by counting, for the data's bounds */
{
    static const int before[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    auto leap = [](int yy) { return (yy % 4 == 0 && yy % 100 != 0) || yy % 400 == 0; };
    long long days = 0;
    for (int yy = 1970; yy < y; yy++)
        days += leap(yy) ? 366 : 365;
    for (int yy = y; yy < 1970; yy++)
        days -= leap(yy) ? 366 : 365;
    return (int)(days + before[m - 1] + (m > 2 && leap(y)) + d - 1);
}

template <typename T>
static void check_equal(const char *what, const T *d, const std::vector<T> &want)
{
    std::vector<T> got(want.size());
    BENCH_CUDA(cudaMemcpy(got.data(), d, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < got.size(); i++)
        if (memcmp(&got[i], &want[i], sizeof(T)) != 0) {
            fprintf(stderr, "FAILED: %s: row %zu differs from the host's\n", what, i);
            exit(1);
        }
}

static void check_no_error(const char *what, const unsigned long long *d_error)
{
    unsigned long long row = 0;
    BENCH_CUDA(cudaMemcpy(&row, d_error, sizeof row, cudaMemcpyDeviceToHost));
    if (row != ~0ull) {
        fprintf(stderr, "FAILED: %s: row %llu failed its check\n", what, row);
        exit(1);
    }
}

int bench_decimals_main(int argc, char **argv)
{
    const int log2n = argc > 1 ? atoi(argv[1]) : 26, reps = argc > 2 ? atoi(argv[2]) : 30, warmup = 3;
    if (log2n < 10 || log2n > 28 || reps < 1) {
        fprintf(stderr, "usage: udfkit_bench decimals [log2 rows, 10..28] [repetitions]\n");
        return 2;
    }
    const int sms = bench_cuda_start("decimals");
    const size_t n = (size_t)1 << log2n, dbytes = n * sizeof(udfkit_decimal128);
    int threads_per_sm = 0;
    BENCH_CUDA(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
    const unsigned wave = (unsigned)sms * (unsigned)(threads_per_sm / HAND_BLOCK),
                   per_row = (unsigned)((n + HAND_BLOCK - 1) / HAND_BLOCK);
    bench_check_udfkit(declib_load(), "declib_load");
    /* The variants of reduce(add_d) (bench/gpu/build.sh's decimal_variants). */
    const struct {
        const char *name;
        udfkit_status (*load)(void);
        void (*unload)(void);
        udfkit_status (*reduce)(udfkit_stream, size_t, const udfkit_decimal128 *, udfkit_decimal128,
                                udfkit_decimal128 *);
        udfkit_status (*udf_error)(udfkit_stream, uint64_t *, int *);
    } sum_variants[] = {
        {"udfkit reduce(add_d) [runs 8]", decr8_load, decr8_unload, decr8_reduce_add_d, decr8_udf_error},
        {"udfkit reduce(add_d) [no stripes]", decs0_load, decs0_unload, decs0_reduce_add_d, decs0_udf_error},
        {"udfkit reduce(add_d) [stripes 2, 4 blocks]", decs2m4_load, decs2m4_unload, decs2m4_reduce_add_d,
         decs2m4_udf_error},
        {"udfkit reduce(add_d) [4 blocks]", decm4_load, decm4_unload, decm4_reduce_add_d, decm4_udf_error},
        {"udfkit reduce(add_d) [1 wave]", decw1_load, decw1_unload, decw1_reduce_add_d, decw1_udf_error},
        {"udfkit reduce(add_d) [4 blocks, 1 wave]", decm4w1_load, decm4w1_unload, decm4w1_reduce_add_d,
         decm4w1_udf_error},
        {"udfkit reduce(add_d) [stripes 2, 4 blocks, 1 wave]", decs2m4w1_load, decs2m4w1_unload,
         decs2m4w1_reduce_add_d, decs2m4w1_udf_error},
    };
    for (const auto &sv : sum_variants)
        bench_check_udfkit(sv.load(), sv.name);

    /* The columns, and the host's answers. */
    std::vector<udfkit_decimal128> a(n), b(n), want_s4(n), want_s2(n);
    std::vector<int> days(n), want_y(n), want_m(n), want_d(n);
    const int first_day = days_of(1600, 1, 1), last_day = days_of(2400, 12, 31);
    i128 want_sum = 0;
    for (size_t i = 0; i < n; i++) {
        i128 x = random_unscaled(mix(2 * i)), y = random_unscaled(mix(2 * i + 1));
        if (i % 16 == 5) /* a half-way product: x * 50, y = 1 (0.01) */
            x = x / 100 * 100 + 50 * (x < 0 ? -1 : 1), y = 1;
        a[i] = host_abi(x), b[i] = host_abi(y);
        const i128 p = x * y, q = p / 100 + (p % 100 >= 50) - (p % 100 <= -50);
        want_s4[i] = host_abi(p), want_s2[i] = host_abi(q);
        want_sum += x;
        days[i] = first_day + (int)(mix(~i) % (unsigned long long)(last_day - first_day + 1));
    }
    { /* The calendar, walked a day at a time from 1600-01-01. */
        std::vector<int> cy, cm, cd;
        for (int y = 1600, m = 1, d = 1, day = first_day; day <= last_day; day++) {
            cy.push_back(y), cm.push_back(m), cd.push_back(d);
            static const int len[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
            const int month_days = len[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
            if (++d > month_days)
                d = 1, m = m == 12 ? (y++, 1) : m + 1;
        }
        for (size_t i = 0; i < n; i++) {
            const size_t k = (size_t)(days[i] - first_day);
            want_y[i] = cy[k], want_m[i] = cm[k], want_d[i] = cd[k];
        }
    }

    udfkit_decimal128 *d_a, *d_b, *out_u, *out_h, *sums;
    i128 *partials;
    int *d_days, *ymd_u, *ymd_h;
    unsigned long long *errors; /* the hand-written kernels' failed row, ~0: none */
    BENCH_CUDA(cudaMalloc(&d_a, dbytes));
    BENCH_CUDA(cudaMalloc(&d_b, dbytes));
    BENCH_CUDA(cudaMalloc(&out_u, dbytes));
    BENCH_CUDA(cudaMalloc(&out_h, dbytes));
    BENCH_CUDA(cudaMalloc(&sums, 2 * sizeof(udfkit_decimal128)));
    BENCH_CUDA(cudaMalloc(&partials, wave * sizeof(i128)));
    BENCH_CUDA(cudaMalloc(&d_days, n * sizeof(int)));
    BENCH_CUDA(cudaMalloc(&ymd_u, 3 * n * sizeof(int)));
    BENCH_CUDA(cudaMalloc(&ymd_h, 3 * n * sizeof(int)));
    BENCH_CUDA(cudaMalloc(&errors, sizeof(unsigned long long)));
    BENCH_CUDA(cudaMemset(errors, 0xff, sizeof(unsigned long long)));
    BENCH_CUDA(cudaMemcpy(d_a, a.data(), dbytes, cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(d_b, b.data(), dbytes, cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(d_days, days.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    /* The kernels run on a non-blocking stream, which does not wait for the legacy stream the
     * copies and the memset above ran on (a copy from pageable memory returns before its
     * transfer ends): all of it done first. */
    BENCH_CUDA(cudaDeviceSynchronize());
    cudaStream_t s;
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const udfkit_decimal128 zero = {0, 0};

    std::vector<bench_variant> v;
    enum { S4_U, S4_T, S4_G, S2_U, S2_T, S2_G, SUM_U, SUM_H, YMD_U, YMD_T, YMD_G, SUM_V, COUNT = SUM_V + 7 };
    static_assert(sizeof sum_variants / sizeof sum_variants[0] == COUNT - SUM_V, "the variants' count");
#define UDFKIT(call) bench_check_udfkit(call, #call)
#define LAUNCHED BENCH_CUDA(cudaGetLastError())
    v.push_back({"udfkit map(mul_s4)", [&](cudaStream_t st) { UDFKIT(declib_map_mul_s4((udfkit_stream)st, n, d_a, d_b, out_u)); }});
    v.push_back({"nvcc mul_s4, thread per row", [&](cudaStream_t st) {
                     decimal_map_per_row<mul_s4_op><<<per_row, HAND_BLOCK, 0, st>>>(n, d_a, d_b, out_h, errors);
                     LAUNCHED;
                 }});
    v.push_back({"nvcc mul_s4, grid-stride", [&](cudaStream_t st) {
                     decimal_map_grid_stride<mul_s4_op><<<wave, HAND_BLOCK, 0, st>>>(n, d_a, d_b, out_h, errors);
                     LAUNCHED;
                 }});
    v.push_back({"udfkit map(mul_s2)", [&](cudaStream_t st) { UDFKIT(declib_map_mul_s2((udfkit_stream)st, n, d_a, d_b, out_u)); }});
    v.push_back({"nvcc mul_s2, thread per row", [&](cudaStream_t st) {
                     decimal_map_per_row<mul_s2_op><<<per_row, HAND_BLOCK, 0, st>>>(n, d_a, d_b, out_h, errors);
                     LAUNCHED;
                 }});
    v.push_back({"nvcc mul_s2, grid-stride", [&](cudaStream_t st) {
                     decimal_map_grid_stride<mul_s2_op><<<wave, HAND_BLOCK, 0, st>>>(n, d_a, d_b, out_h, errors);
                     LAUNCHED;
                 }});
    v.push_back({"udfkit reduce(add_d)", [&](cudaStream_t st) { UDFKIT(declib_reduce_add_d((udfkit_stream)st, n, d_a, zero, sums)); }});
    v.push_back({"nvcc sum, two passes", [&](cudaStream_t st) {
                     sum_partials<<<wave, HAND_BLOCK, 0, st>>>(n, d_a, partials, errors);
                     LAUNCHED;
                     sum_final<<<1, HAND_BLOCK, 0, st>>>((int)wave, partials, zero, sums + 1, errors);
                     LAUNCHED;
                 }});
    v.push_back({"udfkit map(ymd)", [&](cudaStream_t st) {
                     UDFKIT(declib_map_ymd((udfkit_stream)st, n, d_days, ymd_u, ymd_u + n, ymd_u + 2 * n));
                 }});
    v.push_back({"nvcc ymd, thread per row", [&](cudaStream_t st) {
                     ymd_per_row<<<per_row, HAND_BLOCK, 0, st>>>(n, d_days, ymd_h, ymd_h + n, ymd_h + 2 * n);
                     LAUNCHED;
                 }});
    v.push_back({"nvcc ymd, grid-stride", [&](cudaStream_t st) {
                     ymd_grid_stride<<<wave, HAND_BLOCK, 0, st>>>(n, d_days, ymd_h, ymd_h + n, ymd_h + 2 * n);
                     LAUNCHED;
                 }});
    /* The variants of reduce(add_d), after the rest (SUM_R8 ...). */
    for (const auto &sv : sum_variants) {
        const auto reduce = sv.reduce;
        v.push_back({sv.name, [&, reduce](cudaStream_t st) { UDFKIT(reduce((udfkit_stream)st, n, d_a, zero, sums)); }});
    }
    bench_time_interleaved(v, s, warmup, reps);

    /* Each variant again into cleared results, checked against the host. The results are
     * cleared on s, in its order: a cudaMemset on the legacy stream ran beside the kernel on
     * the non-blocking s and cleared rows it had written (the hand-written mul_s4 "failed" at
     * row 0 that way, its products right). */
    std::vector<udfkit_decimal128> want_sum_v(1, host_abi(want_sum));
    std::vector<int> want_ymd(want_y);
    want_ymd.insert(want_ymd.end(), want_m.begin(), want_m.end());
    want_ymd.insert(want_ymd.end(), want_d.begin(), want_d.end());
    for (int i = 0; i < COUNT; i++) {
        BENCH_CUDA(cudaStreamSynchronize(s));
        BENCH_CUDA(cudaMemsetAsync(out_u, 0, dbytes, s));
        BENCH_CUDA(cudaMemsetAsync(out_h, 0, dbytes, s));
        BENCH_CUDA(cudaMemsetAsync(sums, 0x5a, 2 * sizeof(udfkit_decimal128), s));
        BENCH_CUDA(cudaMemsetAsync(ymd_u, 0, 3 * n * sizeof(int), s));
        BENCH_CUDA(cudaMemsetAsync(ymd_h, 0, 3 * n * sizeof(int), s));
        v[i].launch(s);
        BENCH_CUDA(cudaStreamSynchronize(s));
        const bool udfkit = i == S4_U || i == S2_U || i == SUM_U || i == YMD_U || i >= SUM_V;
        if (i <= S2_G)
            check_equal(v[i].name, udfkit ? out_u : out_h, i < S2_U ? want_s4 : want_s2);
        else if (i <= SUM_H || i >= SUM_V)
            check_equal(v[i].name, sums + (i == SUM_H), want_sum_v);
        else
            check_equal(v[i].name, udfkit ? ymd_u : ymd_h, want_ymd);
    }
    bench_check_udfkit(declib_udf_error((udfkit_stream)s, NULL, NULL), "declib_udf_error (no row may fail)");
    for (const auto &sv : sum_variants)
        bench_check_udfkit(sv.udf_error((udfkit_stream)s, NULL, NULL), sv.name);
    check_no_error("the hand-written kernels", errors);

    double ms[COUNT];
    for (int i = 0; i < COUNT; i++)
        ms[i] = bench_median_ms(v[i]);
    printf("decimals_rows: %zu (decimal128(18,2) unscaled values below 10^k, k uniform in 1..17, either sign; "
           "a half-way product every 16th row; date32 days uniform over 1600..2400)\n",
           n);
    printf("decimals_repetitions: %d (after %d warm-up calls each; median; interleaved; L2 flushed before each)\n", reps,
           warmup);
    printf("nvcc_launch: thread per row %u blocks, grid-stride %u blocks, of %d threads\n", per_row, wave, HAND_BLOCK);
    for (int i = 0; i < COUNT; i++)
        printf("time %-32s %.4f ms\n", v[i].name, ms[i]);
    const struct {
        const char *name;
        int u, h1, h2;
        double bytes;
    } cases[] = {{"decimal128_mul_s4", S4_U, S4_T, S4_G, 3.0 * dbytes},
                 {"decimal128_mul_s2", S2_U, S2_T, S2_G, 3.0 * dbytes},
                 {"decimal128_sum", SUM_U, SUM_H, SUM_H, 1.0 * dbytes},
                 {"date32_ymd", YMD_U, YMD_T, YMD_G, 16.0 * n}};
    double worst = 1e30;
    for (const auto &c : cases) {
        const int best = ms[c.h1] <= ms[c.h2] ? c.h1 : c.h2;
        const double ratio = ms[best] / ms[c.u];
        worst = std::min(worst, ratio);
        printf("%s_throughput: udfkit %.1f GB/s, nvcc %.1f GB/s (bytes read and written)\n", c.name,
               c.bytes / ms[c.u] * 1e-6, c.bytes / ms[best] * 1e-6);
        printf("%s_vs_nvcc: %.3f ratio (against %s; target >= 0.95: %s)\n", c.name, ratio, v[best].name,
               bench_target(ratio, 0.95));
    }
    printf("decimals_vs_nvcc_worst: %.3f ratio (target >= 0.95: %s)\n", worst, bench_target(worst, 0.95));
    for (int i = SUM_V; i < COUNT; i++)
        printf("decimal128_sum_variant_vs_nvcc: %.3f ratio (%s, against %s; declib's: %.3f)\n", ms[SUM_H] / ms[i],
               v[i].name, v[SUM_H].name, ms[SUM_H] / ms[SUM_U]);

    BENCH_CUDA(cudaStreamDestroy(s));
    cudaFree(d_a), cudaFree(d_b), cudaFree(out_u), cudaFree(out_h), cudaFree(sums), cudaFree(partials);
    cudaFree(d_days), cudaFree(ymd_u), cudaFree(ymd_h), cudaFree(errors);
    for (const auto &sv : sum_variants)
        sv.unload();
    declib_unload();
    return 0;
}
