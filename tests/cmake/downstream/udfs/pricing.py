from numba import cuda

from rates import clip_rate

__udfkit_link__ = ["../ext/shift.cu"]
ext_shift = cuda.declare_device("ext_shift", "float32(float32)", abi="c")


def discount(price, rate):
    return ext_shift(price * (1.0 - clip_rate(rate)))
