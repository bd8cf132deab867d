/* <udfkit/string.cuh>: numbers from text as Python's int() and float() read them, and to text
 * as str() and repr() write them.
 *
 * float(): the Eisel-Lemire algorithm as fast_float has it (Lemire, "Number Parsing at a
 * Gigabyte per Second", 2021; with Mushtak and Lemire's proof that it needs no fallback for
 * 19 significant digits), after Clinger's exact fast path. Past 19 digits the first 19 and
 * that plus one give the two doubles the value lies between; where they differ, the digits
 * are compared exactly with the halfway point between them. repr(): Ryu (Adams, "Ryu: Fast
 * Float-to-String Conversion", PLDI 2018) for the shortest digits, which CPython's dtoa mode 0
 * also gives, laid out as CPython's float_repr. */
#ifndef UDFKIT_STRING_NUMBER_CUH
#define UDFKIT_STRING_NUMBER_CUH

#ifndef UDFKIT_STRING_CUH
#error "include <udfkit/string.cuh>"
#endif

namespace udfkit {
namespace detail {

UDFKIT_STRING_TABLE(double, exact_pow10,
                    {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
                     1e18, 1e19, 1e20, 1e21, 1e22})

struct u128 {
    unsigned long long hi, lo;
};

UDFKIT_HD u128 mul64(unsigned long long a, unsigned long long b)
{
    u128 r;
#ifdef __CUDA_ARCH__
    r.hi = __umul64hi(a, b);
    r.lo = a * b;
#else
    __extension__ typedef unsigned __int128 wide;
    const wide p = (wide)a * b;
    r.hi = (unsigned long long)(p >> 64);
    r.lo = (unsigned long long)p;
#endif
    return r;
}

UDFKIT_HD int clz64(unsigned long long x)
{
#ifdef __CUDA_ARCH__
    return __clzll((long long)x);
#else
    return __builtin_clzll(x);
#endif
}

UDFKIT_HD double bits_to_double(unsigned long long bits)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)bits);
#else
    double d;
    __builtin_memcpy(&d, &bits, 8);
    return d;
#endif
}

UDFKIT_HD unsigned long long double_to_bits(double d)
{
#ifdef __CUDA_ARCH__
    return (unsigned long long)__double_as_longlong(d);
#else
    unsigned long long bits;
    __builtin_memcpy(&bits, &d, 8);
    return bits;
#endif
}

/* Python's Py_ISSPACE, which int() and float() skip around the number (after the
 * transformation below, so Unicode whitespace too; but not \x1c to \x1f). */
UDFKIT_HD bool py_space(int c) { return c == ' ' || (c >= 9 && c <= 13); }

/* The characters int() and float() read: CPython's
 * _PyUnicode_TransformDecimalAndSpaceToASCII gives a decimal digit as its ASCII digit and
 * whitespace past ASCII as ' '; anything else past ASCII, and NUL (where CPython's parsers
 * stop short of the end), is '?', which no number holds. -1 past the end. */
struct number_chars {
    const byte *s;
    long long n, pos, last; /* last: where the character next() gave starts */
    UDFKIT_HD number_chars(const byte *text, long long size, long long from) : s(text), n(size), pos(from), last(from) {}
    UDFKIT_HD int next()
    {
        last = pos;
        if (pos >= n)
            return -1;
        const byte b = s[pos];
        if (b < 0x80) {
            pos++;
            return b == 0 ? '?' : b;
        }
        return beyond_ascii();
    }
    UDFKIT_HDN int beyond_ascii()
    {
        unsigned cp;
        pos += utf8_decode((const char *)s + pos, (const char *)s + n, &cp);
        const unsigned f = unicode::lookup(cp).flags;
        if (f & unicode::flag_space)
            return ' ';
        if (f & unicode::flag_decimal)
            return '0' + (int)((f >> unicode::decimal_shift) & 15);
        return '?';
    }
    UDFKIT_HD int peek() const
    {
        number_chars c = *this;
        return c.next();
    }
};

/* CPython's _PyLong_DigitValue: 0-9, then a-z and A-Z as 10-35; 99 for anything else. */
UDFKIT_HD int digit_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

UDFKIT_HD bool is_digit_char(int c) { return c >= '0' && c <= '9'; }

/* float()'s number without its sign: dtoa's grammar (digits, an optional point and digits,
 * an optional exponent), underscores only between two digits. */
struct decimal_text {
    unsigned long long w;          /* the first 19 significant digits */
    long long digits;              /* significant digits (after leading zeros) */
    long long fraction;            /* digits after the point */
    long long exponent;            /* the explicit exponent */
    long long first;               /* where the first significant digit is */
    bool any, truncated_nonzero;   /* a digit at all (a zero counts); a nonzero one past 19 */
};

/* A run of digits from *c on, into t (fraction: after the point): false for a misplaced
 * underscore. */
UDFKIT_HD bool read_digits(number_chars &in, int *c, decimal_text &t, bool fraction)
{
    while (is_digit_char(*c)) {
        const int d = *c - '0';
        t.any = true;
        if (fraction)
            t.fraction++;
        if (t.digits > 0 || d != 0) {
            if (t.digits == 0)
                t.first = in.last;
            if (t.digits < 19)
                t.w = t.w * 10 + (unsigned long long)d;
            else if (d != 0)
                t.truncated_nonzero = true;
            t.digits++;
        }
        *c = in.next();
        if (*c == '_') {
            *c = in.next();
            if (!is_digit_char(*c))
                return false;
        }
    }
    return true;
}

/* The exponent after e or E (at *c): false where it has no digit or a misplaced underscore.
 * As dtoa: more than 9 significant digits, or a value past MAX_ABS_EXP, is MAX_ABS_EXP. */
UDFKIT_HD bool read_exponent(number_chars &in, int *c, decimal_text &t)
{
    const long long max_abs_exp = 1100000000;
    *c = in.next();
    const bool negative = *c == '-';
    if (*c == '-' || *c == '+')
        *c = in.next();
    if (!is_digit_char(*c))
        return false;
    long long value = 0, significant = 0;
    while (is_digit_char(*c)) {
        if (value > 0 || *c != '0') {
            significant++;
            if (significant <= 9)
                value = value * 10 + (*c - '0');
        }
        *c = in.next();
        if (*c == '_') {
            *c = in.next();
            if (!is_digit_char(*c))
                return false;
        }
    }
    if (significant > 9 || value > max_abs_exp)
        value = max_abs_exp;
    t.exponent = negative ? -value : value;
    return true;
}

/* "inf", "infinity" or "nan" in any case at *c: 1 for an infinity, 2 for a NaN, 0 for
 * neither (CPython's _Py_parse_inf_or_nan). */
UDFKIT_HD int read_special(number_chars &in, int *c)
{
    const char *words[2] = {"inf", "nan"};
    for (int w = 0; w < 2; w++) {
        number_chars probe = in;
        int k = 0, ch = *c;
        while (k < 3 && (ch | 0x20) == words[w][k]) {
            ch = probe.next();
            k++;
        }
        if (k < 3)
            continue;
        if (w == 0) {
            /* "inity" too, where all of it follows. */
            number_chars more = probe;
            int m = 0, ch2 = ch;
            while (m < 5 && (ch2 | 0x20) == "inity"[m]) {
                ch2 = more.next();
                m++;
            }
            if (m == 5) {
                probe = more;
                ch = ch2;
            }
        }
        in = probe;
        *c = ch;
        return w + 1;
    }
    return 0;
}

/* fast_float's adjusted_mantissa: a double's exponent field and mantissa. */
struct adjusted {
    unsigned long long mantissa;
    int power2;
    UDFKIT_HD unsigned long long bits() const { return mantissa | (unsigned long long)power2 << 52; }
};

/* fast_float's compute_float<double>: w * 10^q correctly rounded (w < 2^64, no fallback
 * needed: Mushtak and Lemire's proof). */
UDFKIT_HDN adjusted compute_float(long long q, unsigned long long w)
{
    adjusted a;
    a.mantissa = 0;
    a.power2 = 0;
    if (w == 0 || q < pow5_min)
        return a;
    if (q > 308) {
        a.power2 = 0x7FF;
        return a;
    }
    const int lz = clz64(w);
    w <<= lz;
    const unsigned long long *table = pow5();
    const long long index = 2 * (q - pow5_min);
    u128 product = mul64(w, table[index]);
    const unsigned long long precision_mask = 0xFFFFFFFFFFFFFFFFull >> 55;
    if ((product.hi & precision_mask) == precision_mask) {
        const u128 second = mul64(w, table[index + 1]);
        product.lo += second.hi;
        if (second.hi > product.lo)
            product.hi++;
    }
    const int upperbit = (int)(product.hi >> 63);
    const int shift = upperbit + 64 - 52 - 3;
    a.mantissa = product.hi >> shift;
    a.power2 = (int)(((((152170 + 65536) * (int)q) >> 16) + 63) + upperbit - lz + 1023);
    if (a.power2 <= 0) {
        /* Subnormal (or zero); rounding up may make it the smallest normal. */
        if (-a.power2 + 1 >= 64) {
            a.mantissa = 0;
            a.power2 = 0;
            return a;
        }
        a.mantissa >>= -a.power2 + 1;
        a.mantissa += a.mantissa & 1;
        a.mantissa >>= 1;
        a.power2 = a.mantissa < (1ull << 52) ? 0 : 1;
        return a;
    }
    /* Exactly halfway, where 5^q fits in 64 bits: round to even rather than up. */
    if (product.lo <= 1 && q >= -4 && q <= 23 && (a.mantissa & 3) == 1 && (a.mantissa << shift) == product.hi)
        a.mantissa &= ~1ull;
    a.mantissa += a.mantissa & 1;
    a.mantissa >>= 1;
    if (a.mantissa >= (2ull << 52)) {
        a.mantissa = 1ull << 52;
        a.power2++;
    }
    a.mantissa &= ~(1ull << 52);
    if (a.power2 >= 0x7FF) {
        a.power2 = 0x7FF;
        a.mantissa = 0;
    }
    return a;
}

/* The significant digits of a decimal_text again, one by one (-1 after the last). */
struct digit_stream {
    number_chars in;
    long long left;
    UDFKIT_HD int next()
    {
        while (left > 0) {
            const int c = in.next();
            if (is_digit_char(c)) {
                left--;
                return c - '0';
            }
        }
        return -1;
    }
};

/* A big number of 32-bit limbs, enough for 2^1080. */
struct big {
    enum { limbs = 34 + 2 };
    unsigned v[limbs];
    UDFKIT_HD void clear()
    {
        UDFKIT_NO_UNROLL
        for (int i = 0; i < limbs; i++)
            v[i] = 0;
    }
    UDFKIT_HD void mul_add(unsigned m, unsigned a)
    {
        unsigned long long carry = a;
        UDFKIT_NO_UNROLL
        for (int i = 0; i < limbs; i++) {
            carry += (unsigned long long)v[i] * m;
            v[i] = (unsigned)carry;
            carry >>= 32;
        }
    }
    UDFKIT_HD bool zero() const
    {
        UDFKIT_NO_UNROLL
        for (int i = 0; i < limbs; i++)
            if (v[i])
                return false;
        return true;
    }
};

/* Limb l of h * 2^t. */
UDFKIT_HD unsigned shifted_limb(unsigned long long h, long long t, int l)
{
    const long long o = 32LL * l - t;
    if (o >= 64 || o <= -32)
        return 0;
    return (unsigned)(o >= 0 ? h >> o : h << -o);
}

/* The sign of D - H, D the decimal 0.d1d2...dn * 10^point (its digits from `digits`), H the
 * halfway point h * 2^t (h odd, below 2^55). Exact, in 144 bytes: the integer parts as big
 * numbers, then the fraction of H digit by digit. */
UDFKIT_HDN int compare_halfway(digit_stream digits, long long point, unsigned long long h, long long t)
{
    big b;
    b.clear();
    if (t >= 0) {
        if (point <= 0)
            return -1; /* D < 1 <= H */
        if (point > 310)
            return 1; /* D >= 10^309 > 2^1025 > H */
        UDFKIT_NO_UNROLL
        for (long long i = 0; i < point; i++) {
            const int d = digits.next();
            b.mul_add(10, d < 0 ? 0 : (unsigned)d);
        }
        UDFKIT_NO_UNROLL
        for (int l = big::limbs - 1; l >= 0; l--) {
            const unsigned hl = shifted_limb(h, t, l);
            if (b.v[l] != hl)
                return b.v[l] < hl ? -1 : 1;
        }
    } else {
        const long long k = -t;
        if (point > 19)
            return 1; /* D >= 10^19 > H */
        unsigned long long integer = 0;
        UDFKIT_NO_UNROLL
        for (long long i = 0; i < point; i++) {
            const int d = digits.next();
            integer = integer * 10 + (unsigned long long)(d < 0 ? 0 : d);
        }
        const unsigned long long h_integer = k >= 64 ? 0 : h >> k;
        if (integer != h_integer)
            return integer < h_integer ? -1 : 1;
        /* H's fraction r / 2^k, a digit at a time: r * 10, the bits from k up. */
        b.v[0] = (unsigned)(k >= 64 ? h : h & ((1ull << k) - 1));
        b.v[1] = (unsigned)((k >= 64 ? h : h & ((1ull << k) - 1)) >> 32);
        const int top = (int)(k / 32), bit = (int)(k % 32);
        UDFKIT_NO_UNROLL
        for (long long zeros = point < 0 ? -point : 0; !b.zero(); zeros--) {
            b.mul_add(10, 0);
            const unsigned long long window = b.v[top] | (top + 1 < big::limbs ? (unsigned long long)b.v[top + 1] << 32 : 0);
            const int hd = (int)((window >> bit) & 15);
            b.v[top] &= bit ? (1u << bit) - 1 : 0;
            UDFKIT_NO_UNROLL
            for (int l = top + 1; l < big::limbs; l++)
                b.v[l] = 0;
            const int d = zeros > 0 ? 0 : digits.next();
            if (d < 0)
                return -1; /* D's digits end where H's go on */
            if (d != hd)
                return d < hd ? -1 : 1;
        }
    }
    /* Equal so far, and H ends here. */
    UDFKIT_NO_UNROLL
    for (int d = digits.next(); d >= 0; d = digits.next())
        if (d)
            return 1;
    return 0;
}

/* The double nearest to the decimal read into t (non-negative), ties to even. */
UDFKIT_HDI unsigned long long decimal_to_bits(const decimal_text &t, const byte *s, long long n)
{
    if (t.digits == 0)
        return 0;
    const long long exp10 = t.exponent - t.fraction;
    const long long dropped = t.digits > 19 ? t.digits - 19 : 0;
    const long long q = exp10 + dropped;
    if (dropped == 0 && t.w <= (1ull << 53) && q >= -22 && q <= 22) {
        /* Clinger: both exact, one rounding. */
        const double d = (double)t.w;
        return double_to_bits(q < 0 ? d / exact_pow10()[-q] : d * exact_pow10()[q]);
    }
    const adjusted low = compute_float(q, t.w);
    if (!t.truncated_nonzero)
        return low.bits();
    const adjusted high = compute_float(q, t.w + 1);
    if (low.bits() == high.bits())
        return low.bits();
    /* The value lies between low and the next double: which is nearer. */
    const unsigned long long m = low.power2 == 0 ? low.mantissa : low.mantissa | (1ull << 52);
    const long long e = low.power2 == 0 ? -1074 : (long long)low.power2 - 1075;
    digit_stream digits = {number_chars(s, n, t.first), t.digits};
    const int c = compare_halfway(digits, t.digits + exp10, 2 * m + 1, e - 1);
    return low.bits() + (c > 0 || (c == 0 && (low.mantissa & 1)));
}

/* Ryu's DOUBLE_POW5_SPLIT[i] and DOUBLE_POW5_INV_SPLIT[i] ({low, high}: 5^i and 2^k / 5^i in
 * 125 bits) from the 128-bit table: gen_string_tables.py checks the identities. */
UDFKIT_HD void ryu_pow5(int i, unsigned long long *mul)
{
    const unsigned long long *table = pow5();
    const long long index = 2 * ((long long)i - pow5_min);
    mul[1] = table[index] >> 3;
    mul[0] = (table[index + 1] >> 3) | (table[index] << 61);
}

UDFKIT_HD void ryu_inv_pow5(int i, unsigned long long *mul)
{
    if (i == 0) {
        mul[1] = 1ull << 61;
        mul[0] = 1;
        return;
    }
    const unsigned long long *table = pow5();
    const long long index = 2 * (-(long long)i - pow5_min);
    unsigned long long hi = table[index], lo = table[index + 1];
    if (i <= 27) {
        /* fast_float's entries there are one more than truncated. */
        hi -= lo == 0;
        lo--;
    }
    lo = ((lo >> 3) | (hi << 61)) + 1;
    hi = (hi >> 3) + (lo == 0);
    mul[1] = hi;
    mul[0] = lo;
}

/* Ryu's mulShift64: (m * mul) >> j, 64 < j < 128. */
UDFKIT_HD unsigned long long mul_shift64(unsigned long long m, const unsigned long long *mul, int j)
{
    const u128 b0 = mul64(m, mul[0]);
    u128 b2 = mul64(m, mul[1]);
    b2.lo += b0.hi;
    b2.hi += b2.lo < b0.hi;
    const int dist = j - 64;
    return (b2.hi << (64 - dist)) | (b2.lo >> dist);
}

UDFKIT_HD unsigned pow5_factor(unsigned long long value)
{
    unsigned count = 0;
    while (value % 5 == 0) {
        value /= 5;
        count++;
    }
    return count;
}

/* Ryu's d2d: the shortest decimal (*digits * 10^exponent) that reads back as the double of
 * ieee_mantissa and ieee_exponent, the nearest one where several are shortest. */
UDFKIT_HDI void shortest(unsigned long long ieee_mantissa, unsigned ieee_exponent, unsigned long long *digits,
                         int *exponent)
{
    int e2;
    unsigned long long m2;
    if (ieee_exponent == 0) {
        e2 = 1 - 1023 - 52 - 2;
        m2 = ieee_mantissa;
    } else {
        e2 = (int)ieee_exponent - 1023 - 52 - 2;
        m2 = (1ull << 52) | ieee_mantissa;
    }
    const bool accept_bounds = (m2 & 1) == 0;
    const unsigned long long mv = 4 * m2;
    const unsigned mm_shift = ieee_mantissa != 0 || ieee_exponent <= 1;
    unsigned long long vr, vp, vm, mul[2];
    int e10;
    bool vm_trailing_zeros = false, vr_trailing_zeros = false;
    if (e2 >= 0) {
        const unsigned q = (((unsigned)e2 * 78913) >> 18) - (e2 > 3);
        e10 = (int)q;
        const int k = 125 + (int)((((unsigned)q * 1217359) >> 19) + 1) - 1;
        const int i = -e2 + (int)q + k;
        ryu_inv_pow5((int)q, mul);
        vr = mul_shift64(4 * m2, mul, i);
        vp = mul_shift64(4 * m2 + 2, mul, i);
        vm = mul_shift64(4 * m2 - 1 - mm_shift, mul, i);
        if (q <= 21) {
            if (mv % 5 == 0)
                vr_trailing_zeros = pow5_factor(mv) >= q;
            else if (accept_bounds)
                vm_trailing_zeros = pow5_factor(mv - 1 - mm_shift) >= q;
            else
                vp -= pow5_factor(mv + 2) >= q;
        }
    } else {
        const unsigned q = (((unsigned)-e2 * 732923) >> 20) - (-e2 > 1);
        e10 = (int)q + e2;
        const int i = -e2 - (int)q;
        const int k = (int)((((unsigned)i * 1217359) >> 19) + 1) - 125;
        const int j = (int)q - k;
        ryu_pow5(i, mul);
        vr = mul_shift64(4 * m2, mul, j);
        vp = mul_shift64(4 * m2 + 2, mul, j);
        vm = mul_shift64(4 * m2 - 1 - mm_shift, mul, j);
        if (q <= 1) {
            vr_trailing_zeros = true;
            if (accept_bounds)
                vm_trailing_zeros = mm_shift == 1;
            else
                --vp;
        } else if (q < 63) {
            vr_trailing_zeros = (mv & ((1ull << q) - 1)) == 0;
        }
    }
    int removed = 0;
    unsigned last_removed = 0;
    unsigned long long output;
    if (vm_trailing_zeros || vr_trailing_zeros) {
        while (vp / 10 > vm / 10) {
            vm_trailing_zeros &= vm % 10 == 0;
            vr_trailing_zeros &= last_removed == 0;
            last_removed = (unsigned)(vr % 10);
            vr /= 10;
            vp /= 10;
            vm /= 10;
            ++removed;
        }
        if (vm_trailing_zeros) {
            while (vm % 10 == 0) {
                vr_trailing_zeros &= last_removed == 0;
                last_removed = (unsigned)(vr % 10);
                vr /= 10;
                vp /= 10;
                vm /= 10;
                ++removed;
            }
        }
        if (vr_trailing_zeros && last_removed == 5 && vr % 2 == 0)
            last_removed = 4; /* exactly ...50..0: round to even */
        output = vr + ((vr == vm && (!accept_bounds || !vm_trailing_zeros)) || last_removed >= 5);
    } else {
        bool round_up = false;
        if (vp / 100 > vm / 100) {
            round_up = vr % 100 >= 50;
            vr /= 100;
            vp /= 100;
            vm /= 100;
            removed += 2;
        }
        while (vp / 10 > vm / 10) {
            round_up = vr % 10 >= 5;
            vr /= 10;
            vp /= 10;
            vm /= 10;
            ++removed;
        }
        output = vr + (vr == vm || round_up);
    }
    *digits = output;
    *exponent = e10 + removed;
}

/* The decimal digits of v into buf (20 bytes): how many. */
UDFKIT_HD int decimal_digits(unsigned long long v, char *buf)
{
    char reversed[20];
    int n = 0;
    do {
        reversed[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++)
        buf[i] = reversed[n - 1 - i];
    return n;
}

} /* namespace detail */

UDFKIT_HDN parse_status string_view::to_int(long long *value, int base) const
{
    if ((base != 0 && base < 2) || base > 36)
        return parse_invalid;
    detail::number_chars in((const detail::byte *)data_, size_, 0);
    int c = in.next();
    while (detail::py_space(c))
        c = in.next();
    const bool negative = c == '-';
    if (c == '+' || c == '-')
        c = in.next();
    /* CPython's PyLong_FromString: base 0 takes the prefix's base, else 10 where a leading
     * zero may only be followed by zeros. */
    bool zero_only = false;
    const int c1 = in.peek();
    if (base == 0) {
        if (c != '0')
            base = 10;
        else if (c1 == 'x' || c1 == 'X')
            base = 16;
        else if (c1 == 'o' || c1 == 'O')
            base = 8;
        else if (c1 == 'b' || c1 == 'B')
            base = 2;
        else
            zero_only = true, base = 10;
    }
    if (c == '0' && ((base == 16 && (c1 == 'x' || c1 == 'X')) || (base == 8 && (c1 == 'o' || c1 == 'O')) ||
                     (base == 2 && (c1 == 'b' || c1 == 'B')))) {
        in.next();
        c = in.next();
        if (c == '_')
            c = in.next();
    }
    if (c == '_')
        return parse_invalid;
    unsigned long long magnitude = 0;
    bool overflow = false;
    long long digits = 0;
    int previous = 0;
    for (;; c = in.next()) {
        if (c == '_') {
            if (previous == '_')
                return parse_invalid;
        } else {
            const int d = detail::digit_value(c);
            if (d >= base)
                break;
            digits++;
            /* magnitude * base + d, without a 64-bit division (slow on the device). */
            const detail::u128 p = detail::mul64(magnitude, (unsigned long long)base);
            if (p.hi || p.lo + (unsigned long long)d < p.lo)
                overflow = true;
            else
                magnitude = p.lo + (unsigned long long)d;
        }
        previous = c;
    }
    /* Python's int_max_str_digits (4300 by default) for bases other than powers of two. */
    if (previous == '_' || digits == 0 || ((base & (base - 1)) != 0 && digits > 4300))
        return parse_invalid;
    if (zero_only && (magnitude != 0 || overflow))
        return parse_invalid;
    while (detail::py_space(c))
        c = in.next();
    if (c != -1)
        return parse_invalid;
    if (overflow || magnitude > (negative ? 1ull << 63 : (1ull << 63) - 1))
        return parse_overflow;
    *value = negative ? (long long)(0 - magnitude) : (long long)magnitude;
    return parse_ok;
}

UDFKIT_HDN parse_status string_view::to_double(double *value) const
{
    const detail::byte *s = (const detail::byte *)data_;
    detail::number_chars in(s, size_, 0);
    int c = in.next();
    while (detail::py_space(c))
        c = in.next();
    const bool negative = c == '-';
    if (c == '+' || c == '-')
        c = in.next();
    unsigned long long bits;
    const int special = detail::read_special(in, &c);
    if (special) {
        bits = special == 1 ? 0x7FF0000000000000ull : 0x7FF8000000000000ull;
    } else {
        detail::decimal_text t = {0, 0, 0, 0, 0, false, false};
        if (!detail::read_digits(in, &c, t, false))
            return parse_invalid;
        if (c == '.') {
            c = in.next();
            if (!detail::read_digits(in, &c, t, true))
                return parse_invalid;
        }
        /* dtoa's MAX_DIGITS. */
        if (!t.any || t.digits > 1000000000 || t.fraction > 1000000000)
            return parse_invalid;
        if ((c == 'e' || c == 'E') && !detail::read_exponent(in, &c, t))
            return parse_invalid;
        bits = detail::decimal_to_bits(t, s, size_);
    }
    while (detail::py_space(c))
        c = in.next();
    if (c != -1)
        return parse_invalid;
    *value = detail::bits_to_double(bits | (negative ? 1ull << 63 : 0));
    return parse_ok;
}

} /* namespace udfkit */

UDFKIT_HDI void udfkit_string_out::append_uint(unsigned long long v)
{
    char buf[20];
    append(buf, udfkit::detail::decimal_digits(v, buf));
}

UDFKIT_HDI void udfkit_string_out::append_int(long long v)
{
    if (v < 0)
        append('-');
    append_uint(v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v);
}

UDFKIT_HDN void udfkit_string_out::append_double(double v)
{
    const unsigned long long bits = udfkit::detail::double_to_bits(v);
    const bool negative = bits >> 63;
    const unsigned long long mantissa = bits & ((1ull << 52) - 1);
    const unsigned exponent = (unsigned)(bits >> 52) & 0x7FF;
    if (exponent == 0x7FF) {
        /* CPython drops a NaN's sign. */
        if (mantissa)
            append("nan", 3);
        else
            append(negative ? "-inf" : "inf", negative ? 4 : 3);
        return;
    }
    if (negative)
        append('-');
    if (exponent == 0 && mantissa == 0) {
        append("0.0", 3);
        return;
    }
    unsigned long long digits;
    int e10;
    udfkit::detail::shortest(mantissa, exponent, &digits, &e10);
    char buf[20];
    const int n = udfkit::detail::decimal_digits(digits, buf);
    /* CPython's format_float_short for repr: the point after `point` digits; scientific
     * notation where that is below -3 or above 16, the exponent of two digits at least. */
    const int point = e10 + n;
    if (point <= -4 || point > 16) {
        append(buf[0]);
        if (n > 1) {
            append('.');
            append(buf + 1, n - 1);
        }
        const int e = point - 1;
        append('e');
        append(e < 0 ? '-' : '+');
        if (e > -10 && e < 10)
            append('0');
        append_uint((unsigned long long)(e < 0 ? -e : e));
    } else if (point <= 0) {
        append("0.", 2);
        for (int i = 0; i < -point; i++)
            append('0');
        append(buf, n);
    } else if (point >= n) {
        append(buf, n);
        for (int i = n; i < point; i++)
            append('0');
        append(".0", 2);
    } else {
        append(buf, point);
        append('.');
        append(buf + point, n - point);
    }
}

#endif /* UDFKIT_STRING_NUMBER_CUH */
