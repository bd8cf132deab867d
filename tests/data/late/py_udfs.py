# A user's Python package for the engine's slots, under other names than the slots'.
import math


def surcharge(price, rate):
    return price * (1.0 + rate)


def is_round(p):
    return math.floor(p) == p


def triple(x):
    return x * 3


def larger_first(a, b):
    return a > b


def maybe_double(p, rate):
    if p is None:
        return None
    return p * 2.0 + rate
