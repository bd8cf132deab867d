"""udfkit_compile_source answered from the cache: text that includes <cuda/std/optional>
(230 of CUDA's headers) against a one-line text (bench/compile_source/cached_compile.c).

Builds cached_compile.c against build/default's static runtime (cmake --preset default &&
cmake --build --preset default --target udfkit_runtime first), then runs it twice in a fresh
cache directory under build/bench-compile-source: the first process compiles both texts
(misses) and then times the hits in that process; the second is a new process whose first
compile of each text is a hit from the disk. Prints each run's lines: the medians and their
ratio. Then `processes` more new processes, each timing only its first compile of each text
(a hit from the disk): their medians and the ratio (one process's first hit is too noisy a
figure alone).

usage: python bench/compile_source/run.py [rounds] [processes]
"""
import re
import statistics
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build", "default")
WORK = os.path.join(ROOT, "build", "bench-compile-source")


def main():
    rounds = sys.argv[1] if len(sys.argv) > 1 else "100"
    processes = int(sys.argv[2]) if len(sys.argv) > 2 else 21
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    exe = os.path.join(WORK, "cached_compile")
    subprocess.run(["cc", "-std=c17", "-O2", "-Wall", "-Wextra", "-Werror", "-I",
                    os.path.join(ROOT, "src", "runtime", "include"),
                    os.path.join(ROOT, "bench", "compile_source", "cached_compile.c"),
                    os.path.join(BUILD, "src", "libudfkit_runtime.a"), "-lpthread", "-ldl", "-lm", "-o", exe],
                   check=True)
    env = dict(os.environ, UDFKIT_CACHE_DIR=os.path.join(WORK, "cache"))
    env.pop("UDFKIT_CACHE", None)
    for label in ("a new cache (the first compiles miss)", "a new process, the same cache"):
        print(f"{label}:", flush=True)
        subprocess.run([exe, rounds], env=env, check=True)
    firsts = []
    for _ in range(processes):
        out = subprocess.run([exe, "1"], env=env, check=True, capture_output=True, text=True).stdout
        m = re.search(r"first compile: one-line text ([0-9.]+) ms, <cuda/std/optional> text ([0-9.]+) ms", out)
        firsts.append((float(m.group(1)), float(m.group(2))))
    a = statistics.median(f[0] for f in firsts)
    b = statistics.median(f[1] for f in firsts)
    print(f"a new process's first hit, median of {processes} processes: one-line text {a:.3f} ms, "
          f"<cuda/std/optional> text {b:.3f} ms, ratio {b / a:.2f}")


if __name__ == "__main__":
    main()
