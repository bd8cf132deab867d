"""Builds the GPU test of Python UDFs over decimals, dates and times (gpu-python-dates-decimals):
every UDF of tests/data/py_dates_decimals/udfs.py compiled in one udfkit call (numba-cuda), a
CUDA C kernel per UDF that applies it to each row and records the row's error code (the
kernels define udfkit_row_error), one fatbin for all, and what each row must give, computed
here by Python's decimal module and fractions (decimals: exact, then rounded half away from
zero, ROUND_HALF_UP), pyarrow.compute (fields, floor_temporal, ceil_temporal, days_between,
years_between) and numpy (datetime64 and timedelta64 arithmetic, casts, months between).

Writes into OUT: dd.fatbin, cases.txt (one line per UDF: "name kernel rows out_bytes
in_bytes..."), <name>.<k>.bin (inputs as the C ABI stores them), <name>.out.bin (expected
results, zeros where the row fails) and <name>.err.bin (the expected int32 error code of
each row, 0 where it succeeds). test_python_dates_decimals.c needs nothing else, so it runs
where numba cannot. Where numba-cuda does not import, OUT/skip.txt says why and the test skips.

usage: build_python_dates_decimals.py UDFKIT DATA_DIR OUT ARCHS
(cli-python_dates_decimals imports build_cases() and runs the same cases on the host.)
"""
import decimal
import fractions
import os
import subprocess
import sys

import numpy as np

OVERFLOW, DIV_ZERO, INVALID = -2147483646, -2147483645, -2147483644  # UDFKIT_ROW_ERROR_*
DT_OVERFLOW = -2147483643
NULL = 1  # what the kernels record for a null result
CTX = decimal.Context(prec=400, rounding=decimal.ROUND_HALF_UP, Emin=-999999, Emax=999999)
decimal.setcontext(CTX)
D = decimal.Decimal


class RowError(Exception):
    def __init__(self, code):
        self.code = code


# -- Spec types: how the C ABI stores them, how the oracle sees them ------------------------

def parse_type(t):
    t = t.rstrip("?")
    if t.startswith("decimal"):
        kind, rest = t.split("(")
        p, s = rest.rstrip(")").split(",")
        return kind, int(p), int(s)
    return t, 0, 0


C_TYPES = {"decimal32": "int32_t", "decimal64": "int64_t", "decimal128": "udfkit_decimal128", "date32": "int32_t",
           "int32": "int32_t", "int64": "int64_t", "float64": "double", "bool": "bool"}
SIZES = {"decimal32": 4, "decimal64": 8, "decimal128": 16, "date32": 4, "int32": 4, "int64": 8, "float64": 8, "bool": 1}


def storage(t):
    kind = parse_type(t)[0]  # a nullable type (T?) is stored as T, its validity apart
    return kind if kind in C_TYPES else "int64"  # timestamps and durations are int64


def encode(t, values):
    """The C ABI's bytes of a column."""
    kind = storage(t)
    if kind == "decimal128":
        out = bytearray()
        for v in values:
            out += (v & ((1 << 128) - 1)).to_bytes(16, "little")
        return bytes(out)
    dtype = {"decimal32": np.int32, "decimal64": np.int64, "date32": np.int32, "int32": np.int32, "int64": np.int64,
             "float64": np.float64, "bool": np.uint8}[kind]
    return np.array(values, dtype=dtype).tobytes()


def dec(v, t):
    """An unscaled value of a decimal type as a Decimal."""
    return D(v).scaleb(-parse_type(t)[2])


def store(x, t):
    """A Decimal result as the declared type stores it: rounded half away from zero to the
    scale, its precision checked."""
    _, p, s = parse_type(t)
    if isinstance(x, fractions.Fraction):
        unscaled = round_half_away(x, s)
    else:
        unscaled = int(x.scaleb(s).to_integral_value(decimal.ROUND_HALF_UP))
    if abs(unscaled) >= 10 ** p:
        raise RowError(OVERFLOW)
    return unscaled


def round_half_away(q, scale):
    """A Fraction rounded half away from zero to `scale` places, as an unscaled integer."""
    n = q * 10 ** scale
    whole, rest = divmod(abs(n.numerator), n.denominator)
    if 2 * rest >= n.denominator:
        whole += 1
    return -whole if n < 0 else whole


def product_less_one(x, y):
    """x * y - 1 for decimal128(38,0): a product past 38 digits is an error on the way
    (decimal.cuh's operators), whatever follows."""
    if abs(x * y) >= 10 ** 38:
        raise RowError(OVERFLOW)
    return store(D(x * y - 1), "decimal128(38,0)")


# -- Inputs -------------------------------------------------------------------------------

rng = np.random.default_rng(20261126)
N = 2053


def decimals(t, n, edges=()):
    """Unscaled values of a decimal type: small ones of either sign, half-way digits, the
    limits of its precision."""
    _, p, s = parse_type(t)
    top = 10 ** p - 1
    out = list(edges) + [0, 1, -1, top, -top, top // 2, -(top // 2), 5, -5, 50, -50, 15, -15]
    while len(out) < n:
        r = rng.integers(0, 10)
        if r < 5:
            v = int(rng.integers(-100000, 100000))
        elif r < 7:
            v = int(rng.integers(-10 ** min(p, 18) + 1, 10 ** min(p, 18)))
        elif r < 9:
            v = int(rng.integers(-999, 1000)) * 10 ** max(0, min(p, 18) - 4) + int(rng.choice([5, -5, 50, 0]))
        else:
            v = int.from_bytes(rng.bytes(16), "little") % (top + 1) * int(rng.choice([1, -1]))
        out.append(max(-top, min(top, v)))
    return out[:n]


# Days since 1970-01-01: leap days (2000, 1900 not, 1600, 2024), both sides of 1970, 2038's
# limit of 32-bit seconds, the first and last days of years and months, years 1 BC .. 9999 AD
# and past them.
def civil(y, m, d):
    return int((np.datetime64(f"{y:04d}-{m:02d}-{d:02d}", "D") - np.datetime64("1970-01-01", "D")).astype(np.int64))


DATE_EDGES = [civil(2000, 2, 29), civil(2000, 3, 1), civil(1900, 2, 28), civil(1900, 3, 1), civil(1600, 2, 29),
              civil(2024, 2, 29), civil(2023, 2, 28), civil(1969, 12, 31), 0, -1, 1, civil(2038, 1, 19),
              civil(2038, 1, 20), civil(1999, 12, 31), civil(1, 1, 1), civil(9999, 12, 31), civil(1998, 9, 2),
              civil(1998, 9, 3), civil(2100, 2, 28), civil(1583, 1, 31), civil(2024, 1, 31), civil(2023, 12, 31)]


def dates(n, lo=-1200000, hi=2900000):
    out = list(DATE_EDGES)
    while len(out) < n:
        r = rng.integers(0, 4)
        out.append(int(rng.integers(-30000, 30000)) if r == 0 else int(rng.integers(lo, hi)))
    return out[:n]


def times(n, per_day, extra=()):
    """Counts of a unit of per_day to a day: dates as above with a time of day, and edges."""
    out = list(extra) + [0, -1, 1, per_day - 1, -per_day, per_day * 24855 - 1, per_day * 24855]
    for d in dates(n):
        if len(out) >= n:
            break
        out.append(d * per_day + int(rng.integers(0, per_day)))
    return out[:n]


NS_DAY, US_DAY, MS_DAY, S_DAY = 86400 * 10 ** 9, 86400 * 10 ** 6, 86400 * 1000, 86400


def ns_times(n):  # years 1678 .. 2261: timestamp[ns]'s range
    out = [0, -1, 1, NS_DAY - 1, -NS_DAY, 951782400 * 10 ** 9 + 123456789, -2208988800 * 10 ** 9 - 1,
           2 ** 31 * 10 ** 9, (2 ** 63 - 1) // 2, -(2 ** 62)]
    while len(out) < n:
        out.append(int(rng.integers(-(2 ** 63) + 1, 2 ** 63 - 1)))
    return out


# -- The cases ----------------------------------------------------------------------------

def arrow():
    import pyarrow as pa
    import pyarrow.compute as pc

    return pa, pc


def fields_of_dates(days):
    pa, pc = arrow()
    a = pa.array(np.array(days, dtype=np.int32)).cast(pa.date32())
    cols = [pc.year(a), pc.month(a), pc.day(a), pc.day_of_week(a), pc.day_of_year(a)]
    rows = zip(*(c.to_pylist() for c in cols))
    return [(((y * 100 + m) * 100 + d) * 10000 + w * 1000 + j, 0) for y, m, d, w, j in rows]


def fields_of_times(ts):
    pa, pc = arrow()
    a = pa.array(ts, type=pa.timestamp("ns"))
    cols = [pc.hour(a), pc.minute(a), pc.second(a), pc.millisecond(a), pc.microsecond(a), pc.nanosecond(a)]
    return [((((h * 100 + mi) * 100 + s) * 1000 + ms) * 1000000 + us * 1000 + ns, 0)
            for h, mi, s, ms, us, ns in zip(*(c.to_pylist() for c in cols))]


def arrow_unary(fn, values, typ, **options):
    pa, pc = arrow()
    a = pa.array(values, type=typ)
    return [(v, 0) for v in getattr(pc, fn)(a, **options).cast(pa.int64() if typ != pa.date32() else pa.int32())
            .to_pylist()]


def arrow_between(fn, a, at, b, bt):
    pa, pc = arrow()
    x, y = pa.array(a, type=at), pa.array(b, type=bt)
    if at != bt:
        x = x.cast(bt)
    return [(v, 0) for v in getattr(pc, fn)(x, y).to_pylist()]


def add_months(day, n):
    """numpy's calendar: the month moved by n, the day clamped to its last."""
    d = np.datetime64(int(day), "D")
    month = d.astype("M8[M]")
    target = month + np.timedelta64(int(n), "M")
    length = int(((target + np.timedelta64(1, "M")).astype("M8[D]") - target.astype("M8[D]")).astype(np.int64))
    offset = min(int((d - month.astype("M8[D]")).astype(np.int64)), length - 1)
    r = int((target.astype("M8[D]") + np.timedelta64(offset, "D")).astype(np.int64))
    if not -2 ** 31 <= r < 2 ** 31:
        raise RowError(DT_OVERFLOW)
    return r


def months_between(day, ms):
    a = np.datetime64(int(day), "D").astype("M8[M]")
    b = np.datetime64(int(ms), "ms").astype("M8[M]")
    return int((b - a).astype(np.int64))


def per_row(f):
    def rows(*columns):
        out = []
        for args in zip(*columns):
            try:
                out.append((f(*args), 0))
            except RowError as e:
                out.append((0, e.code))
        return out

    return rows


def quotient(a, b, t, rounded_at):
    if b == 0:
        raise RowError(DIV_ZERO)
    q = fractions.Fraction(a, 10 ** parse_type(t)[2]) / fractions.Fraction(b, 10 ** parse_type(t)[2])
    return D(round_half_away(q, rounded_at)).scaleb(-rounded_at)


def compare_flags(a, b):
    x, y = dec(a, "decimal32(9,2)"), dec(b, "decimal128(20,5)")
    return (x < y) + 2 * (x == y) + 4 * (x >= D("1.5")) + 8 * (abs(x) > y) + 16 * (-x <= 0) + 32 * (x != 7)


def from_float(x):
    if not np.isfinite(x):
        raise RowError(INVALID)
    q = D(float(x)).quantize(D("0.001"), rounding=decimal.ROUND_HALF_UP, context=CTX)
    if abs(int(q.scaleb(3))) >= 10 ** 35:
        raise RowError(OVERFLOW)  # past 38 digits in from_double itself
    return store(q, "decimal64(18,3)")


def floats(n):
    out = [0.0, -0.0, 2.675, -2.675, 0.0005, -0.0005, 1e-4, 1.0005, 1e15 + 0.5, 9.99e14, 1e16, -1e17, 1e40,
           float("nan"), float("inf"), float("-inf"), 5e-324, 0.1, 123.4565]
    while len(out) < n:
        out.append(float(rng.standard_normal() * 10 ** int(rng.integers(-4, 16))))
    return out


def to_date32(ms):
    days = ms // MS_DAY
    if not -2 ** 31 <= days < 2 ** 31:
        raise RowError(DT_OVERFLOW)
    return int(np.datetime64(int(ms), "ms").astype("M8[D]").astype(np.int64))


def ns_of(v, unit):
    return int(np.timedelta64(int(v), unit).astype("m8[ns]").astype(np.int64))


def checked_ns(a_ms, b_us):
    total = a_ms * 1000 + b_us * 2  # numba's timedelta64 sum in us (in range here), then to ns
    if not -2 ** 63 <= total * 1000 < 2 ** 63:
        raise RowError(DT_OVERFLOW)
    return int((np.timedelta64(a_ms, "ms") + np.timedelta64(b_us, "us") * 2).astype("m8[ns]").astype(np.int64))


D128_15_2, D64_4_2 = "decimal128(15,2)", "decimal64(4,2)"


def build_cases():
    """(c_name, function, params, ret, inputs, expected rows (value, error code))."""
    pa, _ = arrow()
    cases = []

    def case(name, fn, params, ret, inputs, expected):
        cases.append((name, fn, params, ret, inputs, expected))

    p, d = decimals(D128_15_2, N), decimals(D64_4_2, N)
    case("dd_net", "net", [D128_15_2, D64_4_2], "decimal128(38,4)", [p, d],
         per_row(lambda a, b: store(dec(a, D128_15_2) * (1 - dec(b, D64_4_2)), "decimal128(38,4)"))(p, d))
    t = "decimal64(15,2)"
    # Rates of a few cents mostly (products of 18 digits or fewer), the limits among them.
    a = decimals(t, N)
    b = [v if i % 8 == 0 else v % 101 for i, v in enumerate(decimals(t, N, [5, -5, 1]))]
    c = [v if i % 8 == 0 else v % 13 for i, v in enumerate(decimals(t, N, [5, 5, 49]))]
    case("dd_charge", "charge", [t, t, t], "decimal64(18,2)", [a, b, c],
         per_row(lambda x, y, z: store(dec(x, t) * (1 - dec(y, t)) * (1 + dec(z, t)), "decimal64(18,2)"))(a, b, c))
    t = "decimal64(12,3)"
    a, b = decimals(t, N, [1, 2, -2, 1]), decimals(t, N, [3, 3, 3, 0])
    case("dd_quotient", "quotient", [t, t], "decimal128(38,6)", [a, b],
         per_row(lambda x, y: store(quotient(x, y, t, 6), "decimal128(38,6)"))(a, b))
    case("dd_quotient_at", "quotient_at", [t, t], "decimal64(18,4)", [a, b],
         per_row(lambda x, y: store(quotient(x, y, t, 2), "decimal64(18,4)"))(a, b))
    t = "decimal128(38,0)"
    big = [10 ** 19, -10 ** 19, 10 ** 19 - 1, 10 ** 37, 3]
    a, b = decimals(t, N, big), decimals(t, N, [10 ** 19, 10 ** 19, 10 ** 19 + 1, 10, 3])
    case("dd_product", "product", [t, t], t, [a, b],
         per_row(product_less_one)(a, b))
    t = "decimal128(20,4)"
    a = decimals(t, N, [49, 50, -50, -51, 9999999949, 9999999950, -9999999950])
    case("dd_narrow", "narrow", [t], "decimal32(9,2)", [a],
         per_row(lambda x: store(dec(x, t) + D("0.005"), "decimal32(9,2)"))(a))
    t = "decimal64(18,4)"
    a = decimals(t, N, [5000, -5000, 15000, -15000, 4999, -4999, 25000])
    case("dd_rounded", "rounded", [t], "int64", [a],
         per_row(lambda x: int(dec(x, t).to_integral_value(decimal.ROUND_HALF_UP)))(a))
    case("dd_truncated", "truncated", [t], "int64", [a],
         per_row(lambda x: int(dec(x, t).to_integral_value(decimal.ROUND_DOWN)))(a))
    a2 = decimals(t, N, [450, 451, -450, -449, 449])
    case("dd_round_places", "round_places", [t], "decimal64(18,1)", [a2],
         per_row(lambda x: store(dec(x, t).quantize(D("0.01")), "decimal64(18,1)"))(a2))
    t = "decimal128(38,10)"
    a = decimals(t, N, [1, -1, 10 ** 37 + 1, 2 ** 100, 5 * 10 ** 9, 3])
    case("dd_as_float", "as_float", [t], "float64", [a], per_row(lambda x: float(dec(x, t)))(a))
    x = floats(N)
    case("dd_from_float", "from_float", ["float64"], "decimal64(18,3)", [x], per_row(from_float)(x))
    a, b = decimals("decimal32(9,2)", N, [150, 149, -150, 700, 100]), decimals("decimal128(20,5)", N,
                                                                               [150000, 149000, 150000, 0, 100000])
    case("dd_compare", "compare", ["decimal32(9,2)", "decimal128(20,5)"], "int32", [a, b],
         per_row(compare_flags)(a, b))
    t = "decimal64(10,2)"
    a = decimals(t, N)
    case("dd_literals", "literals", [t], "decimal64(18,4)", [a],
         per_row(lambda v: store((dec(v, t) * D("1.0825") - D("0.0001") + 3 - dec(v, t)) * 2, "decimal64(18,4)"))(a))
    case("dd_python_decimal", "python_decimal", [t], "decimal64(18,2)", [a],
         per_row(lambda v: store(dec(v, t) * D("0.25") + 1, "decimal64(18,2)"))(a))
    a, b, s = decimals(D128_15_2, N), decimals(D128_15_2, N), dates(N, civil(1992, 1, 1), civil(1999, 1, 1))
    case("dd_discounted", "discounted", [D128_15_2, D128_15_2, "date32"], "decimal128(38,4)", [a, b, s],
         per_row(lambda x, y, z: store(dec(x, D128_15_2) * (1 - dec(y, D128_15_2)) if z <= civil(1998, 9, 2)
                                       else D(0), "decimal128(38,4)"))(a, b, s))

    days = dates(N)
    case("dd_date_fields", "date_fields", ["date32"], "int64", [days], fields_of_dates(days))
    ts = ns_times(N)
    case("dd_time_fields", "time_fields", ["timestamp[ns]"], "int64", [ts], fields_of_times(ts))
    ms = times(N, MS_DAY)
    case("dd_quarter", "quarter_of", ["timestamp[ms]"], "int64", [ms],
         [(v, 0) for v in arrow()[1].quarter(pa.array(ms, type=pa.timestamp("ms"))).to_pylist()])
    secs = [int(v) for v in rng.integers(-10 ** 11, 10 ** 11, N)]
    case("dd_plus_duration", "plus_duration", ["date32", "duration[s]"], "timestamp[s]", [days, secs],
         per_row(lambda d_, s_: int((np.datetime64(d_, "D") + np.timedelta64(s_, "s")).astype(np.int64)))(days, secs))
    days2 = dates(N)
    case("dd_days_apart", "days_apart", ["date32", "date32"], "duration[s]", [days, days2],
         per_row(lambda x_, y_: int((np.datetime64(y_, "D") - np.datetime64(x_, "D")).astype("m8[s]")
                                    .astype(np.int64)))(days, days2))
    ms_wide = times(N, MS_DAY, [2 ** 63 - 1, -(2 ** 63) + 1, (2 ** 31) * MS_DAY, -(2 ** 31) * MS_DAY - 1,
                                -(2 ** 31) * MS_DAY])
    case("dd_to_day", "to_day", ["timestamp[ms]"], "date32", [ms_wide], per_row(to_date32)(ms_wide))
    n_months = [int(v) for v in rng.integers(-30000, 30000, N)]
    n_months[:6] = [1, 1, 12, -1, 13, 0]
    case("dd_later_months", "later_months", ["date32", "int32"], "date32", [days, n_months],
         per_row(add_months)(days, n_months))
    us = times(N, US_DAY)
    case("dd_month_start", "month_start", ["timestamp[us]"], "timestamp[us]", [us],
         arrow_unary("floor_temporal", us, pa.timestamp("us"), unit="month"))
    case("dd_year_start", "year_start", ["date32"], "date32", [days],
         arrow_unary("floor_temporal", days, pa.date32(), unit="year"))
    case("dd_week_start", "week_start", ["timestamp[ms]"], "timestamp[ms]", [ms],
         arrow_unary("floor_temporal", ms, pa.timestamp("ms"), unit="week"))
    s_times = times(N, S_DAY)
    case("dd_day_end", "day_end", ["timestamp[s]"], "timestamp[s]", [s_times],
         arrow_unary("ceil_temporal", s_times, pa.timestamp("s"), unit="day"))
    case("dd_months_apart", "months_apart", ["date32", "timestamp[ms]"], "int64", [days, ms],
         per_row(months_between)(days, ms))
    case("dd_days_between", "days_between", ["date32", "date32"], "int64", [days, days2],
         arrow_between("days_between", days, pa.date32(), days2, pa.date32()))
    case("dd_years_apart", "years_apart", ["date32", "timestamp[us]"], "int64", [days, us],
         arrow_between("years_between", days, pa.date32(), us, pa.timestamp("us")))
    a_us = [v // 1000 for v in ns_times(N)]
    b_ns = [v if i % 3 else a_us[i] * 1000 + int(rng.integers(-1, 2)) for i, v in enumerate(ns_times(N))]
    case("dd_earlier", "earlier", ["timestamp[us]", "timestamp[ns]"], "bool", [a_us, b_ns],
         per_row(lambda x_, y_: bool(np.datetime64(x_, "us") < np.datetime64(y_, "ns")))(a_us, b_ns))
    a_ms = [int(v) for v in rng.integers(-10 ** 12, 10 ** 12, N)]
    b_us = [int(v) for v in rng.integers(-10 ** 15, 10 ** 15, N)]
    a_ms[:2], b_us[:2] = [9 * 10 ** 12, -9 * 10 ** 12], [10 ** 15, -10 ** 15]
    case("dd_durations", "durations", ["duration[ms]", "duration[us]"], "duration[ns]", [a_ms, b_us],
         per_row(checked_ns)(a_ms, b_us))
    case("dd_next_week", "next_week", ["date32"], "date32", [days],
         per_row(lambda d_: int((np.datetime64(d_, "D") + np.timedelta64(7, "D")).astype(np.int64)))(days))
    # Nullable: the kernels pass every fifth row's first argument as null; a null result is
    # recorded as error code 1.
    p, d = decimals(D128_15_2, N), decimals(D64_4_2, N)
    case("dd_net_or_none", "net_or_none", [D128_15_2 + "?", D64_4_2], "decimal128(38,4)?", [p, d],
         [(0, NULL) if i % 5 == 0 else row for i, row in enumerate(
             per_row(lambda a_, b_: store(dec(a_, D128_15_2) * (1 - dec(b_, D64_4_2)), "decimal128(38,4)"))(p, d))])
    case("dd_days_or_none", "days_or_none", ["date32?", "date32"], "duration[ms]?", [days, days2],
         [(0, NULL) if i % 5 == 0 else row for i, row in enumerate(
             per_row(lambda x_, y_: int((np.datetime64(y_, "D") - np.datetime64(x_, "D")).astype("m8[ms]")
                                        .astype(np.int64)))(days, days2))])
    case("dd_in_seconds", "in_seconds", ["timestamp[ns]"], "timestamp[s]", [ts],
         per_row(lambda v: int(np.datetime64(v, "ns").astype("M8[s]").astype(np.int64)))(ts))
    return cases


def kernel(case):
    """k_<name>(inputs..., out, err, n): row i's result, its error code in err[i]; a nullable
    first argument is null in every fifth row, a null result is code NULL."""
    name, _, params, ret = case[:4]
    args, call = [], []
    for k, t in enumerate(params):
        args.append(f"const {C_TYPES[storage(t)]} *a{k}")
        call.append(f"a{k}[i].lo, a{k}[i].hi" if storage(t) == "decimal128" else f"a{k}[i]")
        if t.endswith("?"):
            call.append("(i % 5) != 0" if k == 0 else "true")
    out_type = C_TYPES[storage(ret)]
    if ret.endswith("?"):
        body = (f"{out_type} r = {{}};\n        if (!{name}(&r, {', '.join(call)}))\n            err[i] = {NULL};\n"
                f"        out[i] = r;")
    elif storage(ret) == "decimal128":
        body = f"{name}(&out[i], {', '.join(call)});"
    else:
        body = f"out[i] = {name}({', '.join(call)});"
    return (f'extern "C" __global__ void k_{name}({", ".join(args)}, {out_type} *out, int *err, int n)\n'
            f"{{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) {{\n        dd_errors = err;\n"
            f"        err[i] = 0;\n        {body}\n    }}\n}}\n")


KERNEL_PRELUDE = """// Generated by build_python_dates_decimals.py: one kernel per Python UDF.
#include "dd_udfs.h"

// The row errors of the launch running now: one int per row, the first code each row reported.
__device__ int *dd_errors;

extern "C" __device__ void udfkit_row_error(int code)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (dd_errors[i] == 0)
        dd_errors[i] = code;
}

"""


def run(*cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")


def main(udfkit, data_dir, out, archs):
    global UDFKIT, DATA, OUT, ARCHS
    UDFKIT, DATA, OUT, ARCHS = udfkit, data_dir, out, archs
    os.makedirs(OUT, exist_ok=True)
    proc = subprocess.run([sys.executable, "-c", "import numba.cuda, pyarrow"], capture_output=True, text=True)
    if proc.returncode != 0:
        with open(f"{OUT}/skip.txt", "w") as f:
            lines = proc.stderr.strip().splitlines()
            f.write(f"numba-cuda or pyarrow does not import in {sys.executable}: {lines[-1] if lines else ''}\n")
        for name in ("dd.fatbin", "cases.txt"):
            open(f"{OUT}/{name}", "wb").close()
        return
    if os.path.exists(f"{OUT}/skip.txt"):
        os.unlink(f"{OUT}/skip.txt")
    cases = build_cases()
    specs = [f"{c[0]}={c[1]}:{c[3]}({', '.join(c[2])})" for c in cases]
    source = os.path.join(DATA, "udfs.py")
    run(UDFKIT, "compile", source, "--function", *specs, "--arch", ARCHS, "--python-frontend", "numba-cuda", "-o",
        f"{OUT}/dd_udfs.json")
    run(UDFKIT, "header", f"{OUT}/dd_udfs.json", "-o", f"{OUT}/dd_udfs.h")
    with open(f"{OUT}/dd_kernels.cu", "w") as f:
        f.write(KERNEL_PRELUDE)
        f.writelines(kernel(c) for c in cases)
    run(UDFKIT, "compile", f"{OUT}/dd_kernels.cu", "-I", OUT, "--arch", ARCHS, "-o", f"{OUT}/dd_kernels.json")
    run(UDFKIT, "link", f"{OUT}/dd_udfs.json", f"{OUT}/dd_kernels.json", "--arch", ARCHS, "-o", f"{OUT}/dd.fatbin")
    lines = []
    for name, _, params, ret, inputs, expected in cases:
        assert all(len(col) == N for col in inputs) and len(expected) == N, name
        for k, (t, col) in enumerate(zip(params, inputs)):
            with open(f"{OUT}/{name}.{k}.bin", "wb") as f:
                f.write(encode(t, col))
        with open(f"{OUT}/{name}.out.bin", "wb") as f:
            f.write(encode(ret, [v if code == 0 else 0 for v, code in expected]))
        with open(f"{OUT}/{name}.err.bin", "wb") as f:
            f.write(np.array([code for _, code in expected], dtype=np.int32).tobytes())
        sizes = " ".join(str(SIZES[storage(t)]) for t in params)
        lines.append(f"{name} k_{name} {N} {SIZES[storage(ret)]} {sizes}\n")
    with open(f"{OUT}/cases.txt", "w") as f:
        f.writelines(lines)


if __name__ == "__main__":  # cli-python_dates_decimals imports build_cases to run them on the host
    main(*sys.argv[1:5])
