/* gpu-strings: <udfkit/string.cuh> gives on the device what it gives on the host, where
 * strings-lib checks it against CPython. One thread per string of a column (Arrow utf8, read
 * through udfkit::strings_column) runs a battery of functions (views, searches, splits,
 * predicates, every writer measured then written as the kernels do, numbers both ways,
 * hashes) into 64-bit results, in four kernels (a fault names its part); the host runs the same
 * battery on the same strings; every result must agree.
 *
 * usage: string_gpu_check            the check (exit 77 without a GPU)
 *        string_gpu_check bench      rows per second of common functions over 2^24 strings */
#include <udfkit/string.cuh>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

enum { results_per_row = 96 };

struct results {
    unsigned long long *r;
    int k;
    __host__ __device__ void put(unsigned long long v)
    {
        if (k < results_per_row)
            r[k] = v;
        k++;
    }
    __host__ __device__ void view(udfkit::string_view base, udfkit::string_view v)
    {
        put(v.size() ? (unsigned long long)(v.data() - base.data()) : 0);
        put((unsigned long long)v.size());
    }
};

/* Text written by f as a kernel writes it: measured, then into scratch; its size and hash. */
template <typename F> __host__ __device__ void written(results &out, char *scratch, long long room, F f)
{
    udfkit::string_out measure = {nullptr, 0, 0, 0};
    f(measure);
    if (measure.size > room) {
        out.put(~0ull);
        out.put((unsigned long long)measure.size);
        return;
    }
    udfkit::string_out text = {scratch, 0, measure.size, 0};
    f(text);
    out.put((unsigned long long)text.size | (unsigned long long)text.overflowed << 63);
    out.put(udfkit::string_view(scratch, text.size).hash(7));
}

__host__ __device__ unsigned long long predicates(udfkit::string_view s)
{
    return s.is_alnum() | s.is_alpha() << 1 | s.is_ascii() << 2 | s.is_decimal() << 3 | s.is_digit() << 4 |
           s.is_identifier() << 5 | s.is_lower() << 6 | s.is_numeric() << 7 | s.is_printable() << 8 |
           s.is_space() << 9 | s.is_title() << 10 | s.is_upper() << 11 | s.is_valid_utf8() << 12;
}

__host__ __device__ void searches(results &out, udfkit::string_view s, udfkit::string_view t)
{
    const udfkit::string_view needles[] = {t, "a", "\xce\xa3", "\xff", "", s.substr(1, 2), t.substr(-2)};
    for (const udfkit::string_view &n : needles) {
        out.put((unsigned long long)s.find(n));
        out.put((unsigned long long)s.rfind(n, 1, -1));
        out.put((unsigned long long)s.count(n));
        out.put(s.starts_with(n) | s.ends_with(n) << 1 | s.contains(n) << 2 | s.starts_with(n, -3) << 3);
    }
    out.put((unsigned long long)(long long)s.compare(t));
    out.put((s == t) | (s < t) << 1);
}

__host__ __device__ void parts(results &out, udfkit::string_view s)
{
    udfkit::string_view part;
    out.view(s, s.strip());
    out.view(s, s.lstrip("ab "));
    out.view(s, s.rstrip("\xcf\x83\xce\xa3."));
    out.view(s, s.substr(2, 5));
    out.view(s, s.slice(-4, -1));
    out.view(s, s.remove_prefix("a"));
    out.view(s, s.remove_suffix("\xce\xa3"));
    out.put(s.at(&part, -2) ? (unsigned long long)(part.data() - s.data()) : ~0ull);
    out.put(s.split_part(&part, ",", 1) ? (unsigned long long)part.size() : ~0ull);
    out.put(s.rsplit_part(&part, " ", -1, 1) ? (unsigned long long)part.size() : ~0ull);
    out.put(s.split_part(&part, 1) ? (unsigned long long)(part.data() - s.data()) : ~0ull);
    out.put(s.rsplit_part(&part, -2, 2) ? (unsigned long long)part.size() : ~0ull);
    out.put((unsigned long long)s.split_count("a") << 32 | (unsigned long long)s.split_count());
    unsigned cp = 0;
    out.put(s.code_point_at(&cp, 1) ? cp : ~0ull);
}

__host__ __device__ void numbers(results &out, udfkit::string_view s, char *scratch, long long room)
{
    long long i = 0, j = 0;
    double d = 0;
    out.put(s.to_int(&i, 10) | (unsigned long long)s.to_int(&j, 0) << 8 | (unsigned long long)s.to_double(&d) << 16);
    out.put((unsigned long long)i);
    out.put((unsigned long long)j);
    unsigned long long bits;
    memcpy(&bits, &d, 8);
    out.put(bits);
    written(out, scratch, room, [&](udfkit::string_out &o) {
        o.append_double(d);
        o.append_int(i);
        o.append_uint((unsigned long long)j);
    });
}

__host__ __device__ void writers(results &out, udfkit::string_view s, udfkit::string_view t, char *scratch, long long room);

/* The battery in four parts, each a kernel of its own on the device (so that a fault names its
 * part), and where each part's results start: the host runs the parts in one go, counting, so
 * that a wrong start here puts its results at other places than the device's. */
enum { battery_parts = 4 };
__host__ __device__ int part_start(int part)
{
    const int start[battery_parts] = {0, 34, 55, 81};
    return start[part];
}
const char *const part_names[battery_parts] = {"lengths, predicates, hashes, searches", "views and splits",
                                               "writers", "numbers"};

/* Every result for string s (t: another string of the column): all parts (part < 0) or one. */
__host__ __device__ void battery(udfkit::string_view s, udfkit::string_view t, char *scratch, long long room,
                                 unsigned long long *r, int part)
{
    results out = {r, 0};
    if (part == 0 || part < 0) {
        out.put((unsigned long long)s.length());
        out.put(predicates(s));
        out.put(s.hash(0));
        out.put(s.hash(0x9E3779B97F4A7C15ull));
        searches(out, s, t);
    }
    if (part == 1 || part < 0) {
        out.k = part < 0 ? out.k : part_start(1);
        parts(out, s);
    }
    if (part == 2 || part < 0) {
        out.k = part < 0 ? out.k : part_start(2);
        writers(out, s, t, scratch, room);
    }
    if (part == 3 || part < 0) {
        out.k = part < 0 ? out.k : part_start(3);
        numbers(out, s, scratch, room);
        out.put((unsigned long long)out.k);
    }
}

template <int part>
__global__ void run_battery(udfkit::strings_column column, unsigned long long n, const long long *scratch_at,
                            char *scratch, unsigned long long *r)
{
    const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    battery(column[i], column[(i + 1) % n], scratch + scratch_at[i], scratch_at[i + 1] - scratch_at[i],
            r + i * results_per_row, part);
}

/* Every writer, measured then written. */
__host__ __device__ void writers(results &out, udfkit::string_view s, udfkit::string_view t, char *scratch, long long room)
{
    const long long len = s.length();
    written(out, scratch, room, [&](udfkit::string_out &o) { s.to_upper(o); });
    written(out, scratch, room, [&](udfkit::string_out &o) { s.to_lower(o); });
    written(out, scratch, room, [&](udfkit::string_out &o) { s.capitalize(o); });
    written(out, scratch, room, [&](udfkit::string_out &o) { s.title(o); });
    written(out, scratch, room, [&](udfkit::string_out &o) { s.swapcase(o); });
    written(out, scratch, room, [&](udfkit::string_out &o) { s.casefold(o); });
    written(out, scratch, room, [&](udfkit::string_out &o) { s.zfill(o, len + 2); });
    written(out, scratch, room, [&](udfkit::string_out &o) { s.center(o, len + 3, 0x3A3); });
    written(out, scratch, room, [&](udfkit::string_out &o) { s.replace(o, "a", "\xce\xa3\xce\xa3"); });
    written(out, scratch, room, [&](udfkit::string_out &o) { s.replace(o, "", "-", 3); });
    written(out, scratch, room, [&](udfkit::string_out &o) { s.slice(o, udfkit::string_view::npos, -udfkit::string_view::npos - 1, -1); });
    written(out, scratch, room, [&](udfkit::string_out &o) { s.slice(o, 1, udfkit::string_view::npos, 2); });
    written(out, scratch, room, [&](udfkit::string_out &o) {
        o.append(s);
        o.append_code_point(0x1F600);
        o.append_repeated(t.substr(0, 3), 2);
    });
}

struct rng {
    unsigned long long x;
    unsigned long long next()
    {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    }
    unsigned below(unsigned n) { return (unsigned)(next() % n); }
};

void append_utf8(std::string &s, unsigned cp)
{
    char b[4];
    s.append(b, (size_t)udfkit::utf8_encode(cp, b));
}

/* Strings of the kinds strings-lib's corpus has: ASCII words and numbers, Greek with sigmas,
 * code points of all planes, random bytes, and some long ones. */
std::vector<std::string> corpus(size_t n)
{
    const char *fixed[] = {"", " ", "Hello, World", "\xce\xa3\xce\x91\xce\xa3", "a\xce\xa3.b", "stra\xc3\x9f" "e",
                           "\xef\xac\x81", "\xc4\xb0stanbul", "\xc7\x85", "  42  ", "-0x_1F", "1_000.5e-3", "inf", "-NaN",
                           "9223372036854775808", "2.4703282292062327208828439643411068618252990130716238221279284125033775364e-324",
                           "1.7976931348623158079372897140530341507993413271003782693617377898044496829276e308",
                           "9007199254740993.0000000000000001", "\xff\xfe", "\xe2\x82", "a,b,,c", "\xd9\xa3\xd9\xa4"};
    std::vector<std::string> out(std::begin(fixed), std::end(fixed));
    rng r = {0x2545F4914F6CDD1Dull};
    const char *words = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,._-";
    const unsigned greek[] = {0x3A3, 0x3C3, 0x3C2, 0x391, 0x3B1, '.', '\'', 0x301, ' ', 0x2B0, '1'};
    while (out.size() < n) {
        std::string s;
        const unsigned kind = r.below(6), length = r.below(10) == 0 ? r.below(3000) : r.below(40);
        for (unsigned i = 0; i < length; i++) {
            if (kind == 0)
                s += words[r.below(67)];
            else if (kind == 1)
                append_utf8(s, greek[r.below(11)]);
            else if (kind == 2)
                append_utf8(s, r.below(4) ? r.below(0x3000) : r.below(0x110000));
            else if (kind == 3)
                s += (char)r.below(256);
            else if (kind == 4)
                s += "0123456789._eE+- "[r.below(17)];
            else
                s += i % 7 ? (char)('0' + r.below(10)) : '.';
        }
        out.push_back(s);
    }
    return out;
}

#define CUDA_CHECK(call)                                                                                               \
    do {                                                                                                               \
        cudaError_t e = (call);                                                                                        \
        if (e != cudaSuccess) {                                                                                        \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                                                 \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

/* The strings as an Arrow utf8 column in device memory. */
struct device_column {
    int *offsets = nullptr;
    char *chars = nullptr;
    udfkit::strings_column column;
    explicit device_column(const std::vector<std::string> &strings)
    {
        std::vector<int> o(1, 0);
        std::string all;
        for (const std::string &s : strings) {
            all += s;
            o.push_back((int)all.size());
        }
        CUDA_CHECK(cudaMalloc(&offsets, o.size() * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&chars, all.size() + 1));
        CUDA_CHECK(cudaMemcpy(offsets, o.data(), o.size() * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(chars, all.data(), all.size(), cudaMemcpyHostToDevice));
        column = {udfkit::utf8, offsets, chars, nullptr, 0};
    }
};

int check()
{
    const std::vector<std::string> strings = corpus(1 << 16);
    const size_t n = strings.size();
    std::vector<long long> at(1, 0);
    for (const std::string &s : strings)
        at.push_back(at.back() + 12 * (long long)s.size() + 256);
    device_column col(strings);
    long long *d_at;
    char *d_scratch;
    unsigned long long *d_r;
    CUDA_CHECK(cudaMalloc(&d_at, at.size() * sizeof(long long)));
    CUDA_CHECK(cudaMalloc(&d_scratch, (size_t)at.back()));
    CUDA_CHECK(cudaMalloc(&d_r, n * results_per_row * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemcpy(d_at, at.data(), at.size() * sizeof(long long), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_r, 0, n * results_per_row * sizeof(unsigned long long)));
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
    const unsigned blocks = (unsigned)((n + 127) / 128);
    void (*const kernels[battery_parts])(udfkit::strings_column, unsigned long long, const long long *, char *,
                                         unsigned long long *) = {run_battery<0>, run_battery<1>, run_battery<2>,
                                                                  run_battery<3>};
    for (int part = 0; part < battery_parts; part++) {
        kernels[part]<<<blocks, 128>>>(col.column, n, d_at, d_scratch, d_r);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            fprintf(stderr, "the battery's part %d (%s) on the device: %s\n", part, part_names[part], cudaGetErrorString(e));
            return 1;
        }
    }
    std::vector<unsigned long long> device(n * results_per_row), host(results_per_row);
    CUDA_CHECK(cudaMemcpy(device.data(), d_r, device.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    std::vector<char> scratch(12 * 3000 + 256 + 12 * 100000);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) {
        const std::string &s = strings[i], &t = strings[(i + 1) % n];
        std::fill(host.begin(), host.end(), 0);
        battery(udfkit::string_view(s.data(), (long long)s.size()), udfkit::string_view(t.data(), (long long)t.size()),
                scratch.data(), at[i + 1] - at[i], host.data(), -1);
        for (int k = 0; k < results_per_row; k++) {
            /* Views are offsets, the same on both sides; the rest are values. */
            if (host[k] != device[i * results_per_row + k] && wrong++ < 20)
                fprintf(stderr, "string %zu (%zu bytes), result %d: host %llx, device %llx\n", i, s.size(), k, host[k],
                        device[i * results_per_row + k]);
        }
    }
    printf("%zu strings, %d results each: %zu differ between host and device\n", n, (int)results_per_row, wrong);
    return wrong ? 1 : 0;
}

/* One common function over every row, a template argument choosing it (one kernel each). */
template <int which> __global__ void bench_kernel(udfkit::strings_column column, unsigned long long n, long long *out)
{
    const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const udfkit::string_view s = column[i];
    long long r = 0;
    if (which == 0) {
        r = s.length();
    } else if (which == 1) {
        r = s == udfkit::string_view("warehouse-17");
    } else if (which == 2) {
        r = s.find("17");
    } else if (which == 3) {
        udfkit::string_out measure = {nullptr, 0, 0, 0};
        s.to_upper(measure);
        r = measure.size;
    } else if (which == 4) {
        s.to_int(&r);
    } else if (which == 5) {
        double d = 0;
        s.to_double(&d);
        r = (long long)d;
    } else if (which == 6) {
        r = (long long)s.hash();
    } else {
        udfkit::string_view part;
        r = s.split_part(&part, "-", 1) ? part.size() : -1;
    }
    out[i] = r;
}

template <int which> float time_kernel(const udfkit::strings_column &column, unsigned long long n, long long *out)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    float best = 1e30f;
    for (int rep = 0; rep < 4; rep++) {
        CUDA_CHECK(cudaEventRecord(start));
        bench_kernel<which><<<(unsigned)((n + 255) / 256), 256>>>(column, n, out);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (rep > 0 && ms < best)
            best = ms;
    }
    CUDA_CHECK(cudaGetLastError());
    return best;
}

/* 2^24 short ASCII strings ("warehouse-17", "-12345", "3.14159"): the best of three runs of
 * each function, after a warm-up. */
int bench()
{
    const unsigned long long n = 1ull << 24;
    std::vector<int> offsets(1, 0);
    std::string chars;
    rng r = {88172645463325252ull};
    for (unsigned long long i = 0; i < n; i++) {
        char buf[32];
        const unsigned kind = r.below(3);
        if (kind == 0)
            snprintf(buf, sizeof buf, "warehouse-%u", r.below(100));
        else if (kind == 1)
            snprintf(buf, sizeof buf, "%d", (int)r.below(2000000) - 1000000);
        else
            snprintf(buf, sizeof buf, "%u.%05u", r.below(1000), r.below(100000));
        chars += buf;
        offsets.push_back((int)chars.size());
    }
    int *d_offsets;
    char *d_chars;
    long long *d_out;
    CUDA_CHECK(cudaMalloc(&d_offsets, offsets.size() * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_chars, chars.size()));
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(long long)));
    CUDA_CHECK(cudaMemcpy(d_offsets, offsets.data(), offsets.size() * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_chars, chars.data(), chars.size(), cudaMemcpyHostToDevice));
    const udfkit::strings_column column = {udfkit::utf8, d_offsets, d_chars, nullptr, 0};
    const char *names[] = {"length", "== literal", "find", "to_upper (measured)", "to_int", "to_double", "hash",
                           "split_part"};
    const float ms[] = {time_kernel<0>(column, n, d_out), time_kernel<1>(column, n, d_out),
                        time_kernel<2>(column, n, d_out), time_kernel<3>(column, n, d_out),
                        time_kernel<4>(column, n, d_out), time_kernel<5>(column, n, d_out),
                        time_kernel<6>(column, n, d_out), time_kernel<7>(column, n, d_out)};
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("%s: 2^24 strings, %zu bytes\n", prop.name, chars.size());
    for (int i = 0; i < 8; i++)
        printf("  %-20s %8.3f ms  %7.2f G rows/s  %7.1f GB/s of text\n", names[i], ms[i], n / (ms[i] * 1e6),
               chars.size() / (ms[i] * 1e6));
    return 0;
}

} /* namespace */

int main(int argc, char **argv)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    if (argc > 1 && strcmp(argv[1], "bench") == 0)
        return bench();
    return check();
}
