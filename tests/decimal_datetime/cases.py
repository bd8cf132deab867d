"""The cases of the decimal and date library tests and their expected results, from
pyarrow.compute over Arrow arrays of the same values (the issue's oracle), and from Python's
decimal module, fractions and datetime where SPEC.md's rules are not Arrow's or Arrow has
no such function. Each case says where its expectation came from ('arrow' or 'python');
every 'python' case of an operation Arrow also has is compared with Arrow as well, and each
disagreement between the two is counted under its documented reason (docs/decimals-and-dates.md).

A case line is what apply.cpp reads (apply_io.h), a result line what it writes."""
import calendar
import datetime
import decimal
import fractions
import random
import struct

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

D = decimal.Decimal
CTX = decimal.Context(prec=1200, Emax=999999, Emin=-999999)
decimal.setcontext(CTX)  # every operator exact
ROUNDINGS = [decimal.ROUND_HALF_UP, decimal.ROUND_HALF_EVEN, decimal.ROUND_DOWN, decimal.ROUND_FLOOR,
             decimal.ROUND_CEILING]  # udfkit::rounding's order; ROUND_HALF_UP is half away from zero
ARROW_MODES = ["half_towards_infinity", "half_to_even", "towards_zero", "down", "up"]

# Row error codes (<udfkit/udf.h>).
OVERFLOW, DIV_ZERO, INVALID, DT_OVERFLOW, DT_INVALID = -2147483646, -2147483645, -2147483644, -2147483643, -2147483642
UNITS = ["year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond", "microsecond",
         "nanosecond"]
NS = {"week": 604800 * 10**9, "day": 86400 * 10**9, "hour": 3600 * 10**9, "minute": 60 * 10**9, "second": 10**9,
      "millisecond": 10**6, "microsecond": 10**3, "nanosecond": 1}
ARROW_UNIT = {"second": "s", "millisecond": "ms", "microsecond": "us", "nanosecond": "ns"}
INT64 = (-2**63, 2**63 - 1)


class Cases:
    def __init__(self):
        self.lines = []      # (op, case line, expected result line, source)
        self.differences = {}  # reason -> count of cases where Arrow's result differs from SPEC's

    def add(self, op, args, expected, source):
        self.lines.append((op, " ".join([op, *args]), expected, source))

    def differ(self, reason):
        self.differences[reason] = self.differences.get(reason, 0) + 1


def w(v):
    return f"w:{v}"


def n(v):
    return f"n:{v}"


def unscaled(d, scale):
    return int(d.scaleb(scale, context=CTX))


def dec_result(value, scale, limit=38):
    """The result line of an exact Decimal value at a scale: the overflow code past 38 digits."""
    u = unscaled(value, scale)
    return f"0 {u} {scale}" if abs(u) < 10**limit else f"{OVERFLOW}"


def as_decimal(u, s):
    return D(u).scaleb(-s, context=CTX)


def quantize(value, scale, mode):
    return value.quantize(D(1).scaleb(-scale), rounding=ROUNDINGS[mode], context=CTX)


# ---------------------------------------------------------------------------------- decimals

def values_of(p, s, rng, count):
    """Edge values of decimal(p, s) and random ones: the limits, zero, one unit, half-way
    values for every rounding of 1 and 2 digits, both signs."""
    top = 10**p - 1
    base = [0, 1, -1, top, -top, top - 1, -(top - 1), 5, -5, 15, -15, 25, -25, 50, -50, 149, -151, 10**(p - 1),
            -10**(p - 1)]
    base += [rng.randrange(-top, top + 1) for _ in range(count)]
    base += [rng.randrange(-10**rng.randint(1, p), 10**rng.randint(1, p)) for _ in range(count)]
    return [v for v in base if abs(v) <= top]


TYPES = [(1, 0), (5, 2), (9, 0), (9, 9), (10, 3), (18, 4), (18, 18), (19, 10), (30, 15), (38, 0), (38, 2), (38, 10),
         (38, 20), (38, 38)]


def arrow_array(values, p, s):
    return pa.array([as_decimal(v, s) for v in values], pa.decimal128(p, s))


def arrow_result(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs), None
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
        return None, str(e)


def decimal_arithmetic(cases, rng):
    pairs = [(a, b) for a in TYPES for b in TYPES]
    rng.shuffle(pairs)
    for (p1, s1), (p2, s2) in pairs[:90]:
        xs, ys = values_of(p1, s1, rng, 6), values_of(p2, s2, rng, 6)
        m = min(len(xs), len(ys))
        xs, ys = xs[:m], ys[:m]
        rng.shuffle(ys)
        ax, ay = arrow_array(xs, p1, s1), arrow_array(ys, p2, s2)
        for op, fn, exact in (("dec_add", pc.add, lambda a, b: a + b), ("dec_sub", pc.subtract, lambda a, b: a - b),
                              ("dec_mul", pc.multiply, lambda a, b: a * b)):
            scale = s1 + s2 if op == "dec_mul" else max(s1, s2)
            got, err = arrow_result(fn, ax, ay)
            for i, (x, y) in enumerate(zip(xs, ys)):
                value = exact(as_decimal(x, s1), as_decimal(y, s2)).normalize(CTX) if x or y else D(0)
                expected = dec_result(value, scale) if scale <= 38 else f"{OVERFLOW}"
                source = "python"
                if got is not None:
                    av = got[i].as_py()
                    arrow_line = dec_result(av, got.type.scale)
                    assert got.type.scale == scale
                    assert arrow_line == expected, (op, x, s1, y, s2, arrow_line, expected)
                    source = "arrow"
                elif expected != f"{OVERFLOW}":
                    cases.differ("arrow refuses a result type past precision 38 whatever the values")
                cases.add(op, [w(x), n(s1), w(y), n(s2)], expected, source)
        # Rounded forms: exact, then rounded once to a scale of the test's choosing.
        for op, fn, exact in (("dec_add_r", pc.add, lambda a, b: a + b), ("dec_sub_r", pc.subtract, lambda a, b: a - b),
                              ("dec_mul_r", pc.multiply, lambda a, b: a * b)):
            for i, (x, y) in enumerate(zip(xs, ys)):
                scale, mode = rng.randint(0, 38), rng.randrange(5)
                if i % 3 == 0:
                    scale = rng.randint(0, max(s1, s2))
                value = exact(as_decimal(x, s1), as_decimal(y, s2))
                expected = dec_result(quantize(value, scale, mode), scale)
                source = "python"
                got, _ = arrow_result(fn, ax.slice(i, 1), ay.slice(i, 1))
                if got is not None and scale <= got.type.scale:
                    r, _ = arrow_result(pc.round, got, scale, ARROW_MODES[mode])
                    if r is not None:
                        assert dec_result(r[0].as_py(), scale) == expected, (op, x, s1, y, s2, scale, mode)
                        source = "arrow"
                cases.add(op, [w(x), n(s1), w(y), n(s2), n(scale), n(mode)], expected, source)
        # Division: Arrow's result scale, where Arrow truncates and SPEC rounds half away.
        for i, (x, y) in enumerate(zip(xs, ys)):
            got, _ = arrow_result(pc.divide, ax.slice(i, 1), ay.slice(i, 1))
            if y == 0:
                cases.add("dec_div", [w(x), n(s1), w(y), n(s2), n(4), n(0)], f"{DIV_ZERO}", "python")
                continue
            q = CTX.divide(as_decimal(x, s1), as_decimal(y, s2))
            if got is not None:
                scale = got.type.scale
                truncated = dec_result(got[0].as_py(), scale)
                exact_q = fractions.Fraction(x * 10**s2, y * 10**s1)
                expected_trunc = dec_result(quantize(q, scale, 2), scale) if scale <= 38 else f"{OVERFLOW}"
                assert truncated == expected_trunc, (x, s1, y, s2, truncated, expected_trunc, exact_q)
                cases.add("dec_div", [w(x), n(s1), w(y), n(s2), n(scale), n(2)], truncated, "arrow")
                rounded = dec_result(quantize(q, scale, 0), scale)
                if rounded != truncated:
                    cases.differ("arrow's divide truncates toward zero; SPEC rounds half away from zero")
                cases.add("dec_div", [w(x), n(s1), w(y), n(s2), n(scale), n(0)], rounded, "python")
            scale, mode = rng.randint(0, 38), rng.randrange(5)
            cases.add("dec_div", [w(x), n(s1), w(y), n(s2), n(scale), n(mode)],
                      dec_result(quantize(q, scale, mode), scale), "python")
        # Comparison across scales.
        got, _ = arrow_result(pc.less, ax, ay)
        eq, _ = arrow_result(pc.equal, ax, ay)
        for i, (x, y) in enumerate(zip(xs, ys)):
            a, b = as_decimal(x, s1), as_decimal(y, s2)
            c = (a > b) - (a < b)
            flags = (a == b) + 2 * (a != b) + 4 * (a < b) + 8 * (a <= b) + 16 * (a > b) + 32 * (a >= b)
            source = "python"
            if got is not None and eq is not None:
                assert got[i].as_py() == (a < b) and eq[i].as_py() == (a == b)
                source = "arrow"
            cases.add("dec_cmp", [w(x), n(s1), w(y), n(s2)], f"0 {c} {flags}", source)


def decimal_limits(cases, rng):
    """Precision 38 at its limits: sums, products and quotients that just fit or just do not."""
    top = 10**38 - 1
    for x, sx, y, sy in [(top, 0, 1, 0), (top, 0, -1, 0), (-top, 0, -1, 0), (top, 0, top, 0), (-top, 0, top, 0),
                         (top, 38, 1, 0), (10**37, 0, 5, 1), (-10**37, 0, -5, 1), (top, 10, top, 10),
                         (10**19, 0, 10**19, 0), (10**19 - 1, 0, 10**19 + 1, 0), (2**64, 0, 2**63, 0),
                         (top, 19, top, 19), (3, 38, 3, 38), (top, 38, top, 38)]:
        a, b = as_decimal(x, sx), as_decimal(y, sy)
        for op, v, scale in (("dec_add", a + b, max(sx, sy)), ("dec_sub", a - b, max(sx, sy)),
                             ("dec_mul", a * b, sx + sy)):
            cases.add(op, [w(x), n(sx), w(y), n(sy)], dec_result(v, scale) if scale <= 38 else f"{OVERFLOW}",
                      "python")
        for scale in (0, 1, 10, 19, 37, 38):
            for mode in range(5):
                cases.add("dec_mul_r", [w(x), n(sx), w(y), n(sy), n(scale), n(mode)],
                          dec_result(quantize(a * b, scale, mode), scale), "python")
                cases.add("dec_add_r", [w(x), n(sx), w(y), n(sy), n(scale), n(mode)],
                          dec_result(quantize(a + b, scale, mode), scale), "python")
                cases.add("dec_div", [w(x), n(sx), w(y), n(sy), n(scale), n(mode)],
                          dec_result(quantize(CTX.divide(a, b), scale, mode), scale), "python")
    # Operands past 38 digits, scales out of range.
    for u in (10**38, -10**38, 10**38 - 1, -(10**38 - 1), 2**127 - 1, -2**127):
        cases.add("dec_new", [w(u), n(0)], f"0 {u} 0" if abs(u) < 10**38 else f"{OVERFLOW}", "python")
    for s in (-1, 39, 100):
        cases.add("dec_new", [w(1), n(s)], f"{INVALID}", "python")
        cases.add("dec_rescale", [w(1), n(0), n(s), n(0)], f"{INVALID}", "python")
        cases.add("dec_div", [w(1), n(0), w(1), n(0), n(s), n(0)], f"{INVALID}", "python")
    # Values divided down past any digit, and up to the limit.
    cases.add("dec_div", [w(1), n(38), w(top), n(0), n(38), n(0)], "0 0 38", "python")
    cases.add("dec_div", [w(top), n(0), w(1), n(38), n(0), n(0)], f"{OVERFLOW}", "python")
    cases.add("dec_div", [w(top), n(0), w(1), n(0), n(0), n(0)], f"0 {top} 0", "python")
    cases.add("dec_div", [w(-top), n(0), w(-1), n(0), n(0), n(0)], f"0 {top} 0", "python")


def decimal_rescale_and_store(cases, rng):
    for p, s in TYPES:
        xs = values_of(p, s, rng, 8)
        arr = arrow_array(xs, p, s)
        for target in sorted({0, 1, s // 2, max(s - 1, 0), s, min(s + 1, 38), min(s + 5, 38), 38}):
            for mode in range(5):
                for i, x in enumerate(xs):
                    v = quantize(as_decimal(x, s), target, mode)
                    expected = dec_result(v, target)
                    source = "python"
                    if target < s:
                        r, _ = arrow_result(pc.round, arr.slice(i, 1), target, ARROW_MODES[mode])
                        if r is not None:
                            assert dec_result(r[0].as_py(), target) == expected, (x, s, target, mode)
                            source = "arrow"
                    else:
                        r, _ = arrow_result(pc.cast, arr.slice(i, 1), pa.decimal128(38, target))
                        if r is not None and expected == f"{OVERFLOW}":
                            cases.differ("arrow's cast to a larger scale wraps where the unscaled value passes 2^127")
                        elif r is not None:
                            assert dec_result(r[0].as_py(), target) == expected
                            source = "arrow"
                        else:
                            assert expected == f"{OVERFLOW}"
                            source = "arrow"
                    cases.add("dec_rescale", [w(x), n(s), n(target), n(mode)], expected, source)
        # Stores into each width: the value rounded, then its precision checked (Arrow's safe
        # cast of the rounded value fails exactly where it does not fit).
        for width, maxp, ctor in ((32, 9, pa.decimal32), (64, 18, pa.decimal64), (128, 38, pa.decimal128)):
            for i, x in enumerate(xs[:10]):
                for _ in range(3):
                    tp = rng.randint(1, maxp)
                    ts = rng.randint(0, tp)
                    mode = rng.randrange(5)
                    v = quantize(as_decimal(x, s), ts, mode)
                    u = unscaled(v, ts)
                    expected = f"0 {u} {ts}" if abs(u) < 10**tp else f"{OVERFLOW}"
                    rounded = pa.array([v], pa.decimal128(38, ts)) if abs(u) < 10**38 else None
                    source = "python"
                    if rounded is not None:
                        r, _ = arrow_result(pc.cast, rounded, ctor(tp, ts))
                        if r is not None and expected == f"{OVERFLOW}":
                            cases.differ("arrow's cast of a decimal128 to decimal32 wraps past 32 bits, unchecked")
                        else:
                            assert (r is not None) == (expected != f"{OVERFLOW}"), (x, s, tp, ts, width)
                            assert r is None or dec_result(r[0].as_py(), ts) == expected
                            source = "arrow"
                    cases.add("dec_store", [w(x), n(s), n(width), n(tp), n(ts), n(mode)], expected, source)
        for width, bad in ((32, 10), (64, 19), (128, 39), (32, 0)):
            cases.add("dec_store", [w(1), n(s), n(width), n(bad), n(0), n(0)], f"{INVALID}", "python")
        cases.add("dec_store", [w(1), n(s), n(64), n(5), n(6), n(0)], f"{INVALID}", "python")


def float32_nearest(q):
    """The float32 nearest the Fraction q, ties to even, exactly."""
    f = np.float32(float(q))
    best = None
    for c in (np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))):
        dist = abs(fractions.Fraction(float(c)) - q)
        key = (dist, int(struct.unpack("<I", struct.pack("<f", c))[0]) & 1)
        if best is None or key < best[0]:
            best = (key, c)
    return best[1]


def decimal_conversions(cases, rng):
    for p, s in TYPES:
        xs = values_of(p, s, rng, 10)
        arr = arrow_array(xs, p, s)
        f64, _ = arrow_result(pc.cast, arr, pa.float64())
        f32, _ = arrow_result(pc.cast, arr, pa.float32())
        text = pc.cast(arr, pa.string())
        for i, x in enumerate(xs):
            d = as_decimal(x, s)
            # To double: correctly rounded, as Python's float(Decimal).
            exact = float(d)
            bits = struct.unpack("<Q", struct.pack("<d", exact))[0]
            cases.add("dec_to_double", [w(x), n(s)], f"0 x:{bits:x}", "python")
            if f64 is not None and f64[i].as_py() != exact:
                cases.differ("arrow's cast of a decimal to float64 is not always correctly rounded")
            f = float32_nearest(fractions.Fraction(d))
            fbits = struct.unpack("<I", struct.pack("<f", f))[0]
            cases.add("dec_to_float", [w(x), n(s)], f"0 x:{fbits:x}", "python")
            if f32 is not None and struct.unpack("<I", struct.pack("<f", f32[i].as_py()))[0] != fbits:
                cases.differ("arrow's cast of a decimal to float32 is not always correctly rounded")
            # Text: Arrow's cast to string and Python's str() agree.
            t = text[i].as_py()
            assert t == str(d) or (x == 0 and t == str(D(0).scaleb(-s))), (t, str(d))
            cases.add("dec_format", [w(x), n(s)], "0 t:" + t.encode().hex(), "arrow")
            cases.add("dec_neg", [w(x), n(s)], f"0 {-x} {s}", "arrow" if pc.negate(arr.slice(i, 1))[0].as_py() == -d
                      else "python")
            cases.add("dec_abs", [w(x), n(s)], f"0 {abs(x)} {s}", "arrow" if pc.abs(arr.slice(i, 1))[0].as_py() == abs(d)
                      else "python")
            # To integers: Arrow's unchecked cast truncates toward zero.
            for mode in range(5):
                v = int(quantize(d, 0, mode))
                expected = f"0 {v}" if INT64[0] <= v <= INT64[1] else f"{OVERFLOW}"
                source = "python"
                if mode == 2 and expected != f"{OVERFLOW}":
                    r, _ = arrow_result(pc.cast, arr.slice(i, 1), pa.int64(), safe=False)
                    assert r is not None and r[0].as_py() == v
                    source = "arrow"
                cases.add("dec_to_int64", [w(x), n(s), n(mode)], expected, source)
    for v in (0, 1, -1, INT64[1], INT64[0], 10**17, -(10**17)):
        for s in (0, 2, 18, 19, 20, 38):
            u = v * 10**s
            expected = f"0 {u} {s}" if abs(u) < 10**38 else f"{OVERFLOW}"
            r, _ = arrow_result(pc.cast, pa.array([v], pa.int64()), pa.decimal128(38, s))
            source = "arrow"
            if r is not None and expected == f"{OVERFLOW}":
                cases.differ("arrow's cast of an int64 to a decimal wraps where the unscaled value passes 2^127")
                source = "python"
            elif r is None and expected != f"{OVERFLOW}":
                cases.differ("arrow refuses an int64 cast to a decimal of fewer than 19 integer digits")
                source = "python"
            else:
                assert (r is not None) == (expected != f"{OVERFLOW}"), (v, s, r)
                assert r is None or dec_result(r[0].as_py(), s) == expected
            cases.add("dec_from_integer", [n(v), n(s)], expected, source)


def float_values(rng):
    vals = [0.0, -0.0, 0.1, -0.1, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, 1.005, 2.675, 1e-5, 123456789.123456789, 1e20,
            -1e20, 1.7e38, 9.99e37, 1e38, 5e-39, 5e-38, 1.5e-38, 2.0**-1074, 2.0**-1022, 1.7976931348623157e308,
            float("inf"), float("-inf"), float("nan"), 0.30000000000000004, 9007199254740993.0, 4503599627370497.5]
    vals += [rng.uniform(-1e6, 1e6) for _ in range(25)]
    vals += [rng.choice([-1, 1]) * 10**rng.uniform(-40, 40) for _ in range(40)]
    vals += [rng.randint(-1000, 1000) / 8 for _ in range(20)]  # exact half-way values
    return vals


def decimal_from_floats(cases, rng):
    for x in float_values(rng):
        bits = struct.unpack("<Q", struct.pack("<d", x))[0]
        for s in (0, 1, 2, 3, 6, 10, 18, 20, 30, 38):
            for mode in range(5):
                if x != x or x in (float("inf"), float("-inf")):
                    expected = f"{INVALID}"
                else:
                    expected = dec_result(quantize(D(x), s, mode), s)
                source = "python"
                if mode == 2 and expected not in (f"{INVALID}", f"{OVERFLOW}"):
                    r, _ = arrow_result(pc.cast, pa.array([x]), pa.decimal128(38, s))
                    if r is not None and dec_result(r[0].as_py(), s) == expected:
                        source = "arrow"
                    else:
                        cases.differ("arrow's cast of a float64 to a decimal is off in the last digits (2.675 to scale 10 is "
                                      "2.6750000000; its binary value 2.67499999999999982236...)")
                if mode == 0 and expected not in (f"{INVALID}", f"{OVERFLOW}"):
                    r, _ = arrow_result(pc.cast, pa.array([x]), pa.decimal128(38, s))
                    if r is not None and dec_result(r[0].as_py(), s) != expected:
                        cases.differ("arrow's float64 cast to a decimal differs from the binary value rounded half away from zero")
                cases.add("dec_from_double", [f"x:{bits:x}", n(s), n(mode)], expected, source)
        with np.errstate(over="ignore"):
            f = np.float32(x)
        fb = struct.unpack("<I", struct.pack("<f", f))[0]
        for s in (0, 2, 10, 38):
            mode = rng.randrange(5)
            fv = float(f)
            expected = f"{INVALID}" if fv != fv or fv in (float("inf"), float("-inf")) else dec_result(
                quantize(D(fv), s, mode), s)
            cases.add("dec_from_float", [f"x:{fb:x}", n(s), n(mode)], expected, "python")


def texts(rng):
    t = ["0", "-0", "+1", "1.", ".5", "-.5", "5.", "1e3", "1E+3", "1e-3", "-1.5E-40", "00012.3400", "123.456",
         "-123.456", "0.000001", "0.0000001", "1e38", "9.9999999999999999999999999999999999999e37", "1E-38",
         "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999",
         "100000000000000000000000000000000000000", "0.5", "0.05", "-0.005", "2.5", "-2.5", "0.0000000000000000000000000000000000000049",
         "123456789012345678901234567890.123456789", "1e-99999", "0e99999", "1.000000000000000000000000000000000000000000001",
         "", "-", "+", ".", "e5", "1e", "1e+", "1..2", "1.2.3", " 1", "1 ", "nan", "inf", "0x10", "1_000", "--1",
         "1e5.5", "١"]
    for _ in range(60):
        ip = str(rng.randrange(10**rng.randint(0, 20)))
        fp = "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 25)))
        s = rng.choice(["", "-", "+"]) + ip + ("." + fp if fp or rng.random() < 0.3 else "")
        if rng.random() < 0.3:
            s += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randint(0, 45))
        t.append(s)
    return t


def python_decimal(text):
    """Python's reading of the text where it is Arrow's syntax too, else None."""
    import re
    if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", text):
        return None
    return D(text)


def decimal_text(cases, rng):
    for text in texts(rng):
        hexed = "t:" + text.encode().hex() if text else "t:"
        v = python_decimal(text)
        # The text's own scale.
        if v is None:
            expected = f"{INVALID}"
        else:
            scale = max(0, -v.as_tuple().exponent)
            if scale > 38:
                expected = f"{OVERFLOW}" if v != quantize(v, 38, 2) else dec_result(v, 38)
                scale = 38
            else:
                expected = dec_result(v, scale)
        source = "python"
        if v is not None and expected != f"{OVERFLOW}":
            r, err = arrow_result(pc.cast, pa.array([text]), pa.decimal128(38, int(expected.split()[2])))
            if r is None:
                cases.differ("arrow refuses zero with an exponent past its range ('0e99999')")
            else:
                assert dec_result(r[0].as_py(), r.type.scale) == expected, (text, err)
                source = "arrow"
        if v is None:
            r, _ = arrow_result(pc.cast, pa.array([text]), pa.decimal128(38, 2))
            assert r is None, text
            source = "arrow"
        cases.add("dec_parse", [hexed], expected, source)
        for s in (0, 2, 5, 38):
            for mode in range(5):
                expected = f"{INVALID}" if v is None else dec_result(quantize(v, s, mode), s)
                source = "python"
                if v is not None and mode == 0:
                    r, _ = arrow_result(pc.cast, pa.array([text]), pa.decimal128(38, s))
                    if r is not None and expected == f"{OVERFLOW}":
                        cases.differ("arrow's cast of text to a decimal wraps where the unscaled value passes 2^127")
                    elif r is not None:
                        assert dec_result(r[0].as_py(), s) == expected, (text, s)
                        source = "arrow"
                    elif expected != f"{OVERFLOW}":
                        cases.differ("arrow refuses text with more digits than the scale; SPEC rounds half away")
                cases.add("dec_parse_s", [hexed, n(s), n(mode)], expected, source)


# ---------------------------------------------------------------------------------- dates

def civil(days):
    """The civil date of a day count through Python's date, 400-year cycles (146097 days)
    counted apart: independent of the algorithm under test."""
    ordinal = days + 719163
    k = (ordinal - 1) // 146097
    d = datetime.date.fromordinal(ordinal - k * 146097)
    return d.year + 400 * k, d.month, d.day, d


def days_of(y, m, d):
    k = (y - 1) // 400
    return datetime.date(y - 400 * k, m, d).toordinal() + k * 146097 - 719163


ARROW_DAYS = (days_of(-32767, 1, 1), days_of(32767, 12, 31))


def fields(t, unit):
    per_day = NS["day"] // NS[unit]
    days, rest = divmod(t, per_day)
    y, mo, d, date = civil(days)
    ns = rest * NS[unit]
    doy = date.timetuple().tm_yday
    return [y, mo, d, ns // 3600 // 10**9, ns // 60 // 10**9 % 60, ns // 10**9 % 60, ns // 10**6 % 1000,
            ns // 1000 % 1000, ns % 1000, date.weekday(), doy, (mo + 2) // 3]


def dt_values(unit, rng):
    per_day = NS["day"] // NS[unit]
    vals = [0, 1, -1, per_day - 1, -per_day, -per_day - 1, per_day * 59, per_day * 789, per_day * 790,
            per_day * (-719162), per_day * 2932896, per_day * 24855, per_day * -25567]  # 1970, leap days, 0001, 9999, 2038, 1900
    if unit == "day":
        vals += [-719468, -719469, 2**31 - 1, -2**31, 10**9, -(10**9)]
    vals += [INT64[0], INT64[1], INT64[0] + 1, INT64[1] - 1]
    lo, hi = (-2**31, 2**31 - 1) if unit == "day" else INT64
    vals += [rng.randint(lo, hi) for _ in range(30)]
    vals += [rng.randint(-200 * 366 * per_day, 200 * 366 * per_day) for _ in range(40)]
    # Every day of a leap February and its neighbours, in 2000, 1900 (not leap) and 1600.
    for y in (2000, 1900, 1600, 2024, 1968):
        vals += [days_of(y, 2, 27) * per_day + k * per_day + rng.randrange(per_day) for k in range(4)]
    return [v for v in vals if INT64[0] <= v <= INT64[1]]


def arrow_type(unit):
    return pa.date32() if unit == "day" else pa.timestamp(ARROW_UNIT[unit])


ARROW_FIELDS = [pc.year, pc.month, pc.day, pc.hour, pc.minute, pc.second, pc.millisecond, pc.microsecond,
                pc.nanosecond, pc.day_of_week, pc.day_of_year, pc.quarter]


def arrow_fits(t, unit):
    """Whether Arrow's temporal functions hold t: its year is one of -32767..32767, the
    range of arrow_vendored::date's 16-bit year."""
    return ARROW_DAYS[0] <= t // (NS["day"] // NS[unit]) <= ARROW_DAYS[1]


def date_fields(cases, rng):
    storage = ["day", "second", "millisecond", "microsecond", "nanosecond"]
    for unit in storage:
        vals = dt_values(unit, rng)
        arr = pa.array([v if arrow_fits(v, unit) else 0 for v in vals], arrow_type(unit))
        cols = []
        for fn in ARROW_FIELDS:
            got, _ = arrow_result(fn, arr)
            cols.append(got)
        for i, t in enumerate(vals):
            expected = fields(t, unit)
            source = "python"
            if arrow_fits(t, unit):
                arrow = [c[i].as_py() if c is not None else 0 for c in cols]
                assert arrow == expected, (t, unit, arrow, expected)
                source = "arrow"
            else:
                cases.differ("arrow's temporal functions hold years -32767..32767 only (a 16-bit year)")
            ui = UNITS.index(unit)
            cases.add("dt_fields", [n(t), n(ui)], "0 " + " ".join(map(str, expected)), source)
            y, mo, d = expected[:3]
            sub = (t % (NS["day"] // NS[unit])) * NS[unit] % 10**9 // NS[unit]
            cases.add("dt_to_civil", [n(t), n(ui)], "0 " + " ".join(map(str, expected[:6] + [sub])), source)
    for days in dt_values("day", rng) + [INT64[0], INT64[1], -10**15, 10**15]:
        y, m, d, _ = civil(days)
        cases.add("dt_civil", [n(days)], f"0 {y} {m} {d} {days}", "python")


def make_cases(cases, rng):
    for y, m, d in [(1970, 1, 1), (2000, 2, 29), (1900, 2, 29), (2024, 2, 29), (2023, 2, 29), (1, 1, 1), (0, 3, 1),
                    (-1, 12, 31), (-4, 2, 29), (9999, 12, 31), (2038, 1, 19), (1600, 2, 29), (2024, 13, 1),
                    (2024, 0, 1), (2024, 4, 31), (2024, 4, 0), (25252734927768524, 7, 27),
                    (25252734927768524, 7, 28), (25252734927768525, 1, 1), (-25252734927764585, 6, 7),
                    (-25252734927764585, 6, 6), (-25252734927764586, 12, 31)] + \
            [(rng.randint(-3000, 5000), rng.randint(1, 12), rng.randint(1, 31)) for _ in range(60)]:
        if not (1 <= m <= 12) or not (1 <= d <= calendar.monthrange(2000 + (y % 400), m)[1]):
            expected, source = f"{DT_INVALID}", "python"
        elif not in64(days_of(y, m, d)):
            expected, source = f"{DT_OVERFLOW}", "python"
        else:
            days = days_of(y, m, d)
            expected, source = f"0 {days}", "python"
            if 1 <= y <= 9999:
                assert pa.array([datetime.date(y, m, d)], pa.date32()).cast(pa.int32())[0].as_py() == days
                source = "arrow"
        cases.add("dt_make_date", [n(y), n(m), n(d)], expected, source)
    for unit in ("day", "hour", "minute", "second", "millisecond", "microsecond", "nanosecond"):
        ui = UNITS.index(unit)
        per_second = max(1, 10**9 // NS[unit])
        for _ in range(25):
            y, m, d = rng.randint(1678, 2261), rng.randint(1, 12), rng.randint(1, 28)
            hh, mi, ss = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
            sub = rng.randrange(per_second) if NS[unit] < 10**9 else 0
            if unit in ("day", "hour", "minute"):
                mi = mi if unit == "minute" else 0
                ss = 0
                hh = hh if unit != "day" else 0
            total_ns = (days_of(y, m, d) * 86400 + hh * 3600 + mi * 60 + ss) * 10**9 + sub * NS[unit]
            t = total_ns // NS[unit]
            source = "python"
            if unit in ARROW_UNIT:
                dt = datetime.datetime(y, m, d, hh, mi, ss)
                a = pa.array([dt], pa.timestamp(ARROW_UNIT[unit])).cast(pa.int64())[0].as_py()
                assert a == t - sub
                source = "arrow"
            cases.add("dt_make_ts", [n(ui), n(y), n(m), n(d), n(hh), n(mi), n(ss), n(sub)], f"0 {t}", source)
        for bad in ([2024, 2, 30, 0, 0, 0, 0], [2024, 1, 1, 24, 0, 0, 0], [2024, 1, 1, 0, 60, 0, 0],
                    [2024, 1, 1, 0, 0, 60, 0], [2024, 1, 1, 0, 0, 0, -1], [2024, 1, 1, 0, 0, 0, per_second]):
            if unit in ("day", "hour", "minute", "second") and bad[-1] == per_second:
                bad[-1] = 1
            cases.add("dt_make_ts", [n(ui)] + [n(v) for v in bad], f"{DT_INVALID}", "python")
    # Past int64 nanoseconds: 2262-04-11T23:47:16.854775807 is the last instant timestamp[ns] holds.
    cases.add("dt_make_ts", [n(10), n(2262), n(4), n(11), n(23), n(47), n(16), n(854775807)], f"0 {INT64[1]}", "python")
    cases.add("dt_make_ts", [n(10), n(2262), n(4), n(11), n(23), n(47), n(16), n(854775808)], f"{DT_OVERFLOW}",
              "python")
    cases.add("dt_make_ts", [n(10), n(1677), n(9), n(21), n(0), n(12), n(43), n(145224192)], f"0 {INT64[0]}", "python")
    cases.add("dt_make_ts", [n(10), n(1677), n(9), n(21), n(0), n(12), n(43), n(145224191)], f"{DT_OVERFLOW}",
              "python")


def in64(v):
    return INT64[0] <= v <= INT64[1]


def conversions(cases, rng):
    storage = ["day", "hour", "minute", "second", "millisecond", "microsecond", "nanosecond"]
    np_unit = {"day": "D", "hour": "h", "minute": "m", "second": "s", "millisecond": "ms", "microsecond": "us",
               "nanosecond": "ns"}
    for src in storage:
        vals = dt_values(src, rng)[:60]
        for dst in storage:
            for t in vals:
                total = t * NS[src]
                v = total // NS[dst]  # exact toward a finer unit, floored toward a coarser one
                expected = f"0 {v}" if in64(v) else f"{DT_OVERFLOW}"
                source = "python"
                if in64(v) and abs(total) < 2**62:  # numpy wraps near the ends of int64 ns; INT64_MIN is its NaT
                    for kind in ("M8", "m8"):
                        got = np.array([t], f"{kind}[{np_unit[src]}]").astype(f"{kind}[{np_unit[dst]}]").astype(np.int64)[0]
                        assert got == v, (kind, t, src, dst, got, v)
                    source = "numpy"
                if src in ARROW_UNIT and dst in ARROW_UNIT and in64(v):
                    r, _ = arrow_result(pc.cast, pa.array([t], pa.timestamp(ARROW_UNIT[src])), pa.timestamp(ARROW_UNIT[dst]),
                                        safe=False)
                    if r is not None and r.cast(pa.int64())[0].as_py() != v:
                        cases.differ("arrow's cast to a coarser unit truncates toward zero; numpy floors")
                cases.add("dt_convert", [n(t), n(UNITS.index(src)), n(UNITS.index(dst))], expected, source)
        for t in vals:
            days = t * NS[src] // NS["day"]
            expected = f"0 {days}" if -2**31 <= days < 2**31 else f"{DT_OVERFLOW}"
            source = "python"
            if src in ARROW_UNIT and expected.startswith("0"):
                r, _ = arrow_result(pc.cast, pa.array([t], pa.timestamp(ARROW_UNIT[src])), pa.date32())
                if r is not None:
                    assert r.cast(pa.int32())[0].as_py() == days
                    source = "arrow"
            cases.add("dt_to_date32", [n(t), n(UNITS.index(src))], expected, source)
    cases.add("dt_convert", [n(1), n(UNITS.index("month")), n(UNITS.index("day"))], f"{DT_INVALID}", "python")


def durations(cases, rng):
    units = ["day", "second", "millisecond", "microsecond", "nanosecond"]
    for tu in units:
        for du in units[1:]:
            ts = dt_values(tu, rng)[:40]
            ds = [0, 1, -1, 86400 * 10**9 // NS[du], INT64[1], INT64[0], INT64[1] // 2] + \
                 [rng.randint(-10**15, 10**15) for _ in range(33)]
            u = tu if UNITS.index(tu) > UNITS.index(du) else du
            for t, d in zip(ts, ds):
                a, b = t * NS[tu] // NS[u], d * NS[du] // NS[u]
                for op, v, arrow_fn in (("dt_add", a + b, pc.add_checked), ("dt_sub", a - b, pc.subtract_checked)):
                    expected = f"0 {v}" if in64(a) and in64(b) and in64(v) else f"{DT_OVERFLOW}"
                    source = "python"
                    if (tu != "day" or op == "dt_add") and (tu != "day" or -2**31 <= t < 2**31):
                        at = pa.array([t], arrow_type(tu))
                        r, err = arrow_result(arrow_fn, at, pa.array([d], pa.duration(ARROW_UNIT[du])))
                        if r is not None:
                            assert expected == f"0 {r.cast(pa.int64())[0].as_py()}", (op, t, tu, d, du, expected, r)
                            source = "arrow"
                        elif expected.startswith("0"):
                            cases.differ("arrow refuses a date32 plus a duration past the date32 range")
                    cases.add(op, [n(t), n(UNITS.index(tu)), n(d), n(UNITS.index(du))], expected, source)
    for au in units[1:]:
        for bu in units[1:]:
            xs, ys = dt_values(au, rng)[:30], dt_values(bu, rng)[:30]
            rng.shuffle(ys)
            u = au if UNITS.index(au) > UNITS.index(bu) else bu
            for x, y in zip(xs, ys):
                a, b = x * NS[au] // NS[u], y * NS[bu] // NS[u]
                v = a - b
                expected = f"0 {v}" if in64(a) and in64(b) and in64(v) else f"{DT_OVERFLOW}"
                source = "python"
                r, _ = arrow_result(pc.subtract_checked, pa.array([x], arrow_type(au)), pa.array([y], arrow_type(bu)))
                if r is not None:
                    assert expected == f"0 {r.cast(pa.int64())[0].as_py()}", (x, au, y, bu)
                    source = "arrow"
                cases.add("dt_diff", [n(x), n(UNITS.index(au)), n(y), n(UNITS.index(bu))], expected, source)
    # date32 - date32: numpy's day count (Arrow's is a duration[s] of the same span).
    for x, y in [(0, 1), (59, -1), (2**31 - 1, -2**31)]:
        cases.add("dt_diff", [n(x), n(4), n(y), n(4)], f"0 {x - y}", "numpy")
        assert (np.datetime64(x, "D") - np.datetime64(y, "D")).astype(np.int64) == x - y


def add_months_python(t, months, unit):
    per_day = NS["day"] // NS[unit]
    days, tod = divmod(t, per_day)
    y, m, d, _ = civil(days)
    total = y * 12 + (m - 1) + months
    ny, nm = divmod(total, 12)
    nm += 1
    nd = min(d, calendar.monthrange(2000 + ny % 400, nm)[1])
    v = days_of(ny, nm, nd) * per_day + tod
    return v if in64(v) else None


def months(cases, rng):
    for unit in ("day", "second", "millisecond", "nanosecond"):
        per_day = NS["day"] // NS[unit]
        starts = [days_of(2024, 1, 31) * per_day + 3, days_of(2023, 1, 31) * per_day, days_of(2024, 2, 29) * per_day,
                  days_of(2000, 3, 31) * per_day + per_day - 1, days_of(1900, 1, 29) * per_day, -1, 0,
                  days_of(1969, 12, 31) * per_day]
        starts += [rng.randint(-100 * 366 * per_day, 300 * 366 * per_day) for _ in range(20)]
        for t in starts:
            for k in (0, 1, -1, 2, 11, 12, 13, -12, -13, 24, 1200, -24000, rng.randint(-5000, 5000)):
                v = add_months_python(t, k, unit)
                expected = f"0 {v}" if v is not None else f"{DT_OVERFLOW}"
                source = "python"
                if unit == "day" and civil(t)[2] == 1:
                    got = (np.datetime64(t, "D").astype("M8[M]") + np.timedelta64(k, "M")).astype("M8[D]").astype(np.int64)
                    assert got == v
                    source = "numpy"
                cases.add("dt_add_months", [n(t), n(k), n(UNITS.index(unit))], expected, source)
        for t, k in ((INT64[1], 1), (INT64[0], -1), (0, 2**62), (0, -2**62), (0, 12 * 25 * 10**15)):
            v = add_months_python(t, k, unit)
            cases.add("dt_add_months", [n(t), n(k), n(UNITS.index(unit))], f"0 {v}" if v is not None else f"{DT_OVERFLOW}",
                      "python")


def floor_python(t, unit, to):
    per_day = NS["day"] // NS[unit]
    if UNITS.index(to) >= UNITS.index(unit):
        return t
    if UNITS.index(to) <= UNITS.index("month"):
        days = t // per_day
        y, m, d, _ = civil(days)
        first = 1 if to == "year" else (m - 1) // 3 * 3 + 1 if to == "quarter" else m
        v = days_of(y, first, 1) * per_day
    elif to == "week":
        days = t // per_day
        v = (days - (days + 3) % 7) * per_day
    else:
        r = NS[to] // NS[unit]
        v = t // r * r
    return v if in64(v) else None


def ceil_python(t, unit, to):
    f = floor_python(t, unit, to)
    if f is None or f == t:
        return f
    if UNITS.index(to) <= UNITS.index("month"):
        return add_months_python(f, {"year": 12, "quarter": 3, "month": 1}[to], unit)
    v = f + NS[to] // NS[unit] if to != "week" else f + 7 * (NS["day"] // NS[unit])
    return v if in64(v) else None


def truncation(cases, rng):
    for unit in ("day", "second", "millisecond", "microsecond", "nanosecond"):
        vals = dt_values(unit, rng)[:70]
        arr = pa.array([v if arrow_fits(v, unit) else 0 for v in vals], arrow_type(unit))
        for to in UNITS:
            if unit == "day" and UNITS.index(to) > UNITS.index("day"):
                continue
            fl, _ = arrow_result(pc.floor_temporal, arr, unit=to)
            ce, _ = arrow_result(pc.ceil_temporal, arr, unit=to)
            for i, t in enumerate(vals):
                for op, fn, got in (("dt_floor", floor_python, fl), ("dt_ceil", ceil_python, ce)):
                    v = fn(t, unit, to)
                    expected = f"0 {v}" if v is not None else f"{DT_OVERFLOW}"
                    source = "python"
                    if got is not None and arrow_fits(t, unit) and v is not None and t not in INT64:
                        a = got.cast(pa.int32() if unit == "day" else pa.int64())[i].as_py()
                        if a == v:
                            source = "arrow"
                        else:
                            cases.differ("arrow's floor_temporal and ceil_temporal overflow near the ends of int64")
                    cases.add(op, [n(t), n(UNITS.index(unit)), n(UNITS.index(to))], expected, source)


def between_python(a, au, b, bu, unit):
    if UNITS.index(unit) <= UNITS.index("week"):
        da, db = a * NS[au] // NS["day"], b * NS[bu] // NS["day"]
        if unit == "week":
            return (db + 3) // 7 - (da + 3) // 7
        ya, ma, _, _ = civil(da)
        yb, mb, _, _ = civil(db)
        per = {"year": 1, "quarter": 4, "month": 12}[unit]
        return (yb * per + (mb - 1) * per // 12) - (ya * per + (ma - 1) * per // 12)
    fa, fb = a * NS[au] // NS[unit], b * NS[bu] // NS[unit]
    return fb - fa if in64(fa) and in64(fb) and in64(fb - fa) else None


def between(cases, rng):
    # Arrow's month_interval_between gives a type pyarrow cannot wrap: numpy's month counts instead.
    fns = {"year": pc.years_between, "quarter": pc.quarters_between, "month": None,
           "week": pc.weeks_between, "day": pc.days_between, "hour": pc.hours_between, "minute": pc.minutes_between,
           "second": pc.seconds_between, "millisecond": pc.milliseconds_between,
           "microsecond": pc.microseconds_between, "nanosecond": pc.nanoseconds_between}
    for au in ("day", "second", "millisecond", "microsecond", "nanosecond"):
        for bu in ("day", "second", "nanosecond") if au != "day" else ("day", "microsecond"):
            xs, ys = dt_values(au, rng)[:45], dt_values(bu, rng)[:45]
            rng.shuffle(ys)
            for unit in UNITS:
                same = au == bu
                if same and fns[unit] is not None:
                    ax = pa.array([x if arrow_fits(x, au) else 0 for x in xs], arrow_type(au))
                    ay = pa.array([y if arrow_fits(y, bu) else 0 for y in ys], arrow_type(bu))
                    got, _ = arrow_result(fns[unit], ax, ay)
                else:
                    got = None
                for i, (x, y) in enumerate(zip(xs, ys)):
                    v = between_python(x, au, y, bu, unit)
                    expected = f"0 {v}" if v is not None else f"{DT_OVERFLOW}"
                    source = "python"
                    np_unit = {"day": "D", "second": "s", "millisecond": "ms", "microsecond": "us", "nanosecond": "ns"}
                    if unit == "month" and v is not None and arrow_fits(x, au) and arrow_fits(y, bu) and \
                            abs(x * NS[au]) < 2**62 and abs(y * NS[bu]) < 2**62:
                        months = (np.datetime64(y, np_unit[bu]).astype("M8[M]") -
                                  np.datetime64(x, np_unit[au]).astype("M8[M]")).astype(np.int64)
                        assert months == v, (x, au, y, bu, months, v)
                        source = "numpy"
                    if got is not None and arrow_fits(x, au) and arrow_fits(y, bu) and v is not None:
                        a = got[i].as_py()
                        if a == v:
                            source = "arrow"
                        else:
                            cases.differ(f"arrow's {unit}s_between past the int64 range of its own arithmetic")
                    cases.add("dt_between", [n(x), n(UNITS.index(au)), n(y), n(UNITS.index(bu)), n(UNITS.index(unit))],
                              expected, source)


def build(seed=18):
    rng = random.Random(seed)
    cases = Cases()
    decimal_arithmetic(cases, rng)
    decimal_limits(cases, rng)
    decimal_rescale_and_store(cases, rng)
    decimal_conversions(cases, rng)
    decimal_from_floats(cases, rng)
    decimal_text(cases, rng)
    date_fields(cases, rng)
    make_cases(cases, rng)
    conversions(cases, rng)
    durations(cases, rng)
    months(cases, rng)
    truncation(cases, rng)
    between(cases, rng)
    return cases
