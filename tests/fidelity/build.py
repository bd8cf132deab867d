#!/usr/bin/env python3
"""Builds the fidelity test (tests/fidelity/README.md) here, where numba-cuda runs:

- every function of functions.py compiled by udfkit as one Python UDF target would be
  (`udfkit compile`, inferred return types), map kernels from udfkit's template
  (`udfkit kernels`), compiled and linked into OUT/fid.fatbin for ARCH;
- the same function run by numba-cuda itself: a `cuda.jit`-style kernel
  `out[i] = f(a0[i], ...)` (numba's own ABI, its device function, its linking files)
  compiled by numba-cuda to PTX, OUT/<name>.numba.<k>.ptx;
- the inputs (OUT/<name>.in<k>.bin) and numba's CPU target's results (njit, same
  signature, numpy error model; numpy scalars for float16) (OUT/<name>.cpu.bin);
- OUT/cases.txt, one line per function: name, udfkit kernel, numba kernel, PTX parts,
  return type, parameter types.

usage: build.py UDFKIT OUT CC (e.g. 90: sm_90 SASS for udfkit, compute_90 PTX for numba)"""
import importlib.util
import json
import os
import subprocess
import sys
import types as pytypes

import numpy as np

UDFKIT, OUT, CC = sys.argv[1], os.path.abspath(sys.argv[2]), int(sys.argv[3])
HERE = os.path.dirname(os.path.abspath(__file__))
N = 4096
NP = {"bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
      "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float16": np.float16, "float32": np.float32,
      "float64": np.float64}


def run(*cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def load_functions():
    spec = importlib.util.spec_from_file_location("fidelity_functions", os.path.join(HERE, "functions.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def inputs(rng, name, types_):
    """Values every function of the kind meets: ordinary, extreme and special ones."""
    arrays = []
    for k, t in enumerate(types_):
        if t == "bool":
            a = rng.random(N) < 0.5
        elif t.startswith("float"):
            a = (rng.standard_normal(N) * 10.0).astype(NP[t])
            a[: N // 4] = (rng.random(N // 4) * 2 - 1).astype(NP[t])  # the domain of asin, acos, atanh
            specials = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-3, 100.0, np.inf, -np.inf, np.nan,
                        float(np.finfo(NP[t]).tiny), float(np.finfo(NP[t]).max), 3.5, -2.5]
            a[N // 4:N // 4 + len(specials)] = np.array(specials, dtype=NP[t])
        else:
            info = np.iinfo(NP[t])
            a = rng.integers(info.min, info.max, N, endpoint=True, dtype=NP[t])
            if "shift" in name and k == 1:
                a = rng.integers(0, info.bits, N, dtype=NP[t])  # counts a program may use
            if ("floordiv" in name or "mod" in name) and k == 1:
                a[::37] = 0  # zero divisors: numpy's error model gives 0
            a[:4] = np.array([0, 1, info.max, info.min], dtype=NP[t])
        arrays.append(a)
    return arrays


def cpu_reference(module, fn, params, ret, arrays):
    from numba import njit, types

    nb = {"bool": types.boolean, "float32": types.float32, "float64": types.float64}
    nb.update({t: getattr(types, t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")})
    def interpreted():
        """Where njit has no float16 or the function (math.fmod): Python on numpy scalars."""
        out = []
        with np.errstate(all="ignore"):
            for i in range(N):
                try:
                    out.append(fn(*(NP[t](a[i]) for t, a in zip(params, arrays))))
                except (ZeroDivisionError, ValueError, OverflowError):
                    out.append(np.nan if ret.startswith("float") else 0)
        return np.array(out, dtype=NP[ret])

    if "float16" in params or ret == "float16":
        return interpreted()
    try:
        cfunc = njit(nb[ret](*(nb[t] for t in params)), error_model="numpy")(fn)
    except Exception:  # numba's CPU target lacks it (math.fmod): Python computes it
        return interpreted()
    with np.errstate(all="ignore"):
        return np.array([cfunc(*(a[i] for a in arrays)) for i in range(N)], dtype=NP[ret])


def without_a_device(cc):
    """numba-cuda compiles called device functions for the current device: name one."""
    from numba.cuda import dispatcher

    class Target:
        compute_capability = (cc // 10, cc % 10)

    dispatcher.get_current_device = lambda: Target
    # NVRTC (for numba's float16 shims) asks the driver for its version; there is none here.
    from cuda.bindings import driver, nvrtc

    try:
        driver.cuDriverGetVersion()
    except RuntimeError:
        _, major, minor = nvrtc.nvrtcVersion()
        driver.cuDriverGetVersion = lambda: (driver.CUresult.CUDA_SUCCESS, major * 1000 + minor * 10)


def numba_kernel(fn, params, ret, cc):
    """The kernel numba-cuda makes of `out[i] = fn(a0[i], ...)`, as PTX parts."""
    from numba import cuda, types
    from numba.cuda import compile_all

    device = cuda.jit(device=True)(fn)
    args = ", ".join(f"a{k}" for k in range(len(params)))
    # bool travels as a byte (numba cannot store its i1 through a pointer).
    call = f"device({', '.join(f'a{k}[i] != 0' if t == 'bool' else f'a{k}[i]' for k, t in enumerate(params))})"
    store = f"1 if {call} else 0" if ret == "bool" else call
    source = (f"def kernel(n, {args}, out):\n    i = cuda.grid(1)\n    if i < n:\n"
              f"        out[i] = {store}\n")
    scope = {"cuda": cuda, "device": device}
    exec(source, scope)
    nb = {"bool": types.uint8, "float16": types.float16, "float32": types.float32, "float64": types.float64}
    nb.update({t: getattr(types, t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")})
    sig = types.void(types.uint64, *(types.CPointer(nb[t]) for t in params), types.CPointer(nb[ret]))
    codes, _ = compile_all(scope["kernel"], sig, device=False, abi="numba", output="ptx", cc=(cc // 10, cc % 10))
    parts = []
    for code in codes:
        text = code if isinstance(code, str) else getattr(code, "code", None) or getattr(code, "data", b"")
        parts.append(text.decode() if isinstance(text, bytes) else text)
    entry = next(line.split()[2].split("(")[0] for line in parts[0].splitlines() if ".entry" in line)
    return entry, parts


def main():
    os.makedirs(OUT, exist_ok=True)
    module = load_functions()
    source = os.path.join(HERE, "functions.py")
    # Three compiles, as three add_ptx_udf targets would make: the float16 functions in two
    # of their own, so that numba's float16 shims come from several compiles into one link.
    groups = {"udfs": [], "half_a": [], "half_b": []}
    for name, _, params in module.CASES:
        group = "udfs" if "float16" not in params else "half_a" if name.endswith(("add_float16", "sub_float16")) \
            else "half_b"
        groups[group].append(f"{name}:({', '.join(params)})")
    manifests, signatures = [], {}
    for group, specs in groups.items():
        manifest = os.path.join(OUT, f"{group}.json")
        print(f"udfkit: compiling {len(specs)} Python UDFs ({group})", flush=True)
        run(UDFKIT, "compile", source, "--function", *specs, "--arch", f"{CC}", "-o", manifest)
        signatures.update({f["c_name"]: f["signature"] for f in json.load(open(manifest))["functions"]})
        manifests.append(manifest)
    run(UDFKIT, "kernels", *manifests, *sum((["--kernel", f"map({n})"] for n, _, _ in module.CASES), []), "--name",
        "fid", "--fatbin-symbol", "fid_fatbin", "--cuda", f"{OUT}/fid_kernels.cu", "--c", f"{OUT}/fid_launchers.c",
        "--header", f"{OUT}/fid.h")
    run(UDFKIT, "compile", f"{OUT}/fid_kernels.cu", "--arch", f"{CC}", "-o", f"{OUT}/fid_kernels.json")
    run(UDFKIT, "link", f"{OUT}/fid_kernels.json", *manifests, "--arch", f"{CC}-real", "-o", f"{OUT}/fid.fatbin")

    without_a_device(CC)
    # Module-level helpers are device functions for numba-cuda, njit functions for the CPU.
    from numba import cuda, njit

    plain = {n: v for n, v in vars(module).items() if isinstance(v, pytypes.FunctionType)}
    for name, value in plain.items():
        if name not in ("case",) and not any(value is fn for _, fn, _ in module.CASES):
            setattr(module, name, cuda.jit(device=True)(value))
    rng = np.random.default_rng(20261124)
    lines = []
    for index, (name, fn, params) in enumerate(module.CASES):
        ret = signatures[name].split("(")[0]
        entry, parts = numba_kernel(fn, params, ret, CC)
        for k, text in enumerate(parts):
            with open(f"{OUT}/{name}.numba.{k}.ptx", "w") as f:
                f.write(text)
        arrays = inputs(rng, name, params)
        for k, a in enumerate(arrays):
            a.tofile(f"{OUT}/{name}.in{k}.bin")
        lines.append(f"{name} udfkit_fid_map_{name} {entry} {len(parts)} {ret} {' '.join(params)}\n")
        if index % 40 == 0:
            print(f"numba-cuda: {index}/{len(module.CASES)} kernels", flush=True)
    # The CPU reference, with the helpers as njit functions.
    for name, value in plain.items():
        if name not in ("case",) and not any(value is fn for _, fn, _ in module.CASES):
            setattr(module, name, njit(value))
    for name, fn, params in module.CASES:
        ret = signatures[name].split("(")[0]
        arrays = [np.fromfile(f"{OUT}/{name}.in{k}.bin", dtype=NP[t]) for k, t in enumerate(params)]
        cpu_reference(module, fn, params, ret, arrays).tofile(f"{OUT}/{name}.cpu.bin")
    with open(f"{OUT}/cases.txt", "w") as f:
        f.writelines(lines)
    print(f"{len(lines)} cases in {OUT}")


main()
