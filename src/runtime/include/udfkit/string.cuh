/* udfkit's strings for CUDA C/C++: what a UDF takes for a `string` parameter
 * (udfkit::string_view, as cuda::std::optional<T> stands for T?), the builder a `string`
 * result is written through (udfkit_string_out, also udfkit::string_out), and Arrow's three
 * string layouts as a column (udfkit::strings_column). Text is UTF-8; sizes and offsets are
 * in bytes, lengths and positions in code points, as in Python (docs/strings.md).
 *
 * Usable under NVRTC (`udfkit compile` finds it) and nvcc (the package's include directory);
 * everything is __host__ __device__ and needs no other header, so that it also compiles for
 * the host, where udfkit's tests check it against CPython. */
#ifndef UDFKIT_STRING_CUH
#define UDFKIT_STRING_CUH

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define UDFKIT_HD __host__ __device__ __forceinline__
#else
#define UDFKIT_HD inline
#endif

namespace udfkit {

/* Bytes of UTF-8 text in memory the view does not own: a pointer and a size in bytes, as
 * std::string_view, not NUL-terminated. */
class string_view {
  public:
    UDFKIT_HD string_view() : data_(nullptr), size_(0) {}
    UDFKIT_HD string_view(const char *data, long long size) : data_(data), size_(size < 0 ? 0 : size) {}
    /* A NUL-terminated literal or array. */
    UDFKIT_HD string_view(const char *text) : data_(text), size_(0)
    {
        while (text && text[size_])
            size_++;
    }
    UDFKIT_HD const char *data() const { return data_; }
    UDFKIT_HD long long size() const { return size_; }
    UDFKIT_HD bool empty() const { return size_ == 0; }
    UDFKIT_HD unsigned char byte(long long i) const { return (unsigned char)data_[i]; }

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

    UDFKIT_HD void append(const char *bytes, long long n)
    {
        if (n <= 0)
            return;
        if (data) {
            long long room = capacity - size;
            long long k = n < room ? n : (room > 0 ? room : 0);
            for (long long i = 0; i < k; i++)
                data[size + i] = bytes[i];
            if (k < n)
                overflowed = 1;
        }
        size += n;
    }
    UDFKIT_HD void append(udfkit::string_view s) { append(s.data(), s.size()); }
    UDFKIT_HD void append(char c) { append(&c, 1); }
};

namespace udfkit {

typedef ::udfkit_string_out string_out;

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
        if (layout == utf8) {
            const int *o = static_cast<const int *>(offsets);
            return string_view(chars + o[r], (long long)o[r + 1] - o[r]);
        }
        if (layout == large_utf8) {
            const long long *o = static_cast<const long long *>(offsets);
            return string_view(chars + o[r], o[r + 1] - o[r]);
        }
        /* A 16-byte view: the length, then the bytes themselves where they fit in 12, else a
         * 4-byte prefix, the data buffer's index and the offset in it. */
        const char *v = static_cast<const char *>(offsets) + 16 * r;
        const int *w = reinterpret_cast<const int *>(v);
        if (w[0] <= 12)
            return string_view(v + 4, w[0]);
        return string_view(buffers[w[2]] + w[3], w[0]);
    }
};

} /* namespace udfkit */

#undef UDFKIT_HD

#endif /* UDFKIT_STRING_CUH */
