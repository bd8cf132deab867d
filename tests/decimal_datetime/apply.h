/* The cases of tests/decimal_datetime: one call of <udfkit/decimal.cuh> or
 * <udfkit/datetime.cuh> each, evaluated on the host (apply.cpp) or on a GPU (apply_gpu.cu)
 * by the same code, so that both give the same lines for the Python test to compare. */
#ifndef UDFKIT_TEST_APPLY_H
#define UDFKIT_TEST_APPLY_H

#include <udfkit/datetime.cuh>
#include <udfkit/decimal.cuh>

#if defined(__CUDACC__)
#define APPLY_HD __host__ __device__
#else
#define APPLY_HD
#endif

/* What a case line holds: its operation, then its arguments by kind in the order given. */
struct test_case {
    int op;
    int nw, nn;
    udfkit::int128 w[2];     /* w:<integer> decimal unscaled values */
    long long n[8];          /* n:<integer> scales, units, modes, int64 values */
    unsigned long long bits; /* x:<hex> a double's bits */
    char text[128];          /* t:<hex> text */
    int text_size;
};

enum result_kind { result_decimal, result_ints, result_text, result_bits };

struct test_result {
    int kind;
    int error;
    udfkit::int128 unscaled;
    int scale;
    long long n[12];
    int count;
    char text[udfkit::decimal_text_max];
    int text_size;
    unsigned long long bits;
};

#define APPLY_OPS(X)                                                                                                   \
    X(dec_add) X(dec_sub) X(dec_mul) X(dec_add_r) X(dec_sub_r) X(dec_mul_r) X(dec_div) X(dec_rescale) X(dec_cmp)       \
    X(dec_store) X(dec_to_int64) X(dec_to_double) X(dec_to_float) X(dec_from_double) X(dec_from_float) X(dec_parse)   \
    X(dec_parse_s) X(dec_format) X(dec_neg) X(dec_abs) X(dec_from_integer) X(dec_new) X(dt_civil) X(dt_fields)       \
    X(dt_make_date) X(dt_make_ts) X(dt_convert) X(dt_to_date32) X(dt_add) X(dt_sub) X(dt_diff) X(dt_add_months)      \
    X(dt_floor) X(dt_ceil) X(dt_between) X(dt_to_civil)

#define APPLY_ENUM(name) op_##name,
enum apply_op { APPLY_OPS(APPLY_ENUM) op_count };
#undef APPLY_ENUM

APPLY_HD inline test_result decimal_result(const udfkit::decimal &d)
{
    test_result r = {};
    r.kind = result_decimal;
    r.error = d.error();
    r.unscaled = d.unscaled();
    r.scale = d.scale();
    return r;
}

APPLY_HD inline test_result int_result(int error, int count, const long long *v)
{
    test_result r = {};
    r.kind = result_ints;
    r.error = error;
    r.count = error ? 0 : count;
    for (int i = 0; i < r.count; i++)
        r.n[i] = v[i];
    return r;
}

APPLY_HD inline test_result apply(const test_case &c)
{
    using namespace udfkit;
    const long long *n = c.n;
    decimal a(c.w[0], (int)n[0]), b(c.w[1], (int)n[1]);
    udfkit::rounding mode = udfkit::rounding::half_away_from_zero;
    long long v[12];
    test_result r = {};
    switch (c.op) {
    case op_dec_add: return decimal_result(a + b);
    case op_dec_sub: return decimal_result(a - b);
    case op_dec_mul: return decimal_result(a * b);
    case op_dec_add_r: return decimal_result(add(a, b, (int)n[2], (udfkit::rounding)n[3]));
    case op_dec_sub_r: return decimal_result(sub(a, b, (int)n[2], (udfkit::rounding)n[3]));
    case op_dec_mul_r: return decimal_result(mul(a, b, (int)n[2], (udfkit::rounding)n[3]));
    case op_dec_div: return decimal_result(div(a, b, (int)n[2], (udfkit::rounding)n[3]));
    case op_dec_rescale: return decimal_result(a.rescale((int)n[1], (udfkit::rounding)n[2]));
    case op_dec_cmp:
        v[0] = compare(a, b);
        v[1] = (a == b) + 2 * (a != b) + 4 * (a < b) + 8 * (a <= b) + 16 * (a > b) + 32 * (a >= b);
        return int_result(0, 2, v);
    case op_dec_store: {
        /* n: scale, width, precision, result scale, mode */
        mode = (udfkit::rounding)n[4];
        int e;
        if (n[1] == 32) {
            int out = 0;
            e = a.store(&out, (int)n[2], (int)n[3], mode);
            v[0] = out;
        } else if (n[1] == 64) {
            long long out = 0;
            e = a.store(&out, (int)n[2], (int)n[3], mode);
            v[0] = out;
        } else {
            udfkit_decimal128 out = {0, 0};
            e = a.store(&out, (int)n[2], (int)n[3], mode);
            r = decimal_result(decimal::from_abi(out.lo, out.hi, (int)n[3]));
            r.error = e;
            return r;
        }
        r = decimal_result(decimal((long long)v[0], (int)n[3]));
        r.error = e;
        return r;
    }
    case op_dec_to_int64: {
        long long out = 0;
        int e = a.to_int64(&out, (udfkit::rounding)n[1]);
        return int_result(e, 1, &out);
    }
    case op_dec_to_double:
        r.kind = result_bits;
        r.bits = udfkit::decimal_detail::double_to_bits(a.to_double());
        return r;
    case op_dec_to_float: {
        r.kind = result_bits;
        float f = a.to_float();
        unsigned u;
#if defined(__CUDA_ARCH__)
        u = (unsigned)__float_as_int(f);
#else
        u = __builtin_bit_cast(unsigned, f);
#endif
        r.bits = u;
        return r;
    }
    case op_dec_from_double:
        return decimal_result(decimal::from_double(udfkit::decimal_detail::bits_to_double(c.bits), (int)n[0],
                                                   (udfkit::rounding)n[1]));
    case op_dec_from_float: {
        float f;
        unsigned u = (unsigned)c.bits;
#if defined(__CUDA_ARCH__)
        f = __int_as_float((int)u);
#else
        f = __builtin_bit_cast(float, u);
#endif
        return decimal_result(decimal::from_float(f, (int)n[0], (udfkit::rounding)n[1]));
    }
    case op_dec_parse: return decimal_result(decimal::parse(string_view(c.text, c.text_size)));
    case op_dec_parse_s:
        return decimal_result(decimal::parse(string_view(c.text, c.text_size), (int)n[0], (udfkit::rounding)n[1]));
    case op_dec_format:
        r.kind = result_text;
        r.text_size = a.to_chars(r.text);
        return r;
    case op_dec_neg: return decimal_result(-a);
    case op_dec_abs: return decimal_result(abs(a));
    case op_dec_from_integer: return decimal_result(decimal::from_integer(n[0], (int)n[1]));
    case op_dec_new: return decimal_result(decimal(c.w[0], (int)n[0]));
    case op_dt_civil: {
        civil_date d = civil_from_days(n[0]);
        v[0] = d.year;
        v[1] = d.month;
        v[2] = d.day;
        v[3] = days_from_civil(d.year, d.month, d.day);
        return int_result(0, 4, v);
    }
    case op_dt_fields: {
        time_unit u = (time_unit)n[1];
        long long t = n[0];
        v[0] = year(t, u);
        v[1] = month(t, u);
        v[2] = day(t, u);
        v[3] = hour(t, u);
        v[4] = minute(t, u);
        v[5] = second(t, u);
        v[6] = millisecond(t, u);
        v[7] = microsecond(t, u);
        v[8] = nanosecond(t, u);
        v[9] = weekday(t, u);
        v[10] = day_of_year(t, u);
        v[11] = quarter(t, u);
        return int_result(0, 12, v);
    }
    case op_dt_to_civil: {
        civil_time t = to_civil(n[0], (time_unit)n[1]);
        v[0] = t.year;
        v[1] = t.month;
        v[2] = t.day;
        v[3] = t.hour;
        v[4] = t.minute;
        v[5] = t.second;
        v[6] = t.subsecond;
        return int_result(0, 7, v);
    }
    case op_dt_make_date: return int_result(make_date(&v[0], n[0], (int)n[1], (int)n[2]), 1, v);
    case op_dt_make_ts:
        return int_result(make_timestamp(&v[0], (time_unit)n[0], n[1], (int)n[2], (int)n[3], (int)n[4], (int)n[5],
                                         (int)n[6], n[7]),
                          1, v);
    case op_dt_convert: return int_result(convert(&v[0], n[0], (time_unit)n[1], (time_unit)n[2]), 1, v);
    case op_dt_to_date32: {
        int d = 0;
        int e = to_date32(&d, n[0], (time_unit)n[1]);
        v[0] = d;
        return int_result(e, 1, v);
    }
    case op_dt_add: return int_result(add_duration(&v[0], n[0], (time_unit)n[1], n[2], (time_unit)n[3]), 1, v);
    case op_dt_sub: return int_result(subtract_duration(&v[0], n[0], (time_unit)n[1], n[2], (time_unit)n[3]), 1, v);
    case op_dt_diff: return int_result(difference(&v[0], n[0], (time_unit)n[1], n[2], (time_unit)n[3]), 1, v);
    case op_dt_add_months: return int_result(add_months(&v[0], n[0], n[1], (time_unit)n[2]), 1, v);
    case op_dt_floor: return int_result(floor_to(&v[0], n[0], (time_unit)n[1], (time_unit)n[2]), 1, v);
    case op_dt_ceil: return int_result(ceil_to(&v[0], n[0], (time_unit)n[1], (time_unit)n[2]), 1, v);
    case op_dt_between:
        return int_result(units_between(&v[0], n[0], (time_unit)n[1], n[2], (time_unit)n[3], (time_unit)n[4]), 1, v);
    }
    r.error = -1;
    return r;
}

#endif
