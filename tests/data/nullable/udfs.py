# Nullable Python UDFs: None in, None out (tests/gpu/test_nullable.c).
def py_coalesce(a, b):
    if a is None:
        return b
    return a


def py_safe_div(a, b):
    if b == 0.0:
        return None
    return a / b


def py_both(a, b):
    if a is None or b is None:
        return None
    return a * 10 + b
