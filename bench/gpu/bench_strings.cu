/* strings: UDFs over 2^LOG2 rows of text (docs/strings.md), udfkit's generated launchers
 * (string_udfs.cu over <udfkit/string.cuh>, compiled by NVRTC, linked by nvJitLink) against
 * the same logic written by hand in CUDA and built by nvcc -O3, in two forms, the better of
 * which is the reference: one thread per row, and a warp per row (32 lanes over one row's bytes).
 *
 * The text: row i has L bytes, L uniform in [5, 80]; words of 40 ASCII words and, each word
 * with probability 1/16, one of 12 non-ASCII words (2-, 3- and 4-byte UTF-8: "straße",
 * "Ελλάδα", "東京", "😀", ...), separated by spaces, cut to L bytes at a code point (padded with
 * '.'); a quarter of the rows start with "the ", and an eighth of the rows of 6 bytes or more
 * hold the needle "needle" at a uniform byte position. All of it valid UTF-8, in an Arrow utf8
 * column (int32 offsets) and the same strings as a utf8_view column (16-byte views, one data
 * buffer: the utf8 column's bytes).
 *
 * Measured (udfkit against the better hand-written form, target >= 0.95 each):
 * - len(s) (code points), "needle" in s, s.startswith("the"): int64 and bool results;
 * - s.upper(): a string result by the two-launch protocol, both sides alike: the sizes kernel
 *   and the offsets' exclusive sum (by hand: cub::DeviceScan::ExclusiveSum, its storage
 *   allocated once), the total read back on the host (pinned memory, the stream waited for),
 *   then the write kernel; the hand-written upper maps ASCII in line and other code points
 *   through udfkit::unicode::to_upper (the Unicode data CPython's str.upper uses), decoding and
 *   encoding UTF-8 by hand;
 * - filter on "needle" in s (ascending uint64 rows and their count) against
 *   cub::DeviceSelect::If over a counting iterator with the predicate (thread per row) and
 *   against a warp-per-row flag kernel with cub::DeviceSelect::Flagged;
 * - the same filter keeping the strings (filter(p, values): the kept rows' offsets, n + 1 of
 *   them, and bytes) against cub::DeviceSelect::If's rows gathered by hand: each kept row's
 *   size, cub::DeviceScan::ExclusiveSum, then the bytes copied a thread per row or a warp per
 *   row.
 * Also: len, contains and starts_with over the utf8_view column against the same launcher over
 * utf8 (target: the view at least as fast, ratio >= 1); the two-launch string result against
 * the same map with a numeric result of the same size: first8, the first 8 bytes of each row
 * as a string (all of a shorter row), against first8_packed, those bytes packed into an int64
 * (target <= 1.3x the time); and bytes per second of each (the input column's bytes, offsets
 * and text, read once, plus the result's bytes written) against a device-to-device copy of
 * the column's offsets and text (2 B for B bytes).
 * Median of interleaved calls, each after an L2 flush, CUDA events. Checked: len, contains and
 * starts_with of every variant against the host (code points counted, memmem, memcmp); upper's
 * offsets and bytes equal between udfkit and both hand-written forms; first8 and first8_packed
 * against the host's bytes; every filter's rows and count against the host's, and the kept
 * strings' offsets and bytes.
 * usage: udfkit_bench strings [log2 rows (24)] [repetitions (30)]; exits 77 without a GPU. */
#include "bench_cuda.cuh"
#include "strlib.h"

#include <udfkit/string.cuh>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#define HAND_BLOCK 256
#define WARPS (HAND_BLOCK / 32)
#define FULL 0xffffffffu

typedef unsigned char byte;

/* ---- the hand-written side ---- */

__device__ __forceinline__ bool needle_at(const byte *p)
{
    return p[0] == 'n' && p[1] == 'e' && p[2] == 'e' && p[3] == 'd' && p[4] == 'l' && p[5] == 'e';
}

__device__ __forceinline__ bool has_needle_thread(const byte *p, int size)
{
    for (int j = 0; j + 6 <= size; j++)
        if (needle_at(p + j))
            return true;
    return false;
}

/* The UTF-8 bytes of cp, written where dst is not NULL; their count. */
__device__ __forceinline__ int encode(unsigned cp, byte *dst)
{
    if (cp < 0x80) {
        if (dst)
            dst[0] = (byte)cp;
        return 1;
    }
    if (cp < 0x800) {
        if (dst)
            dst[0] = (byte)(0xC0 | cp >> 6), dst[1] = (byte)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        if (dst)
            dst[0] = (byte)(0xE0 | cp >> 12), dst[1] = (byte)(0x80 | (cp >> 6 & 0x3F)), dst[2] = (byte)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (dst)
        dst[0] = (byte)(0xF0 | cp >> 18), dst[1] = (byte)(0x80 | (cp >> 12 & 0x3F)), dst[2] = (byte)(0x80 | (cp >> 6 & 0x3F)),
        dst[3] = (byte)(0x80 | (cp & 0x3F));
    return 4;
}

/* The upper case of the code point at p (valid UTF-8): its bytes into dst where not NULL, the
 * count returned, the input bytes it took in *k. */
__device__ __forceinline__ int upper_at(const byte *p, int *k, byte *dst)
{
    const unsigned b = p[0];
    if (b < 0x80) {
        *k = 1;
        if (dst)
            dst[0] = (byte)(b - 'a' < 26u ? b ^ 0x20 : b);
        return 1;
    }
    unsigned cp;
    if (b < 0xE0)
        cp = (b & 0x1F) << 6 | (p[1] & 0x3F), *k = 2;
    else if (b < 0xF0)
        cp = (b & 0x0F) << 12 | (p[1] & 0x3F) << 6 | (p[2] & 0x3F), *k = 3;
    else
        cp = (b & 0x07) << 18 | (p[1] & 0x3F) << 12 | (p[2] & 0x3F) << 6 | (p[3] & 0x3F), *k = 4;
    unsigned m[3];
    const int c = udfkit::unicode::to_upper(cp, m);
    int w = 0;
    for (int t = 0; t < c; t++)
        w += encode(m[t], dst ? dst + w : nullptr);
    return w;
}

static __global__ void __launch_bounds__(HAND_BLOCK) len_thread(size_t n, const int *off, const byte *chars, long long *out)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const byte *p = chars + off[i];
    const int size = off[i + 1] - off[i];
    long long c = 0;
    for (int j = 0; j < size; j++)
        c += (p[j] & 0xC0) != 0x80;
    out[i] = c;
}

static __global__ void __launch_bounds__(HAND_BLOCK) len_warp(size_t n, const int *off, const byte *chars, long long *out)
{
    const size_t row = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= n)
        return;
    const byte *p = chars + off[row];
    const int size = off[row + 1] - off[row];
    unsigned c = 0;
    for (int j = lane; j < size; j += 32)
        c += (p[j] & 0xC0) != 0x80;
    c = __reduce_add_sync(FULL, c);
    if (lane == 0)
        out[row] = c;
}

static __global__ void __launch_bounds__(HAND_BLOCK) contains_thread(size_t n, const int *off, const byte *chars, bool *out)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = has_needle_thread(chars + off[i], off[i + 1] - off[i]);
}

static __global__ void __launch_bounds__(HAND_BLOCK) contains_warp(size_t n, const int *off, const byte *chars, bool *out)
{
    const size_t row = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= n)
        return;
    const byte *p = chars + off[row];
    const int size = off[row + 1] - off[row];
    bool found = false;
    for (int j = lane; j + 6 <= size; j += 32)
        found |= needle_at(p + j);
    found = __any_sync(FULL, found);
    if (lane == 0)
        out[row] = found;
}

static __global__ void __launch_bounds__(HAND_BLOCK) starts_thread(size_t n, const int *off, const byte *chars, bool *out)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const byte *p = chars + off[i];
    out[i] = off[i + 1] - off[i] >= 3 && p[0] == 't' && p[1] == 'h' && p[2] == 'e';
}

static __global__ void __launch_bounds__(HAND_BLOCK) starts_warp(size_t n, const int *off, const byte *chars, bool *out)
{
    const size_t row = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= n)
        return;
    const int begin = off[row], size = off[row + 1] - begin;
    const bool same = lane >= 3 || (size >= 3 && chars[begin + lane] == (byte)"the"[lane]);
    const bool all = __all_sync(FULL, same);
    if (lane == 0)
        out[row] = all;
}

/* upper, pass 1: each row's result size into sizes[i] (sizes[n] = 0, for the exclusive sum). */
static __global__ void __launch_bounds__(HAND_BLOCK) upper_sizes_thread(size_t n, const int *off, const byte *chars,
                                                                       long long *sizes)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0)
        sizes[n] = 0;
    if (i >= n)
        return;
    const byte *p = chars + off[i];
    const int size = off[i + 1] - off[i];
    long long w = 0;
    for (int j = 0, k = 0; j < size; j += k)
        w += upper_at(p + j, &k, nullptr);
    sizes[i] = w;
}

/* upper, pass 2: each row's result into its place. */
static __global__ void __launch_bounds__(HAND_BLOCK) upper_write_thread(size_t n, const int *off, const byte *chars,
                                                                       const long long *offsets, byte *out)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const byte *p = chars + off[i];
    const int size = off[i + 1] - off[i];
    byte *dst = out + offsets[i];
    for (int j = 0, k = 0; j < size; j += k)
        dst += upper_at(p + j, &k, dst);
}

/* upper by a warp: lane l takes the code point that starts at byte base + l, if one does. */
static __global__ void __launch_bounds__(HAND_BLOCK) upper_sizes_warp(size_t n, const int *off, const byte *chars,
                                                                     long long *sizes)
{
    const size_t row = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row == 0 && lane == 0)
        sizes[n] = 0;
    if (row >= n)
        return;
    const byte *p = chars + off[row];
    const int size = off[row + 1] - off[row];
    unsigned w = 0;
    for (int j = lane; j < size; j += 32)
        if ((p[j] & 0xC0) != 0x80) {
            int k;
            w += upper_at(p + j, &k, nullptr);
        }
    w = __reduce_add_sync(FULL, w);
    if (lane == 0)
        sizes[row] = w;
}

static __global__ void __launch_bounds__(HAND_BLOCK) upper_write_warp(size_t n, const int *off, const byte *chars,
                                                                     const long long *offsets, byte *out)
{
    const size_t row = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= n)
        return;
    const byte *p = chars + off[row];
    const int size = off[row + 1] - off[row];
    byte *dst = out + offsets[row];
    for (int base = 0; base < size; base += 32) {
        const int j = base + lane;
        byte mapped[12]; /* at most 3 code points of 4 bytes */
        int w = 0, k;
        if (j < size && (p[j] & 0xC0) != 0x80)
            w = upper_at(p + j, &k, mapped);
        int at = w; /* inclusive sum over the lanes */
        for (int d = 1; d < 32; d *= 2) {
            const int v = __shfl_up_sync(FULL, at, d);
            if (lane >= d)
                at += v;
        }
        for (int t = 0; t < w; t++)
            dst[at - w + t] = mapped[t];
        dst += __shfl_sync(FULL, at, 31);
    }
}

/* The filter's predicate as CUB's side writes it: by row number. */
struct needle_row {
    const int *off;
    const byte *chars;
    __device__ __forceinline__ bool operator()(const unsigned long long &i) const
    {
        return has_needle_thread(chars + off[i], off[i + 1] - off[i]);
    }
};

/* filter on "needle" in s keeping the strings (filter(p, values)), by hand: the kept rows by
 * cub::DeviceSelect::If as above, each kept row's size (0 past the count and at the end), their
 * exclusive sum by cub::DeviceScan::ExclusiveSum, then each kept row's bytes copied by a warp
 * (the lanes side by side, so that a warp's stores are one row's consecutive bytes) or by a
 * thread (a byte a store). */
__global__ void gather_sizes(size_t n, const int *off, const unsigned long long *rows, const unsigned long long *count,
                             long long *sizes)
{
    const unsigned long long kept = *count;
    for (size_t pos = (size_t)blockIdx.x * blockDim.x + threadIdx.x; pos <= n; pos += (size_t)gridDim.x * blockDim.x)
        sizes[pos] = pos < kept ? off[rows[pos] + 1] - off[rows[pos]] : 0;
}

__global__ void gather_bytes_warp(size_t n, const int *off, const byte *chars, const unsigned long long *rows,
                                  const unsigned long long *count, const long long *out_off, byte *out_chars)
{
    const unsigned long long kept = *count;
    const int lane = threadIdx.x % 32;
    for (size_t pos = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; pos < kept && pos < n;
         pos += (size_t)gridDim.x * blockDim.x / 32) {
        const byte *from = chars + off[rows[pos]];
        byte *to = out_chars + out_off[pos];
        const long long size = out_off[pos + 1] - out_off[pos];
        for (long long k = lane; k < size; k += 32)
            to[k] = from[k];
    }
}

__global__ void gather_bytes_thread(size_t n, const int *off, const byte *chars, const unsigned long long *rows,
                                    const unsigned long long *count, const long long *out_off, byte *out_chars)
{
    const unsigned long long kept = *count;
    for (size_t pos = (size_t)blockIdx.x * blockDim.x + threadIdx.x; pos < kept && pos < n;
         pos += (size_t)gridDim.x * blockDim.x) {
        const byte *from = chars + off[rows[pos]];
        byte *to = out_chars + out_off[pos];
        const long long size = out_off[pos + 1] - out_off[pos];
        for (long long k = 0; k < size; k++)
            to[k] = from[k];
    }
}

/* ---- the data ---- */

struct rng {
    unsigned long long s;
    unsigned long long next()
    {
        unsigned long long z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    unsigned below(unsigned k) { return (unsigned)(((next() >> 32) * k) >> 32); }
};

static const char *const ascii_words[] = {
    "the",   "then",   "there",  "theory", "other",  "quick",  "brown",  "fox",   "jumps",  "over",
    "lazy",  "dog",    "data",   "engine", "column", "query",  "table",  "value", "string", "filter",
    "order", "market", "river",  "stone",  "light",  "paper",  "green",  "north", "south",  "window",
    "a",     "of",     "and",    "in",     "to",     "is",     "2024",   "x9",    "garden", "music"};
static const char *const utf8_words[] = {"stra\xc3\x9f" "e", "caf\xc3\xa9", "na\xc3\xafve",
                                         "\xce\x95\xce\xbb\xce\xbb\xce\xac\xce\xb4\xce\xb1",
                                         "\xd0\x9c\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0", "\xe6\x9d\xb1\xe4\xba\xac",
                                         "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "\xf0\x9f\x98\x80",
                                         "fa\xc3\xa7" "ade", "\xc3\x9c" "bung", "\xc7\x85" "emal", "\xef\xac\x81" "le"};

/* The rows described at the top, as Arrow utf8: offsets[n + 1], chars. */
static void make_text(size_t n, std::vector<int> &offsets, std::vector<char> &chars)
{
    rng r = {20261126};
    std::string row;
    offsets.assign(1, 0);
    offsets.reserve(n + 1);
    chars.clear();
    chars.reserve(n * 43);
    for (size_t i = 0; i < n; i++) {
        const size_t len = 5 + r.below(76);
        row.clear();
        if (r.below(4) == 0)
            row = "the ";
        while (row.size() < len) {
            if (!row.empty() && row.back() != ' ')
                row += ' ';
            row += r.below(16) == 0 ? utf8_words[r.below(sizeof utf8_words / sizeof *utf8_words)]
                                    : ascii_words[r.below(sizeof ascii_words / sizeof *ascii_words)];
        }
        size_t cut = len; /* row[len] (or the terminating NUL) begins what is dropped */
        while (((unsigned char)row[cut] & 0xC0) == 0x80)
            cut--;
        row.resize(cut);
        row.append(len - cut, '.');
        if (r.below(8) == 0 && len >= 6) {
            size_t p = r.below((unsigned)(len - 6 + 1));
            while (((unsigned char)row[p] & 0xC0) == 0x80)
                p--;
            memcpy(&row[p], "needle", 6);
            for (size_t q = p + 6; q < len && ((unsigned char)row[q] & 0xC0) == 0x80; q++)
                row[q] = '.';
        }
        chars.insert(chars.end(), row.begin(), row.end());
        offsets.push_back((int)chars.size());
    }
}

/* The same strings as Arrow utf8_view: 16-byte views, the text of those past 12 bytes in data
 * buffer 0 (the utf8 column's bytes). */
static void make_views(size_t n, const std::vector<int> &offsets, const std::vector<char> &chars, std::vector<int> &views)
{
    views.assign(4 * n, 0);
    for (size_t i = 0; i < n; i++) {
        int *v = &views[4 * i];
        const int size = offsets[i + 1] - offsets[i];
        v[0] = size;
        if (size <= 12) {
            memcpy(v + 1, &chars[offsets[i]], (size_t)size);
        } else {
            memcpy(v + 1, &chars[offsets[i]], 4);
            v[2] = 0;
            v[3] = offsets[i];
        }
    }
}

/* ---- checks ---- */

template <typename T>
static void check_rows(const char *what, const T *d_out, const std::vector<T> &expected)
{
    std::vector<T> got(expected.size());
    BENCH_CUDA(cudaMemcpy(got.data(), d_out, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < got.size(); i++)
        if (got[i] != expected[i] && wrong++ == 0)
            first = i;
    if (wrong) {
        fprintf(stderr, "FAILED: %s: %zu of %zu rows wrong, first row %zu: %lld, expected %lld\n", what, wrong, got.size(),
                first, (long long)got[first], (long long)expected[first]);
        exit(1);
    }
}

/* A string result (offsets[n + 1], bytes) read back. */
static void read_strings(size_t n, const long long *d_offsets, const byte *d_chars, std::vector<long long> &offsets,
                         std::vector<char> &chars)
{
    offsets.resize(n + 1);
    BENCH_CUDA(cudaMemcpy(offsets.data(), d_offsets, (n + 1) * sizeof(long long), cudaMemcpyDeviceToHost));
    chars.resize((size_t)offsets[n]);
    BENCH_CUDA(cudaMemcpy(chars.data(), d_chars, chars.size(), cudaMemcpyDeviceToHost));
}

static void check_filter(const char *what, const unsigned long long *d_rows, const unsigned long long *d_count,
                         const std::vector<unsigned long long> &expected)
{
    unsigned long long count = 0;
    BENCH_CUDA(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
    std::vector<unsigned long long> got(count);
    if (count == expected.size())
        BENCH_CUDA(cudaMemcpy(got.data(), d_rows, count * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    if (count != expected.size() || got != expected) {
        fprintf(stderr, "FAILED: %s: %llu rows kept against the host's %zu, or other rows\n", what, count, expected.size());
        exit(1);
    }
}

/* filter(p, values)'s kept strings: the count, the offsets (n + 1: the kept rows' from 0, then
 * the total) and the bytes, against the host's (want_offsets, want_chars). */
static void check_kept_strings(const char *what, size_t n, const unsigned long long *d_count, const long long *d_offsets,
                               const byte *d_chars, size_t want_count, const std::vector<long long> &want_offsets,
                               const std::vector<char> &want_chars)
{
    unsigned long long count = 0;
    BENCH_CUDA(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));
    std::vector<long long> got_offsets;
    std::vector<char> got_chars;
    if (count == want_count)
        read_strings(n, d_offsets, d_chars, got_offsets, got_chars);
    if (count != want_count || got_offsets != want_offsets || got_chars != want_chars) {
        fprintf(stderr, "FAILED: %s: %llu strings kept against the host's %zu, or other offsets or bytes\n", what, count,
                want_count);
        exit(1);
    }
}

static double gbs(double bytes, double ms) { return bytes / ms * 1e-6; }

int bench_strings_main(int argc, char **argv)
{
    const int log2n = argc > 1 ? atoi(argv[1]) : 24, reps = argc > 2 ? atoi(argv[2]) : 30, warmup = 3;
    if (log2n < 10 || log2n > 24 || reps < 1) {
        fprintf(stderr, "usage: udfkit_bench strings [log2 rows, 10..24] [repetitions]\n");
        return 2;
    }
    bench_cuda_start("strings");
    const size_t n = (size_t)1 << log2n;
    bench_check_udfkit(strlib_load(), "strlib_load");

    /* The text and what the host says of it. */
    std::vector<int> offsets, views;
    std::vector<char> text;
    make_text(n, offsets, text);
    make_views(n, offsets, text, views);
    const size_t text_bytes = text.size(), offsets_bytes = (n + 1) * sizeof(int), views_bytes = 16 * n;
    std::vector<long long> host_len(n), host_packed(n);
    std::vector<char> host_contains(n), host_starts(n);
    std::vector<unsigned long long> host_kept;
    size_t multibyte_rows = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = &text[offsets[i]];
        const size_t size = (size_t)(offsets[i + 1] - offsets[i]);
        long long cps = 0;
        bool wide = false;
        for (size_t j = 0; j < size; j++) {
            cps += ((unsigned char)p[j] & 0xC0) != 0x80;
            wide |= (unsigned char)p[j] >= 0x80;
        }
        host_len[i] = cps;
        multibyte_rows += wide;
        host_contains[i] = memmem(p, size, "needle", 6) != NULL;
        host_starts[i] = size >= 3 && memcmp(p, "the", 3) == 0;
        if (host_contains[i])
            host_kept.push_back(i);
        unsigned long long packed = 0;
        for (size_t j = 0; j < size && j < 8; j++)
            packed |= (unsigned long long)(unsigned char)p[j] << (8 * j);
        host_packed[i] = (long long)packed;
    }
    const size_t starts_rows = (size_t)std::count(host_starts.begin(), host_starts.end(), 1);
    /* The kept strings as filter(p, values) writes them: n + 1 offsets, the total after the
     * kept rows, and their bytes. */
    std::vector<long long> host_kept_offsets(n + 1);
    std::vector<char> host_kept_chars;
    for (size_t k = 0; k < host_kept.size(); k++) {
        host_kept_offsets[k] = (long long)host_kept_chars.size();
        host_kept_chars.insert(host_kept_chars.end(), text.begin() + offsets[host_kept[k]],
                               text.begin() + offsets[host_kept[k] + 1]);
    }
    for (size_t k = host_kept.size(); k <= n; k++)
        host_kept_offsets[k] = (long long)host_kept_chars.size();
    const size_t kept_bytes = host_kept_chars.size();

    /* The columns on the device. */
    int *d_off, *d_views;
    byte *d_text;
    const char **d_buffers;
    BENCH_CUDA(cudaMalloc(&d_off, offsets_bytes));
    BENCH_CUDA(cudaMalloc(&d_text, text_bytes));
    BENCH_CUDA(cudaMalloc(&d_views, views_bytes));
    BENCH_CUDA(cudaMalloc(&d_buffers, sizeof(char *)));
    BENCH_CUDA(cudaMemcpy(d_off, offsets.data(), offsets_bytes, cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(d_text, text.data(), text_bytes, cudaMemcpyHostToDevice));
    BENCH_CUDA(cudaMemcpy(d_views, views.data(), views_bytes, cudaMemcpyHostToDevice));
    const char *buffer0 = (const char *)d_text;
    BENCH_CUDA(cudaMemcpy(d_buffers, &buffer0, sizeof buffer0, cudaMemcpyHostToDevice));
    const udfkit_strings utf8 = {UDFKIT_STRINGS_UTF8, d_off, (const char *)d_text, NULL, 0};
    const udfkit_strings view = {UDFKIT_STRINGS_UTF8_VIEW, d_views, NULL, d_buffers, 0};

    /* Results: one buffer per variant, so that each is checked after the timing. */
    long long *len_out[4], *packed_out;
    bool *bool_out[8];
    for (long long *&p : len_out)
        BENCH_CUDA(cudaMalloc(&p, n * sizeof(long long)));
    for (bool *&p : bool_out)
        BENCH_CUDA(cudaMalloc(&p, n * sizeof(bool)));
    BENCH_CUDA(cudaMalloc(&packed_out, n * sizeof(long long)));
    bool *flags;
    BENCH_CUDA(cudaMalloc(&flags, n * sizeof(bool)));
    unsigned long long *kept[5], *counts;
    for (unsigned long long *&p : kept)
        BENCH_CUDA(cudaMalloc(&p, n * sizeof(unsigned long long)));
    BENCH_CUDA(cudaMalloc(&counts, 6 * sizeof(unsigned long long)));
    /* The kept strings (udfkit, thread, warp): offsets and room for every byte of the input. */
    long long *kept_offsets[3];
    byte *kept_chars[3];
    for (int j = 0; j < 3; j++) {
        BENCH_CUDA(cudaMalloc(&kept_offsets[j], (n + 1) * sizeof(long long)));
        BENCH_CUDA(cudaMalloc(&kept_chars[j], text_bytes));
    }
    /* String results: upper (udfkit, thread, warp) and first8; the hand-written sizes. */
    long long *str_offsets[4], *hand_sizes;
    for (long long *&p : str_offsets)
        BENCH_CUDA(cudaMalloc(&p, (n + 1) * sizeof(long long)));
    BENCH_CUDA(cudaMalloc(&hand_sizes, (n + 1) * sizeof(long long)));
    long long *totals; /* pinned: the totals the host reads between the two launches */
    BENCH_CUDA(cudaMallocHost(&totals, 4 * sizeof(long long)));
    byte *copy_out;
    BENCH_CUDA(cudaMalloc(&copy_out, text_bytes + offsets_bytes));

    /* The kernels run on a non-blocking stream, which does not wait for the legacy stream the
     * copies above ran on (a copy from pageable memory returns before its transfer ends): all of
     * it done first. */
    BENCH_CUDA(cudaDeviceSynchronize());
    cudaStream_t s;
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const udfkit_stream us = (udfkit_stream)s;

    /* CUB's temporary storage, allocated once. */
    thrust::counting_iterator<unsigned long long> rows(0);
    const needle_row pred{d_off, d_text};
    size_t b1 = 0, b2 = 0, b3 = 0;
    BENCH_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, b1, hand_sizes, str_offsets[1], (long long)n + 1, s));
    BENCH_CUDA(cub::DeviceSelect::If(nullptr, b2, rows, kept[1], counts + 1, (long long)n, pred, s));
    BENCH_CUDA(cub::DeviceSelect::Flagged(nullptr, b3, rows, flags, kept[2], counts + 2, (long long)n, s));
    size_t temp_bytes = std::max(b1, std::max(b2, b3));
    void *temp;
    BENCH_CUDA(cudaMalloc(&temp, temp_bytes));

    /* The result sizes: upper's and first8's totals, measured once to allocate their bytes. */
    bench_check_udfkit(strlib_map_str_upper_sizes(us, n, utf8, (int64_t *)str_offsets[0]), "strlib_map_str_upper_sizes");
    bench_check_udfkit(strlib_map_first8_sizes(us, n, utf8, (int64_t *)str_offsets[3]), "strlib_map_first8_sizes");
    BENCH_CUDA(cudaStreamSynchronize(s));
    long long upper_total = 0, first8_total = 0;
    BENCH_CUDA(cudaMemcpy(&upper_total, str_offsets[0] + n, sizeof upper_total, cudaMemcpyDeviceToHost));
    BENCH_CUDA(cudaMemcpy(&first8_total, str_offsets[3] + n, sizeof first8_total, cudaMemcpyDeviceToHost));
    byte *str_chars[4];
    for (int j = 0; j < 4; j++)
        BENCH_CUDA(cudaMalloc(&str_chars[j], (size_t)(j == 3 ? first8_total : upper_total)));

    const unsigned thread_blocks = (unsigned)((n + HAND_BLOCK - 1) / HAND_BLOCK), warp_blocks = (unsigned)((n + WARPS - 1) / WARPS);
    /* The second launch of a string result, once the host has read the total and found room. */
    auto room = [&](int j, long long capacity, cudaStream_t st) {
        BENCH_CUDA(cudaMemcpyAsync(&totals[j], str_offsets[j] + n, sizeof(long long), cudaMemcpyDeviceToHost, st));
        BENCH_CUDA(cudaStreamSynchronize(st));
        if (totals[j] < 0 || totals[j] > capacity) {
            fprintf(stderr, "FAILED: string result %d: %lld bytes, %lld expected\n", j, totals[j], capacity);
            exit(1);
        }
    };
    auto hand_upper = [&](bool warp, cudaStream_t st) {
        const int j = warp ? 2 : 1;
        if (warp)
            upper_sizes_warp<<<warp_blocks, HAND_BLOCK, 0, st>>>(n, d_off, d_text, hand_sizes);
        else
            upper_sizes_thread<<<thread_blocks, HAND_BLOCK, 0, st>>>(n, d_off, d_text, hand_sizes);
        BENCH_CUDA(cudaGetLastError());
        BENCH_CUDA(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, hand_sizes, str_offsets[j], (long long)n + 1, st));
        room(j, upper_total, st);
        if (warp)
            upper_write_warp<<<warp_blocks, HAND_BLOCK, 0, st>>>(n, d_off, d_text, str_offsets[j], str_chars[j]);
        else
            upper_write_thread<<<thread_blocks, HAND_BLOCK, 0, st>>>(n, d_off, d_text, str_offsets[j], str_chars[j]);
        BENCH_CUDA(cudaGetLastError());
    };
    /* filter(has_needle, values) by hand: CUB's rows (kept[3] and counts[3] for the thread per
     * row, kept[4] and counts[4] for the warp; udfkit's count is counts[5]), their sizes, the
     * offsets by CUB's scan, then the bytes. */
    auto hand_gather = [&](bool warp, cudaStream_t st) {
        const int j = warp ? 2 : 1;
        BENCH_CUDA(cub::DeviceSelect::If(temp, temp_bytes, rows, kept[2 + j], counts + 2 + j, (long long)n, pred, st));
        gather_sizes<<<thread_blocks + 1, HAND_BLOCK, 0, st>>>(n, d_off, kept[2 + j], counts + 2 + j, hand_sizes);
        BENCH_CUDA(cudaGetLastError());
        BENCH_CUDA(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, hand_sizes, kept_offsets[j], (long long)n + 1, st));
        if (warp)
            gather_bytes_warp<<<warp_blocks, HAND_BLOCK, 0, st>>>(n, d_off, d_text, kept[2 + j], counts + 2 + j,
                                                                 kept_offsets[j], kept_chars[j]);
        else
            gather_bytes_thread<<<thread_blocks, HAND_BLOCK, 0, st>>>(n, d_off, d_text, kept[2 + j], counts + 2 + j,
                                                                     kept_offsets[j], kept_chars[j]);
        BENCH_CUDA(cudaGetLastError());
    };
#define UDFKIT(call) bench_check_udfkit(call, #call)
#define HAND(kernel, warp, ...)                                                                          \
    [&](cudaStream_t st) {                                                                              \
        kernel<<<(warp) ? warp_blocks : thread_blocks, HAND_BLOCK, 0, st>>>(n, d_off, d_text, __VA_ARGS__); \
        BENCH_CUDA(cudaGetLastError());                                                                 \
    }
    std::vector<bench_variant> v;
    enum {
        LEN_U, LEN_UV, LEN_T, LEN_W, HAS_U, HAS_UV, HAS_T, HAS_W, STARTS_U, STARTS_UV, STARTS_T, STARTS_W, UPPER_U, UPPER_T,
        UPPER_W, FILTER_U, FILTER_T, FILTER_W, VALUES_U, VALUES_T, VALUES_W, FIRST8_U, PACKED_U, FIRST8_SIZES,
        FIRST8_WRITE, COPY
    };
    v.push_back({"udfkit len, utf8", [&](cudaStream_t st) { UDFKIT(strlib_map_str_len((udfkit_stream)st, n, utf8, (int64_t *)len_out[0])); }});
    v.push_back({"udfkit len, utf8_view", [&](cudaStream_t st) { UDFKIT(strlib_map_str_len((udfkit_stream)st, n, view, (int64_t *)len_out[1])); }});
    v.push_back({"nvcc len, thread per row", HAND(len_thread, false, len_out[2])});
    v.push_back({"nvcc len, warp per row", HAND(len_warp, true, len_out[3])});
    v.push_back({"udfkit contains, utf8", [&](cudaStream_t st) { UDFKIT(strlib_map_has_needle((udfkit_stream)st, n, utf8, bool_out[0])); }});
    v.push_back({"udfkit contains, utf8_view", [&](cudaStream_t st) { UDFKIT(strlib_map_has_needle((udfkit_stream)st, n, view, bool_out[1])); }});
    v.push_back({"nvcc contains, thread per row", HAND(contains_thread, false, bool_out[2])});
    v.push_back({"nvcc contains, warp per row", HAND(contains_warp, true, bool_out[3])});
    v.push_back({"udfkit starts_with, utf8", [&](cudaStream_t st) { UDFKIT(strlib_map_starts_the((udfkit_stream)st, n, utf8, bool_out[4])); }});
    v.push_back({"udfkit starts_with, utf8_view", [&](cudaStream_t st) { UDFKIT(strlib_map_starts_the((udfkit_stream)st, n, view, bool_out[5])); }});
    v.push_back({"nvcc starts_with, thread per row", HAND(starts_thread, false, bool_out[6])});
    v.push_back({"nvcc starts_with, warp per row", HAND(starts_warp, true, bool_out[7])});
    v.push_back({"udfkit upper", [&](cudaStream_t st) {
                     UDFKIT(strlib_map_str_upper_sizes((udfkit_stream)st, n, utf8, (int64_t *)str_offsets[0]));
                     room(0, upper_total, st);
                     UDFKIT(strlib_map_str_upper((udfkit_stream)st, n, utf8, (const int64_t *)str_offsets[0], (char *)str_chars[0]));
                 }});
    v.push_back({"nvcc upper, thread per row", [&](cudaStream_t st) { hand_upper(false, st); }});
    v.push_back({"nvcc upper, warp per row", [&](cudaStream_t st) { hand_upper(true, st); }});
    v.push_back({"udfkit filter", [&](cudaStream_t st) {
                     UDFKIT(strlib_filter_has_needle((udfkit_stream)st, n, utf8, (uint64_t *)kept[0], (uint64_t *)counts));
                 }});
    v.push_back({"cub::DeviceSelect::If, thread per row", [&](cudaStream_t st) {
                     BENCH_CUDA(cub::DeviceSelect::If(temp, temp_bytes, rows, kept[1], counts + 1, (long long)n, pred, st));
                 }});
    v.push_back({"warp-per-row flags, cub::DeviceSelect::Flagged", [&](cudaStream_t st) {
                     contains_warp<<<warp_blocks, HAND_BLOCK, 0, st>>>(n, d_off, d_text, flags);
                     BENCH_CUDA(cudaGetLastError());
                     BENCH_CUDA(cub::DeviceSelect::Flagged(temp, temp_bytes, rows, flags, kept[2], counts + 2, (long long)n, st));
                 }});
    v.push_back({"udfkit filter values", [&](cudaStream_t st) {
                     UDFKIT(strlib_filter_has_needle_values((udfkit_stream)st, n, utf8, (int64_t *)kept_offsets[0],
                                                            (char *)kept_chars[0], (uint64_t *)(counts + 5)));
                 }});
    v.push_back({"nvcc filter values, thread per row", [&](cudaStream_t st) { hand_gather(false, st); }});
    v.push_back({"nvcc filter values, warp per row", [&](cudaStream_t st) { hand_gather(true, st); }});
    v.push_back({"udfkit first8 (string)", [&](cudaStream_t st) {
                     UDFKIT(strlib_map_first8_sizes((udfkit_stream)st, n, utf8, (int64_t *)str_offsets[3]));
                     room(3, first8_total, st);
                     UDFKIT(strlib_map_first8((udfkit_stream)st, n, utf8, (const int64_t *)str_offsets[3], (char *)str_chars[3]));
                 }});
    v.push_back({"udfkit first8_packed (int64)", [&](cudaStream_t st) {
                     UDFKIT(strlib_map_first8_packed((udfkit_stream)st, n, utf8, (int64_t *)packed_out));
                 }});
    /* The two launches of first8 alone (the time between them: the total read back). */
    v.push_back({"udfkit first8, pass 1 (_sizes)", [&](cudaStream_t st) {
                     UDFKIT(strlib_map_first8_sizes((udfkit_stream)st, n, utf8, (int64_t *)str_offsets[3]));
                 }});
    v.push_back({"udfkit first8, pass 2 (the bytes)", [&](cudaStream_t st) {
                     UDFKIT(strlib_map_first8((udfkit_stream)st, n, utf8, (const int64_t *)str_offsets[3], (char *)str_chars[3]));
                 }});
    v.push_back({"copy", [&](cudaStream_t st) {
                     BENCH_CUDA(cudaMemcpyAsync(copy_out, d_text, text_bytes, cudaMemcpyDeviceToDevice, st));
                     BENCH_CUDA(cudaMemcpyAsync(copy_out + text_bytes, d_off, offsets_bytes, cudaMemcpyDeviceToDevice, st));
                 }});
#undef HAND
    bench_time_interleaved(v, s, warmup, reps);

    /* Every variant once more into cleared results, then checked. The results are cleared on s,
     * in its order: a cudaMemset on the legacy stream may run beside the kernels on the
     * non-blocking s and clear rows they have written (as in bench_decimals.cu). */
    BENCH_CUDA(cudaStreamSynchronize(s));
    for (long long *p : len_out)
        BENCH_CUDA(cudaMemsetAsync(p, 0xff, n * sizeof(long long), s));
    for (bool *p : bool_out)
        BENCH_CUDA(cudaMemsetAsync(p, 0x7f, n * sizeof(bool), s));
    for (int j = 0; j < 4; j++) {
        BENCH_CUDA(cudaMemsetAsync(str_offsets[j], 0xff, (n + 1) * sizeof(long long), s));
        BENCH_CUDA(cudaMemsetAsync(str_chars[j], 0, (size_t)(j == 3 ? first8_total : upper_total), s));
    }
    for (unsigned long long *p : kept)
        BENCH_CUDA(cudaMemsetAsync(p, 0xff, n * sizeof(unsigned long long), s));
    BENCH_CUDA(cudaMemsetAsync(counts, 0xff, 6 * sizeof(unsigned long long), s));
    for (int j = 0; j < 3; j++) {
        BENCH_CUDA(cudaMemsetAsync(kept_offsets[j], 0xff, (n + 1) * sizeof(long long), s));
        BENCH_CUDA(cudaMemsetAsync(kept_chars[j], 0, text_bytes, s));
    }
    BENCH_CUDA(cudaMemsetAsync(packed_out, 0, n * sizeof(long long), s));
    for (size_t i = 0; i < COPY; i++)
        v[i].launch(s);
    BENCH_CUDA(cudaStreamSynchronize(s));
    bench_check_udfkit(strlib_udf_error(us, NULL, NULL), "strlib_udf_error");
    for (int j = 0; j < 4; j++)
        check_rows(v[LEN_U + j].name, len_out[j], host_len);
    {
        std::vector<char> got(n);
        for (int j = 0; j < 8; j++) {
            BENCH_CUDA(cudaMemcpy(got.data(), bool_out[j], n, cudaMemcpyDeviceToHost));
            const std::vector<char> &want = j < 4 ? host_contains : host_starts;
            if (got != want) {
                fprintf(stderr, "FAILED: %s: results differ from the host's\n", v[j < 4 ? HAS_U + j : STARTS_U + j - 4].name);
                exit(1);
            }
        }
    }
    check_rows(v[PACKED_U].name, packed_out, host_packed);
    check_filter(v[FILTER_U].name, kept[0], counts, host_kept);
    check_filter(v[FILTER_T].name, kept[1], counts + 1, host_kept);
    check_filter(v[FILTER_W].name, kept[2], counts + 2, host_kept);
    check_kept_strings(v[VALUES_U].name, n, counts + 5, kept_offsets[0], kept_chars[0], host_kept.size(), host_kept_offsets,
                       host_kept_chars);
    check_kept_strings(v[VALUES_T].name, n, counts + 3, kept_offsets[1], kept_chars[1], host_kept.size(), host_kept_offsets,
                       host_kept_chars);
    check_kept_strings(v[VALUES_W].name, n, counts + 4, kept_offsets[2], kept_chars[2], host_kept.size(), host_kept_offsets,
                       host_kept_chars);
    std::vector<long long> so[3], first8_offsets;
    std::vector<char> sc[3], first8_chars;
    for (int j = 0; j < 3; j++)
        read_strings(n, str_offsets[j], str_chars[j], so[j], sc[j]);
    for (int j = 1; j < 3; j++)
        if (so[j] != so[0] || sc[j] != sc[0]) {
            fprintf(stderr, "FAILED: upper: %s and %s differ\n", v[UPPER_U].name, v[UPPER_U + j].name);
            exit(1);
        }
    read_strings(n, str_offsets[3], str_chars[3], first8_offsets, first8_chars);
    for (size_t i = 0; i < n; i++) {
        const size_t size = (size_t)(offsets[i + 1] - offsets[i]), k = size < 8 ? size : 8;
        if (first8_offsets[i + 1] - first8_offsets[i] != (long long)k ||
            memcmp(&first8_chars[first8_offsets[i]], &text[offsets[i]], k) != 0) {
            fprintf(stderr, "FAILED: first8: row %zu is not the row's first %zu bytes\n", i, k);
            exit(1);
        }
    }

    /* The report. Bytes: the input column's (offsets or views, and the text) read once, and
     * the result's written; the copy moves the utf8 column's offsets and text (2 B). */
    double ms[COPY + 1];
    for (size_t i = 0; i <= COPY; i++)
        ms[i] = bench_median_ms(v[i]);
    const double in_utf8 = (double)(text_bytes + offsets_bytes), in_view = (double)(views_bytes + text_bytes);
    const double copy_gbs = gbs(2 * in_utf8, ms[COPY]);
    printf("strings_rows: %zu (lengths uniform in [5, 80] bytes; ASCII words and, 1 word in 16, non-ASCII ones)\n", n);
    printf("strings_text: %zu bytes (mean %.1f a row), %zu bytes of int32 offsets, %zu bytes of utf8_view views\n",
           text_bytes, (double)text_bytes / n, offsets_bytes, views_bytes);
    printf("strings_rows_with_non_ascii: %zu (%.1f%%)\n", multibyte_rows, 100.0 * multibyte_rows / n);
    printf("strings_rows_with_needle: %zu (%.1f%%, \"needle\"; %zu bytes of them)\n", host_kept.size(),
           100.0 * host_kept.size() / n, kept_bytes);
    printf("strings_rows_starting_with_prefix: %zu (%.1f%%, \"the\")\n", starts_rows, 100.0 * starts_rows / n);
    printf("strings_upper_result: %lld bytes\n", upper_total);
    printf("strings_repetitions: %d (after %d warm-up calls each; median; interleaved; L2 flushed before each)\n", reps,
           warmup);
    for (size_t i = 0; i <= COPY; i++)
        printf("time %-48s %.4f ms\n", v[i].name, ms[i]);
    printf("copy_d2d_bandwidth: %.1f GB/s (%.0f bytes of offsets and text)\n", copy_gbs, in_utf8);

    /* name, udfkit, thread, warp, result bytes */
    struct op {
        const char *name;
        int u, t, w;
        double out_bytes;
    } ops[] = {{"len", LEN_U, LEN_T, LEN_W, 8.0 * n},
               {"contains", HAS_U, HAS_T, HAS_W, 1.0 * n},
               {"starts_with", STARTS_U, STARTS_T, STARTS_W, 1.0 * n},
               {"upper", UPPER_U, UPPER_T, UPPER_W, 8.0 * (n + 1) + upper_total},
               {"filter_contains", FILTER_U, FILTER_T, FILTER_W, 8.0 * host_kept.size() + 8},
               {"filter_values", VALUES_U, VALUES_T, VALUES_W, 8.0 * (n + 1) + (double)kept_bytes}};
    double worst = 1e30;
    for (const op &o : ops) {
        const double best = std::min(ms[o.t], ms[o.w]), bytes = in_utf8 + o.out_bytes;
        const double ratio = best / ms[o.u];
        worst = std::min(worst, ratio);
        printf("%s_throughput: udfkit %.1f GB/s (%.3f of the copy), nvcc thread per row %.1f GB/s, warp per row %.1f GB/s\n",
               o.name, gbs(bytes, ms[o.u]), gbs(bytes, ms[o.u]) / copy_gbs, gbs(bytes, ms[o.t]), gbs(bytes, ms[o.w]));
        printf("%s_vs_nvcc: %.3f ratio (against the %s; target >= 0.95: %s)\n", o.name, ratio,
               ms[o.t] <= ms[o.w] ? "thread per row" : "warp per row", bench_target(ratio, 0.95));
    }
    const struct {
        const char *name;
        int utf8, view;
        double out_bytes;
    } layouts[] = {{"len", LEN_U, LEN_UV, 8.0 * n}, {"contains", HAS_U, HAS_UV, 1.0 * n}, {"starts_with", STARTS_U, STARTS_UV, 1.0 * n}};
    for (const auto &l : layouts) {
        printf("%s_utf8_view_throughput: %.1f GB/s of views and text (%.3f of the copy's rate)\n", l.name,
               gbs(in_view + l.out_bytes, ms[l.view]), gbs(in_view + l.out_bytes, ms[l.view]) / copy_gbs);
        printf("%s_utf8_view_vs_utf8: %.3f ratio of speed (utf8 time / utf8_view time; target >= 1: %s)\n", l.name,
               ms[l.utf8] / ms[l.view], bench_target(ms[l.utf8] / ms[l.view], 1.0));
    }
    const double two = ms[FIRST8_U] / ms[PACKED_U];
    printf("first8_throughput: string %.1f GB/s, int64 %.1f GB/s (results %lld bytes and %lld bytes of offsets; %zu bytes)\n",
           gbs(in_utf8 + 8.0 * (n + 1) + first8_total, ms[FIRST8_U]), gbs(in_utf8 + 8.0 * n, ms[PACKED_U]), first8_total,
           (long long)(8 * (n + 1)), 8 * n);
    printf("first8_passes: pass 1 %.4f ms, pass 2 %.4f ms, between them (the total read back) %.4f ms\n", ms[FIRST8_SIZES],
           ms[FIRST8_WRITE], ms[FIRST8_U] - ms[FIRST8_SIZES] - ms[FIRST8_WRITE]);
    printf("strings_vs_nvcc_worst: %.3f ratio (target >= 0.95: %s)\n", worst, bench_target(worst, 0.95));
    printf("string_result_vs_int64_result: %.3f ratio of time (first8 by two launches / first8_packed; target <= 1.3: %s)\n",
           two, two <= 1.3 ? "met" : "NOT met");

    BENCH_CUDA(cudaStreamDestroy(s));
    cudaFree(d_off), cudaFree(d_text), cudaFree(d_views), cudaFree(d_buffers), cudaFree(flags), cudaFree(counts);
    cudaFree(temp), cudaFree(hand_sizes), cudaFree(copy_out), cudaFree(packed_out), cudaFreeHost(totals);
    for (long long *p : len_out)
        cudaFree(p);
    for (bool *p : bool_out)
        cudaFree(p);
    for (unsigned long long *p : kept)
        cudaFree(p);
    for (int j = 0; j < 4; j++)
        cudaFree(str_offsets[j]), cudaFree(str_chars[j]);
    strlib_unload();
    return 0;
}
