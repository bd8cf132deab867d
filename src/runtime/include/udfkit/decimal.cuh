/* udfkit's decimals for CUDA C/C++ (docs/decimals-and-dates.md): udfkit::decimal, a
 * decimal128 value (a 128-bit two's complement integer of at most 38 digits and a scale of
 * 0..38) that also stands for decimal32 and decimal64, with exact arithmetic, division and
 * rescaling rounded half away from zero (or as asked), comparison across scales, and
 * conversions from and to integers, floats, text and the C ABI of SPEC.md.
 *
 * A value that cannot be represented is never wrapped: the operation gives a value that
 * carries a row error code (UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, _DIVIDE_BY_ZERO,
 * _INVALID_DECIMAL in <udfkit/udf.h>), and every later operation keeps the first such code,
 * so that a UDF checks once, where it stores its result:
 *
 *     decimal r = price * (decimal(1) - discount);            // exact, scale 2 + 2
 *     if (int e = r.store(out, 38, 4)) udfkit_row_error(e);   // rounded, precision checked
 *
 * Usable under NVRTC (`udfkit compile` gives it to every compile, with --device-int128), nvcc
 * and a C++17 host compiler; everything is __host__ __device__ and needs no standard header. */
#ifndef UDFKIT_DECIMAL_CUH
#define UDFKIT_DECIMAL_CUH

#include <udfkit/string.cuh>
#include <udfkit/udf.h>

#if defined(__CUDACC_RTC__) && !defined(__CUDACC_RTC_INT128__)
#error "<udfkit/decimal.cuh> needs __int128 in device code: NVRTC's --device-int128 (udfkit compile passes it)"
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define UDFKIT_HD __host__ __device__ __forceinline__
/* The paths few rows take (Knuth's division, 256-bit rounding, floats, text): called, not
 * inlined, so that a UDF whose scales are not constants (Python's decimals are values of
 * run-time scale) carries one copy of each, not one per operation it inlines: the link's
 * optimizer and ptxas otherwise see them at every call site of every kernel. */
#define UDFKIT_HDC __host__ __device__ __noinline__ inline
#else
#define UDFKIT_HD inline
#define UDFKIT_HDC inline
#endif

namespace udfkit {

#if defined(__CUDACC_RTC__)
typedef __int128 int128;
typedef unsigned __int128 uint128;
#else
/* __extension__: no -pedantic warning where the host compiler has the type as an extension. */
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;
#endif

/* The most digits of each storage width (SPEC.md: decimal32, decimal64, decimal128). */
enum { decimal32_max_precision = 9, decimal64_max_precision = 18, decimal_max_precision = 38 };
/* Room to_chars needs: a sign, 38 digits, a point, "E-" and an exponent of two digits. */
enum { decimal_text_max = 48 };

/* How a result with more digits than its scale keeps is rounded: half away from zero (SPEC.md,
 * the default everywhere), half to even, toward zero (truncation, as C and Python's int()),
 * toward negative infinity (floor) and toward positive infinity (ceiling); the same as Arrow's
 * round modes half_towards_infinity, half_to_even, towards_zero, down and up. */
enum class rounding { half_away_from_zero, half_even, toward_zero, floor, ceiling };

namespace decimal_detail {

typedef unsigned long long u64;

UDFKIT_HD int clz64(u64 x)
{
#if defined(__CUDA_ARCH__)
    return __clzll((long long)x);
#else
    return x ? __builtin_clzll(x) : 64;
#endif
}

UDFKIT_HD int clz32(unsigned x)
{
#if defined(__CUDA_ARCH__)
    return __clz((int)x);
#else
    return x ? __builtin_clz(x) : 32;
#endif
}

/* 10^k for 0 <= k <= 19 by squaring, so that a constant k folds and any other takes 5 steps. */
UDFKIT_HD u64 pow10_64(int k)
{
    u64 r = 1, b = 10;
    for (; k; k >>= 1, b *= b)
        if (k & 1)
            r *= b;
    return r;
}

/* 10^k for 0 <= k <= 38. */
UDFKIT_HD uint128 pow10_128(int k)
{
    return k <= 19 ? (uint128)pow10_64(k) : (uint128)pow10_64(19) * pow10_64(k - 19);
}

/* The largest magnitude of `precision` digits, 10^precision - 1. */
UDFKIT_HD uint128 max_magnitude(int precision) { return pow10_128(precision) - 1; }

UDFKIT_HD uint128 magnitude(int128 v) { return v < 0 ? (uint128)0 - (uint128)v : (uint128)v; }

/* Whether |v| <= 10^precision - 1 (the hot paths' check): v + limit, wrapped, is at most
 * 2 * limit exactly then (below 0 it wraps past 2^127 + limit > 2 * limit). The comparison is
 * written in 64-bit halves, and with & and |, so that it compiles to a chain of 64-bit
 * compares (a 128-bit one becomes selects of partial compares: 14 instructions where this is
 * 9 on sm_90). */
UDFKIT_HD bool within(int128 v, int precision)
{
    const uint128 limit = max_magnitude(precision), t = (uint128)v + limit, b = 2 * limit;
    const u64 th = (u64)(t >> 64), bh = (u64)(b >> 64);
    return (th < bh) | ((th == bh) & ((u64)t <= (u64)b));
}

/* The whole product of two 64-bit words. */
UDFKIT_HD uint128 mul_64(u64 a, u64 b) { return (uint128)a * b; }

/* The reciprocal of 10^k shifted left until its top bit is set (d = 10^k << clz(10^k)) for
 * 0 <= k <= 19: floor((2^128 - 1) / d) - 2^64, what div_2by1 divides by d with. A constant
 * k picks its constant; any other a table the compiler makes of the switch. */
UDFKIT_HD u64 reciprocal_pow10(int k)
{
    switch (k) {
    case 1: return 0x9999999999999999ull;
    case 2: return 0x47ae147ae147ae14ull;
    case 3: return 0x0624dd2f1a9fbe76ull;
    case 4: return 0xa36e2eb1c432ca57ull;
    case 5: return 0x4f8b588e368f0846ull;
    case 6: return 0x0c6f7a0b5ed8d36bull;
    case 7: return 0xad7f29abcaf48578ull;
    case 8: return 0x5798ee2308c39df9ull;
    case 9: return 0x12e0be826d694b2eull;
    case 10: return 0xb7cdfd9d7bdbab7dull;
    case 11: return 0x5fd7fe17964955fdull;
    case 12: return 0x19799812dea11197ull;
    case 13: return 0xc25c268497681c26ull;
    case 14: return 0x6849b86a12b9b01eull;
    case 15: return 0x203af9ee756159b2ull;
    case 16: return 0xcd2b297d889bc2b6ull;
    case 17: return 0x70ef54646d496892ull;
    case 18: return 0x2725dd1d243aba0eull;
    case 19: return 0xd83c94fb6d2ac34aull;
    default: return 0xffffffffffffffffull; /* 10^0 = 1, shifted to 2^63 */
    }
}

/* (u1:u0) / d for a normalized d (top bit set) and u1 < d, the remainder in *r, by the
 * reciprocal v = reciprocal of d (Moeller and Granlund, "Improved division by invariant
 * integers", 2011, algorithm 4): two multiplications and two corrections, no division
 * instruction (the GPU has none: a 64-bit `/` by a variable is a subroutine of a hundred
 * instructions) and no loop. */
UDFKIT_HD u64 div_2by1(u64 u1, u64 u0, u64 d, u64 v, u64 *r)
{
    const uint128 q = mul_64(v, u1) + (((uint128)(u1 + 1) << 64) | u0);
    u64 q1 = (u64)(q >> 64), q0 = (u64)q;
    u64 rem = u0 - q1 * d;
    if (rem > q0) {
        q1--;
        rem += d;
    }
    if (rem >= d) {
        q1++;
        rem -= d;
    }
    *r = rem;
    return q1;
}

/* m / 10^k and, in *r, m % 10^k, for any 128-bit m and 0 <= k <= 19: the dividend shifted
 * as 10^k is normalized, then two 128-by-64-bit steps of div_2by1. */
UDFKIT_HD uint128 divmod_pow10_128(uint128 m, int k, u64 *r)
{
    const u64 d = pow10_64(k);
    const int s = clz64(d);
    const u64 dn = d << s, v = reciprocal_pow10(k), hi = (u64)(m >> 64), lo = (u64)m;
    const u64 n2 = s ? hi >> (64 - s) : 0, n1 = s ? (hi << s) | (lo >> (64 - s)) : hi, n0 = lo << s;
    u64 r1, r0;
    const u64 q1 = div_2by1(n2, n1, dn, v, &r1);
    const u64 q0 = div_2by1(r1, n0, dn, v, &r0);
    *r = r0 >> s;
    return ((uint128)q1 << 64) | q0;
}

/* Unsigned 256-bit integers, four 64-bit words from the least significant: what the exact
 * products and scaled dividends of 38-digit operands need (10^76 < 2^256). */
struct u256 {
    u64 w[4];
};

UDFKIT_HD u256 make(uint128 x)
{
    u256 r = {{(u64)x, (u64)(x >> 64), 0, 0}};
    return r;
}

UDFKIT_HD bool is_zero(const u256 &x) { return !(x.w[0] | x.w[1] | x.w[2] | x.w[3]); }
UDFKIT_HD bool fits_64(const u256 &x) { return !(x.w[1] | x.w[2] | x.w[3]); }
UDFKIT_HD bool fits_128(const u256 &x) { return !(x.w[2] | x.w[3]); }
UDFKIT_HD uint128 low_128(const u256 &x) { return ((uint128)x.w[1] << 64) | x.w[0]; }

UDFKIT_HD int compare(const u256 &a, const u256 &b)
{
    for (int i = 3; i >= 0; i--)
        if (a.w[i] != b.w[i])
            return a.w[i] < b.w[i] ? -1 : 1;
    return 0;
}

UDFKIT_HD u256 add(const u256 &a, const u256 &b)
{
    u256 r;
    u64 carry = 0;
    for (int i = 0; i < 4; i++) {
        uint128 s = (uint128)a.w[i] + b.w[i] + carry;
        r.w[i] = (u64)s;
        carry = (u64)(s >> 64);
    }
    return r;
}

/* a - b for a >= b. */
UDFKIT_HD u256 sub(const u256 &a, const u256 &b)
{
    u256 r;
    u64 borrow = 0;
    for (int i = 0; i < 4; i++) {
        u64 d = a.w[i] - b.w[i];
        u64 next = (a.w[i] < b.w[i]) | (d < borrow);
        r.w[i] = d - borrow;
        borrow = next;
    }
    return r;
}

/* The whole product of two 128-bit magnitudes. */
UDFKIT_HD u256 mul(uint128 a, uint128 b)
{
    u64 a0 = (u64)a, a1 = (u64)(a >> 64), b0 = (u64)b, b1 = (u64)(b >> 64);
    uint128 p00 = (uint128)a0 * b0, p01 = (uint128)a0 * b1, p10 = (uint128)a1 * b0, p11 = (uint128)a1 * b1;
    uint128 mid = (p00 >> 64) + (u64)p01 + (u64)p10;
    uint128 high = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    u256 r = {{(u64)p00, (u64)mid, (u64)high, (u64)(high >> 64)}};
    return r;
}

/* x *= m; false where the product passes 2^256. */
UDFKIT_HD bool mul_small(u256 &x, u64 m)
{
    u64 carry = 0;
    for (int i = 0; i < 4; i++) {
        uint128 p = (uint128)x.w[i] * m + carry;
        x.w[i] = (u64)p;
        carry = (u64)(p >> 64);
    }
    return carry == 0;
}

/* x *= 10^k (k >= 0); false where the product passes 2^256. */
UDFKIT_HD bool mul_pow10(u256 &x, int k)
{
    for (; k > 19; k -= 19)
        if (!mul_small(x, pow10_64(19)))
            return false;
    return mul_small(x, pow10_64(k));
}

UDFKIT_HD int bit_length(const u256 &x)
{
    for (int i = 3; i >= 0; i--)
        if (x.w[i])
            return 64 * i + 64 - clz64(x.w[i]);
    return 0;
}

UDFKIT_HD u256 shift_left(const u256 &x, int n)
{
    u256 r = {{0, 0, 0, 0}};
    int words = n / 64, bits = n % 64;
    for (int i = 3; i >= words; i--) {
        u64 v = x.w[i - words] << bits;
        if (bits && i - words > 0)
            v |= x.w[i - words - 1] >> (64 - bits);
        r.w[i] = v;
    }
    return r;
}

/* (u1:u0) / v for u1 < v, the remainder in *r: two steps of 64/32-bit division
 * (Hacker's Delight, divlu), so that no 128-bit division is asked of the compiler. */
UDFKIT_HD u64 div_128_by_64(u64 u1, u64 u0, u64 v, u64 *r)
{
    const u64 b = 1ull << 32;
    int s = clz64(v);
    v <<= s;
    u64 vn1 = v >> 32, vn0 = v & 0xffffffffull;
    u64 un32 = (u1 << s) | (s ? u0 >> (64 - s) : 0);
    u64 un10 = u0 << s;
    u64 un1 = un10 >> 32, un0 = un10 & 0xffffffffull;
    u64 q1 = un32 / vn1, rhat = un32 - q1 * vn1;
    while (q1 >= b || q1 * vn0 > b * rhat + un1) {
        q1--;
        rhat += vn1;
        if (rhat >= b)
            break;
    }
    u64 un21 = un32 * b + un1 - q1 * v;
    u64 q0 = un21 / vn1;
    rhat = un21 - q0 * vn1;
    while (q0 >= b || q0 * vn0 > b * rhat + un0) {
        q0--;
        rhat += vn1;
        if (rhat >= b)
            break;
    }
    *r = (un21 * b + un0 - q0 * v) >> s;
    return q1 * b + q0;
}

/* q = n / d, r = n % d for a divisor of one word. */
UDFKIT_HD void divmod_small(const u256 &n, u64 d, u256 &q, u256 &r)
{
    u64 rem = 0;
    for (int i = 3; i >= 0; i--) {
        if (!rem && n.w[i] < d) {
            q.w[i] = 0;
            rem = n.w[i];
        } else {
            q.w[i] = div_128_by_64(rem, n.w[i], d, &rem);
        }
    }
    r = make(rem);
}

/* q = n / d, r = n % d for a divisor of more than one word: Knuth's algorithm D over 32-bit
 * digits (Hacker's Delight, divmnu). */
UDFKIT_HDC void divmod_large(const u256 &n, const u256 &d, u256 &q, u256 &r)
{
    unsigned u[8], v[8], qd[8] = {0, 0, 0, 0, 0, 0, 0, 0}, un[9], vn[8];
    for (int i = 0; i < 4; i++) {
        u[2 * i] = (unsigned)n.w[i];
        u[2 * i + 1] = (unsigned)(n.w[i] >> 32);
        v[2 * i] = (unsigned)d.w[i];
        v[2 * i + 1] = (unsigned)(d.w[i] >> 32);
    }
    int m = 8, k = 8;
    while (m > 0 && !u[m - 1])
        m--;
    while (!v[k - 1])
        k--;
    if (m < k) {
        q = make(0);
        r = n;
        return;
    }
    const u64 b = 1ull << 32;
    int s = clz32(v[k - 1]);
    for (int i = k - 1; i > 0; i--)
        vn[i] = (v[i] << s) | (unsigned)((u64)v[i - 1] >> (32 - s));
    vn[0] = v[0] << s;
    un[m] = (unsigned)((u64)u[m - 1] >> (32 - s));
    for (int i = m - 1; i > 0; i--)
        un[i] = (u[i] << s) | (unsigned)((u64)u[i - 1] >> (32 - s));
    un[0] = u[0] << s;
    for (int j = m - k; j >= 0; j--) {
        u64 num = ((u64)un[j + k] << 32) | un[j + k - 1];
        u64 qhat = num / vn[k - 1], rhat = num - qhat * vn[k - 1];
        while (qhat >= b || qhat * vn[k - 2] > ((rhat << 32) | un[j + k - 2])) {
            qhat--;
            rhat += vn[k - 1];
            if (rhat >= b)
                break;
        }
        long long t, borrow = 0;
        for (int i = 0; i < k; i++) {
            u64 p = qhat * vn[i];
            t = (long long)un[i + j] - borrow - (long long)(p & 0xffffffffull);
            un[i + j] = (unsigned)t;
            borrow = (long long)(p >> 32) - (t >> 32);
        }
        t = (long long)un[j + k] - borrow;
        un[j + k] = (unsigned)t;
        qd[j] = (unsigned)qhat;
        if (t < 0) {
            qd[j]--;
            u64 carry = 0;
            for (int i = 0; i < k; i++) {
                u64 sum = (u64)un[i + j] + vn[i] + carry;
                un[i + j] = (unsigned)sum;
                carry = sum >> 32;
            }
            un[j + k] += (unsigned)carry;
        }
    }
    unsigned rd[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < k; i++)
        rd[i] = (un[i] >> s) | (unsigned)((u64)un[i + 1] << (32 - s));
    for (int i = 0; i < 4; i++) {
        q.w[i] = ((u64)qd[2 * i + 1] << 32) | qd[2 * i];
        r.w[i] = ((u64)rd[2 * i + 1] << 32) | rd[2 * i];
    }
}

UDFKIT_HD void divmod(const u256 &n, const u256 &d, u256 &q, u256 &r)
{
    if (fits_64(n) && fits_64(d)) {
        q = make(n.w[0] / d.w[0]);
        r = make(n.w[0] % d.w[0]);
    } else if (fits_64(d)) {
        divmod_small(n, d.w[0], q, r);
    } else {
        divmod_large(n, d, q, r);
    }
}

/* Whether a magnitude q with remainder r of divisor d rounds away from zero. */
UDFKIT_HD bool rounds_up(rounding mode, bool negative, bool q_odd, const u256 &r, const u256 &d)
{
    if (is_zero(r) || mode == rounding::toward_zero)
        return false;
    if (mode == rounding::floor)
        return negative;
    if (mode == rounding::ceiling)
        return !negative;
    int c = compare(r, sub(d, r));
    return c > 0 || (c == 0 && (mode == rounding::half_away_from_zero || q_odd));
}

/* The same for a remainder and divisor of one word. */
UDFKIT_HD bool rounds_up_64(rounding mode, bool negative, bool q_odd, u64 r, u64 d)
{
    if (!r || mode == rounding::toward_zero)
        return false;
    if (mode == rounding::floor)
        return negative;
    if (mode == rounding::ceiling)
        return !negative;
    return r > d - r || (r == d - r && (mode == rounding::half_away_from_zero || q_odd));
}

/* The signed value of the magnitude n / d rounded by `mode`, where it has at most 38
 * digits; else *error is set (d must not be 0). */
UDFKIT_HD int128 rounded(bool negative, const u256 &q, const u256 &r, const u256 &d, rounding mode, int *error)
{
    if (!fits_128(q)) {
        *error = UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW;
        return 0;
    }
    uint128 m = low_128(q);
    if (rounds_up(mode, negative, m & 1, r, d))
        m++;
    if (m > max_magnitude(38)) {
        *error = UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW;
        return 0;
    }
    return negative ? -(int128)m : (int128)m;
}

UDFKIT_HDC int128 divide(bool negative, const u256 &n, const u256 &d, rounding mode, int *error)
{
    u256 q, r;
    divmod(n, d, q, r);
    return rounded(negative, q, r, d, mode, error);
}

/* q = n / 10^k, r = n % 10^k for 0 < k <= 19: the dividend shifted as 10^k is normalized,
 * then a step of div_2by1 per word, from the most significant. */
UDFKIT_HD void divmod_pow10(const u256 &n, int k, u256 &q, u64 &r)
{
    const u64 d = pow10_64(k);
    const int s = clz64(d);
    const u64 dn = d << s, v = reciprocal_pow10(k);
    u64 rem = s ? n.w[3] >> (64 - s) : 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = 3; i >= 0; i--) {
        const u64 word = s ? (n.w[i] << s) | (i ? n.w[i - 1] >> (64 - s) : 0) : n.w[i];
        q.w[i] = div_2by1(rem, word, dn, v, &rem);
    }
    r = rem >> s;
}

/* n / 10^k rounded (0 <= k <= 76). */
UDFKIT_HD int128 divide_pow10(bool negative, const u256 &n, int k, rounding mode, int *error)
{
    if (k > 19) {
        u256 d = make(1);
        mul_pow10(d, k);
        return divide(negative, n, d, mode, error);
    }
    u256 q;
    u64 r = 0;
    if (k > 0)
        divmod_pow10(n, k, q, r);
    else
        q = n;
    return rounded(negative, q, make(r), make(pow10_64(k)), mode, error);
}

/* A signed 256-bit value as a sign and a magnitude: what the exact forms of add and sub are. */
struct signed_u256 {
    bool negative;
    u256 magnitude;
};

UDFKIT_HD signed_u256 signed_sum(bool an, const u256 &a, bool bn, const u256 &b)
{
    signed_u256 r;
    if (an == bn) {
        r.negative = an;
        r.magnitude = add(a, b); /* below 2 * 10^76 < 2^256 */
    } else if (compare(a, b) >= 0) {
        r.negative = an;
        r.magnitude = sub(a, b);
    } else {
        r.negative = bn;
        r.magnitude = sub(b, a);
    }
    if (is_zero(r.magnitude))
        r.negative = false;
    return r;
}

/* Decimal digits of a magnitude below 10^38 into `out`, most significant first; their count. */
UDFKIT_HDC int digits(uint128 m, char *out)
{
    const u64 chunk = pow10_64(19);
    u64 parts[3];
    int nparts = 0;
    do {
        u64 rem;
        u64 hi = (u64)(m >> 64), lo = (u64)m;
        u64 qh = hi / chunk;
        u64 ql = div_128_by_64(hi % chunk, lo, chunk, &rem);
        parts[nparts++] = rem;
        m = ((uint128)qh << 64) | ql;
    } while (m);
    int n = 0;
    for (int p = nparts - 1; p >= 0; p--) {
        char buf[19];
        int k = 0;
        u64 v = parts[p];
        do {
            buf[k++] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        if (p != nparts - 1)
            while (k < 19)
                buf[k++] = '0';
        while (k)
            out[n++] = buf[--k];
    }
    return n;
}

UDFKIT_HD double bits_to_double(u64 bits)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)bits);
#else
    return __builtin_bit_cast(double, bits);
#endif
}

UDFKIT_HD u64 double_to_bits(double x)
{
#if defined(__CUDA_ARCH__)
    return (u64)__double_as_longlong(x);
#else
    return __builtin_bit_cast(u64, x);
#endif
}

/* m / 10^scale (m > 0) correctly rounded (to nearest, ties to even) to a binary float of
 * `mantissa` bits (53: double, 24: float) whose normal exponents start at `min_exponent`:
 * the significand and its binary exponent, so that the value is sig * 2^exp. */
UDFKIT_HDC u64 to_binary(uint128 m, int scale, int mantissa, int min_exponent, int *exp)
{
    u256 n = make(m), d = make(pow10_128(scale));
    /* Shift so that the quotient has 64 bits or 63: enough for the significand, a
     * rounding bit and more, the rest in the remainder. */
    int shift = 63 - bit_length(n) + bit_length(d);
    if (shift >= 0)
        n = shift_left(n, shift);
    else
        d = shift_left(d, -shift);
    u256 q, r;
    divmod(n, d, q, r);
    u64 sig = q.w[0];
    bool sticky = !is_zero(r);
    int bits = 64 - clz64(sig);
    /* The value is sig * 2^-shift, its leading bit at 2^(bits - 1 - shift). */
    int lead = bits - 1 - shift;
    int keep = mantissa;
    if (lead < min_exponent)
        keep = mantissa - (min_exponent - lead); /* subnormal: fewer bits */
    if (keep < 0)
        keep = 0;
    int drop = bits - keep;
    u64 kept = drop >= 64 ? 0 : sig >> drop;
    u64 rest = drop >= 64 ? sig : sig & ((1ull << drop) - 1);
    u64 half = 1ull << (drop - 1);
    if (rest > half || (rest == half && (sticky || (kept & 1))))
        kept++;
    *exp = drop - shift;
    return kept;
}

/* sig * 2^exp for sig < 2^54: exact where the result is a normal double. */
UDFKIT_HD double scale_binary(u64 sig, int exp)
{
    double v = (double)sig;
    while (exp > 0) {
        int e = exp > 1000 ? 1000 : exp;
        v *= bits_to_double((u64)(1023 + e) << 52);
        exp -= e;
    }
    while (exp < 0) {
        int e = exp < -1000 ? 1000 : -exp;
        v *= bits_to_double((u64)(1023 - e) << 52);
        exp += e;
    }
    return v;
}

/* Makes values the operations have checked already (no second look at their digits). */
struct maker;

} /* namespace decimal_detail */

/* A decimal number: an integer of at most 38 digits (its unscaled value) times 10^-scale,
 * 0 <= scale <= 38, and the row error code of the first operation that could not give its
 * value (0 while there was none). The same type stands for decimal32, decimal64 and
 * decimal128 values: the constructors and store() cross their C ABI. */
class decimal {
  public:
    /* Zero at scale 0. */
    UDFKIT_HD decimal() : value_(0), scale_(0), error_(0) {}
    /* unscaled * 10^-scale, for an unscaled value of any integer type: decimal(12345, 2) is
     * 123.45, decimal(7) the integer 7, and a decimal32 or decimal64 argument aN of scale S
     * is decimal(aN, S). More than 38 digits give UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, a scale
     * outside 0..38 UDFKIT_ROW_ERROR_INVALID_DECIMAL. */
    UDFKIT_HD decimal(int unscaled, int scale = 0) { init(unscaled, scale); }
    UDFKIT_HD decimal(long unscaled, int scale = 0) { init(unscaled, scale); }
    UDFKIT_HD decimal(long long unscaled, int scale = 0) { init(unscaled, scale); }
    UDFKIT_HD decimal(unsigned unscaled, int scale = 0) { init(unscaled, scale); }
    UDFKIT_HD decimal(unsigned long unscaled, int scale = 0) { init(unscaled, scale); }
    UDFKIT_HD decimal(unsigned long long unscaled, int scale = 0) { init(unscaled, scale); }
    UDFKIT_HD decimal(int128 unscaled, int scale = 0)
    {
        init(unscaled, scale);
        /* Selected, not branched to: the scale stays one constant for the compiler. The
         * value itself is kept (unscaled() reads 0 for it): an operation whose result carries
         * the error anyway need not select it away first. */
        const bool over = !error_ && !decimal_detail::within(unscaled, decimal_max_precision);
        error_ = over ? UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW : error_;
    }
    /* A decimal128 argument of scale S as the C ABI passes it (aN_lo, aN_hi), or as a
     * udfkit_decimal128 holds it. */
    UDFKIT_HD static decimal from_abi(unsigned long long lo, long long hi, int scale)
    {
        return decimal((int128)(((uint128)(unsigned long long)hi << 64) | lo), scale);
    }
    UDFKIT_HD static decimal from_abi(const udfkit_decimal128 &d, int scale) { return from_abi(d.lo, d.hi, scale); }
    /* An integer at a scale: from_integer(5, 2) is 5.00 (unscaled 500). */
    UDFKIT_HD static decimal from_integer(long long integer, int scale) { return decimal(integer).rescale(scale); }
    /* The exact binary value of x rounded to `scale` digits after the point (half away from
     * zero unless asked otherwise): from_double(0.1, 20) is 0.10000000000000000555. NaN and
     * infinities give UDFKIT_ROW_ERROR_INVALID_DECIMAL, more than 38 digits
     * UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW. */
    UDFKIT_HDC static decimal from_double(double x, int scale, rounding mode = rounding::half_away_from_zero);
    UDFKIT_HD static decimal from_float(float x, int scale, rounding mode = rounding::half_away_from_zero)
    {
        return from_double((double)x, scale, mode);
    }
    /* Text as Arrow reads a decimal: an optional sign, digits with at most one point (at
     * least one digit: "5." and ".5" are numbers), an optional exponent ("1.5E+3", "2e-7");
     * no spaces. The first form keeps every digit (its scale is the digits after the point
     * less the exponent, at least 0); the second rounds to `scale`. Other text gives
     * UDFKIT_ROW_ERROR_INVALID_DECIMAL, a value that needs more than 38 digits (or nonzero
     * digits past scale 38, in the first form) UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW. */
    UDFKIT_HD static decimal parse(string_view text);
    UDFKIT_HD static decimal parse(string_view text, int scale, rounding mode = rounding::half_away_from_zero)
    {
        bool inexact;
        return parse_at(text, scale, mode, &inexact);
    }
    /* A value that carries a row error code, what operations give where they fail: its
     * unscaled value 0 and the scale the result would have had (0 if none), so that a
     * compiler that knows the scales of a computation knows its result's. */
    UDFKIT_HD static decimal with_error(int code, int scale = 0)
    {
        decimal r;
        r.error_ = code;
        r.scale_ = scale >= 0 && scale <= decimal_max_precision ? scale : 0;
        return r;
    }

    UDFKIT_HD int128 unscaled() const { return error_ ? 0 : value_; }
    UDFKIT_HD int scale() const { return scale_; }
    /* 0, or the row error code of the first operation that failed on the way to this value
     * (whose unscaled value is then 0). */
    UDFKIT_HD int error() const { return error_; }
    UDFKIT_HD bool ok() const { return error_ == 0; }
    /* -1, 0 or 1. */
    UDFKIT_HD int sign() const
    {
        const int128 v = unscaled();
        return (v > 0) - (v < 0);
    }
    /* Whether the value is exact and has at most `precision` digits (1 <= precision <= 38). */
    UDFKIT_HD bool fits(int precision) const
    {
        return !error_ && precision >= 1 && precision <= decimal_max_precision &&
               decimal_detail::within(value_, precision);
    }
    /* The value at another scale, rounded where digits go. */
    UDFKIT_HD decimal rescale(int scale, rounding mode = rounding::half_away_from_zero) const;

    /* Stores the value rounded to `scale` into a result of `precision` digits: 0, or the
     * row error code that says why not (the value's own; UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW
     * where it does not fit the precision; _INVALID_DECIMAL for a precision or scale that
     * the storage cannot have), and then *out is left as it was. decimal128 results are a
     * udfkit_decimal128, decimal64 a long or long long, decimal32 an int. */
    UDFKIT_HD int store(udfkit_decimal128 *out, int precision, int scale,
                        rounding mode = rounding::half_away_from_zero) const
    {
        int128 v;
        int e = stored(&v, precision, scale, decimal_max_precision, mode);
        if (!e) {
#if defined(__CUDA_ARCH__)
            /* True of every value without an error (at most 38 digits): said, so that an
             * operation on what is stored here (the running value of a reduce) knows its
             * digit check's answer and drops it. */
            __builtin_assume(decimal_detail::within(v, decimal_max_precision));
#endif
            out->lo = (unsigned long long)(uint128)v;
            out->hi = (long long)(v >> 64);
        }
        return e;
    }
    UDFKIT_HD int store(long long *out, int precision, int scale, rounding mode = rounding::half_away_from_zero) const
    {
        int128 v;
        int e = stored(&v, precision, scale, decimal64_max_precision, mode);
        if (!e)
            *out = (long long)v;
        return e;
    }
    UDFKIT_HD int store(long *out, int precision, int scale, rounding mode = rounding::half_away_from_zero) const
    {
        int128 v;
        int e = stored(&v, precision, scale, sizeof(long) == 8 ? decimal64_max_precision : decimal32_max_precision, mode);
        if (!e)
            *out = (long)v;
        return e;
    }
    UDFKIT_HD int store(int *out, int precision, int scale, rounding mode = rounding::half_away_from_zero) const
    {
        int128 v;
        int e = stored(&v, precision, scale, decimal32_max_precision, mode);
        if (!e)
            *out = (int)v;
        return e;
    }
    /* The unscaled value as a udfkit_decimal128 (0 for a value with an error). */
    UDFKIT_HD udfkit_decimal128 abi() const
    {
        udfkit_decimal128 r;
        const int128 v = unscaled();
        r.lo = (unsigned long long)(uint128)v;
        r.hi = (long long)(v >> 64);
        return r;
    }

    /* The value rounded to an integer (half away from zero unless asked otherwise; toward
     * zero is C's and Python's int()): 0, or UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW where that is
     * outside long long, or the value's own error; *out is then left as it was. */
    UDFKIT_HD int to_int64(long long *out, rounding mode = rounding::half_away_from_zero) const
    {
        decimal r = rescale(0, mode);
        if (r.error_)
            return r.error_;
        if (r.value_ > (int128)9223372036854775807LL || r.value_ < -(int128)9223372036854775807LL - 1)
            return UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW;
        *out = (long long)r.value_;
        return 0;
    }
    /* The nearest double (ties to even), as Python's float(Decimal): correctly rounded. */
    UDFKIT_HD double to_double() const { return binary(53, -1022); }
    /* The nearest float (ties to even), rounded once from the exact value. */
    UDFKIT_HD float to_float() const { return (float)binary(24, -126); }

    /* Canonical text, as Python's str(Decimal) and Arrow's cast to string write it: "-123.45",
     * "0.00", "1E-7" (scientific where the exponent of the leading digit is below -6), into
     * buf (room for decimal_text_max bytes; no NUL); its size. A value with an error writes
     * "NaN". */
    UDFKIT_HDC int to_chars(char *buf) const;
    /* Appends the canonical text to a string result. */
    UDFKIT_HD void write(udfkit_string_out *out) const
    {
        char buf[decimal_text_max];
        out->append(buf, to_chars(buf));
    }

    UDFKIT_HD decimal &operator+=(const decimal &b);
    UDFKIT_HD decimal &operator-=(const decimal &b);
    UDFKIT_HD decimal &operator*=(const decimal &b);

  private:
    friend struct decimal_detail::maker;
    /* The unscaled value: at most 38 digits where error_ is 0; where it is not, whatever the
     * failed operation left (unscaled(), sign(), abi() and the conversions read 0). */
    int128 value_;
    int scale_;
    int error_;

    UDFKIT_HD void init(int128 unscaled, int scale)
    {
        value_ = unscaled;
        scale_ = scale;
        error_ = 0;
        if (scale < 0 || scale > decimal_max_precision) {
            value_ = 0;
            scale_ = 0;
            error_ = UDFKIT_ROW_ERROR_INVALID_DECIMAL;
        }
    }
    UDFKIT_HDC static decimal parse_at(string_view text, int scale, rounding mode, bool *inexact);
    UDFKIT_HD int stored(int128 *v, int precision, int scale, int max_precision, rounding mode) const
    {
        if (error_)
            return error_;
        if (precision < 1 || precision > max_precision || scale < 0 || scale > precision)
            return UDFKIT_ROW_ERROR_INVALID_DECIMAL;
        decimal r = rescale(scale, mode);
        if (r.error_)
            return r.error_;
        /* Every value has at most 38 digits already. */
        if (precision < decimal_max_precision && !decimal_detail::within(r.value_, precision))
            return UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW;
        *v = r.value_;
        return 0;
    }
    /* The correctly rounded binary float of `mantissa` bits, as a double (exactly). */
    UDFKIT_HD double binary(int mantissa, int min_exponent) const
    {
        const int128 value = unscaled();
        if (value == 0)
            return 0.0;
        uint128 m = decimal_detail::magnitude(value);
        double v;
        if (mantissa == 53 && m < ((uint128)1 << 53) && scale_ <= 22) {
            /* Both exact doubles, so one IEEE division rounds correctly (Clinger's fast path). */
            double p = 1.0;
            for (int i = 0; i < scale_; i++)
                p *= 10.0;
            v = (double)(unsigned long long)m / p;
        } else {
            int exp;
            unsigned long long sig = decimal_detail::to_binary(m, scale_, mantissa, min_exponent, &exp);
            v = decimal_detail::scale_binary(sig, exp);
        }
        return value < 0 ? -v : v;
    }
};

namespace decimal_detail {

struct maker {
    /* unscaled * 10^-scale for |unscaled| < 10^38 and a scale in 0..38, as they are. */
    UDFKIT_HD static decimal checked(int128 unscaled, int scale)
    {
        decimal r;
        r.value_ = unscaled;
        r.scale_ = scale;
        return r;
    }
    /* The same, or a value that carries `error` where it is not 0, in one path (no branch
     * for a compiler to merge the scales of again; the value is kept either way, so that
     * nothing is selected). */
    UDFKIT_HD static decimal of(int128 unscaled, int scale, int error)
    {
        decimal r;
        r.value_ = unscaled;
        r.scale_ = scale;
        r.error_ = error;
        return r;
    }
    /* The unscaled value as held: unscaled() where d has no error, else anything. */
    UDFKIT_HD static int128 raw(const decimal &d) { return d.value_; }
};

/* A value of at most 38 digits from a magnitude n / d rounded by `mode`, or one that carries
 * the error. */
UDFKIT_HD decimal quotient(bool negative, const u256 &n, const u256 &d, int scale, rounding mode)
{
    int error = 0;
    int128 v = divide(negative, n, d, mode, &error);
    return error ? decimal::with_error(error, scale) : decimal(v, scale);
}

/* The same for n / 10^k. */
UDFKIT_HD decimal quotient_pow10(bool negative, const u256 &n, int k, int scale, rounding mode)
{
    int error = 0;
    int128 v = divide_pow10(negative, n, k, mode, &error);
    return error ? decimal::with_error(error, scale) : decimal(v, scale);
}

UDFKIT_HD int first_error(const decimal &a, const decimal &b) { return a.error() ? a.error() : b.error(); }

UDFKIT_HD bool valid_scale(int scale) { return scale >= 0 && scale <= decimal_max_precision; }

/* a + b or a - b exact in 256 bits, then rounded to `scale`. */
UDFKIT_HDC decimal rounded_sum(const decimal &a, const decimal &b, bool subtract, int scale, rounding mode)
{
    if (int e = first_error(a, b))
        return decimal::with_error(e, scale);
    if (!valid_scale(scale))
        return decimal::with_error(UDFKIT_ROW_ERROR_INVALID_DECIMAL);
    int exact = a.scale() > b.scale() ? a.scale() : b.scale();
    u256 x = make(magnitude(a.unscaled())), y = make(magnitude(b.unscaled()));
    mul_pow10(x, exact - a.scale()); /* below 10^76 */
    mul_pow10(y, exact - b.scale());
    signed_u256 s = signed_sum(a.sign() < 0, x, subtract ? b.sign() > 0 : b.sign() < 0, y);
    if (scale >= exact && !mul_pow10(s.magnitude, scale - exact))
        return decimal::with_error(UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, scale);
    return quotient_pow10(s.negative, s.magnitude, scale >= exact ? 0 : exact - scale, scale, mode);
}

/* a + b or a - b exact, at the larger scale, in 128 bits. */
UDFKIT_HD decimal exact_sum(const decimal &a, const decimal &b, bool subtract)
{
    int scale = a.scale() > b.scale() ? a.scale() : b.scale();
    /* The values as held: where either has an error the result carries it, whatever they
     * are (so no select makes them 0 first), and the paths below return before they use
     * them. */
    const uint128 yb = (uint128)maker::raw(b);
    int128 x = maker::raw(a), y = (int128)(subtract ? (uint128)0 - yb : yb);
    if (a.scale() == b.scale()) {
        /* Both within 38 digits: the true sum is within 2 * 10^38, and where it passes 2^127
         * the wrapped sum is past -(2^128 - 2 * 10^38) < -10^38, so the one check on it is
         * exact. It is made whatever the operands' errors (a sum that a later operation
         * checks again, as the running value of a reduce, then finds it done). */
        const int128 s = (int128)((uint128)x + (uint128)y);
        const int over = within(s, decimal_max_precision) ? 0 : UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW;
        const int e = first_error(a, b);
        return maker::of(s, scale, e ? e : over);
    }
    if (int e = first_error(a, b))
        return decimal::with_error(e, scale);
    /* An operand past 38 digits once aligned leaves the sum to the 256-bit form. */
    if (a.scale() != scale) {
        if (magnitude(x) > max_magnitude(decimal_max_precision - (scale - a.scale())))
            return rounded_sum(a, b, subtract, scale, rounding::toward_zero);
        x *= (int128)pow10_128(scale - a.scale());
    }
    if (b.scale() != scale) {
        if (magnitude(y) > max_magnitude(decimal_max_precision - (scale - b.scale())))
            return rounded_sum(a, b, subtract, scale, rounding::toward_zero);
        y *= (int128)pow10_128(scale - b.scale());
    }
    /* Both below 10^38, so the sum is below 2 * 10^38 < 2^128 in magnitude. */
    bool negative;
    uint128 m;
    if ((x < 0) == (y < 0)) {
        negative = x < 0;
        m = magnitude(x) + magnitude(y);
    } else {
        int128 s = x + y;
        negative = s < 0;
        m = magnitude(s);
    }
    if (m > max_magnitude(decimal_max_precision))
        return decimal::with_error(UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, scale);
    return decimal(negative ? -(int128)m : (int128)m, scale);
}

} /* namespace decimal_detail */

/* Exact: the scale of a sum or difference is the larger scale, of a product the sum of the
 * scales. A result past 38 digits, or a product past scale 38, gives
 * UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, where add, sub and mul with a result scale round. */
UDFKIT_HD decimal operator+(const decimal &a, const decimal &b) { return decimal_detail::exact_sum(a, b, false); }
UDFKIT_HD decimal operator-(const decimal &a, const decimal &b) { return decimal_detail::exact_sum(a, b, true); }
UDFKIT_HD decimal operator*(const decimal &a, const decimal &b)
{
    using namespace decimal_detail;
    int scale = a.scale() + b.scale();
    if (scale > decimal_max_precision)
        return decimal::with_error(a.error() ? a.error() : b.error() ? b.error() : UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW);
    uint128 x = magnitude(a.unscaled()), y = magnitude(b.unscaled());
    const bool negative = (a.unscaled() < 0) != (b.unscaled() < 0);
    /* One return, its scale one constant for the compiler: the error selected, not branched
     * to (a value with an error is 0 here). */
    int e = first_error(a, b);
    uint128 m;
    if (!(u64)(x >> 64) && !(u64)(y >> 64)) {
        m = mul_64((u64)x, (u64)y); /* the usual case, below 2^128 */
    } else {
        const u256 p = decimal_detail::mul(x, y);
        m = low_128(p);
        e = e ? e : fits_128(p) ? 0 : UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW;
    }
    e = e ? e : m > max_magnitude(decimal_max_precision) ? UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW : 0;
    return maker::of(negative ? -(int128)m : (int128)m, scale, e);
}
UDFKIT_HD decimal operator-(const decimal &a)
{
    return a.error() ? a : decimal(-a.unscaled(), a.scale());
}
UDFKIT_HD decimal abs(const decimal &a) { return a.sign() < 0 ? -a : a; }
UDFKIT_HD decimal &decimal::operator+=(const decimal &b) { return *this = *this + b; }
UDFKIT_HD decimal &decimal::operator-=(const decimal &b) { return *this = *this - b; }
UDFKIT_HD decimal &decimal::operator*=(const decimal &b) { return *this = *this * b; }

/* a + b, a - b, a * b and a / b, each exact and then rounded once to `scale` (half away
 * from zero unless asked otherwise), whatever scales and digits the exact value has:
 * mul(a, b, 4) of two values of scale 30 is right where a * b is past scale 38. A result
 * past 38 digits gives UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, a scale outside 0..38
 * _INVALID_DECIMAL, division by zero _DIVIDE_BY_ZERO. */
UDFKIT_HD decimal add(const decimal &a, const decimal &b, int scale, rounding mode = rounding::half_away_from_zero)
{
    return decimal_detail::rounded_sum(a, b, false, scale, mode);
}
UDFKIT_HD decimal sub(const decimal &a, const decimal &b, int scale, rounding mode = rounding::half_away_from_zero)
{
    return decimal_detail::rounded_sum(a, b, true, scale, mode);
}
UDFKIT_HD decimal mul(const decimal &a, const decimal &b, int scale, rounding mode = rounding::half_away_from_zero)
{
    using namespace decimal_detail;
    if (int e = first_error(a, b))
        return decimal::with_error(e, scale);
    if (!valid_scale(scale))
        return decimal::with_error(UDFKIT_ROW_ERROR_INVALID_DECIMAL);
    u256 n = decimal_detail::mul(magnitude(a.unscaled()), magnitude(b.unscaled()));
    int exact = a.scale() + b.scale();
    if (scale >= exact && !mul_pow10(n, scale - exact))
        return decimal::with_error(UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, scale);
    return quotient_pow10((a.sign() < 0) != (b.sign() < 0), n, scale >= exact ? 0 : exact - scale, scale, mode);
}
UDFKIT_HD decimal div(const decimal &a, const decimal &b, int scale, rounding mode = rounding::half_away_from_zero)
{
    using namespace decimal_detail;
    if (int e = first_error(a, b))
        return decimal::with_error(e, scale);
    if (!valid_scale(scale))
        return decimal::with_error(UDFKIT_ROW_ERROR_INVALID_DECIMAL);
    if (b.sign() == 0)
        return decimal::with_error(UDFKIT_ROW_ERROR_DIVIDE_BY_ZERO, scale);
    /* a / b at `scale` is a * 10^(scale - sa + sb) / b, unscaled. A dividend past 2^256
     * makes a quotient past 2^256 / 10^38 > 10^38. */
    u256 n = make(magnitude(a.unscaled())), d = make(magnitude(b.unscaled()));
    int e = scale - a.scale() + b.scale();
    if (!mul_pow10(e >= 0 ? n : d, e >= 0 ? e : -e))
        return decimal::with_error(UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, scale);
    return quotient((a.sign() < 0) != (b.sign() < 0), n, d, scale, mode);
}

/* -1, 0 or 1 by numeric value whatever the scales (1.50 == 1.5); a value with an error
 * compares as 0. */
UDFKIT_HD int compare(const decimal &a, const decimal &b)
{
    using namespace decimal_detail;
    if (a.scale() == b.scale())
        return (a.unscaled() > b.unscaled()) - (a.unscaled() < b.unscaled());
    bool swap = a.scale() > b.scale();
    const decimal &lo = swap ? b : a, &hi = swap ? a : b;
    int k = hi.scale() - lo.scale();
    /* lo * 10^k either has at most 38 digits or is larger in magnitude than any value hi has. */
    int c;
    if (magnitude(lo.unscaled()) <= max_magnitude(decimal_max_precision - k)) {
        int128 x = lo.unscaled() * (int128)pow10_128(k);
        c = (x > hi.unscaled()) - (x < hi.unscaled());
    } else {
        c = lo.sign();
    }
    return swap ? -c : c;
}
UDFKIT_HD bool operator==(const decimal &a, const decimal &b) { return compare(a, b) == 0; }
UDFKIT_HD bool operator!=(const decimal &a, const decimal &b) { return compare(a, b) != 0; }
UDFKIT_HD bool operator<(const decimal &a, const decimal &b) { return compare(a, b) < 0; }
UDFKIT_HD bool operator<=(const decimal &a, const decimal &b) { return compare(a, b) <= 0; }
UDFKIT_HD bool operator>(const decimal &a, const decimal &b) { return compare(a, b) > 0; }
UDFKIT_HD bool operator>=(const decimal &a, const decimal &b) { return compare(a, b) >= 0; }

UDFKIT_HD decimal decimal::rescale(int scale, rounding mode) const
{
    using namespace decimal_detail;
    if (error_)
        return *this;
    if (!valid_scale(scale))
        return with_error(UDFKIT_ROW_ERROR_INVALID_DECIMAL);
    if (scale == scale_)
        return *this;
    uint128 m = magnitude(value_);
    if (scale > scale_) {
        if (m > max_magnitude(decimal_max_precision - (scale - scale_)))
            return with_error(UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, scale);
        return decimal(value_ * (int128)pow10_128(scale - scale_), scale);
    }
    const int k = scale_ - scale;
    if (k <= 19) { /* the usual case: a 128-bit quotient by a 64-bit power of ten */
        u64 r;
        uint128 q = divmod_pow10_128(m, k, &r);
        q += rounds_up_64(mode, value_ < 0, q & 1, r, pow10_64(k)); /* below 10^37 + 1 */
        return maker::checked(value_ < 0 ? -(int128)q : (int128)q, scale);
    }
    return quotient_pow10(value_ < 0, make(m), k, scale, mode);
}

UDFKIT_HDC decimal decimal::from_double(double x, int scale, rounding mode)
{
    using namespace decimal_detail;
    if (!valid_scale(scale))
        return with_error(UDFKIT_ROW_ERROR_INVALID_DECIMAL);
    u64 bits = double_to_bits(x);
    int biased = (int)((bits >> 52) & 0x7ff);
    if (biased == 0x7ff)
        return with_error(UDFKIT_ROW_ERROR_INVALID_DECIMAL, scale);
    u64 sig = bits & ((1ull << 52) - 1);
    if (biased)
        sig |= 1ull << 52;
    if (!sig)
        return decimal(0, scale);
    /* x = sig * 2^exp exactly, so x * 10^scale = sig * 10^scale * 2^exp. */
    int exp = (biased ? biased : 1) - 1075;
    u256 n = make(sig), d = make(1);
    mul_pow10(n, scale); /* below 2^53 * 10^38 */
    if (exp >= 0) {
        if (exp >= 256 - bit_length(n))
            return with_error(UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, scale);
        n = shift_left(n, exp);
    } else if (-exp <= 255) {
        d = shift_left(make(1), -exp);
    } else {
        /* Below 2^180 / 2^256 of the last digit: rounds as any tiny positive remainder. */
        n = make(1);
        d = shift_left(make(1), 255);
    }
    return quotient(bits >> 63, n, d, scale, mode);
}

UDFKIT_HD decimal decimal::parse(string_view text)
{
    /* The scale the text itself has: digits after the point less the exponent (the full
     * parse below checks the syntax). */
    const char *s = text.data();
    long long n = text.size(), i = 0, fraction = 0, exponent = 0;
    bool point = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    for (; i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] == '.' && !point)); i++) {
        if (s[i] == '.')
            point = true;
        else
            fraction += point;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        bool negative = ++i < n && s[i] == '-';
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (exponent < 100000)
                exponent = exponent * 10 + (s[i] - '0');
        if (negative)
            exponent = -exponent;
    }
    long long scale = fraction - exponent;
    bool inexact;
    decimal r = parse_at(text, scale < 0 ? 0 : scale > decimal_max_precision ? decimal_max_precision : (int)scale,
                         rounding::toward_zero, &inexact);
    return !r.error_ && inexact ? with_error(UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, r.scale_) : r;
}

UDFKIT_HDC decimal decimal::parse_at(string_view text, int scale, rounding mode, bool *inexact)
{
    using namespace decimal_detail;
    *inexact = false;
    if (!valid_scale(scale))
        return with_error(UDFKIT_ROW_ERROR_INVALID_DECIMAL);
    const char *s = text.data();
    long long n = text.size(), i = 0;
    bool negative = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        negative = s[i++] == '-';
    long long first = i, point = -1, ndigits = 0;
    for (; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9')
            ndigits++;
        else if (s[i] == '.' && point < 0)
            point = i;
        else
            break;
    }
    long long end = i, exponent = 0;
    if (!ndigits)
        return with_error(UDFKIT_ROW_ERROR_INVALID_DECIMAL, scale);
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        long long start = i;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (exponent < 100000) /* past any digit a decimal keeps */
                exponent = exponent * 10 + (s[i] - '0');
        if (i == start)
            return with_error(UDFKIT_ROW_ERROR_INVALID_DECIMAL, scale);
        if (eneg)
            exponent = -exponent;
    }
    if (i != n)
        return with_error(UDFKIT_ROW_ERROR_INVALID_DECIMAL, scale);
    /* Digit k (counting digits alone, from 0) stands for 10^(integer digits - 1 - k +
     * exponent): the result keeps the first `keep`, down to 10^-scale, and rounds by the
     * next one and whether any after it is nonzero. */
    long long integer_digits = point < 0 ? ndigits : point - first;
    long long keep = integer_digits + exponent + scale, k = 0;
    const uint128 limit = max_magnitude(decimal_max_precision);
    uint128 m = 0;
    int next = 0;
    bool sticky = false;
    for (long long j = first; j < end; j++) {
        if (s[j] == '.')
            continue;
        int digit = s[j] - '0';
        if (k < keep) {
            if (m > (limit - digit) / 10)
                return with_error(UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, scale);
            m = m * 10 + digit;
        } else if (k == keep) {
            next = digit;
        } else {
            sticky |= digit != 0;
        }
        k++;
    }
    for (; k < keep && m; k++) {
        if (m > limit / 10)
            return with_error(UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, scale);
        m *= 10;
    }
    *inexact = next || sticky;
    /* The dropped digits as a remainder r of a divisor d: next/10, or a little more where
     * a later digit is nonzero (which moves 0 and 5, the only cases it decides). */
    u256 r = make((uint128)next), d = make(10);
    if (sticky) {
        r = make((uint128)next * 2 + 1);
        d = make(20);
    }
    if (rounds_up(mode, negative, m & 1, r, d))
        m++;
    if (m > limit)
        return with_error(UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW, scale);
    return decimal(negative ? -(int128)m : (int128)m, scale);
}

UDFKIT_HDC int decimal::to_chars(char *buf) const
{
    if (error_) {
        buf[0] = 'N';
        buf[1] = 'a';
        buf[2] = 'N';
        return 3;
    }
    char d[40];
    int nd = decimal_detail::digits(decimal_detail::magnitude(value_), d);
    int n = 0;
    if (value_ < 0)
        buf[n++] = '-';
    int adjusted = nd - 1 - scale_;
    if (adjusted >= -6) {
        if (nd > scale_) {
            for (int i = 0; i < nd; i++) {
                if (i == nd - scale_)
                    buf[n++] = '.';
                buf[n++] = d[i];
            }
        } else {
            buf[n++] = '0';
            buf[n++] = '.';
            for (int i = nd; i < scale_; i++)
                buf[n++] = '0';
            for (int i = 0; i < nd; i++)
                buf[n++] = d[i];
        }
        return n;
    }
    buf[n++] = d[0];
    if (nd > 1) {
        buf[n++] = '.';
        for (int i = 1; i < nd; i++)
            buf[n++] = d[i];
    }
    buf[n++] = 'E';
    buf[n++] = '-';
    int e = -adjusted;
    if (e >= 10)
        buf[n++] = (char)('0' + e / 10);
    buf[n++] = (char)('0' + e % 10);
    return n;
}

} /* namespace udfkit */

#undef UDFKIT_HD
#undef UDFKIT_HDC

#endif /* UDFKIT_DECIMAL_CUH */
