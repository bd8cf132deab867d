"""Python operators for the grouped and ordered kernel templates
(tests/gpu/test_grouped_kernels.c)."""


def py_affine(f, g):
    """Affine maps x -> a*x + b mod 2^16, packed as a << 16 | b: first f, then g.
    Associative, not commutative."""
    a1 = (f >> 16) & 0xFFFF
    b1 = f & 0xFFFF
    a2 = (g >> 16) & 0xFFFF
    b2 = g & 0xFFFF
    return ((a1 * a2) & 0xFFFF) << 16 | ((a2 * b1 + b2) & 0xFFFF)


def py_pair(a, b):
    """An affine map from two columns: x -> a*x + b mod 2^16, for py_affine."""
    return ((a & 0xFFFF) << 16) | (b & 0xFFFF)


def py_last_digit_less(a, b):
    """sort's comparator: by the last decimal digit only (of values >= 0), so that most rows
    tie."""
    return a % 10 < b % 10
