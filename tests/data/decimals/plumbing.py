"""Python UDFs over decimals, dates and times for the kernel templates (library dk,
tests/gpu/test_decimals.c checks each against the host's exact integer arithmetic)."""
from udfkit import Decimal


def py_net(price, discount):
    return price * (1 - discount)


def py_add(a, b):
    return a + b


def py_later(t, d):
    return t + d


def py_before(a, b):
    return a < b


def py_maybe_neg(a):
    if a is None or a == 0:
        return None
    return -a


def py_big(a):
    if a is None:
        return None
    return a > Decimal("100.00")


def py_max_day(a, b):
    return a if a > b else b
