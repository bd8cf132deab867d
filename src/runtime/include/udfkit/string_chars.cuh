/* <udfkit/string.cuh>: UTF-8 decoding and encoding, and the properties and case mappings of
 * one code point (udfkit::unicode), as CPython's Py_UNICODE_IS* and _PyUnicode_To*Full. */
#ifndef UDFKIT_STRING_CHARS_CUH
#define UDFKIT_STRING_CHARS_CUH

#ifndef UDFKIT_STRING_CUH
#error "include <udfkit/string.cuh>"
#endif

namespace udfkit {

/* The code point at p (p < end) into *cp, and the bytes it takes (1 to 4). An ill-formed
 * subsequence is U+FFFD and takes its maximal subpart (Unicode's "U+FFFD substitution of
 * maximal subparts"), as CPython's UTF-8 decoder with errors='replace': an invalid first byte
 * alone, else the first byte and the continuation bytes that could still have completed it. */
UDFKIT_HDN int utf8_decode(const char *p, const char *end, unsigned *cp)
{
    const unsigned char *s = (const unsigned char *)p;
    const unsigned b0 = s[0];
    if (b0 < 0x80) {
        *cp = b0;
        return 1;
    }
    *cp = 0xFFFD;
    const long long avail = end - p;
    if (b0 < 0xC2 || b0 > 0xF4 || avail < 2)
        return 1;
    const unsigned b1 = s[1];
    if (b0 < 0xE0) {
        if ((b1 & 0xC0) != 0x80)
            return 1;
        *cp = ((b0 & 0x1F) << 6) | (b1 & 0x3F);
        return 2;
    }
    /* The second byte's range excludes overlong forms, surrogates and code points past
     * U+10FFFF. */
    const unsigned lo = b0 == 0xE0 ? 0xA0 : b0 == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = b0 == 0xED ? 0x9F : b0 == 0xF4 ? 0x8F : 0xBF;
    if (b1 < lo || b1 > hi)
        return 1;
    if (avail < 3 || (s[2] & 0xC0) != 0x80)
        return 2;
    if (b0 < 0xF0) {
        *cp = ((b0 & 0x0F) << 12) | ((b1 & 0x3F) << 6) | (s[2] & 0x3F);
        return 3;
    }
    if (avail < 4 || (s[3] & 0xC0) != 0x80)
        return 3;
    *cp = ((b0 & 0x07) << 18) | ((b1 & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    return 4;
}

/* cp as UTF-8 into out[0..3]: the bytes written. Surrogates and values past U+10FFFF, which
 * UTF-8 cannot hold, are written as U+FFFD. */
UDFKIT_HD int utf8_encode(unsigned cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        cp = 0xFFFD;
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

namespace unicode {

/* The record of cp: three table reads (the tables cover planes 0 to 3 and 14; the other
 * planes hold no property). */
UDFKIT_HDN const record &lookup(unsigned cp)
{
    unsigned i;
    if (cp < planes_end)
        i = cp;
    else if (cp >= plane14 && cp < plane14_end)
        i = cp - plane14 + planes_end;
    else
        return records()[unassigned];
    const unsigned i1 = stage1()[i >> (shift2 + shift3)];
    const unsigned i2 = stage2()[(i1 << shift2) | ((i >> shift3) & ((1u << shift2) - 1))];
    const unsigned r = stage3()[(i2 << shift3) | (i & ((1u << shift3) - 1))];
    return records()[r];
}

/* ASCII's flags without a table read. */
UDFKIT_HD unsigned ascii_flags(unsigned c)
{
    const unsigned lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z', digit = c >= '0' && c <= '9';
    const unsigned letter = lower | upper;
    const unsigned space = (c >= 9 && c <= 13) || (c >= 28 && c <= 32);
    const unsigned printable = c >= 32 && c < 127;
    const unsigned id_start = letter | (c == '_');
    unsigned f = (letter ? flag_alpha | flag_cased : 0) | (lower ? flag_lower : 0) | (upper ? flag_upper : 0) |
                 (digit ? flag_decimal | flag_digit | flag_numeric | flag_id_continue : 0) | (space ? flag_space : 0) |
                 (printable ? flag_printable : 0) | (id_start ? flag_id_start | flag_id_continue : 0);
    /* Case-ignorable in ASCII: the apostrophe, the full stop, the colon, ^ and `. */
    if (c == '\'' || c == '.' || c == ':' || c == '^' || c == '`')
        f |= flag_case_ignorable;
    if (digit)
        f |= (c - '0') << decimal_shift;
    return f;
}

/* The flags of cp (flag_*, and the decimal value above decimal_shift). */
UDFKIT_HD unsigned flags(unsigned cp) { return cp < 0x80 ? ascii_flags(cp) : lookup(cp).flags; }

UDFKIT_HD bool is_alpha(unsigned cp) { return flags(cp) & flag_alpha; }
UDFKIT_HD bool is_decimal(unsigned cp) { return flags(cp) & flag_decimal; }
UDFKIT_HD bool is_digit(unsigned cp) { return flags(cp) & flag_digit; }
UDFKIT_HD bool is_numeric(unsigned cp) { return flags(cp) & flag_numeric; }
UDFKIT_HD bool is_alnum(unsigned cp) { return flags(cp) & (flag_alpha | flag_decimal | flag_digit | flag_numeric); }
UDFKIT_HD bool is_lower(unsigned cp) { return flags(cp) & flag_lower; }
UDFKIT_HD bool is_upper(unsigned cp) { return flags(cp) & flag_upper; }
UDFKIT_HD bool is_title(unsigned cp) { return flags(cp) & flag_title; }
UDFKIT_HD bool is_space(unsigned cp)
{
    if (cp < 0x80)
        return (cp >= 9 && cp <= 13) || (cp >= 28 && cp <= 32);
    return lookup(cp).flags & flag_space;
}
UDFKIT_HD bool is_printable(unsigned cp) { return flags(cp) & flag_printable; }
UDFKIT_HD bool is_cased(unsigned cp) { return flags(cp) & flag_cased; }
UDFKIT_HD bool is_case_ignorable(unsigned cp) { return flags(cp) & flag_case_ignorable; }
/* The value of a decimal digit (str.isdecimal), else -1. */
UDFKIT_HD int decimal_value(unsigned cp)
{
    const unsigned f = flags(cp);
    return f & flag_decimal ? (int)((f >> decimal_shift) & 15) : -1;
}

/* A full case mapping of cp into out[0..2]: the code points written (1 to 3). */
UDFKIT_HDN int map_case(unsigned cp, int field, unsigned ext_flag, unsigned *out)
{
    if (cp < 0x80) {
        const bool to_upper = ext_flag == flag_ext_upper || ext_flag == flag_ext_title;
        const bool change = to_upper ? (cp >= 'a' && cp <= 'z') : (cp >= 'A' && cp <= 'Z');
        out[0] = change ? cp ^ 0x20 : cp;
        return 1;
    }
    const record &r = lookup(cp);
    const int m = field == 0 ? r.upper : field == 1 ? r.lower : field == 2 ? r.title : r.fold;
    if (!(r.flags & ext_flag)) {
        out[0] = (unsigned)((int)cp + m);
        return 1;
    }
    const int n = m >> 16;
    for (int i = 0; i < n; i++)
        out[i] = ext()[(m & 0xFFFF) + i];
    return n;
}
UDFKIT_HD int to_upper(unsigned cp, unsigned *out) { return map_case(cp, 0, flag_ext_upper, out); }
/* Without final sigma, which needs the code points around (string_view::to_lower has it). */
UDFKIT_HD int to_lower(unsigned cp, unsigned *out) { return map_case(cp, 1, flag_ext_lower, out); }
UDFKIT_HD int to_title(unsigned cp, unsigned *out) { return map_case(cp, 2, flag_ext_title, out); }
UDFKIT_HD int to_fold(unsigned cp, unsigned *out) { return map_case(cp, 3, flag_ext_fold, out); }

} /* namespace unicode */

namespace detail {

typedef unsigned char byte;

UDFKIT_HD bool is_continuation(byte b) { return (b & 0xC0) == 0x80; }

/* The bytes of the code point at s[pos] (pos < n) and its value. */
UDFKIT_HD int decode_at(const byte *s, long long pos, long long n, unsigned *cp)
{
    if (s[pos] < 0x80) {
        *cp = s[pos];
        return 1;
    }
    return utf8_decode((const char *)s + pos, (const char *)s + n, cp);
}

/* Whether the code point decoded at s[i] (k bytes, cp) stands for an ill-formed
 * subsequence: a U+FFFD other than EF BF BD (a made-up one of three bytes has a four-byte
 * first byte). */
UDFKIT_HD bool ill_formed(const byte *s, long long i, int k, unsigned cp)
{
    return cp == 0xFFFD && (k != 3 || s[i] != 0xEF);
}

/* Where the code point that ends at s[pos] starts (0 < pos, pos a code point boundary).
 * A byte that is not a continuation byte always starts a code point; a longer code point
 * starts at most three bytes before its last one: from the nearest such byte, decoding
 * forward finds it. */
UDFKIT_HD long long step_back(const byte *s, long long pos)
{
    if (!is_continuation(s[pos - 1]))
        return pos - 1;
    const long long limit = pos >= 4 ? pos - 4 : 0;
    for (long long k = pos - 2; k >= limit; k--) {
        if (is_continuation(s[k]))
            continue;
        unsigned cp;
        for (;;) {
            const long long next = k + decode_at(s, k, pos, &cp);
            if (next >= pos)
                return k;
            k = next;
        }
    }
    return pos - 1;
}

/* An 8-byte aligned load inside the string (so never past its end). */
UDFKIT_HD unsigned long long load8(const byte *p)
{
#ifdef __CUDA_ARCH__
    return *reinterpret_cast<const unsigned long long *>(p);
#else
    unsigned long long w;
    __builtin_memcpy(&w, p, 8);
    return w;
#endif
}

/* The ASCII bytes that start [p, p + n), eight at a time where aligned. */
UDFKIT_HDN long long ascii_run(const byte *p, long long n)
{
    long long i = 0;
    while (i < n && ((unsigned long long)(p + i) & 7) != 0) {
        if (p[i] & 0x80)
            return i;
        i++;
    }
    while (i + 8 <= n && !(load8(p + i) & 0x8080808080808080ull))
        i += 8;
    while (i < n && !(p[i] & 0x80))
        i++;
    return i;
}

/* From pos, k code points on (fewer where the string ends first: *taken says how many):
 * the byte offset reached. */
UDFKIT_HD long long advance(const byte *s, long long n, long long pos, long long k, long long *taken)
{
    long long t = 0;
    while (t < k && pos < n) {
        long long run = ascii_run(s + pos, n - pos);
        if (run > k - t)
            run = k - t;
        pos += run;
        t += run;
        if (t < k && pos < n) {
            unsigned cp;
            pos += decode_at(s, pos, n, &cp);
            t++;
        }
    }
    *taken = t;
    return pos;
}

/* A 4-byte aligned load inside the string, its first byte lowest (little-endian, as the GPU
 * and the hosts udfkit runs on are). */
UDFKIT_HD unsigned load4(const byte *p)
{
#ifdef __CUDA_ARCH__
    return *reinterpret_cast<const unsigned *>(p);
#else
    unsigned w;
    __builtin_memcpy(&w, p, 4);
    return w;
#endif
}

/* The bytes [lo, hi) of the aligned word at q (0 <= lo < hi <= 4) in their places, zeros
 * elsewhere: the ends of a string read without reading outside it. */
UDFKIT_HD unsigned load4_part(const byte *q, long long lo, long long hi)
{
    unsigned w = 0;
UDFKIT_UNROLL
    for (int k = 0; k < 4; k++)
        if (k >= lo && k < hi)
            w |= (unsigned)q[k] << (8 * k);
    return w;
}

/* The word (prev, w) of two consecutive words of text: w's bytes as p's lowest byte is the byte
 * before w's first. funnel(prev, w, 1) holds, for each byte of w, the byte before it. */
UDFKIT_HD unsigned funnel(unsigned prev, unsigned w, int bytes)
{
#ifdef __CUDA_ARCH__
    return __funnelshift_r(prev, w, 32 - 8 * bytes);
#else
    return (w << (8 * bytes)) | (prev >> (32 - 8 * bytes));
#endif
}

UDFKIT_HD int popc(unsigned w)
{
#ifdef __CUDA_ARCH__
    return __popc(w);
#else
    return __builtin_popcount(w);
#endif
}

/* The high bit of each zero byte of x, and perhaps of a byte 01 after one (never a false
 * negative). */
UDFKIT_HD unsigned zero_bytes(unsigned x) { return (x - 0x01010101u) & ~x & 0x80808080u; }

/* 4 bytes of text, and the high bit of each byte that is C0 to FF, E0 to FF, F0 to FF. */
struct utf8_word4 {
    unsigned w, c0, e0, f0;
};

UDFKIT_HD utf8_word4 classify(unsigned w)
{
    utf8_word4 x;
    x.w = w;
    x.c0 = w & (w << 1) & 0x80808080u;
    x.e0 = x.c0 & (w << 2);
    x.f0 = x.e0 & (w << 3);
    return x;
}

/* Over 4 bytes of text x, prev the 4 before (zeros before the text): the high bit of each
 * continuation byte (its count is what the bytes hold fewer code points than bytes, in
 * well-formed UTF-8), and in *bad a bit where the bytes may not be well-formed UTF-8 (then the
 * count is not to be trusted; never a false negative): a continuation byte where no lead byte
 * expects one or none where one does (Unicode's table 3-7), C0, C1, F5 to FF, and a lead byte
 * E0, ED, F0 or F4 whose second byte is out of its range (overlong forms, surrogates, past
 * U+10FFFF). The last two are looked at only where a byte is C0 or C1 or follows one of E0 to
 * FF. */
UDFKIT_HD unsigned utf8_word(const utf8_word4 &prev, const utf8_word4 &x, unsigned *bad)
{
    const unsigned H = 0x80808080u, w = x.w;
    const unsigned cont = w & ~(w << 1) & H;
    /* Expected: a continuation byte after C0..FF, two after E0..FF, three after F0..FF. */
    *bad |= (funnel(prev.c0, x.c0, 1) | funnel(prev.e0, x.e0, 2) | funnel(prev.f0, x.f0, 3)) ^ cont;
    const unsigned c0c1 = zero_bytes((w | 0x01010101u) ^ 0xC1C1C1C1u);
    const unsigned after_e0 = funnel(prev.e0, x.e0, 1);
    if (c0c1 | after_e0) {
        /* The second byte c of a lead byte a: E0 A0..BF, ED 80..9F, F0 90..BF, F4 80..8F. */
        const unsigned p1 = funnel(prev.w, w, 1);
        const unsigned a0 = (w << 2) & H, c90 = ((w << 2) | (w << 3)) & H; /* c >= A0, c >= 90 */
        const unsigned f5 = ((p1 & 0x7F7F7F7Fu) + 0x0B0B0B0Bu) & p1 & H;
        *bad |= c0c1 | f5 | (zero_bytes(p1 ^ 0xE0E0E0E0u) & ~a0) | (zero_bytes(p1 ^ 0xEDEDEDEDu) & a0) |
                (zero_bytes(p1 ^ 0xF0F0F0F0u) & ~c90) | (zero_bytes(p1 ^ 0xF4F4F4F4u) & c90);
    }
    return cont;
}

/* The code points in [from, to) as the exact walk below counts them, where the bytes are
 * well-formed UTF-8 (the bytes that are not continuation bytes, a word of 4 at a time, the
 * loads independent of the bytes read); false where they may not be. */
UDFKIT_HD bool count_well_formed(const byte *s, long long from, long long to, long long *count)
{
    const long long n = to - from;
    if (n <= 0) {
        *count = 0;
        return true;
    }
    const long long a = (long long)((unsigned long long)(s + from) & 3);
    const byte *q = s + from - a;
    long long left = n + a; /* bytes from q to the end */
    utf8_word4 prev = classify(0);
    unsigned bad = 0;
    long long conts = 0;
    if (a != 0) {
        const utf8_word4 x = classify(load4_part(q, a, left < 4 ? left : 4));
        conts += popc(utf8_word(prev, x, &bad));
        prev = x;
        q += 4;
        left -= 4;
    }
    /* Four words loaded before any is looked at. */
    for (; left >= 16; q += 16, left -= 16) {
        const unsigned w0 = load4(q), w1 = load4(q + 4), w2 = load4(q + 8), w3 = load4(q + 12);
        /* ASCII after ASCII (no lead byte in the 3 before): nothing to count or check. */
        if ((((w0 | w1 | w2 | w3) & 0x80808080u) | (prev.w & 0x80808000u)) == 0) {
            prev.w = w3;
            prev.c0 = prev.e0 = prev.f0 = 0;
            continue;
        }
        const unsigned words[4] = {w0, w1, w2, w3};
        UDFKIT_UNROLL
        for (int k = 0; k < 4; k++) {
            const utf8_word4 x = classify(words[k]);
            conts += popc(utf8_word(prev, x, &bad));
            prev = x;
        }
    }
    for (; left >= 4; q += 4, left -= 4) {
        const utf8_word4 x = classify(load4(q));
        conts += popc(utf8_word(prev, x, &bad));
        prev = x;
    }
    if (left > 0)
        conts += popc(utf8_word(prev, classify(load4_part(q, 0, left)), &bad));
    *count = n - conts;
    return bad == 0;
}

/* The code points in [from, to), both code point boundaries: each ill-formed subsequence one,
 * as the decoder takes it (the walk); well-formed text by its bytes. */
UDFKIT_HD long long count_code_points(const byte *s, long long from, long long to)
{
    long long count;
    if (count_well_formed(s, from, to, &count))
        return count;
    count = 0;
    while (from < to) {
        const long long run = ascii_run(s + from, to - from);
        from += run;
        count += run;
        if (from < to) {
            unsigned cp;
            from += decode_at(s, from, to, &cp);
            count++;
        }
    }
    return count;
}

/* Whether [p, p + n) is well-formed UTF-8 without U+FFFD: then its code points are found
 * in a text exactly where its bytes are (every match starts at a code point, and a U+FFFD
 * of the text stands for an ill-formed subsequence or is itself). ASCII is looked for first,
 * every byte read, so that a literal's answer is known when the kernel is compiled. */
UDFKIT_HD bool searchable_as_bytes(const byte *p, long long n)
{
    unsigned high = 0;
    for (long long j = 0; j < n; j++)
        high |= p[j];
    if (high < 0x80)
        return true;
    long long i = 0;
    while (i < n) {
        i += ascii_run(p + i, n - i);
        if (i < n) {
            unsigned cp;
            i += decode_at(p, i, n, &cp);
            if (cp == 0xFFFD)
                return false;
        }
    }
    return true;
}

} /* namespace detail */
} /* namespace udfkit */

#endif /* UDFKIT_STRING_CHARS_CUH */
