#!/usr/bin/env python3
"""Compares the fidelity test's results (tests/fidelity/README.md): per function, udfkit on
the GPU against numba-cuda on the GPU (bit for bit; NaNs equal whatever their payload),
and numba-cuda on the GPU against numba's CPU target (bit for bit, else the largest
difference in units in the last place). Prints a line per function that is not equal
everywhere, then the summary; exit 1 where udfkit differs from numba-cuda anywhere, or a
function did not run. Known GPU-versus-CPU differences (KNOWN) are reported as such.

usage: compare.py CASES_DIR RESULTS_DIR"""
import os
import sys

import numpy as np

CASES, RESULTS = sys.argv[1], sys.argv[2]
NP = {"bool": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
      "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float16": np.float16, "float32": np.float32,
      "float64": np.float64}
BITS = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}

# Where numba-cuda on the GPU and numba's CPU target differ, and why (udfkit computes what
# numba-cuda computes: these are not udfkit's). Keyed by name prefix.
KNOWN = {
    "math_floor_": "numba-cuda keeps math.floor/ceil/trunc of a float a float (IEEE: -0.0 on (-1, 0), inf and NaN "
                   "kept); numba's CPU target goes through int64 and back (+0.0; INT64_MIN for inf, NaN)",
    "math_ceil_": "as math_floor_",
    "math_trunc_": "as math_floor_",
    "math_": "CUDA's libdevice versus the host's libm, each within its own ulp bound (CUDA C Programming Guide, "
             "Mathematical Functions: e.g. lgamma is not bounded near its poles)",
    "op_pow_": "x ** y: libdevice pow versus libm pow",
    "op_lshift_": "shift counts outside [0, bits) (the inputs include the type's minimum and maximum): undefined in "
                  "LLVM; PTX's shl gives 0, x86 masks the count",
    "op_rshift_": "as op_lshift_",
    "op_neg_int": "numba-cuda negates int8/int16 after widening to int64 (-(-32768) is 32768, as in Python); "
                  "numba's CPU target negates in the narrow type (-32768)",
    "op_round_float": "round() of inf, NaN or beyond int64: PTX's conversion saturates (INT64_MAX), x86's gives "
                      "INT64_MIN",
    "op_round2_": "round(x, n) scales by 10**n: -0.0 versus +0.0, and inf where the scaling overflows",
    "num_floor_int64": "math.floor of an int64 is a float64 on the GPU; the CPU target converts 2**63 back to "
                       "int64 (overflow)",
    "num_": "libdevice exp/log/sin/pow inside, and FMA contraction (CUDA's default) of a*b+c",
    "bs_cnd": "libdevice exp and FMA contraction",
    "cast_": "FMA contraction or libdevice in the expression",
    "flow_piecewise": "libdevice sqrt/log",
}


def known(name):
    return next((why for prefix, why in KNOWN.items() if name.startswith(prefix)), None)


def equal(a, b, dtype):
    if dtype in BITS:
        bits = BITS[dtype]
        return (a.view(bits) == b.view(bits)) | (np.isnan(a) & np.isnan(b))
    return a == b


def ulps(a, b, dtype):
    if dtype not in BITS:
        return None
    bits = {np.float16: np.int16, np.float32: np.int32, np.float64: np.int64}[dtype]

    def ordered(x):
        i = x.view(bits).astype(np.int64)
        return np.where(i < 0, np.iinfo(bits).min - i, i)

    finite = np.isfinite(a) & np.isfinite(b)
    d = np.abs(ordered(a) - ordered(b))
    return int(d[finite].max()) if finite.any() else 0


def main():
    status = dict(line.split() for line in open(os.path.join(RESULTS, "status.txt")))
    total = same_numba = same_cpu = within = 0
    failures = []
    rows = []
    for line in open(os.path.join(CASES, "cases.txt")):
        name, _, _, _, ret, *params = line.split()
        total += 1
        if status.get(name) != "0":
            failures.append(f"{name}: did not run (status {status.get(name)})")
            continue
        dtype = NP[ret]
        u = np.fromfile(os.path.join(RESULTS, f"{name}.udfkit.bin"), dtype=dtype)
        g = np.fromfile(os.path.join(RESULTS, f"{name}.numba.bin"), dtype=dtype)
        c = np.fromfile(os.path.join(CASES, f"{name}.cpu.bin"), dtype=NP[ret] if ret != "bool" else np.bool_)
        c = c.astype(dtype)
        eq_numba = equal(u, g, dtype)
        if eq_numba.all():
            same_numba += 1
        else:
            bad = np.flatnonzero(~eq_numba)
            failures.append(f"{name}: udfkit differs from numba-cuda in {bad.size} of {u.size} rows "
                            f"(row {bad[0]}: {u[bad[0]]!r} vs {g[bad[0]]!r})")
        eq_cpu = equal(g, c, dtype)
        if eq_cpu.all():
            same_cpu += 1
            continue
        diff = int((~eq_cpu).sum())
        worst = ulps(g, c, dtype)
        nonfinite = int((~eq_cpu & ~(np.isfinite(g.astype(np.float64)) & np.isfinite(c.astype(np.float64)))).sum()) \
            if dtype in BITS else 0
        why = known(name)
        if why:
            within += 1
        rows.append(f"  {name:<28} {diff:>5} of {u.size} rows differ from the CPU"
                    f"{f', worst {worst} ulp' if worst is not None else ''}"
                    f"{f', {nonfinite} not finite on one side' if nonfinite else ''}: {why or 'UNEXPLAINED'}")
    print(f"{total} functions; udfkit equals numba-cuda on the GPU bit for bit in {same_numba}; "
          f"numba-cuda on the GPU equals the CPU bit for bit in {same_cpu}; {within} differ from the CPU for a "
          f"documented reason; {total - same_cpu - within} differ from the CPU without one")
    print("GPU (numba-cuda and udfkit alike) versus CPU:")
    print("\n".join(rows))
    if failures:
        print("udfkit versus numba-cuda:")
        print("\n".join(f"  {f}" for f in failures))
    return 1 if failures else 0


sys.exit(main())
