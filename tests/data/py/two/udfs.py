# Two modules named udfs.py with a helper of the same name: their code must not merge at LTO.
def helper(x):
    return x * 10


def from_two(x):
    return helper(x)
