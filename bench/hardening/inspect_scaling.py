#!/usr/bin/env python3
"""How `udfkit inspect` scales with the number of kernels in a PTX file (60,000 kernels
took 36 s when every name was searched for in the list before it). Prints the time for
6,000 and for 60,000 kernels and their ratio: 10 is linear, 100 quadratic.

    python3 bench/hardening/inspect_scaling.py build/default/src/udfkit"""
import os
import subprocess
import sys
import tempfile
import time


def ptx(n):
    body = "".join(f".visible .entry k{i}()\n{{\n\tret;\n}}\n" for i in range(n))
    return ".version 8.0\n.target sm_80\n.address_size 64\n" + body


def best_of(udfkit, path, runs=3):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([udfkit, "inspect", path, "--json"], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    udfkit = sys.argv[1] if len(sys.argv) > 1 else "build/default/src/udfkit"
    with tempfile.TemporaryDirectory() as work:
        results = {}
        for n in (6000, 60000):
            path = os.path.join(work, f"k{n}.ptx")
            with open(path, "w") as f:
                f.write(ptx(n))
            results[n] = best_of(udfkit, path)
            print(f"inspect, {n:6d} kernels: {results[n]:.3f} s")
        print(f"ratio 60000/6000: {results[60000] / results[6000]:.1f} (10 = linear, 100 = quadratic)")


if __name__ == "__main__":
    main()
