# Python UDFs for the nullable kernel templates and UDF errors (tests/gpu/test_nullable_kernels.c).
from udfkit import RowError, row_error


def py_small(x):
    """bool?(int32?): unknown for a null x."""
    if x is None:
        return None
    return x < 10


def py_max(a, b):
    return a if a > b else b


def py_checked(a, b):
    """The row fails with code a where b is 0."""
    if b == 0:
        row_error(a)
        return 0
    return a // b


def py_raise(x):
    """A raise fails the row: RowError's code."""
    if x < 0:
        raise RowError(5)
    return x * 3


def py_split(x, half, square):
    """Two outputs through pointers: void(int32, int32*, int64*)."""
    half[0] = x // 2
    square[0] = x * x
