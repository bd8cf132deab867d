/* udfkit's strings for CUDA C/C++: what a UDF takes for a `string` parameter
 * (udfkit::string_view, as cuda::std::optional<T> stands for T?), the builder a `string`
 * result is written through (udfkit_string_out, also udfkit::string_out), Arrow's three
 * string layouts as a column (udfkit::strings_column), and the functions of Python's str on
 * them, with CPython's semantics (docs/strings.md, "The CUDA C/C++ string library"). Text is
 * UTF-8; sizes and offsets are in bytes, lengths and positions in code points, as in Python.
 *
 * Invalid UTF-8: every function treats the bytes as Python's bytes.decode('utf-8',
 * 'replace') would give them, each ill-formed subsequence (its maximal subpart) one U+FFFD.
 * Views keep the original bytes; functions that write text write U+FFFD (EF BF BD) there.
 * No function reads outside [data(), data() + size()).
 *
 * Conventions: a function that can fail returns whether it succeeded (or a parse_status) and
 * gives its result through a pointer, outputs first; text results are appended to a
 * string_out, which comes first. Indices follow Python's, negative ones counting from the
 * end; `npos` stands for Python's omitted end.
 *
 * Usable under NVRTC (`udfkit compile` finds it), nvcc (the package's include directory) and
 * any C++17 host compiler, where udfkit's tests check it against CPython. Needs no other
 * header. The Unicode tables (string_unicode.cuh, about 32 KB) and the powers of five
 * (string_pow5.cuh, about 11 KB) are read-only device memory, read only for non-ASCII text
 * and for numbers that need them. */
#ifndef UDFKIT_STRING_CUH
#define UDFKIT_STRING_CUH

/* Small functions are inlined where called; the loops of the common operations are left to
 * the compiler; large functions (case mappings, splits, numbers, and the non-ASCII paths:
 * decoding, the table lookup) are compiled once and called (in device code), so that a UDF
 * using many of them stays small and quick to compile. */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define UDFKIT_HD __host__ __device__ __forceinline__
#define UDFKIT_HDI __host__ __device__ inline
#else
#define UDFKIT_HD inline
#define UDFKIT_HDI inline
#endif
#ifdef __CUDA_ARCH__
#define UDFKIT_HDN __host__ __device__ __noinline__ inline
#define UDFKIT_NO_UNROLL _Pragma("unroll 1")
#define UDFKIT_UNROLL _Pragma("unroll")
#else
#define UDFKIT_HDN UDFKIT_HDI
#define UDFKIT_NO_UNROLL
#define UDFKIT_UNROLL
#endif

/* A table: a static of a function of internal linkage, in device code global memory that
 * nothing registers, so that a translation unit holds only the tables its functions read. */
#define UDFKIT_STRING_TABLE(type, name, ...)                                                                           \
    static UDFKIT_HD const type *name()                                                                                \
    {                                                                                                                  \
        static const type table[] = __VA_ARGS__;                                                                       \
        return table;                                                                                                  \
    }

/* GCC's -Warray-bounds and -Wstringop-overread see reads past short literals on paths that
 * the size checks rule out (a word read only where 8 bytes remain, a fourth byte only where
 * it exists). */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC_RTC__) && !defined(__CUDA_ARCH__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#define UDFKIT_STRING_DIAGNOSTICS_PUSHED
#endif

struct udfkit_string_out;

namespace udfkit {

typedef ::udfkit_string_out string_out;

/* What to_int and to_double return: parse_ok, or why not (Python's ValueError is
 * parse_invalid). */
enum parse_status { parse_ok = 0, parse_invalid = 1, parse_overflow = 2 };

/* Bytes of UTF-8 text in memory the view does not own: a pointer and a size in bytes, as
 * std::string_view, not NUL-terminated. */
class string_view {
  public:
    /* Python's omitted end (of find, count, slices, ...): past any string. */
    static constexpr long long npos = 0x7fffffffffffffffLL;

    UDFKIT_HD string_view() : data_(nullptr), size_(0) {}
    UDFKIT_HD string_view(const char *data, long long size) : data_(data), size_(size < 0 ? 0 : size) {}
    /* A NUL-terminated literal or array (as for strlen, not NULL; the host takes NULL as
     * empty). On the device its first 16 bytes are looked at one by one, so that a literal's
     * size (and what the functions find out about it) is known when compiled: a test of the
     * pointer against NULL would keep it from being known. */
    UDFKIT_HD string_view(const char *text) : data_(text), size_(0)
    {
#ifdef __CUDA_ARCH__
        UDFKIT_UNROLL
        for (int k = 0; k < 16; k++) {
            if (!text[k]) {
                size_ = k;
                return;
            }
        }
        size_ = 16;
#else
        if (!text)
            return;
#endif
        while (text[size_])
            size_++;
    }
    UDFKIT_HD const char *data() const { return data_; }
    UDFKIT_HD long long size() const { return size_; }
    UDFKIT_HD bool empty() const { return size_ == 0; }
    UDFKIT_HD unsigned char byte(long long i) const { return (unsigned char)data_[i]; }

    /* len(s): code points, an ill-formed subsequence counting one. */
    UDFKIT_HD long long length() const;
    /* Whether the bytes are well-formed UTF-8 (then no U+FFFD is made up). */
    UDFKIT_HD bool is_valid_utf8() const;
    /* <0, 0, >0 as Python orders the two strs: by code points (for valid UTF-8, the bytes'
     * order). The operators ==, !=, <, <=, >, >= below compare so. */
    UDFKIT_HDI int compare(string_view other) const;

    /* Python's s.find(sub, start, end), s.rfind(...), s.count(...), sub in s,
     * s.startswith(prefix, start, end), s.endswith(...): positions in code points, start and
     * end clamped as Python does (negative ones from the end); find and rfind give -1 where
     * sub is not found. */
    UDFKIT_HDI long long find(string_view sub, long long start = 0, long long end = npos) const;
    UDFKIT_HDI long long rfind(string_view sub, long long start = 0, long long end = npos) const;
    UDFKIT_HDI long long count(string_view sub, long long start = 0, long long end = npos) const;
    UDFKIT_HDI bool contains(string_view sub) const;
    UDFKIT_HDI bool starts_with(string_view prefix, long long start = 0, long long end = npos) const;
    UDFKIT_HDI bool ends_with(string_view suffix, long long start = 0, long long end = npos) const;

    /* Parts of s, as views of its bytes. substr: `count` code points from s[pos] (pos < 0
     * from the end), clamped to s. slice: s[start:stop] (npos for an omitted stop). at:
     * s[i], false where Python raises IndexError; code_point_at: ord(s[i]). */
    UDFKIT_HDI string_view substr(long long pos, long long count = npos) const;
    UDFKIT_HDI string_view slice(long long start, long long stop = npos) const;
    UDFKIT_HDI bool at(string_view *ch, long long i) const;
    UDFKIT_HDI bool code_point_at(unsigned *cp, long long i) const;
    /* s.strip(), s.lstrip(), s.rstrip(): whitespace as str.isspace; with `chars`, the code
     * points of chars, as Python's argument. */
    UDFKIT_HDI string_view strip() const;
    UDFKIT_HDI string_view lstrip() const;
    UDFKIT_HDI string_view rstrip() const;
    UDFKIT_HDN string_view strip(string_view chars) const;
    UDFKIT_HDN string_view lstrip(string_view chars) const;
    UDFKIT_HDN string_view rstrip(string_view chars) const;
    /* s.removeprefix(prefix), s.removesuffix(suffix). */
    UDFKIT_HDI string_view remove_prefix(string_view prefix) const;
    UDFKIT_HDI string_view remove_suffix(string_view suffix) const;
    /* s.split(sep, maxsplit)[k] and s.rsplit(sep, maxsplit)[k] (k < 0 from the end; maxsplit
     * < 0 for none): false where Python raises IndexError, or ValueError (an empty sep).
     * Without sep, as s.split(None, maxsplit)[k]: runs of whitespace. split_count gives
     * len(s.split(sep, maxsplit)) (0 for an empty sep). */
    UDFKIT_HDN bool split_part(string_view *part, string_view sep, long long k, long long maxsplit = -1) const;
    UDFKIT_HDN bool rsplit_part(string_view *part, string_view sep, long long k, long long maxsplit = -1) const;
    UDFKIT_HDN bool split_part(string_view *part, long long k, long long maxsplit = -1) const;
    UDFKIT_HDN bool rsplit_part(string_view *part, long long k, long long maxsplit = -1) const;
    UDFKIT_HDN long long split_count(string_view sep, long long maxsplit = -1) const;
    UDFKIT_HDN long long split_count(long long maxsplit = -1) const;

    /* str.isalnum() ... str.isupper(): CPython's per-character Unicode properties, and its
     * results for the empty string (is_ascii and is_printable true, the others false). */
    UDFKIT_HDI bool is_alnum() const;
    UDFKIT_HDI bool is_alpha() const;
    UDFKIT_HDI bool is_ascii() const;
    UDFKIT_HDI bool is_decimal() const;
    UDFKIT_HDI bool is_digit() const;
    UDFKIT_HDI bool is_identifier() const;
    UDFKIT_HDI bool is_lower() const;
    UDFKIT_HDI bool is_numeric() const;
    UDFKIT_HDI bool is_printable() const;
    UDFKIT_HDI bool is_space() const;
    UDFKIT_HDI bool is_title() const;
    UDFKIT_HDI bool is_upper() const;

    /* Appended to `out`: s.upper(), s.lower(), s.capitalize(), s.title(), s.swapcase(),
     * s.casefold() with full case mappings ("ß" -> "SS", final sigma), s.zfill(width),
     * s.ljust/rjust/center(width, fill), s.replace(old, new, count) (count < 0: all), and
     * s[start:stop:step] (false for a zero step; npos and -npos - 1 stand for omitted start
     * and stop as PySlice_Unpack replaces them: for a negative step, start npos and stop
     * -npos - 1). */
    UDFKIT_HDI void to_upper(string_out &out) const;
    UDFKIT_HDI void to_lower(string_out &out) const;
    UDFKIT_HDI void capitalize(string_out &out) const;
    UDFKIT_HDI void title(string_out &out) const;
    UDFKIT_HDI void swapcase(string_out &out) const;
    UDFKIT_HDI void casefold(string_out &out) const;
    UDFKIT_HDN void zfill(string_out &out, long long width) const;
    UDFKIT_HDN void ljust(string_out &out, long long width, unsigned fill = ' ') const;
    UDFKIT_HDN void rjust(string_out &out, long long width, unsigned fill = ' ') const;
    UDFKIT_HDN void center(string_out &out, long long width, unsigned fill = ' ') const;
    UDFKIT_HDN void replace(string_out &out, string_view old, string_view repl, long long count = -1) const;
    UDFKIT_HDN bool slice(string_out &out, long long start, long long stop, long long step) const;

    /* int(s, base) (base 0 or 2 to 36) and float(s): Python's syntax (surrounding
     * whitespace, a sign, underscores between digits, Unicode decimal digits; "inf",
     * "infinity" and "nan" in any case) and results, float correctly rounded as CPython's.
     * parse_overflow: a valid int outside int64. The value is set only on parse_ok. */
    UDFKIT_HDN parse_status to_int(long long *value, int base = 10) const;
    UDFKIT_HDN parse_status to_double(double *value) const;

    /* XXH64 of the bytes (xxHash's), seeded. Equal views hash equal where the bytes are
     * equal; two different ill-formed subsequences compare equal (both U+FFFD) yet hash
     * differently. */
    UDFKIT_HDI unsigned long long hash(unsigned long long seed = 0) const;

  private:
    const char *data_;
    long long size_;
};

} /* namespace udfkit */

/* The builder of a `string` result or output (SPEC.md, "Strings"): the kernel passes one per
 * row. A result is built twice, by the same UDF over the same row: first measured (data is
 * NULL: only the size counts), then written into the bytes the first pass sized (capacity).
 * Bytes past the capacity are not written, and the row is marked overflowed (a UDF that
 * builds a different result the second time). */
struct udfkit_string_out {
    char *data;         /* NULL while measuring */
    long long size;     /* bytes appended so far */
    long long capacity; /* bytes the row has (writing) */
    int overflowed;     /* appended past the capacity */

    /* Bytes as they are (inlined: measuring, it is an addition). */
    UDFKIT_HDI void append(const char *bytes, long long n)
    {
        if (n <= 0)
            return;
        if (data) {
            long long room = capacity - size;
            long long k = n < room ? n : (room > 0 ? room : 0);
            char *to = data + size;
            long long i = 0;
#ifdef __CUDA_ARCH__
            /* A store a byte costs a cache sector a byte where the threads of a warp write
             * rows apart: from the first aligned word on, 4 bytes a store. */
            if (k >= 4) {
                for (; ((unsigned long long)(to + i) & 3) != 0; i++)
                    to[i] = bytes[i];
                for (; i + 4 <= k; i += 4)
                    *reinterpret_cast<unsigned *>(to + i) =
                        (unsigned)(unsigned char)bytes[i] | (unsigned)(unsigned char)bytes[i + 1] << 8 |
                        (unsigned)(unsigned char)bytes[i + 2] << 16 | (unsigned)(unsigned char)bytes[i + 3] << 24;
            }
#endif
            for (; i < k; i++)
                to[i] = bytes[i];
            if (k < n)
                overflowed = 1;
        }
        size += n;
    }
    /* One byte as it is. */
    UDFKIT_HD void append(char c)
    {
        if (data) {
            if (size < capacity)
                data[size] = c;
            else
                overflowed = 1;
        }
        size++;
    }
    /* The text of s, as Python's out + s: an ill-formed subsequence as U+FFFD. */
    UDFKIT_HDN void append(udfkit::string_view s);
    /* One code point as UTF-8 (a surrogate or one past U+10FFFF as U+FFFD). */
    UDFKIT_HDN void append_code_point(unsigned cp);
    /* str(v) of an integer, repr(v) (= str(v)) of a double: the shortest text that reads
     * back as v, laid out as CPython's ("1e+16", "0.0001", "inf", "nan", "-0.0"). */
    UDFKIT_HDI void append_int(long long v);
    UDFKIT_HDI void append_uint(unsigned long long v);
    UDFKIT_HDN void append_double(double v);
    /* s * n: the text of s, n times (none where n <= 0). */
    UDFKIT_HDI void append_repeated(udfkit::string_view s, long long n);
};

namespace udfkit {

UDFKIT_HD bool operator==(string_view a, string_view b);
UDFKIT_HD bool operator!=(string_view a, string_view b) { return !(a == b); }
UDFKIT_HD bool operator<(string_view a, string_view b) { return a.compare(b) < 0; }
UDFKIT_HD bool operator<=(string_view a, string_view b) { return a.compare(b) <= 0; }
UDFKIT_HD bool operator>(string_view a, string_view b) { return a.compare(b) > 0; }
UDFKIT_HD bool operator>=(string_view a, string_view b) { return a.compare(b) >= 0; }

/* Arrow's string layouts (udfkit_string_layout in <udfkit/runtime.h>). */
enum string_layout { utf8 = 0, large_utf8 = 1, utf8_view = 2 };

/* A string column as a launcher takes it (udfkit_strings in <udfkit/runtime.h>, the same
 * bytes): row i is the Arrow array's row offset + i. */
struct strings_column {
    int layout;
    const void *offsets;        /* utf8: int offsets[]; large_utf8: long long offsets[]; utf8_view: the views */
    const char *chars;          /* utf8, large_utf8: the bytes */
    const char *const *buffers; /* utf8_view: the data buffers */
    unsigned long long offset;

    UDFKIT_HD string_view operator[](unsigned long long i) const
    {
        const unsigned long long r = offset + i;
        /* A column of empty strings may have no bytes (Arrow's data buffer NULL): its rows
         * then point at the offsets, so that no row's pointer is NULL (a kernel tells the
         * compiler its rows are in global memory). */
        const char *const bytes = chars ? chars : static_cast<const char *>(offsets);
        if (layout == utf8) {
            const int *o = static_cast<const int *>(offsets);
            return string_view(bytes + o[r], (long long)o[r + 1] - o[r]);
        }
        if (layout == large_utf8) {
            const long long *o = static_cast<const long long *>(offsets);
            return string_view(bytes + o[r], o[r + 1] - o[r]);
        }
        /* A 16-byte view: the length, then the bytes themselves where they fit in 12, else a
         * 4-byte prefix, the data buffer's index and the offset in it. */
        const char *v = static_cast<const char *>(offsets) + 16 * r;
#ifdef __CUDA_ARCH__
        /* One 16-byte load where the views are so aligned (Arrow's buffers are, as allocated). */
        if ((reinterpret_cast<unsigned long long>(offsets) & 15) == 0) {
            const int4 q = *reinterpret_cast<const int4 *>(v);
            if (q.x <= 12)
                return string_view(v + 4, q.x);
            return string_view(buffers[q.z] + q.w, q.x);
        }
#endif
        const int *w = reinterpret_cast<const int *>(v);
        if (w[0] <= 12)
            return string_view(v + 4, w[0]);
        return string_view(buffers[w[2]] + w[3], w[0]);
    }
};

} /* namespace udfkit */

#include <udfkit/string_unicode.cuh>
#include <udfkit/string_pow5.cuh>
#include <udfkit/string_chars.cuh>
#include <udfkit/string_text.cuh>
#include <udfkit/string_case.cuh>
#include <udfkit/string_number.cuh>

#ifdef UDFKIT_STRING_DIAGNOSTICS_PUSHED
#pragma GCC diagnostic pop
#undef UDFKIT_STRING_DIAGNOSTICS_PUSHED
#endif

#undef UDFKIT_STRING_TABLE
#undef UDFKIT_NO_UNROLL
#undef UDFKIT_UNROLL
#undef UDFKIT_HDN
#undef UDFKIT_HDI
#undef UDFKIT_HD

#endif /* UDFKIT_STRING_CUH */
