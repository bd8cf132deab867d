# Two modules named udfs.py with a helper of the same name: their code must not merge at LTO.
def helper(x):
    return x + 1


def from_one(x):
    return helper(x)
