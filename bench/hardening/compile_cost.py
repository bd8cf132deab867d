#!/usr/bin/env python3
"""What confinement costs udfkit_compile_source: today's compile in the caller's process
(`--before`, a runtime built from main), the same call with this runtime (trusted), and
udfkit_compile_source_with(untrusted), whose NVRTC runs in the sandbox helper. For each, in
a process of its own with a cache of its own: the first compile of the process (NVRTC
loaded), then RUNS cold compiles (texts the cache has not seen) and RUNS cached compiles
(the same texts again), each timed alone, for a one-line UDF and for one that includes
cuda/std/optional; prints medians, the process's CPU time per compile (the helpers'
included), and the ratios of the untrusted compile to today's.

    python3 bench/hardening/compile_cost.py --before /work/main/build/default/src/libudfkit_runtime.so \\
        --after build/default/src/libudfkit_runtime.so [--runs 40]"""
import argparse
import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

OPTIONS = ["--arch=80"]
# A one-line UDF, and one with a T? parameter, whose compile includes cuda/std/optional
# (the include follower reads and hashes every header it reaches, at each compile, for the key).
SCENARIOS = {
    "plain": ("f:float32(float32)", "__device__ float f(float x) {{ return x * {i}.0f + {tag}.0f; }}\n"),
    "optional": ("f:float32?(float32?)",
                 "#include <cuda/std/optional>\n__device__ cuda::std::optional<float> f(cuda::std::optional<float> x) "
                 "{{ return x ? *x * {i}.0f + {tag}.0f : x; }}\n"),
}


class CompileOptions(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("untrusted", ctypes.c_int), ("time_limit", ctypes.c_double),
                ("memory_limit", ctypes.c_uint64), ("cancel", ctypes.c_void_p)]


def cpu_seconds():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(library, untrusted, runs, tag, scenario):
    """In this process: the first compile, RUNS cold and RUNS cached ones; a JSON line out."""
    lib = ctypes.CDLL(library)
    spec, template = SCENARIOS[scenario]
    specs = (ctypes.c_char_p * 1)(spec.encode())
    options = (ctypes.c_char_p * 1)(*[o.encode() for o in OPTIONS])
    copts = CompileOptions(1, 1, 0.0, 0, None)
    lib.udfkit_last_error.restype = ctypes.c_char_p
    lib.udfkit_package_close.argtypes = [ctypes.c_void_p]

    def compile_one(text):
        pkg = ctypes.c_void_p()
        start, cpu = time.perf_counter(), cpu_seconds()
        if untrusted:
            s = lib.udfkit_compile_source_with(b"user.cu", text.encode(), specs, 1, options, 1, ctypes.byref(copts),
                                               ctypes.byref(pkg))
        else:
            s = lib.udfkit_compile_source(b"user.cu", text.encode(), specs, 1, options, 1, ctypes.byref(pkg))
        took, used = time.perf_counter() - start, cpu_seconds() - cpu
        if s != 0:
            sys.exit(f"compile failed ({s}): {lib.udfkit_last_error().decode()}")
        lib.udfkit_package_close(pkg)
        return took, used

    texts = [template.format(i=i, tag=tag) for i in range(runs + 1)]
    first = compile_one(texts[0])
    cold = [compile_one(t) for t in texts[1:]]
    cached = [compile_one(t) for t in texts[1:]]
    print(json.dumps({"first": first, "cold": cold, "cached": cached}))


def run_case(library, untrusted, runs, scenario):
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, UDFKIT_CACHE_DIR=cache)
        env.pop("UDFKIT_CACHE", None)
        proc = subprocess.run([sys.executable, __file__, "--measure", library, str(int(untrusted)), str(runs),
                               str(int(time.time() * 1000) % 1000000), scenario], env=env, capture_output=True,
                              text=True, check=True)
        return json.loads(proc.stdout)


def summary(name, r):
    med = lambda xs, k: statistics.median(x[k] for x in xs) * 1e3
    line = (f"{name:<26} first {r['first'][0] * 1e3:8.1f} ms   cold {med(r['cold'], 0):8.1f} ms "
            f"(CPU {med(r['cold'], 1):6.1f} ms)   cached {med(r['cached'], 0):7.3f} ms (CPU {med(r['cached'], 1):6.3f} ms)")
    print(line)
    return med(r["cold"], 0), med(r["cached"], 0), med(r["cold"], 1), med(r["cached"], 1)


def main():
    if len(sys.argv) == 7 and sys.argv[1] == "--measure":
        return measure(sys.argv[2], sys.argv[3] == "1", int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--before", required=True, help="libudfkit_runtime.so of main (today's compile)")
    p.add_argument("--after", required=True, help="libudfkit_runtime.so of this branch")
    p.add_argument("--runs", type=int, default=40, help="compiles of each kind (the optional UDF: a quarter)")
    a = p.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; medians; compiles for compute_80")
    for scenario, runs in (("plain", a.runs), ("optional", max(a.runs // 4, 3))):
        print(f"-- {scenario} UDF ({SCENARIOS[scenario][0]}): {runs} cold and {runs} cached compiles")
        before = summary("before (main, in process)", run_case(a.before, False, runs, scenario))
        trusted = summary("after, trusted", run_case(a.after, False, runs, scenario))
        untrusted = summary("after, untrusted (sandbox)", run_case(a.after, True, runs, scenario))
        print(f"cached compile, untrusted / before: {untrusted[1] / before[1]:.2f} (wall), "
              f"{untrusted[3] / max(before[3], 1e-9):.2f} (CPU)")
        print(f"cached compile, trusted / before:   {trusted[1] / before[1]:.2f} (wall)")
        print(f"cold compile, untrusted / before:   {untrusted[0] / before[0]:.2f} (wall), "
              f"{untrusted[2] / before[2]:.2f} (CPU)")


if __name__ == "__main__":
    main()
