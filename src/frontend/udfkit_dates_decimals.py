"""Dates, times and decimals in Python UDFs compiled by numba-cuda (docs/decimals-and-dates.md).

Put into udfkit_worker.py when udfkit is built (src/CMakeLists.txt): the worker runs this text
as a module of its own and calls install() with its `udfkit` module, which then has:
- Decimal: a numba type with Python's operators (+ - * exact, / and div() rounded half away
  from zero, comparisons, abs, round, int, float), made by udfkit.Decimal("0.05"),
  udfkit.Decimal(5) or udfkit.Decimal(x, scale) from a float; decimal32/64/128(p,s)
  parameters arrive as Decimals of scale s, and a Decimal result is rounded half away from
  zero to the declared scale, a value past the declared precision being a row error;
- numpy.datetime64/timedelta64 parameters and results of the declared unit (date32 is days,
  date64 milliseconds), with numba-cuda's arithmetic and comparisons of them, and the fields,
  truncations, month arithmetic and differences of <udfkit/datetime.cuh>.
Every operation lowers to a call of a small C-ABI function written here in CUDA C over
<udfkit/decimal.cuh> and <udfkit/datetime.cuh> (SHIMS); NVRTC compiles them to LTO-IR (or PTX)
once per request that used them, and each function's artifacts carry that code as a link.
"""
import decimal as pydecimal
import operator
import os
import re
import tempfile

# udfkit::time_unit's values, by numpy's unit codes and Arrow's names.
UNITS = {"Y": 0, "Q": 1, "M": 2, "W": 3, "D": 4, "h": 5, "m": 6, "s": 7, "ms": 8, "us": 9, "ns": 10}
UNIT_NAMES = {"year": "Y", "quarter": "Q", "month": "M", "week": "W", "day": "D", "hour": "h", "minute": "m",
              "second": "s", "millisecond": "ms", "microsecond": "us", "nanosecond": "ns"}
STORAGE = ("D", "h", "m", "s", "ms", "us", "ns")  # the units a value may be counted in
FIELDS = ("year", "quarter", "month", "day", "weekday", "day_of_year", "hour", "minute", "second", "millisecond",
          "microsecond", "nanosecond")
BETWEEN = ("years", "quarters", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds",
           "microseconds", "nanoseconds")
MAX_DIGITS = {"decimal32": 9, "decimal64": 18, "decimal128": 38}
HALF_AWAY, TOWARD_ZERO = 0, 2  # udfkit::rounding's values

SPEC_TYPE = re.compile(r"(date32|date64)|(timestamp|duration)\[(s|ms|us|ns)\]|(decimal32|decimal64|decimal128)"
                       r"\((\d+),(\d+)\)")

SHIMS = r'''/* udfkit's Python UDFs: the C ABI of their decimal, date and time operations. */
#include <udfkit/udf.h>
#include <udfkit/decimal.cuh>
#include <udfkit/datetime.cuh>

/* A Python Decimal as numba holds it: the unscaled value's halves, its scale, its error. */
struct udfkit_py_dec { unsigned long long lo; long long hi; int scale; int error; };
/* Every compile that uses them brings them: one definition whatever the number of copies. */
#define UDFKIT_PY extern "C" __device__ inline __attribute__((used))

namespace {
__device__ __forceinline__ udfkit::decimal py_in(const void *p)
{
    const udfkit_py_dec *a = (const udfkit_py_dec *)p;
    return a->error ? udfkit::decimal::with_error(a->error, a->scale) : udfkit::decimal::from_abi(a->lo, a->hi, a->scale);
}
__device__ __forceinline__ void py_out(void *p, const udfkit::decimal &d)
{
    udfkit_py_dec *r = (udfkit_py_dec *)p;
    udfkit_decimal128 v = d.abi();
    r->lo = v.lo;
    r->hi = v.hi;
    r->scale = d.scale();
    r->error = d.error();
}
__device__ __forceinline__ bool py_failed(int code)
{
    if (code)
        udfkit_row_error(code);
    return code != 0;
}
}

UDFKIT_PY void udfkit_py_dec_add(void *r, const void *a, const void *b) { py_out(r, py_in(a) + py_in(b)); }
UDFKIT_PY void udfkit_py_dec_sub(void *r, const void *a, const void *b) { py_out(r, py_in(a) - py_in(b)); }
UDFKIT_PY void udfkit_py_dec_mul(void *r, const void *a, const void *b) { py_out(r, py_in(a) * py_in(b)); }
UDFKIT_PY void udfkit_py_dec_div(void *r, const void *a, const void *b, int scale)
{
    py_out(r, udfkit::div(py_in(a), py_in(b), scale));
}
/* a / b: rounded at the larger of 6 and the operands' scales. */
UDFKIT_PY void udfkit_py_dec_truediv(void *r, const void *a, const void *b)
{
    udfkit::decimal x = py_in(a), y = py_in(b);
    int scale = x.scale() > y.scale() ? x.scale() : y.scale();
    py_out(r, udfkit::div(x, y, scale > 6 ? scale : 6));
}
UDFKIT_PY void udfkit_py_dec_neg(void *r, const void *a) { py_out(r, -py_in(a)); }
UDFKIT_PY void udfkit_py_dec_abs(void *r, const void *a) { py_out(r, udfkit::abs(py_in(a))); }
UDFKIT_PY void udfkit_py_dec_rescale(void *r, const void *a, int scale) { py_out(r, py_in(a).rescale(scale)); }
UDFKIT_PY void udfkit_py_dec_from_i64(void *r, long long v) { py_out(r, udfkit::decimal(v)); }
UDFKIT_PY void udfkit_py_dec_from_u64(void *r, unsigned long long v) { py_out(r, udfkit::decimal(v)); }
UDFKIT_PY void udfkit_py_dec_from_f64(void *r, double x, int scale) { py_out(r, udfkit::decimal::from_double(x, scale)); }
UDFKIT_PY int udfkit_py_dec_cmp(const void *a, const void *b)
{
    udfkit::decimal x = py_in(a), y = py_in(b);
    if (py_failed(x.error() ? x.error() : y.error()))
        return 0;
    return udfkit::compare(x, y);
}
UDFKIT_PY long long udfkit_py_dec_to_i64(const void *a, int mode)
{
    udfkit::decimal x = py_in(a);
    long long v = 0;
    if (py_failed(x.error() ? x.error() : x.to_int64(&v, (udfkit::rounding)mode)))
        return 0;
    return v;
}
UDFKIT_PY double udfkit_py_dec_to_f64(const void *a)
{
    udfkit::decimal x = py_in(a);
    return py_failed(x.error()) ? 0.0 : x.to_double();
}
/* A result: rounded to the declared scale, its precision checked, else the row fails. */
UDFKIT_PY void udfkit_py_dec_store(void *out, const void *a, int precision, int scale)
{
    udfkit_decimal128 *o = (udfkit_decimal128 *)out;
    udfkit::decimal x = py_in(a);
    if (py_failed(x.error() ? x.error() : x.store(o, precision, scale))) {
        o->lo = 0;
        o->hi = 0;
    }
}

UDFKIT_PY long long udfkit_py_dt_field(long long t, int unit, int field)
{
    udfkit::time_unit u = (udfkit::time_unit)unit;
    switch (field) {
    case 0: return udfkit::year(t, u);
    case 1: return udfkit::quarter(t, u);
    case 2: return udfkit::month(t, u);
    case 3: return udfkit::day(t, u);
    case 4: return udfkit::weekday(t, u);
    case 5: return udfkit::day_of_year(t, u);
    case 6: return udfkit::hour(t, u);
    case 7: return udfkit::minute(t, u);
    case 8: return udfkit::second(t, u);
    case 9: return udfkit::millisecond(t, u);
    case 10: return udfkit::microsecond(t, u);
    default: return udfkit::nanosecond(t, u);
    }
}
UDFKIT_PY long long udfkit_py_dt_floor(long long t, int unit, int to)
{
    long long r = 0;
    return py_failed(udfkit::floor_to(&r, t, (udfkit::time_unit)unit, (udfkit::time_unit)to)) ? 0 : r;
}
UDFKIT_PY long long udfkit_py_dt_ceil(long long t, int unit, int to)
{
    long long r = 0;
    return py_failed(udfkit::ceil_to(&r, t, (udfkit::time_unit)unit, (udfkit::time_unit)to)) ? 0 : r;
}
UDFKIT_PY long long udfkit_py_dt_add_months(long long t, int unit, long long months)
{
    long long r = 0;
    return py_failed(udfkit::add_months(&r, t, months, (udfkit::time_unit)unit)) ? 0 : r;
}
UDFKIT_PY long long udfkit_py_dt_between(long long a, int au, long long b, int bu, int unit)
{
    long long r = 0;
    return py_failed(udfkit::units_between(&r, a, (udfkit::time_unit)au, b, (udfkit::time_unit)bu,
                                           (udfkit::time_unit)unit)) ? 0 : r;
}
UDFKIT_PY long long udfkit_py_dt_convert(long long t, int from, int to)
{
    long long r = 0;
    return py_failed(udfkit::convert(&r, t, (udfkit::time_unit)from, (udfkit::time_unit)to)) ? 0 : r;
}
UDFKIT_PY int udfkit_py_dt_to_date32(long long t, int unit)
{
    int r = 0;
    return py_failed(udfkit::to_date32(&r, t, (udfkit::time_unit)unit)) ? 0 : r;
}
'''

USED = set()  # the shims called by what was lowered in this process
# Begins the messages of this module's typing errors, which numba reports among others:
# own_message finds them.
MARK = "[udfkit-dates-decimals] "
API = None  # the numba parts, once install() has made them


class SpecType:
    """A spec type of this module ("timestamp[us]", "decimal128(15,2)?"), or None."""

    def __init__(self, name):
        self.name, self.nullable = name, name.endswith("?")
        m = SPEC_TYPE.fullmatch(name.rstrip("?"))
        self.matched = m is not None
        if not m:
            return
        self.kind = m.group(1) or m.group(2) or m.group(4)
        self.unit = {"date32": "D", "date64": "ms"}.get(m.group(1), m.group(3))
        self.precision = int(m.group(5)) if m.group(5) else 0
        self.scale = int(m.group(6)) if m.group(6) else 0
        self.decimal = self.kind.startswith("decimal")


def spec_type(name):
    t = SpecType(name or "")
    return t if t.matched else None


def handles(fn):
    """Whether a function spec has a type of this module (its own wrapper then compiles it)."""
    return any(spec_type(t.rstrip("*?")) for t in fn["params"] + [fn["ret"] or ""])


class UdfError(Exception):
    """Raised for the worker, which makes it its own UdfError (message, file, line)."""

    def __init__(self, message, file=None, line=0):
        super().__init__(message)
        self.message, self.file, self.line = message, file, line


NAMES = ("Decimal", "div", "rescale", "compare") + FIELDS + ("floor_to", "ceil_to", "add_months", "between", "to_unit") \
    + tuple(f"{plural}_between" for plural in BETWEEN)


def install(module, compiled=True):
    """Gives the worker's `udfkit` module the Decimal type and the date and time functions;
    where the frontend cannot compile them (numba-cuda-mlir), names that a module may import,
    whose specs the worker then refuses."""
    global API
    if not compiled:
        for name in NAMES:
            setattr(module, name, Unsupported(name))
        return
    if API is None:
        API = make_api()
    for name in NAMES:
        setattr(module, name, API[name])


class Unsupported:
    """udfkit.<name> under a frontend that cannot compile it."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args, **kwargs):
        raise TypeError(f"udfkit.{self.name} is compiled into UDFs by numba-cuda only")


def _make_api_1(ns):
    """Part 1 of make_api(): its names come from and go to ns."""
    from llvmlite import ir
    from numba.core import errors
    from numba.cuda import cgutils
    from numba.cuda import extending
    from numba.cuda.extending import intrinsic, models, overload, register_model, types

    # numba-cuda's intrinsic() drops its options; the decorator behind it takes them.
    literal_intrinsic = extending._intrinsic(prefer_literal=True)

    i8p, i32, i64 = ir.IntType(8).as_pointer(), ir.IntType(32), ir.IntType(64)

    def refuse(message):
        """A typing error whose message the worker shows as it is (own_message)."""
        return errors.TypingError(MARK + message)
    api = {}

    class DecimalType(types.Type):
        """udfkit.Decimal: an unscaled value of at most 38 digits, its scale and an error code."""

        def __init__(self):
            super().__init__(name="udfkit.Decimal")

    DEC = DecimalType()

    @register_model(DecimalType)
    class DecimalModel(models.StructModel):
        def __init__(self, dmm, fe_type):
            members = [("lo", types.uint64), ("hi", types.int64), ("scale", types.int32), ("error", types.int32)]
            super().__init__(dmm, fe_type, members)

    def call(builder, name, ret, args):
        USED.add(name)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ret, [a.type for a in args]), name)
        return builder.call(fn, args)

    def pointer(builder, value):
        return builder.bitcast(cgutils.alloca_once_value(builder, value), i8p)

    def dec_call(context, builder, name, *args):
        slot = cgutils.alloca_once(builder, context.get_value_type(DEC))
        call(builder, name, ir.VoidType(), [builder.bitcast(slot, i8p)] + list(args))
        return builder.load(slot)

    def decimal_like(ty):
        return isinstance(ty, (DecimalType, types.Integer, types.Boolean))

    def as_dec(context, builder, ty, value):
        """A Decimal, an int or a bool as a Decimal (an int's scale is 0)."""
        if isinstance(ty, DecimalType):
            return value
        signed = isinstance(ty, types.Boolean) or ty.signed
        v = context.cast(builder, value, ty, types.int64 if signed else types.uint64)
        return dec_call(context, builder, "udfkit_py_dec_from_i64" if signed else "udfkit_py_dec_from_u64", v)

    def const_dec(context, unscaled, scale):
        bits = unscaled & ((1 << 128) - 1)
        hi = bits >> 64
        return ir.Constant(context.get_value_type(DEC), [ir.Constant(i64, bits & ((1 << 64) - 1)),
                                                         ir.Constant(i64, hi - (1 << 64) if hi >> 63 else hi),
                                                         ir.Constant(i32, scale), ir.Constant(i32, 0)])

    def literal_decimal(text):
        try:
            d = pydecimal.Decimal(text)
        except (pydecimal.InvalidOperation, ValueError):
            raise refuse(f"udfkit.Decimal({text!r}): not a decimal number")
        if not d.is_finite():
            raise refuse(f"udfkit.Decimal({text!r}): a decimal is finite (no NaN or infinity)")
        scale = max(0, -d.as_tuple().exponent)
        unscaled = int(d.scaleb(scale, pydecimal.Context(prec=100)))
        if scale > 38 or abs(unscaled) >= 10 ** 38:
            raise refuse(f"udfkit.Decimal({text!r}) has more than 38 digits, or a scale past 38")
        return unscaled, scale
    ns.update(locals())
    del ns["ns"]


def _make_api_2(ns):
    """Part 2 of make_api(): its names come from and go to ns."""
    (DEC, DecimalType, api, as_dec, const_dec, dec_call, decimal_like, intrinsic,) = (ns[k] for k in ('DEC', 'DecimalType', 'api', 'as_dec', 'const_dec', 'dec_call', 'decimal_like', 'intrinsic'))
    (literal_decimal, literal_intrinsic, pointer, refuse, types,) = (ns[k] for k in ('literal_decimal', 'literal_intrinsic', 'pointer', 'refuse', 'types'))

    # -- Making decimals --------------------------------------------------------------

    @literal_intrinsic
    def Decimal(typingctx, value, scale=None):
        """Decimal("0.05") (a constant: its own scale), Decimal(int), Decimal(Decimal),
        Decimal(x, scale) for a float x (its binary value rounded half away from zero)."""
        if isinstance(value, types.StringLiteral) and scale is None:
            unscaled, s = literal_decimal(value.literal_value)

            def codegen(context, builder, sig, args):
                return const_dec(context, unscaled, s)

            return DEC(value, types.none), codegen
        if isinstance(value, types.UnicodeType):
            raise refuse("udfkit.Decimal(text) takes a constant string: Decimal(\"0.05\")")
        if isinstance(value, types.Float):
            if scale is None or not isinstance(scale, types.Integer):
                raise refuse("udfkit.Decimal(x) of a float x needs a scale: Decimal(x, 2) is x rounded "
                                         "half away from zero to 2 decimal places")

            def codegen(context, builder, sig, args):
                x = context.cast(builder, args[0], sig.args[0], types.float64)
                s = context.cast(builder, args[1], sig.args[1], types.int32)
                return dec_call(context, builder, "udfkit_py_dec_from_f64", x, s)

            return DEC(value, scale), codegen
        if decimal_like(value) and scale is None:
            def codegen(context, builder, sig, args):
                return as_dec(context, builder, sig.args[0], args[0])

            return DEC(value, types.none), codegen
        if decimal_like(value) and isinstance(scale, types.Integer):
            def codegen(context, builder, sig, args):
                d = as_dec(context, builder, sig.args[0], args[0])
                s = context.cast(builder, args[1], sig.args[1], types.int32)
                return dec_call(context, builder, "udfkit_py_dec_rescale", pointer(builder, d), s)

            return DEC(value, scale), codegen
        return None

    api["Decimal"] = Decimal
    # Python's decimal.Decimal, named in a UDF, is the same constructor (the intrinsic's typing
    # registered for that class too).
    from numba.cuda.typing.templates import infer_global, make_intrinsic_template

    infer_global(pydecimal.Decimal, types.Function(make_intrinsic_template(Decimal, Decimal._defn, "Decimal",
                                                                           prefer_literal=True, kwargs={})))

    def named(name, typer):
        """An intrinsic that numba's messages call `name`."""
        typer.__name__ = typer.__qualname__ = name
        return intrinsic(typer)

    def binary(shim):
        def op(typingctx, a, b):
            if not (decimal_like(a) and decimal_like(b)):
                return None

            def codegen(context, builder, sig, args):
                x = as_dec(context, builder, sig.args[0], args[0])
                y = as_dec(context, builder, sig.args[1], args[1])
                return dec_call(context, builder, shim, pointer(builder, x), pointer(builder, y))

            return DEC(a, b), codegen

        return named(shim[len("udfkit_py_dec_"):], op)

    def unary(shim):
        def op(typingctx, a):
            if not isinstance(a, DecimalType):
                return None

            def codegen(context, builder, sig, args):
                return dec_call(context, builder, shim, pointer(builder, args[0]))

            return DEC(a), codegen

        return named(shim[len("udfkit_py_dec_"):], op)

    @intrinsic
    def div(typingctx, a, b, scale):
        """div(a, b, scale): the exact quotient rounded half away from zero to `scale`."""
        if not (decimal_like(a) and decimal_like(b) and isinstance(scale, types.Integer)):
            return None

        def codegen(context, builder, sig, args):
            x = as_dec(context, builder, sig.args[0], args[0])
            y = as_dec(context, builder, sig.args[1], args[1])
            s = context.cast(builder, args[2], sig.args[2], types.int32)
            return dec_call(context, builder, "udfkit_py_dec_div", pointer(builder, x), pointer(builder, y), s)

        return DEC(a, b, scale), codegen
    ns.update(locals())
    del ns["ns"]


def _make_api_3(ns):
    """Part 3 of make_api(): its names come from and go to ns."""
    (DEC, DecimalType, api, as_dec, binary, call, dec_call, decimal_like,) = (ns[k] for k in ('DEC', 'DecimalType', 'api', 'as_dec', 'binary', 'call', 'dec_call', 'decimal_like'))
    (div, i32, i64, intrinsic, ir, named, overload, pointer,) = (ns[k] for k in ('div', 'i32', 'i64', 'intrinsic', 'ir', 'named', 'overload', 'pointer'))
    (types, unary,) = (ns[k] for k in ('types', 'unary'))

    @intrinsic
    def rescale(typingctx, a, scale):
        """rescale(a, scale): a at another scale, rounded half away from zero where digits go."""
        if not (decimal_like(a) and isinstance(scale, types.Integer)):
            return None

        def codegen(context, builder, sig, args):
            x = as_dec(context, builder, sig.args[0], args[0])
            s = context.cast(builder, args[1], sig.args[1], types.int32)
            return dec_call(context, builder, "udfkit_py_dec_rescale", pointer(builder, x), s)

        return DEC(a, scale), codegen

    @intrinsic
    def compare(typingctx, a, b):
        """compare(a, b): -1, 0 or 1 by value, whatever the scales."""
        if not (decimal_like(a) and decimal_like(b)):
            return None

        def codegen(context, builder, sig, args):
            x = as_dec(context, builder, sig.args[0], args[0])
            y = as_dec(context, builder, sig.args[1], args[1])
            return call(builder, "udfkit_py_dec_cmp", i32, [pointer(builder, x), pointer(builder, y)])

        return types.int32(a, b), codegen

    def to_int(mode):
        def op(typingctx, a):
            if not isinstance(a, DecimalType):
                return None

            def codegen(context, builder, sig, args):
                return call(builder, "udfkit_py_dec_to_i64", i64, [pointer(builder, args[0]), ir.Constant(i32, mode)])

            return types.int64(a), codegen

        return named("round" if mode == HALF_AWAY else "int", op)

    @intrinsic
    def to_float(typingctx, a):
        if not isinstance(a, DecimalType):
            return None

        def codegen(context, builder, sig, args):
            return call(builder, "udfkit_py_dec_to_f64", ir.DoubleType(), [pointer(builder, args[0])])

        return types.float64(a), codegen

    add, sub, mul, truediv = (binary(f"udfkit_py_dec_{n}") for n in ("add", "sub", "mul", "truediv"))
    neg, absolute = unary("udfkit_py_dec_neg"), unary("udfkit_py_dec_abs")
    trunc_int, round_int = to_int(TOWARD_ZERO), to_int(HALF_AWAY)
    api.update(div=div, rescale=rescale, compare=compare)

    def mixed(a, b):
        return (isinstance(a, DecimalType) and decimal_like(b)) or (isinstance(b, DecimalType) and decimal_like(a))

    def overload_binary(pyop, impl):
        @overload(pyop)
        def ov(a, b):
            if mixed(a, b):
                return lambda a, b: impl(a, b)

    for pyop, impl in ((operator.add, add), (operator.iadd, add), (operator.sub, sub), (operator.isub, sub),
                       (operator.mul, mul), (operator.imul, mul), (operator.truediv, truediv),
                       (operator.itruediv, truediv)):
        overload_binary(pyop, impl)

    def overload_compare(pyop):
        @overload(pyop)
        def ov(a, b):
            if mixed(a, b):
                return lambda a, b: pyop(compare(a, b), 0)

    for pyop in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        overload_compare(pyop)

    @overload(operator.neg)
    def ov_neg(a):
        if isinstance(a, DecimalType):
            return lambda a: neg(a)

    @overload(operator.pos)
    def ov_pos(a):
        if isinstance(a, DecimalType):
            return lambda a: a

    @overload(abs)
    def ov_abs(a):
        if isinstance(a, DecimalType):
            return lambda a: absolute(a)
    ns.update(locals())
    del ns["ns"]


def _make_api_4(ns):
    """Part 4 of make_api(): its names come from and go to ns."""
    (DecimalType, api, call, i32, i64, intrinsic, ir, literal_intrinsic,) = (ns[k] for k in ('DecimalType', 'api', 'call', 'i32', 'i64', 'intrinsic', 'ir', 'literal_intrinsic'))
    (named, overload, refuse, rescale, round_int, to_float, trunc_int, types,) = (ns[k] for k in ('named', 'overload', 'refuse', 'rescale', 'round_int', 'to_float', 'trunc_int', 'types'))

    @overload(round)
    def ov_round(a, ndigits=None):
        if not isinstance(a, DecimalType):
            return None
        if ndigits is None or isinstance(ndigits, (types.NoneType, types.Omitted)):
            return lambda a, ndigits=None: round_int(a)
        if isinstance(ndigits, types.Integer):
            return lambda a, ndigits=None: rescale(a, ndigits)

    @overload(int)
    def ov_int(a):
        if isinstance(a, DecimalType):
            return lambda a: trunc_int(a)

    @overload(float)
    def ov_float(a):
        if isinstance(a, DecimalType):
            return lambda a: to_float(a)

    # -- Dates and times ----------------------------------------------------------------

    def unit_of(ty, what):
        if not isinstance(ty, (types.NPDatetime, types.NPTimedelta)):
            return None
        if ty.unit not in STORAGE:
            raise refuse(f"{what}: a {ty} is not counted in a unit udfkit's dates take (days, hours, "
                                     f"minutes, s, ms, us or ns)")
        return UNITS[ty.unit]

    def literal_unit(ty, what):
        if not isinstance(ty, types.StringLiteral):
            raise refuse(f"{what} takes its unit as a constant string ('D', 'month', ...)")
        code = UNIT_NAMES.get(ty.literal_value, ty.literal_value)
        if code not in UNITS:
            raise refuse(f"{what}: unknown unit {ty.literal_value!r} (Y, Q, M, W, D, h, m, s, ms, us, ns "
                                     f"or year .. nanosecond)")
        return code

    def datetime_only(t, what):
        if isinstance(t, types.NPTimedelta):
            raise refuse(f"{what} takes a datetime64, not a {t}")
        return isinstance(t, types.NPDatetime)

    def field(index, name):
        def op(typingctx, t):
            if not datetime_only(t, f"udfkit.{name}"):
                return None
            unit = unit_of(t, f"udfkit.{name}")

            def codegen(context, builder, sig, args):
                return call(builder, "udfkit_py_dt_field", i64, [args[0], ir.Constant(i32, unit),
                                                                 ir.Constant(i32, index)])

            return types.int64(t), codegen

        op.__doc__ = f"udfkit.{name}(t): the {name.replace('_', ' ')} of a datetime64 (Arrow's {name})"
        return named(name, op)

    for index, name in enumerate(FIELDS):
        api[name] = field(index, name)

    def truncation(shim, name):
        def op(typingctx, t, unit):
            if not datetime_only(t, f"udfkit.{name}"):
                return None
            tu, to = unit_of(t, f"udfkit.{name}"), UNITS[literal_unit(unit, f"udfkit.{name}")]

            def codegen(context, builder, sig, args):
                return call(builder, shim, i64, [args[0], ir.Constant(i32, tu), ir.Constant(i32, to)])

            return t(t, unit), codegen

        op.__name__ = op.__qualname__ = name
        return literal_intrinsic(op)

    api["floor_to"] = truncation("udfkit_py_dt_floor", "floor_to")
    api["ceil_to"] = truncation("udfkit_py_dt_ceil", "ceil_to")

    @intrinsic
    def add_months(typingctx, t, months):
        """add_months(t, n): n months later, the day clamped to the month's last."""
        if not (datetime_only(t, "udfkit.add_months") and isinstance(months, types.Integer)):
            return None
        tu = unit_of(t, "udfkit.add_months")

        def codegen(context, builder, sig, args):
            n = context.cast(builder, args[1], sig.args[1], types.int64)
            return call(builder, "udfkit_py_dt_add_months", i64, [args[0], ir.Constant(i32, tu), n])

        return t(t, months), codegen

    api["add_months"] = add_months
    ns.update(locals())
    del ns["ns"]


def _make_api_5(ns):
    """Part 5 of make_api(): its names come from and go to ns."""
    (DEC, api, call, cgutils, datetime_only, i32, i64, intrinsic,) = (ns[k] for k in ('DEC', 'api', 'call', 'cgutils', 'datetime_only', 'i32', 'i64', 'intrinsic'))
    (ir, literal_intrinsic, literal_unit, name, named, refuse, types, unit_of,) = (ns[k] for k in ('ir', 'literal_intrinsic', 'literal_unit', 'name', 'named', 'refuse', 'types', 'unit_of'))

    def between_type(a, b, unit, what):
        if not (datetime_only(a, what) and datetime_only(b, what)):
            return None
        return unit_of(a, what), unit_of(b, what), UNITS[unit]

    def between_codegen(au, bu, to):
        def codegen(context, builder, sig, args):
            return call(builder, "udfkit_py_dt_between", i64, [args[0], ir.Constant(i32, au), args[1],
                                                                ir.Constant(i32, bu), ir.Constant(i32, to)])

        return codegen

    @literal_intrinsic
    def between(typingctx, a, b, unit):
        """between(a, b, unit): the starts of `unit` after a up to b (negative where b is earlier)."""
        units = between_type(a, b, literal_unit(unit, "udfkit.between"), "udfkit.between")
        return None if units is None else (types.int64(a, b, unit), between_codegen(*units))

    api["between"] = between

    def between_in(code, name):
        def op(typingctx, a, b):
            units = between_type(a, b, code, f"udfkit.{name}")
            return None if units is None else (types.int64(a, b), between_codegen(*units))

        return named(name, op)

    for plural, code in zip(BETWEEN, ("Y", "Q", "M", "W", "D", "h", "m", "s", "ms", "us", "ns")):
        api[f"{plural}_between"] = between_in(code, f"{plural}_between")

    @literal_intrinsic
    def to_unit(typingctx, t, unit):
        """to_unit(t, unit): a datetime64 or timedelta64 in another unit (numpy's astype:
        exact toward a finer unit, floored toward a coarser one)."""
        if not isinstance(t, (types.NPDatetime, types.NPTimedelta)):
            return None
        code = literal_unit(unit, "udfkit.to_unit")
        if code not in STORAGE:
            raise refuse(f"udfkit.to_unit: a value is counted in D, h, m, s, ms, us or ns, not {code}")
        frm = unit_of(t, "udfkit.to_unit")
        result = type(t)(code)

        def codegen(context, builder, sig, args):
            return call(builder, "udfkit_py_dt_convert", i64, [args[0], ir.Constant(i32, frm),
                                                                ir.Constant(i32, UNITS[code])])

        return result(t, unit), codegen

    api["to_unit"] = to_unit

    # -- The C ABI: spec types in, results out ---------------------------------------

    def abi_in(spec):
        """An intrinsic making the UDF's value of a parameter from its C ABI parts."""
        if spec.decimal:
            def make(context, builder, lo, hi):
                value = cgutils.get_null_value(context.get_value_type(DEC))
                value = builder.insert_value(value, lo, 0)
                value = builder.insert_value(value, hi, 1)
                return builder.insert_value(value, ir.Constant(i32, spec.scale), 2)

            if spec.kind == "decimal128":
                @intrinsic
                def wide(typingctx, lo, hi):
                    def codegen(context, builder, sig, args):
                        return make(context, builder, args[0], args[1])

                    return DEC(lo, hi), codegen

                return wide

            @intrinsic
            def narrow(typingctx, v):
                def codegen(context, builder, sig, args):
                    x = context.cast(builder, args[0], sig.args[0], types.int64)
                    return make(context, builder, x, builder.ashr(x, ir.Constant(i64, 63)))

                return DEC(v), codegen

            return narrow
        target = (types.NPTimedelta if spec.kind == "duration" else types.NPDatetime)(spec.unit)

        @intrinsic
        def op(typingctx, v):
            def codegen(context, builder, sig, args):
                return context.cast(builder, args[0], sig.args[0], types.int64)

            return target(v), codegen

        return op

    def present(ty):
        """A nullable result's type where it is not None (the wrapper has returned before)."""
        return ty.type if isinstance(ty, types.Optional) else ty
    ns.update(locals())
    del ns["ns"]


def _make_api_6(ns):
    """Part 6 of make_api(): its names come from and go to ns."""
    (DEC, DecimalType, abi_in, api, as_dec, call, cgutils, decimal_like,) = (ns[k] for k in ('DEC', 'DecimalType', 'abi_in', 'api', 'as_dec', 'call', 'cgutils', 'decimal_like'))
    (i32, i64, i8p, intrinsic, ir, pointer, present, refuse,) = (ns[k] for k in ('i32', 'i64', 'i8p', 'intrinsic', 'ir', 'pointer', 'present', 'refuse'))
    (types, unit_of,) = (ns[k] for k in ('types', 'unit_of'))

    def abi_out(spec, what):
        """An intrinsic making a result's C ABI value from the UDF's, checked; a decimal128's
        is stored through the leading out pointer (its first argument)."""
        if spec.decimal:
            def check(value):
                if not decimal_like(value):
                    raise refuse(f"{what} returns {value}, where its spec declares {spec.name.rstrip('?')}"
                                             f": return a udfkit.Decimal or an int")

            def store(context, builder, out, ty, value):
                d = as_dec(context, builder, ty, value)
                call(builder, "udfkit_py_dec_store", ir.VoidType(),
                     [out, pointer(builder, d), ir.Constant(i32, spec.precision), ir.Constant(i32, spec.scale)])

            if spec.kind == "decimal128":
                @intrinsic
                def wide(typingctx, out, value):
                    value = present(value)
                    check(value)

                    def codegen(context, builder, sig, args):
                        store(context, builder, builder.bitcast(args[0], i8p), sig.args[1], args[1])
                        return context.get_dummy_value()

                    return types.none(out, value), codegen

                return wide

            @intrinsic
            def narrow(typingctx, value):
                value = present(value)
                check(value)

                def codegen(context, builder, sig, args):
                    out = builder.bitcast(cgutils.alloca_once(builder, ir.ArrayType(i64, 2)), i8p)
                    store(context, builder, out, sig.args[0], args[0])
                    lo = builder.load(builder.bitcast(out, i64.as_pointer()))
                    return builder.trunc(lo, i32) if spec.kind == "decimal32" else lo

                return (types.int32 if spec.kind == "decimal32" else types.int64)(value), codegen

            return narrow
        want = types.NPTimedelta if spec.kind == "duration" else types.NPDatetime

        @intrinsic
        def op(typingctx, value):
            value = present(value)
            if not isinstance(value, want):
                raise refuse(f"{what} returns {value}, where its spec declares {spec.name.rstrip('?')}"
                                         f" (numpy.{'timedelta64' if want is types.NPTimedelta else 'datetime64'})")
            frm = unit_of(value, what)

            def codegen(context, builder, sig, args):
                if spec.kind == "date32":
                    return call(builder, "udfkit_py_dt_to_date32", i32, [args[0], ir.Constant(i32, frm)])
                if value.unit == spec.unit:
                    return args[0]
                return call(builder, "udfkit_py_dt_convert", i64, [args[0], ir.Constant(i32, frm),
                                                                    ir.Constant(i32, UNITS[spec.unit])])

            return (types.int32 if spec.kind == "date32" else types.int64)(value), codegen

        return op

    def abi_types(spec):
        if spec.kind == "decimal128":
            return [types.uint64, types.int64]
        return [types.int32 if spec.kind in ("date32", "decimal32") else types.int64]

    def user_type(spec):
        if spec.decimal:
            return DEC
        return (types.NPTimedelta if spec.kind == "duration" else types.NPDatetime)(spec.unit)

    def inferred_name(ty):
        """The spec type of a value a UDF returns where its spec leaves the type out."""
        if isinstance(ty, types.NPDatetime) and ty.unit in ("D", "s", "ms", "us", "ns"):
            return "date32" if ty.unit == "D" else f"timestamp[{ty.unit}]"
        if isinstance(ty, types.NPTimedelta) and ty.unit in ("s", "ms", "us", "ns"):
            return f"duration[{ty.unit}]"
        return None

    api.update(_DecimalType=DecimalType, _DEC=DEC, _abi_in=abi_in, _abi_out=abi_out, _abi_types=abi_types,
               _user_type=user_type, _inferred_name=inferred_name)
    return api


def make_api():
    ns = {}
    _make_api_1(ns)
    _make_api_2(ns)
    _make_api_3(ns)
    _make_api_4(ns)
    _make_api_5(ns)
    return _make_api_6(ns)


def wrapper(fn, pyfunc, path, line, frontend, numba_type, udfkit_type):
    """The C-ABI function that calls the UDF `pyfunc` for a spec with a type of this module
    (nullable ones included): each parameter made from its ABI parts, the result checked and
    stored. Returns it, its signature and the return type's name."""
    from numba.cuda.extending import types

    name = fn["source_name"]
    specs = [(t, spec_type(t.rstrip("?"))) for t in fn["params"]]
    for k, (t, s) in enumerate(specs):
        if t.endswith("*") and spec_type(t.rstrip("*?")):
            raise UdfError(f"'{name}': parameter {k + 1} is {t}: Python UDFs take dates, times and decimals by value "
                           f"(return the result instead)", path, line)
    device = frontend.device_function(pyfunc)
    user_args = []
    for t, s in specs:
        base = API["_user_type"](s) if s else numba_type(t.rstrip("?"))
        user_args.append(types.optional(base) if t.endswith("?") else base)
    ret = fn["ret"]
    returned = None
    if ret is None:
        returned = device.compile_device(tuple(user_args)).signature.return_type
        inner = returned.type if isinstance(returned, types.Optional) else returned
        if isinstance(inner, API["_DecimalType"]):
            raise UdfError(f"'{name}' returns a udfkit.Decimal: declare the result's type in its spec (e.g. "
                           f"{fn['c_name']}:decimal128(38,4)(...)), whose precision and scale the result is rounded "
                           f"and checked to", path, line)
        base = API["_inferred_name"](inner) or udfkit_type(inner)
        if base is None and isinstance(inner, (types.NPDatetime, types.NPTimedelta)):
            raise UdfError(f"'{name}' returns {inner}, which no spec type holds as it is: declare the result's type "
                           f"in its spec (date32, date64, timestamp[s|ms|us|ns] or duration[s|ms|us|ns]); it is "
                           f"converted as numpy's astype does", path, line)
        if base is None:
            raise UdfError(f"'{name}' returns {returned}, which cannot cross the C ABI", path, line)
        ret = base + "?" if inner is not returned else base
    rspec = spec_type(ret.rstrip("?"))
    what = f"'{name}'"
    scope = {"udf": device}
    abi_params, abi_sig, call = [], [], []
    nullable_ret = ret.endswith("?")
    if rspec and rspec.kind == "decimal128":
        abi_params.append("out")
        abi_sig.append(types.CPointer(types.uint64))
    elif nullable_ret:
        abi_params.append("out")
        abi_sig.append(types.CPointer(types.uint8 if ret == "bool?" else
                                      API["_abi_types"](rspec)[0] if rspec else numba_type(ret[:-1])))
    for k, (t, s) in enumerate(specs):
        if s:
            parts = [f"a{k}_lo", f"a{k}_hi"] if s.kind == "decimal128" else [f"a{k}"]
            abi_params += parts
            abi_sig += API["_abi_types"](s)
            scope[f"in{k}"] = API["_abi_in"](s)
            value = f"in{k}({', '.join(parts)})"
        else:
            abi_params.append(f"a{k}")
            abi_sig.append(numba_type(t.rstrip("?")))
            value = f"a{k}"
        if t.endswith("?"):
            abi_params.append(f"a{k}_valid")
            abi_sig.append(types.boolean)
            value = f"({value} if a{k}_valid else None)"
        call.append(value)
    invoke = f"udf({', '.join(call)})"
    if rspec:
        scope["out_of"] = API["_abi_out"](rspec, what)
    if rspec and rspec.kind == "decimal128":
        store = "out_of(out, r)"
    elif rspec:
        store = "out[0] = out_of(r)" if nullable_ret else "return out_of(r)"
    else:
        store = "out[0] = (1 if r else 0)" if ret == "bool?" else "out[0] = r" if nullable_ret else "return r"
    body = f"    r = {invoke}\n"
    if nullable_ret:
        body += f"    if r is None:\n        return False\n    {store}\n    return True\n"
        abi_ret = types.boolean
    elif rspec and rspec.kind == "decimal128":
        body += f"    {store}\n"
        abi_ret = types.none
    else:
        body += f"    {store}\n" if ret != "void" else ""
        abi_ret = numba_type(ret) if not rspec else (types.int32 if rspec.kind in ("date32", "decimal32")
                                                     else types.int64)
    exec(f"def udfkit_values_{fn['c_name']}({', '.join(abi_params)}):\n{body}", scope)
    return scope[f"udfkit_values_{fn['c_name']}"], abi_ret(*abi_sig), ret


def own_message(text):
    """The message of this module's typing error in numba's report `text`, or None."""
    at = str(text).find(MARK)
    return str(text)[at + len(MARK):].splitlines()[0].strip() if at >= 0 else None


def shim_code(request):
    """The shims compiled by NVRTC for the request's architecture and output, or None where
    nothing lowered called one. The request carries udfkit's device headers."""
    if not USED:
        return None
    try:
        from cuda.core import Program, ProgramOptions
    except ImportError:
        from cuda.core.experimental import Program, ProgramOptions
    major, minor = request["cc"]
    ltoir = request["output"] == "ltoir"
    with tempfile.TemporaryDirectory(prefix="udfkit-values-") as root:
        for name, text in request.get("headers", {}).items():
            path = os.path.join(root, *name.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        options = ProgramOptions(arch=f"sm_{major}{minor}", relocatable_device_code=True,
                                 link_time_optimization=ltoir, device_int128=True, include_path=[root], std="c++17",
                                 name="udfkit_dates_decimals.cu")
        code = Program(SHIMS, "c++", options).compile("ltoir" if ltoir else "ptx")
    data = code.code
    return (data.encode() if isinstance(data, str) else bytes(data)), ("ltoir" if ltoir else "ptx")
