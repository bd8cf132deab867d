// UDFs calling every part of <udfkit/string.cuh>, compiled by NVRTC through udfkit and by
// nvcc (tests/strings/test_string_compile.py). string_score takes a string in the C ABI
// pair form (a pointer and a size in bytes); number_text builds its text from a number.
#include <udfkit/string.cuh>

namespace {

__device__ long long views(udfkit::string_view s)
{
    udfkit::string_view part, ch;
    long long r = s.length() + s.strip().size() + s.lstrip().size() + s.rstrip().size() + s.strip(" xy").size() +
                  s.lstrip("ab").size() + s.rstrip("\xce\xa3").size() + s.substr(1, 3).size() + s.slice(-3).size() +
                  s.remove_prefix("a").size() + s.remove_suffix("z").size();
    r += s.split_part(&part, ",", 1) ? part.size() : -1;
    r += s.rsplit_part(&part, ",", -1, 1) ? part.size() : -1;
    r += s.split_part(&part, 0) ? part.size() : -1;
    r += s.rsplit_part(&part, -1, 2) ? part.size() : -1;
    r += s.split_count(",") + s.split_count();
    r += s.at(&ch, -1) ? ch.size() : -1;
    unsigned cp = 0;
    r += s.code_point_at(&cp, 0) ? cp : 0;
    return r;
}

__device__ long long searches(udfkit::string_view s)
{
    return s.find("ab") + s.find("\xc3\x9f", 1, -1) + s.rfind("a") + s.count("a", 0, 10) + s.contains("x") +
           s.starts_with("he") + s.ends_with("lo", -5) + (s == "abc") + (s != "abd") + (s < "b") + (s <= "b") +
           (s > "a") + (s >= "a") + s.compare("hello") + s.is_valid_utf8();
}

__device__ long long predicates(udfkit::string_view s)
{
    return s.is_alnum() + 2 * s.is_alpha() + 4 * s.is_ascii() + 8 * s.is_decimal() + 16 * s.is_digit() +
           32 * s.is_identifier() + 64 * s.is_lower() + 128 * s.is_numeric() + 256 * s.is_printable() +
           512 * s.is_space() + 1024 * s.is_title() + 2048 * s.is_upper();
}

// Every writer, measured as a kernel's first pass does.
__device__ long long written(udfkit::string_view s)
{
    udfkit::string_out out = {nullptr, 0, 0, 0};
    s.to_upper(out);
    s.to_lower(out);
    s.capitalize(out);
    s.title(out);
    s.swapcase(out);
    s.casefold(out);
    s.zfill(out, 12);
    s.ljust(out, 10);
    s.rjust(out, 10, '*');
    s.center(out, 11, 0x3A3);
    s.replace(out, "a", "\xce\xa3", 2);
    s.slice(out, -1, -udfkit::string_view::npos - 1, -2);
    out.append(s);
    out.append_repeated(s, 2);
    out.append_code_point(0x1F600);
    out.append('!');
    out.append("raw", 3);
    return out.size + out.overflowed;
}

__device__ long long numbers(udfkit::string_view s)
{
    long long i = 0;
    double d = 0;
    const udfkit::parse_status is = s.to_int(&i, 0), ds = s.to_double(&d);
    char buf[64];
    udfkit::string_out out = {buf, 0, sizeof buf, 0};
    out.append_int(i);
    out.append_uint((unsigned long long)i);
    out.append_double(d);
    return i + (long long)d + is + ds + out.size + (long long)s.hash(42);
}

} // namespace

extern "C" __device__ long long string_score(const char *s, long long s_size)
{
    const udfkit::string_view v(s, s_size);
    return views(v) + searches(v) + predicates(v) + written(v) + numbers(v);
}

extern "C" __device__ long long number_text(long long x)
{
    char buf[96];
    udfkit::string_out out = {buf, 0, sizeof buf, 0};
    out.append("  ", 2);
    out.append_int(x);
    out.append(",\xce\xa3\xe1\xbd\x88 ", 9);
    out.append_double((double)x / 7);
    return string_score(buf, out.size);
}
