"""Build times against the number of UDFs (issue 22, item 4): one library of N CUDA C UDFs (10 a
file) with a map kernel each, for 75-real;80-real;90, built by CMake + Ninja -j2 as bench/build
builds its project (add_ptx_udf + add_jit_library): a cold build (empty cache, fresh build
directory), a fresh build directory with the warm cache, and one UDF edited. For each size the
seconds, the seconds per UDF, and each time against linear growth from the smallest size
(time(N) / time(smallest) / (N / smallest); 1.0 is linear, the goal is within 10%; for the edit
the goal is a constant time, so its ratio is time(N) / time(smallest)).

usage: python bench/build/scaling.py [udfkit install prefix] (default: build/install)
       UDFKIT_BENCH_SIZES (default 100,1000): the sizes, smallest first (10000 takes the better
       part of an hour here)
"""
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as project  # noqa: E402  (bench/build/run.py: its prefix, interpreter and timing)

SIZES = [int(s) for s in os.environ.get("UDFKIT_BENCH_SIZES", "100,1000").split(",")]
PER_FILE = 10


def udf(i):
    name = f"s{i}"
    body = [f"return x * {i % 7 + 1}.5f + {i % 5}.25f;", f"return x > {i % 9}.0f ? x - 1.0f : x * x;",
            f"return sqrtf(fabsf(x) + {i % 11}.0f);"][i % 3]
    return name, f"__device__ float {name}(float x)\n{{\n    {body}\n}}\n"


def generate(src, n):
    os.makedirs(src)
    names, files = [], []
    for f in range((n + PER_FILE - 1) // PER_FILE):
        parts = [udf(i) for i in range(f * PER_FILE, min(n, (f + 1) * PER_FILE))]
        names += [p[0] for p in parts]
        files.append(f"udfs{f}.cu")
        with open(os.path.join(src, files[-1]), "w") as out:
            out.write("".join(text for _, text in parts))
    with open(os.path.join(src, "CMakeLists.txt"), "w") as out:
        out.write("cmake_minimum_required(VERSION 3.25)\nproject(bench_scaling LANGUAGES C)\n"
                  "find_package(udfkit CONFIG REQUIRED)\n")
        out.write(f"add_ptx_udf(udfs SOURCES {' '.join(files)}\n  FUNCTIONS "
                  + " ".join(f'"{n}:float32(float32)"' for n in names) + f'\n  ARCHITECTURES "{project.ARCHS}")\n')
        out.write("add_jit_library(lib STATIC UDFS udfs KERNELS " + " ".join(f"map({n})" for n in names)
                  + f' ARCHITECTURES "{project.ARCHS}")\n')


def measure(work, n):
    env = dict(os.environ, UDFKIT_CACHE_DIR=os.path.join(work, "cache"), XDG_RUNTIME_DIR=os.path.join(work, "run"))
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700)
    src = os.path.join(work, "src")
    generate(src, n)
    r = {}
    for step, build in (("cold", "b1"), ("warm", "b2")):
        bdir = os.path.join(work, build)
        project.timed(["cmake", "-S", src, "-B", bdir, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={project.PREFIX}"], env)
        r[step], _ = project.timed(["ninja", "-C", bdir, "-j2"], env)
    edited = os.path.join(src, "udfs0.cu")
    text = open(edited).read()
    open(edited, "w").write(text.replace("return", "return 0.5f +", 1))
    r["edit"], _ = project.timed(["ninja", "-C", os.path.join(work, "b2"), "-j2"], env)
    return r


def main():
    results = {}
    for n in SIZES:
        work = tempfile.mkdtemp(prefix=f"udfkit-bench-scaling-{n}-")
        try:
            results[n] = measure(work, n)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(f"{n} UDFs: cold {results[n]['cold']:.2f}s, warm {results[n]['warm']:.2f}s, "
              f"one edit {results[n]['edit']:.2f}s", flush=True)
    base = SIZES[0]
    print(f"bench/build/scaling.py: one library of N CUDA C UDFs ({PER_FILE} a file) with a map kernel each, "
          f"for {project.ARCHS}; Ninja -j2")
    print(f"{'UDFs':>6s} {'cold':>9s} {'per UDF':>9s} {'vs linear':>9s} {'warm':>9s} {'per UDF':>9s} "
          f"{'vs linear':>9s} {'one edit':>9s} {'vs ' + str(base):>9s}")
    for n in SIZES:
        r, b, scale = results[n], results[base], n / base
        print(f"{n:6d} {r['cold']:8.2f}s {r['cold'] / n * 1000:7.1f}ms {r['cold'] / b['cold'] / scale:9.3f} "
              f"{r['warm']:8.2f}s {r['warm'] / n * 1000:7.1f}ms {r['warm'] / b['warm'] / scale:9.3f} "
              f"{r['edit']:8.2f}s {r['edit'] / b['edit']:9.3f}")


if __name__ == "__main__":
    main()
