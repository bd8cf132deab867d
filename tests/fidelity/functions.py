"""Scalar functions of the kinds numba-cuda's own tests exercise (math module, operators on
every numeric type, casts, control flow, intrinsics, Black-Scholes' cnd, powi), for the
fidelity test (tests/fidelity/README.md). Each is compiled by udfkit as a Python UDF with
the signature CASES gives it, and by numba-cuda itself into a kernel, and run on a GPU; the
results are compared row by row with each other and with numba's CPU target.

CASES: (name, function, parameter types); the return type is left to inference, as a
downstream project may. Helpers a UDF calls are plain module-level functions."""
import math

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]

CASES = []


def case(name, params):
    def register(fn):
        CASES.append((name, fn, params))
        return fn
    return register


# ---- math, one argument, float32 and float64 ----
MATH1 = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
         "expm1", "log", "log1p", "log10", "log2", "sqrt", "fabs", "erf", "erfc", "gamma", "lgamma", "degrees",
         "radians"]
for _name in MATH1:
    _fn = getattr(math, _name)
    for _t in FLOATS:
        exec(f"def math_{_name}_{_t}(x):\n    return math.{_name}(x)\n")
        case(f"math_{_name}_{_t}", [_t])(globals()[f"math_{_name}_{_t}"])

# floor, ceil, trunc return integers in Python; numba types them int64.
for _name in ["floor", "ceil", "trunc"]:
    for _t in FLOATS:
        exec(f"def math_{_name}_{_t}(x):\n    return math.{_name}(x)\n")
        case(f"math_{_name}_{_t}", [_t])(globals()[f"math_{_name}_{_t}"])

# ---- math, two arguments ----
for _name in ["atan2", "pow", "fmod", "hypot", "copysign"]:
    for _t in FLOATS:
        exec(f"def math_{_name}_{_t}(x, y):\n    return math.{_name}(x, y)\n")
        case(f"math_{_name}_{_t}", [_t, _t])(globals()[f"math_{_name}_{_t}"])

# ---- predicates ----
for _name in ["isnan", "isinf", "isfinite"]:
    for _t in FLOATS:
        exec(f"def math_{_name}_{_t}(x):\n    return math.{_name}(x)\n")
        case(f"math_{_name}_{_t}", [_t])(globals()[f"math_{_name}_{_t}"])

# ---- operators on every integer type ----
BINOPS = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%", "and": "&", "or": "|", "xor": "^",
          "lshift": "<<", "rshift": ">>"}
for _t in INTS:
    for _name, _op in BINOPS.items():
        exec(f"def op_{_name}_{_t}(x, y):\n    return x {_op} y\n")
        case(f"op_{_name}_{_t}", [_t, _t])(globals()[f"op_{_name}_{_t}"])
    exec(f"def op_neg_{_t}(x):\n    return -x\n")
    case(f"op_neg_{_t}", [_t])(globals()[f"op_neg_{_t}"])
    exec(f"def op_invert_{_t}(x):\n    return ~x\n")
    case(f"op_invert_{_t}", [_t])(globals()[f"op_invert_{_t}"])
    exec(f"def op_lt_{_t}(x, y):\n    return x < y\n")
    case(f"op_lt_{_t}", [_t, _t])(globals()[f"op_lt_{_t}"])

# ---- operators on floats ----
FBINOPS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**"}
for _t in FLOATS:
    for _name, _op in FBINOPS.items():
        exec(f"def op_{_name}_{_t}(x, y):\n    return x {_op} y\n")
        case(f"op_{_name}_{_t}", [_t, _t])(globals()[f"op_{_name}_{_t}"])
    exec(f"def op_neg_{_t}(x):\n    return -x\n")
    case(f"op_neg_{_t}", [_t])(globals()[f"op_neg_{_t}"])
    exec(f"def op_abs_{_t}(x):\n    return abs(x)\n")
    case(f"op_abs_{_t}", [_t])(globals()[f"op_abs_{_t}"])
    exec(f"def op_round_{_t}(x):\n    return round(x)\n")
    case(f"op_round_{_t}", [_t])(globals()[f"op_round_{_t}"])
    exec(f"def op_round2_{_t}(x):\n    return round(x, 2)\n")
    case(f"op_round2_{_t}", [_t])(globals()[f"op_round2_{_t}"])
    exec(f"def op_eq_{_t}(x, y):\n    return x == y\n")
    case(f"op_eq_{_t}", [_t, _t])(globals()[f"op_eq_{_t}"])
    exec(f"def op_min_{_t}(x, y):\n    return min(x, y)\n")
    case(f"op_min_{_t}", [_t, _t])(globals()[f"op_min_{_t}"])
    exec(f"def op_max_{_t}(x, y):\n    return max(x, y)\n")
    case(f"op_max_{_t}", [_t, _t])(globals()[f"op_max_{_t}"])

# ---- float16 ----
for _name, _op in {"add": "+", "sub": "-", "mul": "*", "truediv": "/"}.items():
    exec(f"def op_{_name}_float16(x, y):\n    return x {_op} y\n")
    case(f"op_{_name}_float16", ["float16", "float16"])(globals()[f"op_{_name}_float16"])


@case("op_neg_float16", ["float16"])
def op_neg_float16(x):
    return -x


# ---- casts ----
@case("cast_i32_to_f32", ["int32"])
def cast_i32_to_f32(x):
    return float(x) * 0.5


@case("cast_i64_to_f64", ["int64"])
def cast_i64_to_f64(x):
    return float(x)


@case("cast_f64_to_i32", ["float64"])
def cast_f64_to_i32(x):
    return int(x) if -1e9 < x < 1e9 else 0


@case("cast_f32_to_i64", ["float32"])
def cast_f32_to_i64(x):
    return int(x) if -1e18 < x < 1e18 else 0


@case("cast_u8_plus_f32", ["uint8", "float32"])
def cast_u8_plus_f32(x, y):
    return x + y


@case("cast_i16_times_f64", ["int16", "float64"])
def cast_i16_times_f64(x, y):
    return x * y


@case("cast_bool_to_int", ["bool"])
def cast_bool_to_int(x):
    return int(x) + 1


@case("cast_int_to_bool", ["int32"])
def cast_int_to_bool(x):
    return bool(x % 3)


@case("mixed_i32_u32", ["int32", "uint32"])
def mixed_i32_u32(x, y):
    return x + y


@case("mixed_i64_f32", ["int64", "float32"])
def mixed_i64_f32(x, y):
    return x / (y if y != 0 else 1.0)


# ---- control flow ----
@case("flow_sum_to", ["int32"])
def flow_sum_to(n):
    total = 0
    for i in range(n % 1000):
        total += i * i
    return total


@case("flow_collatz", ["int64"])
def flow_collatz(n):
    n = abs(n) % 100000 + 1
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@case("flow_piecewise", ["float64"])
def flow_piecewise(x):
    if x < -1.0:
        return -x * x
    elif x < 0.0:
        return x
    elif x < 2.0:
        return math.sqrt(x)
    return math.log(x)


@case("flow_break", ["int32"])
def flow_break(n):
    k = 0
    for i in range(64):
        if (n >> (i % 31)) & 1:
            k += i
        if k > 300:
            break
    return k


@case("flow_ternary", ["float32", "float32"])
def flow_ternary(x, y):
    return x if x > y else y - x


def fib_iter(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@case("flow_fib", ["int32"])
def flow_fib(n):
    return fib_iter(abs(n) % 60)


@case("flow_gcd", ["int64", "int64"])
def flow_gcd(a, b):
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a


# ---- numerical kernels ----
RSQRT2 = 0.70710678118654752440


@case("bs_cnd_float64", ["float64"])
def bs_cnd_float64(d):
    a1 = 0.31938153
    a2 = -0.356563782
    a3 = 1.781477937
    a4 = -1.821255978
    a5 = 1.330274429
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    ret_val = RSQRT2 * 0.5641895835477563 * math.exp(-0.5 * d * d) * (
        k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))))
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val


@case("bs_cnd_float32", ["float32"])
def bs_cnd_float32(d):
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    ret_val = 0.3989422804014327 * math.exp(-0.5 * d * d) * (
        k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
    return 1.0 - ret_val if d > 0 else ret_val


def powi(x, n):
    r = 1.0
    for _ in range(n):
        r *= x
    return r


@case("num_powi", ["float64", "int32"])
def num_powi(x, n):
    return powi(x, abs(n) % 12)


@case("num_pow_f32_i32", ["float32", "int32"])
def num_pow_f32_i32(x, n):
    return math.pow(x, n % 8)


@case("num_sinc", ["float64"])
def num_sinc(x):
    y = math.pi * x * 3.0
    return 1.0 if y == 0.0 else math.sin(y) / y


@case("num_horner", ["float32"])
def num_horner(x):
    return ((0.5 * x - 1.25) * x + 3.0) * x - 0.75


@case("num_logistic", ["float64"])
def num_logistic(x):
    return 1.0 / (1.0 + math.exp(-x))


@case("num_softplus", ["float32"])
def num_softplus(x):
    return math.log1p(math.exp(x)) if x < 20.0 else x


@case("num_floor_int64", ["int64"])
def num_floor_int64(x):
    return math.floor(x)


@case("num_hypot3", ["float64", "float64", "float64"])
def num_hypot3(x, y, z):
    return math.sqrt(x * x + y * y + z * z)


@case("num_lerp", ["float32", "float32", "float32"])
def num_lerp(a, b, t):
    return a + (b - a) * t
