/* String UDFs whose results are plain byte operations, so that tests/gpu/test_strings.c checks
 * the kernels' string plumbing (Arrow's three layouts, offsets, nulls, the two launches of
 * string results) against the same operations on the host. Every form a CUDA C UDF may take
 * is here: udfkit::string_view parameters, a returned view, the builder first, the C ABI.
 * What is appended as a view (a returned view, append(string_view)) is written as text, with
 * U+FFFD for ill-formed UTF-8; what is appended as bytes (append(const char *, n)) as it is. */
#include <udfkit/string.cuh>
#include <cuda/std/optional>

__device__ long long blen(udfkit::string_view s)
{
    return s.size();
}

__device__ bool nonempty(udfkit::string_view s)
{
    return !s.empty();
}

/* The first two bytes: a view of the input returned. */
__device__ udfkit::string_view head2(udfkit::string_view s)
{
    return udfkit::string_view(s.data(), s.size() < 2 ? s.size() : 2);
}

/* The builder first. */
__device__ void twice(udfkit::string_out &out, udfkit::string_view s)
{
    out.append(s);
    out.append(s);
}

/* The C ABI itself. */
extern "C" __device__ void cat(udfkit_string_out *out, const char *a, long long a_size, const char *b, long long b_size)
{
    out->append(a, a_size);
    out->append(b, b_size);
}

/* Several outputs, one a string. */
__device__ void parts(udfkit::string_view s, udfkit_string_out *copy, long long *size)
{
    copy->append(s);
    *size = s.size();
}

/* string? in and out: null for a null or empty input, else its first two bytes; a row
 * starting with '!' fails with code 7. */
__device__ cuda::std::optional<udfkit::string_view> maybe_head(cuda::std::optional<udfkit::string_view> s)
{
    if (!s || s->empty())
        return {};
    if (s->byte(0) == '!')
        udfkit_row_error(7);
    return udfkit::string_view(s->data(), s->size() < 2 ? s->size() : 2);
}

__device__ long long add(long long a, long long b)
{
    return a + b;
}

__device__ bool longer(udfkit::string_view s, long long k)
{
    return s.size() > k;
}

/* sort's comparator: shorter strings first (ties keep their input order: the sort is stable). */
__device__ bool shorter_first(udfkit::string_view a, udfkit::string_view b)
{
    return a.size() < b.size();
}
