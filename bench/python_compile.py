"""Compile-time benchmark: 32 Python UDFs in one `udfkit compile` call against one call per
UDF, under each Python frontend (numba-cuda and numba-cuda-mlir, side by side, where each
imports). Prints both times and their ratio per frontend, then numba-cuda-mlir's times over
numba-cuda's.

Without the cache (UDFKIT_CACHE=0), first with a fresh interpreter per call
(UDFKIT_SERVER_IDLE=0: the interpreter and the frontend start once per call), then through a
warm frontend server (one per frontend, in a private runtime directory, started before the
timing), as builds run.

usage: python bench/python_compile.py [path/to/udfkit] [repeats]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UDFKIT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "default", "src", "udfkit")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
COUNT = 32
FRONTENDS = {"numba-cuda": "numba.cuda", "numba-cuda-mlir": "numba_cuda_mlir.cuda"}

BODIES = [
    "return x * {k} + y",
    "return math.sqrt(x * x + y * y + {k})",
    "return x if x > y * {k} else y",
    "acc = 0.0\n    for i in range({k}):\n        acc += x * i - y\n    return acc",
]


def module_text():
    lines = ["import math", ""]
    for k in range(COUNT):
        body = BODIES[k % len(BODIES)].format(k=k + 1)
        lines += [f"def udf{k}(x, y):", f"    {body}", ""]
    return "\n".join(lines)


def run(args, env):
    proc = subprocess.run([UDFKIT, *args], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"udfkit {' '.join(args)} failed:\n{proc.stderr}")


def timed(fn):
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def python_of_udfkit():
    """The interpreter udfkit runs, as `udfkit --version` names it."""
    out = subprocess.run([UDFKIT, "--version"], capture_output=True, text=True).stdout
    line = next((ln for ln in out.splitlines() if ln.startswith("Python frontend")), "")
    return line.split()[2] if len(line.split()) > 2 else sys.executable


def measure(work, source, frontend, env):
    """(one call, one call per UDF) in seconds, medians."""
    specs = [f"udf{k}:float64(float64, float64)" for k in range(COUNT)]
    common = ["--arch", "80", "--python-frontend", frontend]

    def one_call():
        run(["compile", source, "--function", *specs, *common, "-o", os.path.join(work, frontend, "all", "udfs.json")],
            env)

    def per_udf():
        for k, spec in enumerate(specs):
            run(["compile", source, "--function", spec, *common, "-o", os.path.join(work, frontend, "each",
                                                                                   f"u{k}.ltoir")], env)

    if env.get("UDFKIT_SERVER_IDLE") != "0":
        one_call()  # starts this frontend's server
    return timed(one_call), timed(per_udf)


def report(results, title):
    print(title)
    for frontend, (together, separate) in results.items():
        print(f"{frontend}:")
        print(f"  one call:          {together:8.2f} s")
        print(f"  one call per UDF:  {separate:8.2f} s")
        print(f"  ratio (one call / per UDF): {together / separate:.3f}  ({separate / together:.1f}x faster)")
    if len(results) == 2:
        (a_one, a_each), (b_one, b_each) = results["numba-cuda"], results["numba-cuda-mlir"]
        print(f"numba-cuda-mlir / numba-cuda: one call {b_one / a_one:.2f}, one call per UDF {b_each / a_each:.2f}")


def main():
    work = tempfile.mkdtemp(prefix="udfkit-bench-")
    runtime = tempfile.mkdtemp(prefix="ukb-")  # short: a socket path
    source = os.path.join(work, "udfs32.py")
    with open(source, "w") as f:
        f.write(module_text())
    python = python_of_udfkit()
    frontends = []
    for frontend, module in FRONTENDS.items():
        if subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0:
            frontends.append(frontend)
        else:
            print(f"{frontend} does not import in {python}: left out")
    try:
        for title, idle in ((f"python_compile: {COUNT} UDFs, median of {REPEATS}, a fresh interpreter per call "
                             f"(UDFKIT_SERVER_IDLE=0), no cache", "0"),
                            (f"python_compile: {COUNT} UDFs, median of {REPEATS}, through a warm frontend server, "
                             f"no cache", "60")):
            env = dict(os.environ, UDFKIT_CACHE="0", UDFKIT_SERVER_IDLE=idle, XDG_RUNTIME_DIR=runtime)
            report({f: measure(work, source, f, env) for f in frontends}, title)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        # The servers leave when their socket is gone (within 5 s).
        shutil.rmtree(runtime, ignore_errors=True)


main()
