// The string UDFs of the `strings` benchmark (bench_strings.cu), over <udfkit/string.cuh>:
// the needle and prefix are the benchmark's (bench_strings.cu writes them into the data).
#include <udfkit/string.cuh>

// len(s): code points.
__device__ long long str_len(udfkit::string_view s) { return s.length(); }
// "needle" in s.
__device__ bool has_needle(udfkit::string_view s) { return s.contains("needle"); }
// s.startswith("the").
__device__ bool starts_the(udfkit::string_view s) { return s.starts_with("the"); }
// s.upper(): a string result, by the two-launch protocol.
__device__ void str_upper(udfkit::string_out &out, udfkit::string_view s) { s.to_upper(out); }
// The first 8 bytes as they are (all of a shorter string): a string result of at most 8 bytes ...
__device__ void first8(udfkit::string_out &out, udfkit::string_view s)
{
    out.append(s.data(), s.size() < 8 ? s.size() : 8);
}
// ... and the same bytes packed little-endian into an int64 (zero past the string's end).
__device__ long long first8_packed(udfkit::string_view s)
{
    const long long k = s.size() < 8 ? s.size() : 8;
    unsigned long long v = 0;
    for (long long i = 0; i < k; i++)
        v |= (unsigned long long)(unsigned char)s.data()[i] << (8 * i);
    return (long long)v;
}
