// The fast paths of <udfkit/decimal.cuh> and <udfkit/datetime.cuh> (docs/decimals-and-dates.md,
// "Speed") against independent arithmetic, on the host (test_libs.py: test_fast_paths):
// - rescaling down by 10^1 .. 10^38 in every rounding mode (division by a reciprocal of 10^k
//   up to 10^19, the 256-bit path past it) against the host compiler's own __int128 division;
// - the 256-bit division by 10^k (a reciprocal per word) against the long division of
//   decimal_detail::divmod (Hacker's Delight's 128-by-64 steps);
// - sums of one scale (one check on the wrapped 128-bit sum) and products of two values below
//   2^64 (a 64 x 64-bit product) against __int128 sums and products with their limits checked
//   by division;
// - operands past 38 digits (the whole 128-bit range): the error, and a failed value read as 0
//   (a failed value keeps whatever it was made of, so that sums need not select it away);
// - civil_from_days (32-bit arithmetic within about 5.8 million years of 1970, 64-bit beyond)
//   against a calendar walked a day at a time across both ends of the 32-bit range and over
//   years -250 .. 10250, and days_from_civil back.
// Prints the count of checks; exits 1 at the first difference, saying where.
#include <udfkit/datetime.cuh>
#include <udfkit/decimal.cuh>

#include <cstdio>
#include <cstdlib>

using udfkit::decimal;
using udfkit::rounding;
typedef udfkit::int128 i128;
typedef udfkit::uint128 u128;
namespace dd = udfkit::decimal_detail;

static unsigned long long seed = 0x9e3779b97f4a7c15ull;
static unsigned long long checks = 0;

static unsigned long long next_random()
{
    unsigned long long x = (seed += 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static i128 pow10(int k)
{
    i128 p = 1;
    while (k--)
        p *= 10;
    return p;
}

static const i128 max38 = pow10(38) - 1;

static void text(i128 v, char *out)
{
    char buf[48];
    int n = 0;
    u128 m = v < 0 ? (u128)0 - (u128)v : (u128)v;
    do {
        buf[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    int k = 0;
    if (v < 0)
        out[k++] = '-';
    while (n)
        out[k++] = buf[--n];
    out[k] = 0;
}

static void fail(const char *what, i128 a, i128 b, long long k, i128 want, i128 got)
{
    char sa[48], sb[48], sw[48], sg[48];
    text(a, sa), text(b, sb), text(want, sw), text(got, sg);
    fprintf(stderr, "FAILED: %s: operands %s, %s, k %lld: expected %s, got %s\n", what, sa, sb, k, sw, sg);
    exit(1);
}

/* A value of 1..38 digits (uniform count), either sign; every 16th at a limit or a half. */
static i128 random_value()
{
    const unsigned long long r = next_random();
    const int digits = 1 + (int)(r % 38);
    i128 v = ((i128)next_random() << 64 | next_random()) & (((i128)1 << 126) - 1);
    v %= pow10(digits);
    switch ((r >> 8) % 16) {
    case 0: v = max38; break;
    case 1: v = pow10(digits) / 2; break; /* 5000...: halves of many powers */
    case 2: v = pow10(digits) - 1; break;
    default: break;
    }
    return (r >> 16) & 1 ? -v : v;
}

/* v / 10^k rounded by mode, by the host's __int128 division (truncating toward zero). */
static i128 expected_rescale(i128 v, int k, rounding mode)
{
    const i128 d = pow10(k), q = v / d, r = v % d;
    if (r == 0)
        return q;
    const int away = v < 0 ? -1 : 1;
    const u128 twice = 2 * (u128)(r < 0 ? -r : r);
    switch (mode) {
    case rounding::toward_zero: return q;
    case rounding::floor: return v < 0 ? q - 1 : q;
    case rounding::ceiling: return v < 0 ? q : q + 1;
    case rounding::half_away_from_zero: return twice >= (u128)d ? q + away : q;
    case rounding::half_even: return twice > (u128)d || (twice == (u128)d && (q & 1)) ? q + away : q;
    }
    return 0;
}

static void check_rescale()
{
    const rounding modes[] = {rounding::half_away_from_zero, rounding::half_even, rounding::toward_zero,
                              rounding::floor, rounding::ceiling};
    for (int i = 0; i < 200000; i++) {
        const i128 v = random_value();
        const int k = 1 + (int)(next_random() % 38), scale = k + (int)(next_random() % (39 - k));
        for (rounding mode : modes) {
            const decimal r = decimal(v, scale).rescale(scale - k, mode);
            const i128 want = expected_rescale(v, k, mode);
            if (!r.ok() || r.scale() != scale - k || r.unscaled() != want)
                fail("rescale", v, scale, k, want, r.unscaled());
            checks++;
        }
        /* The same through store(), as a UDF's result. */
        udfkit_decimal128 out;
        const int e = decimal(v, scale).store(&out, 38, scale - k);
        const i128 want = expected_rescale(v, k, rounding::half_away_from_zero);
        if (e || (i128)((u128)(unsigned long long)out.hi << 64 | out.lo) != want)
            fail("store", v, scale, k, want, (i128)e);
        checks++;
    }
}

static void check_divmod_pow10()
{
    for (int i = 0; i < 100000; i++) {
        dd::u256 n;
        for (int w = 0; w < 4; w++)
            n.w[w] = next_random() >> (next_random() % 64);
        const int k = 1 + (int)(next_random() % 19);
        dd::u256 q, want_q, want_r;
        unsigned long long rem;
        dd::divmod_pow10(n, k, q, rem);
        dd::divmod(n, dd::make((u128)pow10(k)), want_q, want_r);
        if (dd::compare(q, want_q) != 0 || rem != want_r.w[0] || want_r.w[1] || want_r.w[2] || want_r.w[3])
            fail("divmod_pow10 (the low words)", (i128)dd::low_128(n), k, k, (i128)dd::low_128(want_q),
                 (i128)dd::low_128(q));
        checks++;
    }
}

static void check_sum_and_product()
{
    for (int i = 0; i < 400000; i++) {
        const i128 x = random_value(), y = random_value();
        const int scale = (int)(next_random() % 39);
        for (int subtract = 0; subtract < 2; subtract++) {
            const i128 b = subtract ? -y : y;
            const bool over = (b > 0 && x > max38 - b) || (b < 0 && x < -max38 - b);
            const decimal s = subtract ? decimal(x, scale) - decimal(y, scale) : decimal(x, scale) + decimal(y, scale);
            if (over ? s.error() != UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW : !s.ok() || s.unscaled() != x + b ||
                                                                           s.scale() != scale)
                fail(subtract ? "difference" : "sum", x, y, scale, over ? 0 : x + b, s.unscaled());
            checks++;
        }
        /* Products: operands of up to 19 digits mostly (the 64-bit path), any now and then. */
        const i128 a = next_random() % 4 ? x % pow10(1 + (int)(next_random() % 19)) : x;
        const i128 c = next_random() % 4 ? y % pow10(1 + (int)(next_random() % 19)) : y;
        const int sa = (int)(next_random() % 20), sc = (int)(next_random() % 19);
        const u128 ma = a < 0 ? -a : a, mc = c < 0 ? -c : c;
        const bool over = ma && mc > (u128)max38 / ma;
        const decimal p = decimal(a, sa) * decimal(c, sc);
        if (over ? p.error() != UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW : !p.ok() || p.unscaled() != a * c ||
                                                                      p.scale() != sa + sc)
            fail("product", a, c, sa + sc, over ? 0 : a * c, p.unscaled());
        checks++;
    }
}

/* Values past 38 digits, as a decimal128 input may hold (the whole 128-bit range, its ends
 * and the limits +-10^38): the constructor's error, a failed value's readers (unscaled(),
 * sign(), abi(), to_double() give 0 whatever the value it keeps), and sums, differences and
 * products with such an operand or with a result past 38 digits (the error, and 0 read). */
static void expect_failed(const char *what, const decimal &d, i128 a, i128 b)
{
    const udfkit_decimal128 abi = d.abi();
    if (d.error() != UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW || d.unscaled() != 0 || d.sign() != 0 || abi.lo || abi.hi ||
        d.to_double() != 0.0 || d.fits(38))
        fail(what, a, b, d.error(), 0, d.unscaled());
    checks++;
}

static void check_past_38_digits()
{
    const i128 top = (i128)(~(u128)0 >> 1), ends[] = {top, -top - 1, pow10(38), -pow10(38), max38, -max38, 0, 1, -1};
    const int nends = (int)(sizeof ends / sizeof ends[0]);
    for (int i = 0; i < 200000; i++) {
        const unsigned long long r = next_random();
        const i128 wide = (i128)((u128)next_random() << 64 | next_random());
        const i128 x = r % 8 == 0 ? ends[(r >> 8) % nends] : r % 8 < 4 ? wide : random_value();
        const i128 y = (r >> 16) % 8 == 0 ? ends[(r >> 24) % nends] : (r >> 16) % 8 < 4 ? wide >> (r >> 32) % 128 : random_value();
        const int scale = (int)((r >> 40) % 39);
        const bool xo = x > max38 || x < -max38, yo = y > max38 || y < -max38;
        const decimal dx(x, scale), dy(y, scale);
        if (xo)
            expect_failed("past 38 digits", dx, x, 0);
        else if (!dx.ok() || dx.unscaled() != x || dx.sign() != (x > 0) - (x < 0))
            fail("within 38 digits", x, 0, scale, x, dx.unscaled());
        for (int subtract = 0; subtract < 2; subtract++) {
            const decimal s = subtract ? dx - dy : dx + dy;
            /* Both within 38 digits: the exact result, unless past 2^127 (then past 38 digits). */
            i128 exact = 0;
            const bool wraps = !xo && !yo &&
                               (subtract ? __builtin_sub_overflow(x, y, &exact) : __builtin_add_overflow(x, y, &exact));
            if (xo || yo || wraps || exact > max38 || exact < -max38)
                expect_failed(subtract ? "difference past 38 digits" : "sum past 38 digits", s, x, y);
            else if (!s.ok() || s.unscaled() != exact)
                fail(subtract ? "difference" : "sum", x, y, scale, exact, s.unscaled());
            checks++;
        }
        if (xo || yo)
            expect_failed("product past 38 digits", dx * dy, x, y);
    }
}

static void check_days()
{
    using namespace udfkit;
    /* Where the 32-bit path ends, on both sides, and years -250 .. 10250. */
    const long long shift = 719468 + 14700LL * 146097;
    const long long starts[] = {-shift - 4000, 0xffffffffLL - shift - 4000, days_from_civil(-250, 1, 1)};
    const long long lengths[] = {8000, 8000, days_from_civil(10250, 12, 31) - days_from_civil(-250, 1, 1)};
    for (int s = 0; s < 3; s++) {
        civil_date c = civil_from_days(starts[s]);
        for (long long day = starts[s]; day <= starts[s] + lengths[s]; day++) {
            const civil_date got = civil_from_days(day);
            if (got.year != c.year || got.month != c.month || got.day != c.day)
                fail("civil_from_days", day, c.year * 10000 + c.month * 100 + c.day, 0,
                     c.year * 10000 + c.month * 100 + c.day, got.year * 10000 + got.month * 100 + got.day);
            if (days_from_civil(got.year, got.month, got.day) != day)
                fail("days_from_civil", day, 0, 0, day, days_from_civil(got.year, got.month, got.day));
            checks += 2;
            /* The next day of the calendar. */
            if (++c.day > days_in_month(c.year, c.month)) {
                c.day = 1;
                if (++c.month > 12)
                    c.month = 1, c.year++;
            }
        }
    }
    const civil_date epoch = civil_from_days(0);
    if (epoch.year != 1970 || epoch.month != 1 || epoch.day != 1)
        fail("civil_from_days(0)", 0, 0, 0, 19700101, epoch.year * 10000 + epoch.month * 100 + epoch.day);
}

int main()
{
    check_rescale();
    check_divmod_pow10();
    check_sum_and_product();
    check_past_38_digits();
    check_days();
    printf("%llu checks\n", checks);
    return 0;
}
