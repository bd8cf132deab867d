/* <udfkit/string.cuh>: what string_view answers by reading: lengths, comparison, search,
 * parts as views, the str.is* predicates and the hash. */
#ifndef UDFKIT_STRING_TEXT_CUH
#define UDFKIT_STRING_TEXT_CUH

#ifndef UDFKIT_STRING_CUH
#error "include <udfkit/string.cuh>"
#endif

namespace udfkit {
namespace detail {

/* A range of code points [start, end) as Python's ADJUST_INDICES leaves it (start may lie past
 * the end; end is clamped to the length), with its bytes [b0, b1) (b1 == b0 where end <=
 * start). The length is counted only for negative indices; an end at or past the last byte
 * is the length, counted only where asked (c1 < 0 until then). */
struct window {
    long long b0, b1, c0, c1;
    UDFKIT_HD bool empty_range() const { return c1 >= 0 && c1 < c0; }
    UDFKIT_HD long long end(const byte *s) const { return c1 >= 0 ? c1 : c0 + count_code_points(s, b0, b1); }
};

UDFKIT_HDI window make_window(const byte *s, long long n, long long start, long long end)
{
    if (start < 0 || end < 0) {
        const long long len = count_code_points(s, 0, n);
        if (end > len)
            end = len;
        else if (end < 0)
            end = end + len < 0 ? 0 : end + len;
        if (start < 0)
            start = start + len < 0 ? 0 : start + len;
    }
    window w;
    long long taken;
    w.c0 = start;
    w.b0 = advance(s, n, 0, start, &taken);
    if (taken < start) {
        /* Past the end: the length is what was walked. */
        w.c1 = end < taken ? end : taken;
        w.b1 = w.b0;
        return w;
    }
    if (end <= start) {
        w.c1 = end;
        w.b1 = w.b0;
        return w;
    }
    if (end >= n) {
        /* Code points are no more than bytes: the end of the string. */
        w.c1 = -1;
        w.b1 = n;
        return w;
    }
    w.b1 = advance(s, n, w.b0, end - start, &taken);
    w.c1 = start + taken;
    return w;
}

/* A needle, searched byte by byte where that finds exactly its code points, else code point
 * by code point. */
struct needle {
    const byte *p;
    long long n;
    bool bytes;
    UDFKIT_HD needle(string_view s)
        : p((const byte *)s.data()), n(s.size()), bytes(searchable_as_bytes((const byte *)s.data(), s.size()))
    {
    }
};

/* Whether the n bytes at a and b are equal: 16 bytes at a time read without looking at them
 * in between (the loads independent of each other), a difference looked for after each 16. */
UDFKIT_HD bool same_bytes(const byte *a, const byte *b, long long n)
{
    for (long long j = 0; j < n; j += 16) {
        unsigned diff = 0;
        UDFKIT_UNROLL
        for (int k = 0; k < 16; k++)
            if (j + k < n)
                diff |= (unsigned)(a[j + k] ^ b[j + k]);
        if (diff != 0)
            return false;
    }
    return true;
}

/* Where the needle's code points follow s[i] within [i, to): the end of the match, or -1. */
UDFKIT_HD long long match_at(const byte *s, long long i, long long to, const needle &nd)
{
    if (nd.bytes) {
        if (nd.n > to - i)
            return -1;
        return same_bytes(s + i, nd.p, nd.n) ? i + nd.n : -1;
    }
    for (long long j = 0; j < nd.n;) {
        if (i >= to)
            return -1;
        unsigned a, b;
        i += decode_at(s, i, to, &a);
        j += decode_at(nd.p, j, nd.n, &b);
        if (a != b)
            return -1;
    }
    return i;
}

UDFKIT_HD bool has_zero_byte(const byte *p, long long n)
{
    bool zero = false;
    for (long long j = 0; j < n; j++)
        zero |= p[j] == 0;
    return zero;
}

/* Where in 4 words of text w[2..5] (w[0..1] the 8 bytes before them) the first match of a
 * needle of 1 to 8 bytes ends (a byte index 0 to 15), or -1: the bytes equal to its last byte
 * (last, repeated) and preceded by the one before (before, where two) are found a word at a
 * time; only there are the 8 bytes ending there compared with it (pat, under mask). */
UDFKIT_HD int find_in_words(const unsigned *w, unsigned last, unsigned before, bool two, unsigned long long pat,
                            unsigned long long mask)
{
    unsigned cand[4], any = 0;
    UDFKIT_UNROLL
    for (int q = 0; q < 4; q++) {
        cand[q] = zero_bytes(w[q + 2] ^ last);
        if (two)
            cand[q] &= zero_bytes(funnel(w[q + 1], w[q + 2], 1) ^ before);
        any |= cand[q];
    }
    if (any == 0)
        return -1;
    UDFKIT_UNROLL
    for (int q = 0; q < 4; q++) {
        const unsigned long long prior = (unsigned long long)w[q + 1] << 32 | w[q];
        for (unsigned c = cand[q]; c != 0; c &= c - 1) {
#ifdef __CUDA_ARCH__
            const int k = (__ffs(c) - 1) >> 3;
#else
            const int k = __builtin_ctz(c) >> 3;
#endif
            /* The 8 bytes that end with byte k of word q. */
            const unsigned long long at = (prior >> (8 * (k + 1))) | ((unsigned long long)w[q + 2] << (56 - 8 * k));
            if ((at & mask) == pat)
                return 4 * q + k;
        }
    }
    return -1;
}

/* The first i in [from, to - m] where the m bytes at s + i are p's (1 <= m <= 8, no zero byte
 * in p), or -1. The text is read in groups of 4 aligned words, loaded before any is looked at;
 * the bytes of a word outside [from, to) are zeros (not read), which p does not hold, so that
 * a match lies in [from, to). */
UDFKIT_HD long long find_short(const byte *s, long long from, long long to, const byte *p, int m)
{
    typedef unsigned long long u64;
    if (to - from < m)
        return -1;
    u64 pat = 0;
    for (int k = 0; k < m; k++)
        pat |= (u64)p[k] << (64 - 8 * m + 8 * k);
    const u64 mask = ~0ull << (64 - 8 * m);
    const unsigned last = p[m - 1] * 0x01010101u, before = m >= 2 ? p[m - 2] * 0x01010101u : 0u;
    unsigned w[6];
    w[0] = w[1] = 0; /* the 8 bytes before the group */
    for (long long i = from - (long long)((unsigned long long)(s + from) & 3); i < to; i += 16) {
        if (i >= from && i + 16 <= to) {
            UDFKIT_UNROLL
            for (int q = 0; q < 4; q++)
                w[q + 2] = load4(s + i + 4 * q);
        } else {
            UDFKIT_UNROLL
            for (int q = 0; q < 4; q++) {
                const long long base = i + 4 * q, lo = from - base, hi = to - base;
                w[q + 2] = lo <= 0 && hi >= 4 ? load4(s + base)
                                             : load4_part(s + base, lo < 0 ? 0 : lo, hi > 4 ? 4 : hi < 0 ? 0 : hi);
            }
        }
        const int k = find_in_words(w, last, before, m >= 2, pat, mask);
        if (k >= 0)
            return i + k + 1 - m;
        w[0] = w[4];
        w[1] = w[5];
    }
    return -1;
}

/* The first match (of a non-empty needle) at a code point of [from, to), from one: its
 * start, and its end in *end; -1 where none. */
UDFKIT_HDI long long find_match(const byte *s, long long from, long long to, const needle &nd, long long *end)
{
    if (nd.bytes && nd.n <= 8 && !has_zero_byte(nd.p, nd.n) && to - from >= 128) {
        const long long at = find_short(s, from, to, nd.p, (int)nd.n);
        if (at >= 0)
            *end = at + nd.n;
        return at;
    }
    if (nd.bytes) {
        const byte first = nd.p[0];
        for (long long i = from, last = to - nd.n; i <= last; i++) {
            if (s[i] != first)
                continue;
            long long j = 1;
            while (j < nd.n && s[i + j] == nd.p[j])
                j++;
            if (j == nd.n) {
                *end = i + nd.n;
                return i;
            }
        }
        return -1;
    }
    for (long long i = from; i < to;) {
        const long long e = match_at(s, i, to, nd);
        if (e >= 0) {
            *end = e;
            return i;
        }
        unsigned cp;
        i += decode_at(s, i, to, &cp);
    }
    return -1;
}

/* The last match within [from, to), as find_match. */
UDFKIT_HDI long long rfind_match(const byte *s, long long from, long long to, const needle &nd, long long *end)
{
    if (nd.bytes) {
        for (long long i = to - nd.n; i >= from; i--) {
            if (match_at(s, i, to, nd) >= 0) {
                *end = i + nd.n;
                return i;
            }
        }
        return -1;
    }
    /* From the end back, code point by code point (to is a code point boundary). */
    for (long long i = to; i > from;) {
        i = step_back(s, i);
        const long long e = match_at(s, i, to, nd);
        if (e >= 0) {
            *end = e;
            return i;
        }
    }
    return -1;
}

/* Non-overlapping matches in [from, to), up to `most`. */
UDFKIT_HDI long long count_matches(const byte *s, long long from, long long to, const needle &nd, long long most)
{
    long long count = 0, end;
    while (count < most) {
        const long long at = find_match(s, from, to, nd, &end);
        if (at < 0)
            break;
        count++;
        from = end;
    }
    return count;
}

/* Whether the needle ends exactly at `to`, starting at or after `from`. */
UDFKIT_HD bool match_before(const byte *s, long long from, long long to, const needle &nd)
{
    if (nd.bytes)
        return nd.n <= to - from && same_bytes(s + to - nd.n, nd.p, nd.n);
    long long j = nd.n;
    while (j > 0) {
        if (to <= from)
            return false;
        const long long i = step_back(s, to), k = step_back(nd.p, j);
        unsigned a, b;
        decode_at(s, i, to, &a);
        decode_at(nd.p, k, j, &b);
        if (a != b)
            return false;
        to = i;
        j = k;
    }
    return true;
}

/* Members of a strip() `chars` argument, the ASCII ones in a bitmap. */
struct char_set {
    const byte *p;
    long long n;
    unsigned long long ascii[2];
    bool all_ascii;
    UDFKIT_HD char_set(string_view chars) : p((const byte *)chars.data()), n(chars.size()), all_ascii(true)
    {
        ascii[0] = ascii[1] = 0;
        for (long long i = 0; i < n; i++) {
            if (p[i] < 0x80)
                ascii[p[i] >> 6] |= 1ull << (p[i] & 63);
            else
                all_ascii = false;
        }
    }
    UDFKIT_HD bool has(unsigned cp) const
    {
        if (cp < 0x80)
            return (ascii[cp >> 6] >> (cp & 63)) & 1;
        if (all_ascii)
            return false;
        for (long long i = 0; i < n;) {
            unsigned c;
            i += decode_at(p, i, n, &c);
            if (c == cp)
                return true;
        }
        return false;
    }
};

/* Whitespace as str.isspace, for strip() and split() without arguments. */
struct space_set {
    UDFKIT_HD bool has(unsigned cp) const { return unicode::is_space(cp); }
};

template <typename Set> UDFKIT_HD long long strip_left(const byte *s, long long n, const Set &set)
{
    long long i = 0;
    while (i < n) {
        unsigned cp;
        const int k = decode_at(s, i, n, &cp);
        if (!set.has(cp))
            break;
        i += k;
    }
    return i;
}

template <typename Set> UDFKIT_HD long long strip_right(const byte *s, long long from, long long n, const Set &set)
{
    long long j = n;
    while (j > from) {
        const long long i = step_back(s, j);
        unsigned cp;
        decode_at(s, i, j, &cp);
        if (!set.has(cp))
            break;
        j = i;
    }
    return j;
}

/* The end of the code points from i that are (or, with want false, are not) whitespace. */
UDFKIT_HD long long skip_spaces(const byte *s, long long i, long long n, bool want)
{
    while (i < n) {
        unsigned cp;
        const int k = decode_at(s, i, n, &cp);
        if (unicode::is_space(cp) != want)
            break;
        i += k;
    }
    return i;
}

UDFKIT_HD long long skip_spaces_back(const byte *s, long long j, bool want)
{
    while (j > 0) {
        const long long i = step_back(s, j);
        unsigned cp;
        decode_at(s, i, j, &cp);
        if (unicode::is_space(cp) != want)
            break;
        j = i;
    }
    return j;
}

/* Whether every code point has one of the flags in `mask` (false for no code point). */
UDFKIT_HD bool all_have(const byte *s, long long n, unsigned mask)
{
    if (n == 0)
        return false;
    for (long long i = 0; i < n;) {
        unsigned cp;
        i += decode_at(s, i, n, &cp);
        if (!(unicode::flags(cp) & mask))
            return false;
    }
    return true;
}

/* str.islower (upper false) and str.isupper (upper true), as CPython: no code point of the
 * other case or title case, and one cased. */
UDFKIT_HD bool all_cased_as(const byte *s, long long n, bool upper)
{
    const unsigned same = upper ? unicode::flag_upper : unicode::flag_lower;
    const unsigned other = (upper ? unicode::flag_lower : unicode::flag_upper) | unicode::flag_title;
    bool cased = false;
    for (long long i = 0; i < n;) {
        unsigned cp;
        i += decode_at(s, i, n, &cp);
        const unsigned f = unicode::flags(cp);
        if (f & other)
            return false;
        cased = cased || (f & same);
    }
    return cased;
}

UDFKIT_HD unsigned long long rotl64(unsigned long long x, int r) { return (x << r) | (x >> (64 - r)); }

/* Little-endian loads of any alignment. */
UDFKIT_HD unsigned long long read64(const byte *p)
{
    unsigned long long v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

UDFKIT_HD unsigned long long xxh64_round(unsigned long long acc, unsigned long long input)
{
    acc += input * 0xC2B2AE3D27D4EB4FULL;
    return rotl64(acc, 31) * 0x9E3779B185EBCA87ULL;
}

UDFKIT_HD unsigned long long xxh64_merge(unsigned long long acc, unsigned long long v)
{
    acc ^= xxh64_round(0, v);
    return acc * 0x9E3779B185EBCA87ULL + 0x85EBCA77C2B2AE63ULL;
}

} /* namespace detail */

UDFKIT_HD long long string_view::length() const
{
    return detail::count_code_points((const detail::byte *)data_, 0, size_);
}

UDFKIT_HD bool string_view::is_valid_utf8() const
{
    const detail::byte *s = (const detail::byte *)data_;
    for (long long i = 0; i < size_;) {
        i += detail::ascii_run(s + i, size_ - i);
        if (i < size_) {
            unsigned cp;
            const int k = utf8_decode(data_ + i, data_ + size_, &cp);
            if (detail::ill_formed(s, i, k, cp))
                return false;
            i += k;
        }
    }
    return true;
}

/* Equal bytes compare equal; elsewhere the strings are decoded from the code point where
 * their bytes first differ (a code point boundary of both, found as step_back finds one). */
UDFKIT_HDI int string_view::compare(string_view other) const
{
    const detail::byte *a = (const detail::byte *)data_, *b = (const detail::byte *)other.data_;
    const long long na = size_, nb = other.size_, n = na < nb ? na : nb;
    long long i = 0;
    while (i < n && a[i] == b[i])
        i++;
    if (i == na && i == nb)
        return 0;
    long long pa = i;
    for (long long k = i - 1; k >= 0 && k >= i - 3; k--) {
        if (!detail::is_continuation(a[k])) {
            pa = k;
            break;
        }
    }
    long long pb = pa;
    while (pa < na && pb < nb) {
        unsigned ca, cb;
        pa += detail::decode_at(a, pa, na, &ca);
        pb += detail::decode_at(b, pb, nb, &cb);
        if (ca != cb)
            return ca < cb ? -1 : 1;
    }
    return (pa < na) - (pb < nb);
}

UDFKIT_HD bool operator==(string_view a, string_view b)
{
    if (a.size() == b.size() &&
        detail::same_bytes((const detail::byte *)a.data(), (const detail::byte *)b.data(), a.size()))
        return true;
    return a.compare(b) == 0;
}

UDFKIT_HDI long long string_view::find(string_view sub, long long start, long long end) const
{
    const detail::byte *s = (const detail::byte *)data_;
    const detail::window w = detail::make_window(s, size_, start, end);
    if (w.empty_range())
        return -1;
    if (sub.empty())
        return w.c0;
    long long match_end;
    const long long at = detail::find_match(s, w.b0, w.b1, detail::needle(sub), &match_end);
    return at < 0 ? -1 : w.c0 + detail::count_code_points(s, w.b0, at);
}

UDFKIT_HDI long long string_view::rfind(string_view sub, long long start, long long end) const
{
    const detail::byte *s = (const detail::byte *)data_;
    const detail::window w = detail::make_window(s, size_, start, end);
    if (w.empty_range())
        return -1;
    if (sub.empty())
        return w.end(s);
    long long match_end;
    const long long at = detail::rfind_match(s, w.b0, w.b1, detail::needle(sub), &match_end);
    return at < 0 ? -1 : w.c0 + detail::count_code_points(s, w.b0, at);
}

UDFKIT_HDI long long string_view::count(string_view sub, long long start, long long end) const
{
    const detail::byte *s = (const detail::byte *)data_;
    const detail::window w = detail::make_window(s, size_, start, end);
    if (w.empty_range())
        return 0;
    if (sub.empty())
        return w.end(s) - w.c0 + 1;
    return detail::count_matches(s, w.b0, w.b1, detail::needle(sub), npos);
}

UDFKIT_HDI bool string_view::contains(string_view sub) const
{
    long long end;
    return sub.empty() || detail::find_match((const detail::byte *)data_, 0, size_, detail::needle(sub), &end) >= 0;
}

UDFKIT_HDI bool string_view::starts_with(string_view prefix, long long start, long long end) const
{
    const detail::byte *s = (const detail::byte *)data_;
    const detail::window w = detail::make_window(s, size_, start, end);
    if (w.empty_range())
        return false;
    return prefix.empty() || detail::match_at(s, w.b0, w.b1, detail::needle(prefix)) >= 0;
}

UDFKIT_HDI bool string_view::ends_with(string_view suffix, long long start, long long end) const
{
    const detail::byte *s = (const detail::byte *)data_;
    const detail::window w = detail::make_window(s, size_, start, end);
    if (w.empty_range())
        return false;
    return suffix.empty() || detail::match_before(s, w.b0, w.b1, detail::needle(suffix));
}

UDFKIT_HDI string_view string_view::substr(long long pos, long long count) const
{
    const detail::byte *s = (const detail::byte *)data_;
    if (pos < 0) {
        pos += length();
        if (pos < 0)
            pos = 0;
    }
    if (count <= 0)
        count = 0;
    long long taken;
    const long long b0 = detail::advance(s, size_, 0, pos, &taken);
    /* Code points are no more than bytes: a count past the bytes left takes them all. */
    const long long b1 = count >= size_ - b0 ? size_ : detail::advance(s, size_, b0, count, &taken);
    return string_view(data_ + b0, b1 - b0);
}

UDFKIT_HDI string_view string_view::slice(long long start, long long stop) const
{
    /* PySlice_AdjustIndices with step 1; the length only where an index is negative. */
    if (start < 0 || stop < 0) {
        const long long len = length();
        if (start < 0)
            start = start + len < 0 ? 0 : start + len;
        if (stop < 0)
            stop = stop + len < 0 ? 0 : stop + len;
    }
    return substr(start, stop - start);
}

UDFKIT_HDI bool string_view::at(string_view *ch, long long i) const
{
    const detail::byte *s = (const detail::byte *)data_;
    if (i < 0) {
        i += length();
        if (i < 0)
            return false;
    }
    long long taken;
    const long long b = detail::advance(s, size_, 0, i, &taken);
    if (b >= size_)
        return false;
    unsigned cp;
    *ch = string_view(data_ + b, detail::decode_at(s, b, size_, &cp));
    return true;
}

UDFKIT_HDI bool string_view::code_point_at(unsigned *cp, long long i) const
{
    string_view ch;
    if (!at(&ch, i))
        return false;
    detail::decode_at((const detail::byte *)ch.data_, 0, ch.size_, cp);
    return true;
}

UDFKIT_HDI string_view string_view::strip() const
{
    const detail::byte *s = (const detail::byte *)data_;
    const long long i = detail::strip_left(s, size_, detail::space_set());
    return string_view(data_ + i, detail::strip_right(s, i, size_, detail::space_set()) - i);
}

UDFKIT_HDI string_view string_view::lstrip() const
{
    const long long i = detail::strip_left((const detail::byte *)data_, size_, detail::space_set());
    return string_view(data_ + i, size_ - i);
}

UDFKIT_HDI string_view string_view::rstrip() const
{
    return string_view(data_, detail::strip_right((const detail::byte *)data_, 0, size_, detail::space_set()));
}

UDFKIT_HDN string_view string_view::strip(string_view chars) const
{
    const detail::byte *s = (const detail::byte *)data_;
    const detail::char_set set(chars);
    const long long i = detail::strip_left(s, size_, set);
    return string_view(data_ + i, detail::strip_right(s, i, size_, set) - i);
}

UDFKIT_HDN string_view string_view::lstrip(string_view chars) const
{
    const long long i = detail::strip_left((const detail::byte *)data_, size_, detail::char_set(chars));
    return string_view(data_ + i, size_ - i);
}

UDFKIT_HDN string_view string_view::rstrip(string_view chars) const
{
    return string_view(data_, detail::strip_right((const detail::byte *)data_, 0, size_, detail::char_set(chars)));
}

UDFKIT_HDI string_view string_view::remove_prefix(string_view prefix) const
{
    const long long e = prefix.empty() ? 0 : detail::match_at((const detail::byte *)data_, 0, size_, detail::needle(prefix));
    return e < 0 ? *this : string_view(data_ + e, size_ - e);
}

UDFKIT_HDI string_view string_view::remove_suffix(string_view suffix) const
{
    const detail::byte *s = (const detail::byte *)data_;
    const detail::needle nd(suffix);
    if (suffix.empty() || !detail::match_before(s, 0, size_, nd))
        return *this;
    /* Where the match starts: as many code points back as the suffix has. */
    long long j = size_;
    for (long long k = nd.n; k > 0; k = detail::step_back(nd.p, k))
        j = detail::step_back(s, j);
    return string_view(data_, j);
}

UDFKIT_HDN long long string_view::split_count(string_view sep, long long maxsplit) const
{
    if (sep.empty())
        return 0;
    const long long most = maxsplit < 0 ? npos : maxsplit;
    return detail::count_matches((const detail::byte *)data_, 0, size_, detail::needle(sep), most) + 1;
}

UDFKIT_HDN bool string_view::split_part(string_view *part, string_view sep, long long k, long long maxsplit) const
{
    if (sep.empty())
        return false;
    const long long most = maxsplit < 0 ? npos : maxsplit;
    if (k < 0) {
        k += split_count(sep, maxsplit);
        if (k < 0)
            return false;
    }
    const detail::byte *s = (const detail::byte *)data_;
    const detail::needle nd(sep);
    long long i = 0;
    for (long long t = 0;; t++) {
        long long end;
        const long long at = t < most ? detail::find_match(s, i, size_, nd, &end) : -1;
        if (at < 0) {
            if (t != k)
                return false;
            *part = string_view(data_ + i, size_ - i);
            return true;
        }
        if (t == k) {
            *part = string_view(data_ + i, at - i);
            return true;
        }
        i = end;
    }
}

UDFKIT_HDN bool string_view::rsplit_part(string_view *part, string_view sep, long long k, long long maxsplit) const
{
    if (sep.empty())
        return false;
    const long long most = maxsplit < 0 ? npos : maxsplit;
    /* r: the part's place counted from the last one. */
    const long long r = k < 0 ? -k - 1 : split_count(sep, maxsplit) - 1 - k;
    if (r < 0)
        return false;
    const detail::byte *s = (const detail::byte *)data_;
    const detail::needle nd(sep);
    long long j = size_;
    for (long long t = 0;; t++) {
        long long end = 0;
        const long long at = t < most ? detail::rfind_match(s, 0, j, nd, &end) : -1;
        if (at < 0) {
            if (t != r)
                return false;
            *part = string_view(data_, j);
            return true;
        }
        if (t == r) {
            *part = string_view(data_ + end, j - end);
            return true;
        }
        j = at;
    }
}

UDFKIT_HDN long long string_view::split_count(long long maxsplit) const
{
    const detail::byte *s = (const detail::byte *)data_;
    const long long most = maxsplit < 0 ? npos : maxsplit;
    long long i = 0, parts = 0;
    while (parts < most) {
        i = detail::skip_spaces(s, i, size_, true);
        if (i == size_)
            return parts;
        i = detail::skip_spaces(s, i, size_, false);
        parts++;
    }
    return detail::skip_spaces(s, i, size_, true) < size_ ? parts + 1 : parts;
}

UDFKIT_HDN bool string_view::split_part(string_view *part, long long k, long long maxsplit) const
{
    if (k < 0) {
        k += split_count(maxsplit);
        if (k < 0)
            return false;
    }
    const detail::byte *s = (const detail::byte *)data_;
    const long long most = maxsplit < 0 ? npos : maxsplit;
    long long i = 0;
    for (long long t = 0; t < most; t++) {
        i = detail::skip_spaces(s, i, size_, true);
        if (i == size_)
            return false;
        const long long j = detail::skip_spaces(s, i, size_, false);
        if (t == k) {
            *part = string_view(data_ + i, j - i);
            return true;
        }
        i = j;
    }
    /* maxsplit reached: the rest, from its first non-space. */
    i = detail::skip_spaces(s, i, size_, true);
    if (i == size_ || k != most)
        return false;
    *part = string_view(data_ + i, size_ - i);
    return true;
}

UDFKIT_HDN bool string_view::rsplit_part(string_view *part, long long k, long long maxsplit) const
{
    const long long r = k < 0 ? -k - 1 : split_count(maxsplit) - 1 - k;
    if (r < 0)
        return false;
    const detail::byte *s = (const detail::byte *)data_;
    const long long most = maxsplit < 0 ? npos : maxsplit;
    long long j = size_;
    for (long long t = 0; t < most; t++) {
        j = detail::skip_spaces_back(s, j, true);
        if (j == 0)
            return false;
        const long long i = detail::skip_spaces_back(s, j, false);
        if (t == r) {
            *part = string_view(data_ + i, j - i);
            return true;
        }
        j = i;
    }
    j = detail::skip_spaces_back(s, j, true);
    if (j == 0 || r != most)
        return false;
    *part = string_view(data_, j);
    return true;
}

UDFKIT_HDI bool string_view::is_alnum() const
{
    return detail::all_have((const detail::byte *)data_, size_,
                            unicode::flag_alpha | unicode::flag_decimal | unicode::flag_digit | unicode::flag_numeric);
}

UDFKIT_HDI bool string_view::is_alpha() const
{
    return detail::all_have((const detail::byte *)data_, size_, unicode::flag_alpha);
}

UDFKIT_HDI bool string_view::is_ascii() const { return detail::ascii_run((const detail::byte *)data_, size_) == size_; }

UDFKIT_HDI bool string_view::is_decimal() const
{
    return detail::all_have((const detail::byte *)data_, size_, unicode::flag_decimal);
}

UDFKIT_HDI bool string_view::is_digit() const
{
    return detail::all_have((const detail::byte *)data_, size_, unicode::flag_digit);
}

UDFKIT_HDI bool string_view::is_identifier() const
{
    const detail::byte *s = (const detail::byte *)data_;
    if (size_ == 0)
        return false;
    unsigned cp;
    const int k = detail::decode_at(s, 0, size_, &cp);
    return (unicode::flags(cp) & unicode::flag_id_start) &&
           (k == size_ || detail::all_have(s + k, size_ - k, unicode::flag_id_continue));
}

UDFKIT_HDI bool string_view::is_lower() const { return detail::all_cased_as((const detail::byte *)data_, size_, false); }

UDFKIT_HDI bool string_view::is_numeric() const
{
    return detail::all_have((const detail::byte *)data_, size_, unicode::flag_numeric);
}

UDFKIT_HDI bool string_view::is_printable() const
{
    return size_ == 0 || detail::all_have((const detail::byte *)data_, size_, unicode::flag_printable);
}

UDFKIT_HDI bool string_view::is_space() const
{
    return detail::all_have((const detail::byte *)data_, size_, unicode::flag_space);
}

/* CPython's unicode_istitle_impl: upper and title case only after an uncased code point,
 * lower case only after a cased one, and one cased. */
UDFKIT_HDI bool string_view::is_title() const
{
    const detail::byte *s = (const detail::byte *)data_;
    bool cased = false, previous_cased = false;
    for (long long i = 0; i < size_;) {
        unsigned cp;
        i += detail::decode_at(s, i, size_, &cp);
        const unsigned f = unicode::flags(cp);
        if (f & (unicode::flag_upper | unicode::flag_title)) {
            if (previous_cased)
                return false;
            previous_cased = cased = true;
        } else if (f & unicode::flag_lower) {
            if (!previous_cased)
                return false;
            previous_cased = cased = true;
        } else {
            previous_cased = false;
        }
    }
    return cased;
}

UDFKIT_HDI bool string_view::is_upper() const { return detail::all_cased_as((const detail::byte *)data_, size_, true); }

UDFKIT_HDI unsigned long long string_view::hash(unsigned long long seed) const
{
    const unsigned long long p1 = 0x9E3779B185EBCA87ULL, p2 = 0xC2B2AE3D27D4EB4FULL, p3 = 0x165667B19E3779F9ULL,
                             p4 = 0x85EBCA77C2B2AE63ULL, p5 = 0x27D4EB2F165667C5ULL;
    const detail::byte *p = (const detail::byte *)data_;
    long long n = size_;
    unsigned long long h;
    if (n >= 32) {
        unsigned long long v1 = seed + p1 + p2, v2 = seed + p2, v3 = seed, v4 = seed - p1;
        UDFKIT_NO_UNROLL
        for (; n >= 32; n -= 32, p += 32) {
            v1 = detail::xxh64_round(v1, detail::read64(p));
            v2 = detail::xxh64_round(v2, detail::read64(p + 8));
            v3 = detail::xxh64_round(v3, detail::read64(p + 16));
            v4 = detail::xxh64_round(v4, detail::read64(p + 24));
        }
        h = detail::rotl64(v1, 1) + detail::rotl64(v2, 7) + detail::rotl64(v3, 12) + detail::rotl64(v4, 18);
        h = detail::xxh64_merge(detail::xxh64_merge(detail::xxh64_merge(detail::xxh64_merge(h, v1), v2), v3), v4);
    } else {
        h = seed + p5;
    }
    h += (unsigned long long)size_;
    UDFKIT_NO_UNROLL
    for (; n >= 8; n -= 8, p += 8)
        h = detail::rotl64(h ^ detail::xxh64_round(0, detail::read64(p)), 27) * p1 + p4;
    if (n >= 4) {
        const unsigned long long w = (unsigned long long)p[0] | (unsigned long long)p[1] << 8 |
                                     (unsigned long long)p[2] << 16 | (unsigned long long)p[3] << 24;
        h = detail::rotl64(h ^ w * p1, 23) * p2 + p3;
        n -= 4;
        p += 4;
    }
    UDFKIT_NO_UNROLL
    for (; n > 0; n--, p++)
        h = detail::rotl64(h ^ *p * p5, 11) * p1;
    h ^= h >> 33;
    h *= p2;
    h ^= h >> 29;
    h *= p3;
    return h ^ (h >> 32);
}

} /* namespace udfkit */

#endif /* UDFKIT_STRING_TEXT_CUH */
