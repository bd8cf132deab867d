/* <udfkit/string.cuh>: what string_view writes into a string_out: case mappings as CPython's
 * unicodeobject.c makes them (do_upper, do_lower, do_capitalize, do_title, do_swapcase,
 * do_casefold), padding, replace and stepped slices; and the builder's text appends. */
#ifndef UDFKIT_STRING_CASE_CUH
#define UDFKIT_STRING_CASE_CUH

#ifndef UDFKIT_STRING_CUH
#error "include <udfkit/string.cuh>"
#endif

UDFKIT_HDN void udfkit_string_out::append(udfkit::string_view s)
{
    const udfkit::detail::byte *p = (const udfkit::detail::byte *)s.data();
    const long long n = s.size();
    long long i = 0;
    while (i < n) {
        /* The well-formed run from i as it is, then one U+FFFD for what ends it. */
        long long j = i;
        int k = 0;
        while (j < n) {
            j += udfkit::detail::ascii_run(p + j, n - j);
            if (j == n)
                break;
            unsigned cp;
            k = udfkit::detail::decode_at(p, j, n, &cp);
            if (udfkit::detail::ill_formed(p, j, k, cp))
                break;
            j += k;
        }
        append(s.data() + i, j - i);
        if (j == n)
            return;
        append("\xEF\xBF\xBD", 3);
        i = j + k;
    }
}

UDFKIT_HDN void udfkit_string_out::append_code_point(unsigned cp)
{
    char bytes[4];
    append(bytes, udfkit::utf8_encode(cp, bytes));
}

UDFKIT_HDI void udfkit_string_out::append_repeated(udfkit::string_view s, long long n)
{
    for (long long i = 0; i < n; i++)
        append(s);
}

namespace udfkit {
namespace detail {

/* CPython's handle_capital_sigma for the U+03A3 at [i, j): final (lower case U+03C2) after a
 * cased code point and any case-ignorable ones, unless a cased one follows the same way. */
UDFKIT_HDN bool final_sigma(const byte *s, long long n, long long i, long long j)
{
    unsigned cp = 0;
    bool cased_before = false;
    for (long long k = i; k > 0;) {
        k = step_back(s, k);
        decode_at(s, k, n, &cp);
        if (!unicode::is_case_ignorable(cp)) {
            cased_before = unicode::is_cased(cp);
            break;
        }
    }
    if (!cased_before)
        return false;
    for (long long k = j; k < n;) {
        k += decode_at(s, k, n, &cp);
        if (!unicode::is_case_ignorable(cp))
            return !unicode::is_cased(cp);
    }
    return true;
}

/* CPython's lower_ucs4: the lower case of the code point at [i, j), final sigma included. */
UDFKIT_HD int lower_at(const byte *s, long long n, long long i, long long j, unsigned cp, unsigned *out)
{
    if (cp == 0x3A3) {
        out[0] = final_sigma(s, n, i, j) ? 0x3C2 : 0x3C3;
        return 1;
    }
    return unicode::to_lower(cp, out);
}

UDFKIT_HD void append_mapped(string_out &out, const unsigned *mapped, int count)
{
    for (int i = 0; i < count; i++)
        out.append_code_point(mapped[i]);
}

UDFKIT_HD bool ascii_lower(byte b) { return (unsigned)(b - 'a') < 26u; }
UDFKIT_HD bool ascii_upper(byte b) { return (unsigned)(b - 'A') < 26u; }

/* What mapping each code point takes, for the code point at [i, j) and whether the one
 * before was cased (title) or it is the first (capitalize). */
enum case_kind { case_upper, case_lower, case_fold, case_capitalize, case_title, case_swap };

UDFKIT_HD int map_one(case_kind kind, const byte *s, long long n, long long i, long long j, unsigned cp,
                      bool previous_cased, unsigned *out)
{
    switch (kind) {
    case case_upper:
        return unicode::to_upper(cp, out);
    case case_fold:
        return unicode::to_fold(cp, out);
    case case_capitalize:
        return i == 0 ? unicode::to_title(cp, out) : lower_at(s, n, i, j, cp, out);
    case case_title:
        return previous_cased ? lower_at(s, n, i, j, cp, out) : unicode::to_title(cp, out);
    case case_swap: {
        const unsigned f = unicode::flags(cp);
        if (f & unicode::flag_upper)
            return lower_at(s, n, i, j, cp, out);
        if (f & unicode::flag_lower)
            return unicode::to_upper(cp, out);
        out[0] = cp;
        return 1;
    }
    default:
        return lower_at(s, n, i, j, cp, out);
    }
}

/* An ASCII byte's mapping (ASCII maps to ASCII, one for one). */
UDFKIT_HD byte map_ascii(case_kind kind, byte b, long long i, bool previous_cased)
{
    bool up;
    switch (kind) {
    case case_upper:
        up = true;
        break;
    case case_capitalize:
        up = i == 0;
        break;
    case case_title:
        up = !previous_cased;
        break;
    case case_swap:
        return ascii_lower(b) || ascii_upper(b) ? b ^ 0x20 : b;
    default:
        up = false;
    }
    return up ? (ascii_lower(b) ? b ^ 0x20 : b) : (ascii_upper(b) ? b ^ 0x20 : b);
}

/* A builder's state in registers, for a loop that appends byte by byte (a string_out passed
 * by reference lives in memory where the loop calls a function that is not inlined).
 * Writing, the bytes wait in acc until they fill an aligned 4-byte word, stored at once: a
 * row's text begins and ends anywhere, so its first and last words, which it may share with
 * the rows beside it, are written byte by byte (the first `skip` bytes of the first word are
 * not the row's); a thread that writes a row byte by byte spends a store, and a cache sector,
 * on every byte. */
struct builder {
    char *data;
    long long size, capacity;
    int overflowed;
    char *word;             /* the aligned address acc's first byte goes to */
    unsigned long long acc; /* held bytes, the first lowest */
    int held, skip;
    UDFKIT_HD explicit builder(const string_out &out)
        : data(out.data), size(out.size), capacity(out.capacity), overflowed(out.overflowed), word(nullptr), acc(0),
          held(0), skip(0)
    {
        if (data) {
            held = skip = (int)((unsigned long long)(data + size) & 3);
            word = data + size - held;
        }
    }
    UDFKIT_HD void done(string_out &out)
    {
        if (data)
            for (int j = skip; j < held; j++)
                word[j] = (char)(acc >> (8 * j));
        out.size = size;
        out.overflowed = overflowed;
    }
    /* k bytes (1 to 4) packed in w, the first lowest, into acc, within the capacity. */
    UDFKIT_HD void put(unsigned w, int k)
    {
        acc |= (unsigned long long)w << (8 * held);
        held += k;
        if (held >= 4) {
            if (skip) {
                for (int j = skip; j < 4; j++)
                    word[j] = (char)(acc >> (8 * j));
                skip = 0;
            } else {
                store4(word, (unsigned)acc);
            }
            word += 4;
            acc >>= 32;
            held -= 4;
        }
    }
    UDFKIT_HD void byte1(byte b)
    {
        if (data) {
            if (size < capacity)
                put(b, 1);
            else
                overflowed = 1;
        }
        size++;
    }
    /* k bytes (1 to 4) packed in w, the first lowest. */
    UDFKIT_HD void bytes(unsigned w, int k)
    {
        if (data) {
            if (size + k <= capacity) {
                put(w, k);
            } else {
                for (int j = 0; j < k; j++) {
                    if (size + j < capacity)
                        put((w >> (8 * j)) & 0xFF, 1);
                    else
                        overflowed = 1;
                }
            }
        }
        size += k;
    }
    UDFKIT_HD static void store4(char *p, unsigned w)
    {
#ifdef __CUDA_ARCH__
        *reinterpret_cast<unsigned *>(p) = w;
#else
        __builtin_memcpy(p, &w, 4);
#endif
    }
    /* cp as UTF-8, as utf8_encode writes it. */
    UDFKIT_HD void code_point(unsigned cp)
    {
        char b[4];
        const int k = utf8_encode(cp, b);
        unsigned w = 0;
UDFKIT_UNROLL
        for (int j = 0; j < 4; j++)
            w |= j < k ? (unsigned)(byte)b[j] << (8 * j) : 0u;
        bytes(w, k);
    }
};

/* Four ASCII bytes (high bits clear) mapped at once: the lower case letters' (up) or the upper
 * case letters' (!up) 0x20 bit flipped, both where swap. */
UDFKIT_HD unsigned map_ascii4(case_kind kind, unsigned w)
{
    const unsigned H = 0x80808080u;
    const unsigned lower = ((w + 0x1F1F1F1Fu) & ~(w + 0x05050505u)) & H; /* 'a' to 'z' */
    const unsigned upper = ((w + 0x3F3F3F3Fu) & ~(w + 0x25252525u)) & H; /* 'A' to 'Z' */
    const unsigned flip = kind == case_upper ? lower : kind == case_swap ? (lower | upper) : upper;
    return w ^ (flip >> 2);
}

/* upper, lower, casefold and swapcase map each ASCII byte alone: the ASCII text at s[i], four
 * bytes at once where aligned, else one. Returns the bytes mapped, 0 at one that is not ASCII. */
UDFKIT_HD int map_ascii_step(builder &b, case_kind kind, const byte *s, long long n, long long i)
{
    if (i + 4 <= n && ((unsigned long long)(s + i) & 3) == 0) {
        const unsigned w = load4(s + i);
        if ((w & 0x80808080u) == 0) {
            b.bytes(map_ascii4(kind, w), 4);
            return 4;
        }
    }
    if (s[i] >= 0x80)
        return 0;
    b.byte1(map_ascii(kind, s[i], i, false));
    return 1;
}

/* s[from, n) mapped; the code point before from (an ASCII byte where from > 0) was cased or not. */
UDFKIT_HDN void map_case(string_out &out, case_kind kind, const byte *s, long long n, long long from = 0,
                         bool previous_cased = false)
{
    builder b(out);
    const bool by_word = kind == case_upper || kind == case_lower || kind == case_fold || kind == case_swap;
    for (long long i = from; i < n;) {
        const int k = by_word ? map_ascii_step(b, kind, s, n, i) : 0;
        if (k) {
            i += k;
            continue;
        }
        const byte c = s[i];
        if (c < 0x80) {
            b.byte1(map_ascii(kind, c, i, previous_cased));
            previous_cased = ascii_lower(c) || ascii_upper(c);
            i++;
            continue;
        }
        unsigned cp, mapped[3];
        const long long j = i + decode_at(s, i, n, &cp);
        const int count = map_one(kind, s, n, i, j, cp, previous_cased, mapped);
        for (int t = 0; t < count; t++)
            b.code_point(mapped[t]);
        previous_cased = unicode::is_cased(cp);
        i = j;
    }
    b.done(out);
}

/* upper, lower, casefold and swapcase: the ASCII text in line, in the caller's kernel, where
 * the compiler knows what memory the text is in (a column's rows are global memory: global
 * loads); from the first byte that is not ASCII on, map_case (these mappings do not look at
 * the code point before). */
UDFKIT_HD void map_case_ascii(string_out &out, case_kind kind, const byte *s, long long n)
{
    builder b(out);
    long long i = 0;
    for (int k; i < n && (k = map_ascii_step(b, kind, s, n, i)) != 0;)
        i += k;
    b.done(out);
    if (i < n)
        map_case(out, kind, s, n, i);
}

UDFKIT_HD void append_fill(string_out &out, unsigned fill, long long count)
{
    char bytes[4];
    const int k = utf8_encode(fill, bytes);
    for (long long i = 0; i < count; i++)
        out.append(bytes, k);
}

/* CPython's pad(): left and right fill around the text. */
UDFKIT_HD void pad(string_out &out, string_view s, long long left, long long right, unsigned fill)
{
    append_fill(out, fill, left);
    out.append(s);
    append_fill(out, fill, right);
}

} /* namespace detail */

UDFKIT_HDI void string_view::to_upper(string_out &out) const
{
    detail::map_case_ascii(out, detail::case_upper, (const detail::byte *)data_, size_);
}

UDFKIT_HDI void string_view::to_lower(string_out &out) const
{
    detail::map_case_ascii(out, detail::case_lower, (const detail::byte *)data_, size_);
}

UDFKIT_HDI void string_view::capitalize(string_out &out) const
{
    detail::map_case(out, detail::case_capitalize, (const detail::byte *)data_, size_);
}

UDFKIT_HDI void string_view::title(string_out &out) const
{
    detail::map_case(out, detail::case_title, (const detail::byte *)data_, size_);
}

UDFKIT_HDI void string_view::swapcase(string_out &out) const
{
    detail::map_case_ascii(out, detail::case_swap, (const detail::byte *)data_, size_);
}

UDFKIT_HDI void string_view::casefold(string_out &out) const
{
    detail::map_case_ascii(out, detail::case_fold, (const detail::byte *)data_, size_);
}

UDFKIT_HDN void string_view::zfill(string_out &out, long long width) const
{
    const long long len = length();
    if (len >= width) {
        out.append(*this);
        return;
    }
    /* A sign stays in front of the zeros. */
    const bool sign = size_ > 0 && (data_[0] == '+' || data_[0] == '-');
    if (sign)
        out.append(data_[0]);
    detail::append_fill(out, '0', width - len);
    out.append(sign ? string_view(data_ + 1, size_ - 1) : *this);
}

UDFKIT_HDN void string_view::ljust(string_out &out, long long width, unsigned fill) const
{
    const long long len = length();
    detail::pad(out, *this, 0, width > len ? width - len : 0, fill);
}

UDFKIT_HDN void string_view::rjust(string_out &out, long long width, unsigned fill) const
{
    const long long len = length();
    detail::pad(out, *this, width > len ? width - len : 0, 0, fill);
}

UDFKIT_HDN void string_view::center(string_out &out, long long width, unsigned fill) const
{
    const long long len = length();
    if (len >= width) {
        out.append(*this);
        return;
    }
    /* CPython's split of the margin: the odd one goes left where width is odd. */
    const long long margin = width - len, left = margin / 2 + (margin & width & 1);
    detail::pad(out, *this, left, margin - left, fill);
}

UDFKIT_HDN void string_view::replace(string_out &out, string_view old, string_view repl, long long count) const
{
    if (count == 0) {
        out.append(*this);
        return;
    }
    if (count < 0)
        count = npos;
    const detail::byte *s = (const detail::byte *)data_;
    if (old.empty()) {
        /* repl before each code point and at the end, count times at most. */
        long long i = 0;
        for (long long k = 0; k < count; k++) {
            out.append(repl);
            if (i == size_)
                break;
            unsigned cp;
            const int n = detail::decode_at(s, i, size_, &cp);
            if (k + 1 < count) {
                out.append(string_view(data_ + i, n));
                i += n;
            }
        }
        out.append(string_view(data_ + i, size_ - i));
        return;
    }
    const detail::needle nd(old);
    long long i = 0, end;
    for (long long k = 0; k < count; k++) {
        const long long at = detail::find_match(s, i, size_, nd, &end);
        if (at < 0)
            break;
        out.append(string_view(data_ + i, at - i));
        out.append(repl);
        i = end;
    }
    out.append(string_view(data_ + i, size_ - i));
}

UDFKIT_HDN bool string_view::slice(string_out &out, long long start, long long stop, long long step) const
{
    if (step == 0)
        return false;
    if (step < -npos)
        step = -npos;
    /* PySlice_AdjustIndices. */
    const long long len = length();
    const long long low = step < 0 ? -1 : 0, high = step < 0 ? len - 1 : len;
    if (start < 0)
        start = start + len < 0 ? low : start + len;
    else if (start >= len)
        start = high;
    if (stop < 0)
        stop = stop + len < 0 ? low : stop + len;
    else if (stop >= len)
        stop = high;
    long long count = 0;
    if (step < 0 && stop < start)
        count = (start - stop - 1) / -step + 1;
    else if (step > 0 && start < stop)
        count = (stop - start - 1) / step + 1;
    if (count == 0)
        return true;
    const detail::byte *s = (const detail::byte *)data_;
    long long taken;
    long long pos = detail::advance(s, size_, 0, start, &taken);
    if (step == 1) {
        out.append(string_view(data_ + pos, detail::advance(s, size_, pos, count, &taken) - pos));
        return true;
    }
    for (long long k = 0;;) {
        unsigned cp;
        detail::decode_at(s, pos, size_, &cp);
        out.append_code_point(cp);
        if (++k == count)
            return true;
        if (step > 0) {
            pos = detail::advance(s, size_, pos, step, &taken);
        } else {
            for (long long t = 0; t < -step; t++)
                pos = detail::step_back(s, pos);
        }
    }
}

} /* namespace udfkit */

#endif /* UDFKIT_STRING_CASE_CUH */
