"""Builds the Python-UDF GPU test: every UDF of tests/data/py compiled in one udfkit call,
CUDA C kernels that apply each one over a few thousand inputs, one fatbin for all, and
the expected results computed here by numba's CPU target (njit, same signature).

Writes into OUT: py_udfs.fatbin, cases.txt (one line per UDF:
"name kernel ulps n ret param..."), and <name>.<k>.bin (inputs), <name>.out.bin (expected)
and <name>.scale.bin (the magnitude of the terms, for results the GPU rounds differently). The GPU test
program (test_python_udfs.c) needs nothing else, so it runs where numba cannot.

FRONTEND (default numba-cuda) is udfkit's --python-frontend. Under numba-cuda-mlir the same
cases run against the same CPU reference, less what it does not compile (a declare_device
with link=[...]), with udfs.py's calls into CUDA C declared by its own declare_device
(mlir/calls.py) and half_twice's float16 return declared (it types float16 arithmetic as
float32). Where the frontend does not import, OUT/skip.txt says why and the test skips.

usage: build_python_cases.py UDFKIT DATA_DIR OUT ARCHS [FRONTEND]
"""
import importlib.util
import os
import subprocess
import sys

import numpy as np
from numba import njit, types

UDFKIT, DATA, OUT, ARCHS = sys.argv[1:5]
FRONTEND = sys.argv[5] if len(sys.argv) > 5 else "numba-cuda"
N = 4099  # not a multiple of any block size

# c_name, source_name[@file], params, declared return (None: inferred), expected return,
# tolerance in units in the last place (0: exact), and where the GPU may round differently
# for a documented reason, the magnitude of the terms involved (per row, from the inputs):
# the GPU contracts a*b+c into one FMA (CUDA's default, also across LTO-inlined calls), so
# results may differ by a rounding of the largest product: |diff| <= 4 eps scale.
CASES = [
    ("py_add", "add", ["float32", "float32"], "float32", "float32", 0, None),
    ("py_fma3", "fma3", ["float64", "float64", "float64"], None, "float64", 1, lambda a, b, c: abs(a * b) + abs(c)),
    ("py_hypot2", "hypot2", ["float32", "float32"], "float32", "float32", 2, None),
    # log(1 + exp(x)) rounds 1 + exp(x): an absolute error of eps, whatever the result.
    ("py_softplus", "softplus", ["float64"], "float64", "float64", 2, lambda x: 1.0),
    ("py_sigmoid", "sigmoid", ["float32"], "float32", "float32", 4, None),
    # sin and cos are each within 2 ulp in CUDA (and libm within 1): a product within 5.
    ("py_wave", "wave", ["float64"], None, "float64", 5, None),
    ("py_clamp_i", "clamp_i", ["int32", "int32", "int32"], "int32", "int32", 0, None),
    ("py_sign64", "sign64", ["int64"], "int32", "int32", 0, None),
    ("py_collatz", "collatz_steps", ["int64"], None, "int64", 0, None),
    ("py_poly", "poly", ["float64"], "float64", "float64", 1, lambda x: sum(abs(x) ** k * 6 for k in range(6))),
    ("py_mix64", "mix64", ["int64", "int64"], "int64", "int64", 0, None),
    ("py_umix", "umix", ["uint32", "uint32"], "uint32", "uint32", 0, None),
    ("py_is_positive", "is_positive", ["float32"], "bool", "bool", 0, None),
    ("py_select", "select", ["bool", "float32", "float32"], "float32", "float32", 0, None),
    ("py_count_true", "count_true", ["bool", "bool", "bool"], "int32", "int32", 0, None),
    ("py_half_lerp", "half_lerp", ["float16", "float16", "float16"], "float16", "float16", 2,
     lambda a, b, t: abs(a) + abs((b - a) * t)),
    ("py_half_twice", "half_twice", ["float16"], None, "float16", 0, None),
    ("py_scaled_area", "scaled_area", ["float32", "float32"], "float32", "float32", 1, None),
    ("py_accumulate", "accumulate", ["float32*", "float32"], "float32", "float32", 0, None),
    ("py_store_square", "store_square", ["float64*", "float64"], "void", "void", 0, None),
    ("py_uses_ext", "uses_ext", ["float32"], "float32", "float32", 0, lambda x: abs(3 * x) + 1),
    ("py_uses_declared_link", "uses_declared_link", ["float64"], "float64", "float64", 0, None),
    ("py_half_gate_twice", "half_gate_twice", ["float16", "bool"], "float16", "float16", 0, None),
    ("py_i8_wrap", "i8_wrap", ["int8"], "int8", "int8", 0, None),
    ("py_u16_div", "u16_div", ["uint16", "uint16"], "uint16", "uint16", 0, None),
    ("py_mod_f32", "floor_mod", ["float32", "float32"], "float32", "float32", 0, None),
    ("py_mod_f64", "floor_mod", ["float64", "float64"], "float64", "float64", 0, None),
    ("py_floordiv_f32", "floor_div", ["float32", "float32"], "float32", "float32", 0, None),
    ("py_floordiv_f64", "floor_div", ["float64", "float64"], "float64", "float64", 0, None),
    ("from_one", "from_one@one/udfs.py", ["int32"], "int32", "int32", 0, None),
    ("from_two", "from_two@two/udfs.py", ["int32"], "int32", "int32", 0, None),
]

# numba-cuda-mlir's cases: by c_name, the case that replaces it (None: left out).
MLIR = {
    "py_uses_ext": ("py_uses_ext", "uses_ext@mlir/calls.py", ["float32"], "float32", "float32", 0,
                    lambda x: abs(3 * x) + 1),
    "py_uses_declared_link": None,
    # numba-cuda-mlir leaves float16 arguments of declared functions out (udfkit refuses it).
    "py_half_gate_twice": None,
    "py_half_twice": ("py_half_twice", "half_twice", ["float16"], "float16", "float16", 0, None),
}
if FRONTEND == "numba-cuda-mlir":
    CASES = [MLIR.get(c[0], c) for c in CASES if MLIR.get(c[0], c) is not None]
IMPORTS = {"numba-cuda": "numba.cuda", "numba-cuda-mlir": "numba_cuda_mlir.cuda"}

# What UDFs calling CUDA C compute, for the CPU reference (njit cannot call device code).
FOREIGN = {
    "uses_ext": lambda x: np.float32(3.0) * x + np.float32(1.0),
    "uses_declared_link": lambda x: (x + 0.25) * 2.0,
    "half_gate_twice": lambda h, flag: (h * np.float16(2.0) if flag else np.float16(0.0))
    + (h * np.float16(2.0) if not flag else np.float16(0.0)),
}

C_TYPES = {"bool": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
           "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
           "float16": "uint16_t", "float32": "float", "float64": "double"}
NP_TYPES = {"bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
            "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
            "float16": np.float16, "float32": np.float32, "float64": np.float64}
NB_TYPES = {"bool": types.boolean, "int8": types.int8, "int16": types.int16, "int32": types.int32,
            "int64": types.int64, "uint8": types.uint8, "uint16": types.uint16, "uint32": types.uint32,
            "uint64": types.uint64, "float32": types.float32, "float64": types.float64}


def run(*cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")


def source_of(name):
    fn, _, file = name.partition("@")
    return fn, os.path.join(DATA, file or "udfs.py")


def spec(case):
    c_name, source_name, params, ret = case[:4]
    return f"{c_name}={source_name}:{ret or ''}({', '.join(params)})"


def kernel(case):
    c_name, _, params, _, ret = case[:5]
    base = [p.rstrip("*") for p in params]
    out_type = C_TYPES[base[0]] if ret == "void" else C_TYPES[ret]
    args = ", ".join(f"{'' if p.endswith('*') else 'const '}{C_TYPES[b]} *a{i}" for i, (p, b) in enumerate(zip(params, base)))
    call = ", ".join(f"&a{i}[i]" if p.endswith("*") else f"a{i}[i]" for i, p in enumerate(params))
    body = f"{c_name}({call}); out[i] = a0[i];" if ret == "void" else f"out[i] = {c_name}({call});"
    return (f'extern "C" __global__ void k_{c_name}({args}, {out_type} *out, int n)\n'
            f"{{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) {{ {body} }}\n}}\n")


def inputs(rng, case):
    c_name, _, params = case[:3]
    arrays = []
    for k, p in enumerate(params):
        t = p.rstrip("*")
        if t == "bool":
            a = rng.random(N) < 0.5
        elif t == "float16":
            a = (rng.random(N) * 8 - 4).astype(np.float16)
        elif t.startswith("float"):
            a = (rng.standard_normal(N) * 6).astype(NP_TYPES[t])
            if k == 1 and c_name.startswith(("py_mod", "py_floordiv")):
                a[::64] = 0.0  # a zero divisor: NaN or inf, never a fault
                a[1::97] = -0.0
        elif c_name == "py_collatz":
            a = rng.integers(1, 100000, N).astype(np.int64)
        elif t == "int64":
            a = rng.integers(-(1 << 40), 1 << 40, N).astype(np.int64)  # beyond 32 bits, no overflow
        elif t == "uint16" and k == 1:
            a = rng.integers(0, 50, N).astype(np.uint16)  # zero included: the branch
        else:
            info = np.iinfo(NP_TYPES[t])
            lo, hi = (max(info.min, -1000), min(info.max, 1000)) if t != "int8" else (-128, 27)
            a = rng.integers(lo, hi, N, endpoint=True).astype(NP_TYPES[t])
        arrays.append(a)
    return arrays


def load_module(path):
    name = "ref_" + os.path.relpath(path, DATA).replace("/", "_").replace(".", "_")
    spec_ = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec_)
    sys.path.insert(0, os.path.dirname(path))
    spec_.loader.exec_module(module)
    sys.path.pop(0)
    # As udfkit's worker makes them device functions, plain helpers become njit functions.
    import types as pytypes

    for attr, value in list(vars(module).items()):
        if isinstance(value, pytypes.FunctionType) and value.__code__.co_filename.startswith(DATA):
            setattr(module, attr, njit(value))
    return module


def expected(case, arrays):
    c_name, source_name, params, _, ret = case[:5]
    fn_name, path = source_of(source_name)
    pyfunc = getattr(load_module(path), fn_name)
    pyfunc = getattr(pyfunc, "py_func", pyfunc)  # the UDF itself is compiled below, with its signature
    base = [p.rstrip("*") for p in params]
    if fn_name in FOREIGN or "float16" in base or ret == "float16":
        # njit has no float16 and cannot call CUDA C: numpy scalars follow the same rounding.
        f = FOREIGN.get(fn_name, pyfunc)
        result = [f(*(NP_TYPES[b](a[i]) for b, a in zip(base, arrays))) for i in range(N)]
        return np.array(result, dtype=NP_TYPES[ret])
    argtypes = [NB_TYPES[b][::1] if p.endswith("*") else NB_TYPES[b] for p, b in zip(params, base)]
    # numba-cuda compiles device code with the numpy error model (no exception on a zero
    # divisor): the reference does too.
    cfunc = njit((NB_TYPES[ret] if ret != "void" else types.void)(*argtypes), error_model="numpy")(pyfunc)
    out = np.zeros(N, dtype=NP_TYPES[base[0] if ret == "void" else ret])
    for i in range(N):
        args = [np.array([a[i]], dtype=NP_TYPES[b]) if p.endswith("*") else a[i] for p, b, a in zip(params, base, arrays)]
        r = cfunc(*args)
        out[i] = args[0][0] if ret == "void" else r
    return out


def frontend_missing():
    """Why the frontend does not import here (then the GPU test skips), or None."""
    proc = subprocess.run([sys.executable, "-c", f"import {IMPORTS[FRONTEND]}"], capture_output=True, text=True)
    lines = proc.stderr.strip().splitlines()
    return None if proc.returncode == 0 else (lines[-1] if lines else f"exit {proc.returncode}")


def main():
    os.makedirs(OUT, exist_ok=True)
    missing = frontend_missing()
    if missing:
        with open(f"{OUT}/skip.txt", "w") as f:
            f.write(f"{FRONTEND} does not import in {sys.executable}: {missing}\n")
        for name in ("py_udfs.fatbin", "cases.txt"):
            open(f"{OUT}/{name}", "wb").close()
        return
    if os.path.exists(f"{OUT}/skip.txt"):
        os.unlink(f"{OUT}/skip.txt")
    files = ("udfs.py", "one/udfs.py", "two/udfs.py") + (("mlir/calls.py",) if FRONTEND == "numba-cuda-mlir" else ())
    sources = [os.path.join(DATA, f) for f in files]
    specs = [spec(c) for c in CASES]
    run(UDFKIT, "compile", *sources, "--function", *specs, "--arch", ARCHS, "--python-frontend", FRONTEND, "-o",
        f"{OUT}/py_udfs.json", "--depfile", f"{OUT}/py_udfs.json.d")
    run(UDFKIT, "header", f"{OUT}/py_udfs.json", "-o", f"{OUT}/py_udfs.h")
    with open(f"{OUT}/py_kernels.cu", "w") as f:
        f.write('// Generated by build_python_cases.py: one kernel per Python UDF.\n#include "py_udfs.h"\n\n')
        f.writelines(kernel(c) for c in CASES)
    run(UDFKIT, "compile", f"{OUT}/py_kernels.cu", os.path.join(DATA, "c_side.cu"), "--function",
        "c_half_gate:float16(float16, bool)", "-I", OUT, "--arch", ARCHS, "-o", f"{OUT}/c_udfs.json")
    run(UDFKIT, "link", f"{OUT}/py_udfs.json", f"{OUT}/c_udfs.json", "--arch", ARCHS, "-o", f"{OUT}/py_udfs.fatbin")
    rng = np.random.default_rng(20261121)
    lines = []
    for case in CASES:
        c_name, _, params, _, ret, ulps, scale = case
        arrays = inputs(rng, case)
        for k, a in enumerate(arrays):
            a.tofile(f"{OUT}/{c_name}.{k}.bin")
        expected(case, arrays).tofile(f"{OUT}/{c_name}.out.bin")
        scales = [float(scale(*(float(a[i]) for a in arrays))) if scale else 0.0 for i in range(N)]
        np.array(scales, dtype=np.float64).tofile(f"{OUT}/{c_name}.scale.bin")
        out_type = params[0].rstrip("*") if ret == "void" else ret
        lines.append(f"{c_name} k_{c_name} {ulps} {N} {out_type} {' '.join(p.rstrip('*') for p in params)}\n")
    with open(f"{OUT}/cases.txt", "w") as f:
        f.writelines(lines)


main()
