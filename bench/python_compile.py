"""Compile-time benchmark: 32 Python UDFs in one `udfkit compile` call against one call per
UDF (the interpreter and numba start once per call). Prints both times and their ratio.

usage: python bench/python_compile.py [path/to/udfkit] [repeats]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UDFKIT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "default", "src", "udfkit")
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
COUNT = 32

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


def run(args):
    proc = subprocess.run([UDFKIT, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"udfkit {' '.join(args)} failed:\n{proc.stderr}")


def timed(fn):
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main():
    work = tempfile.mkdtemp(prefix="udfkit-bench-")
    source = os.path.join(work, "udfs32.py")
    with open(source, "w") as f:
        f.write(module_text())
    specs = [f"udf{k}:float64(float64, float64)" for k in range(COUNT)]

    def one_call():
        run(["compile", source, "--function", *specs, "--arch", "80", "-o", os.path.join(work, "all", "udfs.json")])

    def per_udf():
        for k, spec in enumerate(specs):
            run(["compile", source, "--function", spec, "--arch", "80", "-o", os.path.join(work, "each", f"u{k}.ltoir")])

    together = timed(one_call)
    separate = timed(per_udf)
    print(f"python_compile: {COUNT} UDFs, median of {REPEATS}")
    print(f"  one call:          {together:8.2f} s")
    print(f"  one call per UDF:  {separate:8.2f} s")
    print(f"  ratio (one call / per UDF): {together / separate:.3f}  ({separate / together:.1f}x faster)")


main()
