"""Python UDFs for udfkit's tests: math, branches, loops, int/float/bool mixes, float16,
pointers, int64, float64, calls to other module-level functions and to external code."""
import math
import os

from numba import cuda

from shapes import area  # a local module: the depfile lists it

# External code these UDFs need: compiled by udfkit and linked unasked.
__udfkit_link__ = ["ext/ext_scale.cu"]

ext_scale = cuda.declare_device("ext_scale", "float32(float32)", abi="c")
HERE = os.path.dirname(os.path.abspath(__file__))
ext_offset = cuda.declare_device("ext_offset", "float64(float64)", abi="c",
                                 link=[os.path.join(HERE, "ext", "ext_offset.cu")])
c_half_gate = cuda.declare_device("c_half_gate", "float16(float16, boolean)", abi="c")


def add(x, y):
    return x + y


def fma3(a, b, c):
    return a * b + c


def hypot2(x, y):
    return math.sqrt(x * x + y * y)


def softplus(x):
    return math.log(1.0 + math.exp(x)) if x < 20.0 else x


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def wave(x):
    return math.sin(x) * math.cos(0.5 * x)


def clamp_i(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def sign64(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    return 0


def collatz_steps(n):
    steps = 0
    while n > 1 and steps < 1000:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def poly(x):
    acc = 0.0
    for k in range(6):
        acc = acc * x + (k + 1)
    return acc


def mix64(a, b):
    return a * 1000003 + b


def umix(a, b):
    return (a ^ (b << 3)) & 0xFFFFFFFF


def is_positive(x):
    return x > 0.0


def select(flag, a, b):
    return a if flag else b


def count_true(a, b, c):
    return int(a) + int(b) + int(c)


def half_lerp(a, b, t):
    return a + (b - a) * t


def half_twice(h):
    return h + h


def scaled_area(w, h):
    return area(w, h) * 0.5


def accumulate(p, v):
    p[0] += v
    return p[0]


def store_square(p, v):
    p[0] = v * v


def uses_ext(x):
    return ext_scale(x) + 1.0


def uses_declared_link(x):
    return ext_offset(x) * 2.0


def half_gate_twice(h, flag):
    return c_half_gate(h, flag) + c_half_gate(h, not flag)


def i8_wrap(x):
    return x + 100


def u16_div(a, b):
    return a // b if b != 0 else 0


# Python's float % and // (the sign of the divisor; a zero divisor gives NaN or inf in the
# numpy error model numba-cuda compiles with). numba's helper behind both once shared one
# name across float32 and float64 under the C ABI: the float32 kernels faulted.
def floor_mod(a, b):
    return a % b


def floor_div(a, b):
    return a // b
