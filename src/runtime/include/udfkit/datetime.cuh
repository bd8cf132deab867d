/* udfkit's dates and times for CUDA C/C++ (docs/decimals-and-dates.md), over the values of
 * SPEC.md's types as they cross the C ABI: date32 (days since 1970-01-01), date64
 * (milliseconds), timestamp[s|ms|us|ns] (counts since 1970-01-01T00:00:00 UTC) and
 * duration[s|ms|us|ns]. Every value is a count of a unit (udfkit::time_unit: day for date32,
 * millisecond for date64, ...), in the proleptic Gregorian calendar without leap seconds,
 * as numpy's datetime64 and timedelta64: civil dates from day counts and back (Howard
 * Hinnant's algorithms, over the whole int64 range), the fields of a date or time, unit
 * conversions (numpy's: exact toward a finer unit, floored toward a coarser one), durations
 * and months added, truncation to any unit, and differences in any unit.
 *
 * What can fail returns 0 or a row error code, with its result through the first parameter
 * (left as it was on failure): UDFKIT_ROW_ERROR_DATETIME_OVERFLOW where the result is outside
 * its type (int64, or int32 for a date32), UDFKIT_ROW_ERROR_INVALID_DATETIME for a civil date
 * or time that does not exist or a unit a function does not take:
 *
 *     long long r;
 *     if (int e = udfkit::add_months(&r, day, 1)) udfkit_row_error(e);
 *
 * Usable under NVRTC (`udfkit compile` gives it to every compile), nvcc and a C++17 host
 * compiler; everything is __host__ __device__ and needs no standard header. */
#ifndef UDFKIT_DATETIME_CUH
#define UDFKIT_DATETIME_CUH

#include <udfkit/udf.h>

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define UDFKIT_HD __host__ __device__ __forceinline__
#else
#define UDFKIT_HD inline
#endif

namespace udfkit {

/* Units, coarsest first. day to nanosecond are the storage units: the unit a value counts
 * (numpy's D, h, m, s, ms, us, ns). year, quarter, month and week are calendar units, for
 * floor_to, ceil_to and units_between only; a week starts on Monday, as in Arrow. */
enum class time_unit { year, quarter, month, week, day, hour, minute, second, millisecond, microsecond, nanosecond };

/* A date of the proleptic Gregorian calendar: year 0 is 1 BC, month 1..12, day 1..31. */
struct civil_date {
    long long year;
    int month;
    int day;
};

/* A date and a time of day: subsecond counts the storage unit below a second (0 for day to
 * second, 0..999 for millisecond, ...). */
struct civil_time {
    long long year;
    int month, day, hour, minute, second;
    long long subsecond;
};

namespace datetime_detail {

const long long int64_max = 9223372036854775807LL;
const long long int64_min = -9223372036854775807LL - 1;
/* The years of int64's last and first days, 07-27 and 06-07 of theirs. */
const long long max_year = 25252734927768524LL;
const long long min_year = -25252734927764585LL;

/* Whether a valid date's day count fits int64: days_from_civil's domain. */
UDFKIT_HD bool days_fit(long long year, int month, int day)
{
    if (year != max_year && year != min_year)
        return year < max_year && year > min_year;
    return year == max_year ? month * 100 + day <= 727 : month * 100 + day >= 607;
}

UDFKIT_HD bool is_storage(time_unit u) { return u >= time_unit::day && u <= time_unit::nanosecond; }

/* Nanoseconds in one of a fixed unit (week and finer). */
UDFKIT_HD long long nanoseconds(time_unit u)
{
    switch (u) {
    case time_unit::week: return 604800000000000LL;
    case time_unit::day: return 86400000000000LL;
    case time_unit::hour: return 3600000000000LL;
    case time_unit::minute: return 60000000000LL;
    case time_unit::second: return 1000000000LL;
    case time_unit::millisecond: return 1000000LL;
    case time_unit::microsecond: return 1000LL;
    default: return 1;
    }
}

/* How many of `fine` make one of `coarse` (fixed units, coarse no finer than fine). */
UDFKIT_HD long long ratio(time_unit coarse, time_unit fine) { return nanoseconds(coarse) / nanoseconds(fine); }

UDFKIT_HD long long floor_div(long long a, long long b)
{
    long long q = a / b;
    return q - ((a % b != 0) & ((a < 0) != (b < 0)));
}

UDFKIT_HD long long floor_mod(long long a, long long b)
{
    long long r = a % b;
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

UDFKIT_HD bool mul_overflows(long long a, long long b, long long *out)
{
    if (a > 0 ? (b > 0 ? a > int64_max / b : b < int64_min / a) : (b > 0 ? a < int64_min / b : a != 0 && b < int64_max / a))
        return true;
    *out = a * b;
    return false;
}

UDFKIT_HD bool add_overflows(long long a, long long b, long long *out)
{
    if (b > 0 ? a > int64_max - b : a < int64_min - b)
        return true;
    *out = a + b;
    return false;
}

UDFKIT_HD bool sub_overflows(long long a, long long b, long long *out)
{
    if (b < 0 ? a > int64_max + b : a < int64_min + b)
        return true;
    *out = a - b;
    return false;
}

/* t (of unit u) as whole days, floored, and the rest in u. */
UDFKIT_HD long long days_of(long long t, time_unit u) { return floor_div(t, ratio(time_unit::day, u)); }

/* days (of the day unit) in u, with the time of day tod (0 <= tod < a day, in u) added. */
UDFKIT_HD int from_days(long long *out, long long days, long long tod, time_unit u)
{
    long long t, r = ratio(time_unit::day, u);
    /* Before 1970 the day after, less the rest of the day: the first instant of int64 is
     * within a day whose start is not. */
    if (days < 0 ? mul_overflows(days + 1, r, &t) || add_overflows(t, tod - r, &t)
                 : mul_overflows(days, r, &t) || add_overflows(t, tod, &t))
        return UDFKIT_ROW_ERROR_DATETIME_OVERFLOW;
    *out = t;
    return 0;
}

} /* namespace datetime_detail */

/* The finer of two units: the unit of a sum or difference, as numpy's. */
UDFKIT_HD time_unit finer(time_unit a, time_unit b) { return a > b ? a : b; }

UDFKIT_HD bool is_leap_year(long long year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

UDFKIT_HD int days_in_month(long long year, int month)
{
    return month == 2 ? 28 + is_leap_year(year) : 30 + ((month + (month > 7)) & 1);
}

/* The date `days` days after 1970-01-01 (before it where negative), for any int64. */
UDFKIT_HD civil_date civil_from_days(long long days)
{
    /* Hinnant's civil_from_days: years start on March 1, so that February's leap day ends
     * them. Days within about 5.8 million years of 1970 (every date32 but those near its
     * ends) take it in 32-bit unsigned arithmetic, shifted by whole 400-year eras to count
     * from March 1 of the year -5880000, where each division by a constant is a multiply
     * of 32 bits (of 64 it is several). */
    const long long shift = 719468 + 14700LL * 146097; /* days from 5880000-03-01 BC */
    /* In unsigned arithmetic: days + shift overflows a long long for days near its end. */
    const unsigned long long from_era = (unsigned long long)days + (unsigned long long)shift;
    if (from_era <= 0xffffffffull) {
        const unsigned z = (unsigned)from_era;
        const unsigned era = z / 146097;
        const unsigned doe = z - era * 146097;
        const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        const unsigned mp = (5 * doy + 2) / 153;
        civil_date r;
        r.day = (int)(doy - (153 * mp + 2) / 5 + 1);
        r.month = (int)(mp < 10 ? mp + 3 : mp - 9);
        r.year = (long long)(yoe + era * 400) - 14700LL * 400 + (r.month <= 2);
        return r;
    }
    /* Elsewhere in 64 bits, with the eras counted apart so that no sum passes int64. */
    long long cycles = datetime_detail::floor_div(days, 146097);
    long long z = datetime_detail::floor_mod(days, 146097) + 719468; /* 719468..865564 */
    long long era = z / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    civil_date r;
    r.day = (int)(doy - (153 * mp + 2) / 5 + 1);
    r.month = (int)(mp < 10 ? mp + 3 : mp - 9);
    r.year = yoe + (cycles + era) * 400 + (r.month <= 2);
    return r;
}

/* Days from 1970-01-01 to a valid date (make_date checks one) whose day count fits int64
 * (years -25252734927764585..25252734927768524, about 2.5e16, not quite all of the first
 * and last). */
UDFKIT_HD long long days_from_civil(long long year, int month, int day)
{
    long long y = year - (month <= 2);
    long long era = datetime_detail::floor_div(y, 400);
    long long yoe = y - era * 400;
    long long doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    /* The last eras' days pass int64 before 719468 is taken off: five eras (730485 days)
     * moved into the positive rest. */
    return era > 0 ? (era - 5) * 146097 + (doe + 730485 - 719468) : era * 146097 + (doe - 719468);
}

/* The day count of a date: UDFKIT_ROW_ERROR_INVALID_DATETIME where it does not exist
 * (month 13, February 29 of 2023), _DATETIME_OVERFLOW where its day count is past int64. */
UDFKIT_HD int make_date(long long *days, long long year, int month, int day)
{
    if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month))
        return UDFKIT_ROW_ERROR_INVALID_DATETIME;
    if (!datetime_detail::days_fit(year, month, day))
        return UDFKIT_ROW_ERROR_DATETIME_OVERFLOW;
    *days = days_from_civil(year, month, day);
    return 0;
}

/* A timestamp of unit u (a storage unit) from a date and a time of day (hour 0..23, minute
 * and second 0..59, subsecond counted in u below a second).
 * UDFKIT_ROW_ERROR_INVALID_DATETIME where any part is out of its range. */
UDFKIT_HD int make_timestamp(long long *out, time_unit u, long long year, int month, int day, int hour = 0,
                             int minute = 0, int second = 0, long long subsecond = 0)
{
    using namespace datetime_detail;
    if (!is_storage(u) || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 ||
        subsecond < 0 || (u > time_unit::second ? subsecond >= ratio(time_unit::second, u) : subsecond != 0) ||
        (u == time_unit::day && (hour || minute || second)) || (u == time_unit::hour && (minute || second)) ||
        (u == time_unit::minute && second))
        return UDFKIT_ROW_ERROR_INVALID_DATETIME;
    long long days;
    if (int e = make_date(&days, year, month, day))
        return e;
    long long tod = u > time_unit::second
                        ? (hour * 3600LL + minute * 60LL + second) * ratio(time_unit::second, u) + subsecond
                        : (hour * 3600000000000LL + minute * 60000000000LL + second * 1000000000LL) / nanoseconds(u);
    return from_days(out, days, tod, u);
}

/* Fields of t, a count of u (default: days, a date32): the civil date's, the weekday
 * (Monday 0 .. Sunday 6, as Python's date.weekday() and Arrow's day_of_week), the day of
 * the year (1..366) and the quarter (1..4), as Arrow's functions of the same names. */
UDFKIT_HD civil_date to_date(long long t, time_unit u = time_unit::day)
{
    return civil_from_days(datetime_detail::days_of(t, u));
}
UDFKIT_HD long long year(long long t, time_unit u = time_unit::day) { return to_date(t, u).year; }
UDFKIT_HD int month(long long t, time_unit u = time_unit::day) { return to_date(t, u).month; }
UDFKIT_HD int day(long long t, time_unit u = time_unit::day) { return to_date(t, u).day; }
UDFKIT_HD int quarter(long long t, time_unit u = time_unit::day) { return (to_date(t, u).month + 2) / 3; }
UDFKIT_HD int weekday(long long t, time_unit u = time_unit::day)
{
    /* 1970-01-01 was a Thursday. */
    return (int)((datetime_detail::floor_mod(datetime_detail::days_of(t, u), 7) + 3) % 7);
}
UDFKIT_HD int day_of_year(long long t, time_unit u = time_unit::day)
{
    long long days = datetime_detail::days_of(t, u);
    civil_date c = civil_from_days(days);
    /* January 1 of the year, counted back from the day itself (no overflow at the ends). */
    int before = 0;
    for (int m = 1; m < c.month; m++)
        before += days_in_month(c.year, m);
    return before + c.day;
}

/* Time of day of t (a count of u): the nanoseconds since midnight, then Arrow's fields:
 * hour 0..23, minute and second 0..59, millisecond (of the second), microsecond (of the
 * millisecond) and nanosecond (of the microsecond), each 0..999. */
UDFKIT_HD long long nanosecond_of_day(long long t, time_unit u)
{
    long long per_day = datetime_detail::ratio(time_unit::day, u);
    return datetime_detail::floor_mod(t, per_day) * datetime_detail::nanoseconds(u);
}
UDFKIT_HD int hour(long long t, time_unit u) { return (int)(nanosecond_of_day(t, u) / 3600000000000LL); }
UDFKIT_HD int minute(long long t, time_unit u) { return (int)(nanosecond_of_day(t, u) / 60000000000LL % 60); }
UDFKIT_HD int second(long long t, time_unit u) { return (int)(nanosecond_of_day(t, u) / 1000000000LL % 60); }
UDFKIT_HD int millisecond(long long t, time_unit u) { return (int)(nanosecond_of_day(t, u) / 1000000LL % 1000); }
UDFKIT_HD int microsecond(long long t, time_unit u) { return (int)(nanosecond_of_day(t, u) / 1000LL % 1000); }
UDFKIT_HD int nanosecond(long long t, time_unit u) { return (int)(nanosecond_of_day(t, u) % 1000); }

/* Every field of t at once. */
UDFKIT_HD civil_time to_civil(long long t, time_unit u)
{
    civil_date d = to_date(t, u);
    long long ns = nanosecond_of_day(t, u);
    civil_time r;
    r.year = d.year;
    r.month = d.month;
    r.day = d.day;
    r.hour = (int)(ns / 3600000000000LL);
    r.minute = (int)(ns / 60000000000LL % 60);
    r.second = (int)(ns / 1000000000LL % 60);
    r.subsecond = u > time_unit::second ? ns % 1000000000LL / datetime_detail::nanoseconds(u) : 0;
    return r;
}

/* t, a count of `from`, as a count of `to` (storage units both): exact toward a finer
 * unit (UDFKIT_ROW_ERROR_DATETIME_OVERFLOW past int64), floored toward a coarser one, as
 * numpy's astype of datetime64 and timedelta64 (Arrow's cast truncates toward zero
 * instead). A date64 is convert(days, day, millisecond), a timestamp's date
 * convert(t, u, day). */
UDFKIT_HD int convert(long long *out, long long t, time_unit from, time_unit to)
{
    using namespace datetime_detail;
    if (!is_storage(from) || !is_storage(to))
        return UDFKIT_ROW_ERROR_INVALID_DATETIME;
    if (to >= from) {
        if (mul_overflows(t, ratio(from, to), &t))
            return UDFKIT_ROW_ERROR_DATETIME_OVERFLOW;
    } else {
        t = floor_div(t, ratio(to, from));
    }
    *out = t;
    return 0;
}

/* A date32 (int32 days) from t, a count of u: floored to its day, and
 * UDFKIT_ROW_ERROR_DATETIME_OVERFLOW outside int32. */
UDFKIT_HD int to_date32(int *out, long long t, time_unit u)
{
    if (!datetime_detail::is_storage(u))
        return UDFKIT_ROW_ERROR_INVALID_DATETIME;
    long long days = datetime_detail::days_of(t, u);
    if (days > 2147483647LL || days < -2147483648LL)
        return UDFKIT_ROW_ERROR_DATETIME_OVERFLOW;
    *out = (int)days;
    return 0;
}

/* t + d and t - d: a date, timestamp or duration t (a count of tu) and a duration d (of
 * du), the result in finer(tu, du), as numpy's datetime64 + timedelta64 (Arrow's date32 +
 * duration[s] is a timestamp[s] likewise). */
UDFKIT_HD int add_duration(long long *out, long long t, time_unit tu, long long d, time_unit du)
{
    time_unit u = finer(tu, du);
    long long a, b;
    if (int e = convert(&a, t, tu, u))
        return e;
    if (int e = convert(&b, d, du, u))
        return e;
    return datetime_detail::add_overflows(a, b, out) ? UDFKIT_ROW_ERROR_DATETIME_OVERFLOW : 0;
}
UDFKIT_HD int subtract_duration(long long *out, long long t, time_unit tu, long long d, time_unit du)
{
    time_unit u = finer(tu, du);
    long long a, b;
    if (int e = convert(&a, t, tu, u))
        return e;
    if (int e = convert(&b, d, du, u))
        return e;
    return datetime_detail::sub_overflows(a, b, out) ? UDFKIT_ROW_ERROR_DATETIME_OVERFLOW : 0;
}

/* a - b, two dates or timestamps (or durations), as a duration of finer(au, bu): numpy's
 * datetime64 - datetime64 and Arrow's subtract. */
UDFKIT_HD int difference(long long *out, long long a, time_unit au, long long b, time_unit bu)
{
    return subtract_duration(out, a, au, b, bu);
}

/* t (a count of u) plus `months` calendar months, the day clamped to the last of its month
 * (January 31 + 1 month is February 28, or 29 in a leap year), the time of day kept; years
 * are 12 months. numpy adds months only to month counts (datetime64[M]), where this agrees;
 * Arrow has no such function for timestamps. */
UDFKIT_HD int add_months(long long *out, long long t, long long months, time_unit u = time_unit::day)
{
    using namespace datetime_detail;
    if (!is_storage(u))
        return UDFKIT_ROW_ERROR_INVALID_DATETIME;
    long long days = days_of(t, u), tod = floor_mod(t, ratio(time_unit::day, u));
    civil_date c = civil_from_days(days);
    /* Months past any that int64 days reach are an overflow before they are a sum. */
    if (months > 24 * max_year || months < -24 * max_year)
        return UDFKIT_ROW_ERROR_DATETIME_OVERFLOW;
    long long total = c.year * 12 + (c.month - 1) + months;
    long long year = floor_div(total, 12);
    int month = (int)(total - year * 12) + 1;
    int dim = days_in_month(year, month), d = c.day < dim ? c.day : dim;
    if (!days_fit(year, month, d))
        return UDFKIT_ROW_ERROR_DATETIME_OVERFLOW;
    return from_days(out, days_from_civil(year, month, d), tod, u);
}

/* t (a count of u) floored to the start of its `unit` (any unit: a year, quarter, month,
 * Monday-started week, day, ... nanosecond), as a count of u: Arrow's floor_temporal (the
 * same as numpy's t.astype(unit).astype(u) but for weeks, which numpy starts on Thursdays,
 * 1970-01-01's weekday). */
UDFKIT_HD int floor_to(long long *out, long long t, time_unit u, time_unit unit)
{
    using namespace datetime_detail;
    if (!is_storage(u))
        return UDFKIT_ROW_ERROR_INVALID_DATETIME;
    if (unit >= u) {
        *out = t; /* already a whole count of a unit no coarser than its own */
        return 0;
    }
    long long days = days_of(t, u);
    if (unit == time_unit::week) {
        if (sub_overflows(days, weekday(days), &days))
            return UDFKIT_ROW_ERROR_DATETIME_OVERFLOW;
        return from_days(out, days, 0, u);
    }
    if (unit < time_unit::week) {
        civil_date c = civil_from_days(days);
        int first = unit == time_unit::year ? 1 : unit == time_unit::quarter ? (c.month - 1) / 3 * 3 + 1 : c.month;
        if (!days_fit(c.year, first, 1))
            return UDFKIT_ROW_ERROR_DATETIME_OVERFLOW;
        return from_days(out, days_from_civil(c.year, first, 1), 0, u);
    }
    long long r = ratio(unit, u), q = floor_div(t, r);
    return mul_overflows(q, r, out) ? UDFKIT_ROW_ERROR_DATETIME_OVERFLOW : 0;
}

/* t (a count of u) rounded up to the start of a `unit` (itself where it is one): Arrow's
 * ceil_temporal. */
UDFKIT_HD int ceil_to(long long *out, long long t, time_unit u, time_unit unit)
{
    using namespace datetime_detail;
    long long f;
    if (int e = floor_to(&f, t, u, unit))
        return e;
    if (f == t) {
        *out = t;
        return 0;
    }
    if (unit <= time_unit::month)
        return add_months(out, f, unit == time_unit::year ? 12 : unit == time_unit::quarter ? 3 : 1, u);
    long long r = ratio(unit, u);
    return add_overflows(f, r, out) ? UDFKIT_ROW_ERROR_DATETIME_OVERFLOW : 0;
}

/* How many starts of `unit` lie after a and up to b (negative where b is before a): b and a
 * floored to the unit and subtracted, in that unit, as Arrow's years_between,
 * quarters_between, ..., nanoseconds_between(a, b) (weeks from Mondays), and as numpy's
 * b.astype(unit) - a.astype(unit). a is a count of au, b of bu. */
UDFKIT_HD int units_between(long long *out, long long a, time_unit au, long long b, time_unit bu, time_unit unit)
{
    using namespace datetime_detail;
    if (!is_storage(au) || !is_storage(bu))
        return UDFKIT_ROW_ERROR_INVALID_DATETIME;
    if (unit <= time_unit::week) {
        long long da = days_of(a, au), db = days_of(b, bu);
        if (unit == time_unit::week) {
            /* Weeks since the Monday before 1970-01-01, without passing int64. */
            long long wa = floor_div(da, 7) + (floor_mod(da, 7) + 3) / 7, wb = floor_div(db, 7) + (floor_mod(db, 7) + 3) / 7;
            *out = wb - wa;
            return 0;
        }
        civil_date ca = civil_from_days(da), cb = civil_from_days(db);
        long long per = unit == time_unit::year ? 1 : unit == time_unit::quarter ? 4 : 12;
        long long ia = ca.year * per + (ca.month - 1) * per / 12, ib = cb.year * per + (cb.month - 1) * per / 12;
        *out = ib - ia;
        return 0;
    }
    long long fa, fb;
    if (unit >= au) {
        if (int e = convert(&fa, a, au, unit))
            return e;
    } else {
        fa = floor_div(a, ratio(unit, au));
    }
    if (unit >= bu) {
        if (int e = convert(&fb, b, bu, unit))
            return e;
    } else {
        fb = floor_div(b, ratio(unit, bu));
    }
    return sub_overflows(fb, fa, out) ? UDFKIT_ROW_ERROR_DATETIME_OVERFLOW : 0;
}

} /* namespace udfkit */

#undef UDFKIT_HD

#endif /* UDFKIT_DATETIME_CUH */
