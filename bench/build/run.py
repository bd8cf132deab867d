"""Build-speed benchmark: udfkit against nvcc through CMake's own CUDA support.

Generates one project of 64 CUDA C UDFs (in 16 files) and 16 Python UDFs in 4 libraries
with a map kernel per UDF, for 75-real;80-real;90, and builds it
  (a) with udfkit: add_ptx_udf + add_jit_library(KERNELS map(...)), a C-only project;
  (b) with CMake's CUDA language: one STATIC library per group with CUDA_SEPARABLE_COMPILATION,
      CUDA_RESOLVE_DEVICE_SYMBOLS and INTERPROCEDURAL_OPTIMIZATION (device LTO), the Python
      UDFs compiled to LTO-IR by numba-cuda in a pre-step and added to the device link.
  (b') as (b), each library's kernels those udfkit generated in (a) (its cold build), so that
      both sides build the same kernels: nvcc then optimizes the same tiled map kernels;
  (c) as (b) with ccache as CMake's CUDA compiler launcher (CMAKE_CUDA_COMPILER_LAUNCHER=ccache,
      its own empty cache directory): a cold build, then a fresh build directory with the warm
      cache (ccache keeps the compiles; nvcc's device link and numba-cuda's pre-step run again).
Same machine, one run, -j2, configure timed apart. Prints each step in seconds and as a ratio
to nvcc's: cold build, fresh build directory with a warm cache, no-op build, one UDF edited;
then udfkit's cold build and edit against (b'), and its cold and warm-cache builds against
nvcc with ccache (skipped, saying so, where ccache is not installed: `apt-get install
ccache`), with ccache's hits and misses.
The cold build starts with an empty cache and no Python frontend server (a private runtime
directory), so it pays for starting one. udfkit's warm-cache build is the median of three
fresh build directories (it takes well under a second, where scheduling noise shows); the
time its steps took is split between udfkit's commands and the C compiler and archiver.

usage: python bench/build/run.py [udfkit install prefix] (default: build/install)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PREFIX = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "build", "install")
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
# The installed udfkit takes its Python frontend and CUDA wheels from UDFKIT_PYTHON's environment.
os.environ.setdefault("UDFKIT_PYTHON", PYTHON)
ARCHS = "75-real;80-real;90"
GROUPS = 4
CUDA_FILES_PER_GROUP = 4
UDFS_PER_CUDA_FILE = 4
PY_UDFS_PER_GROUP = 4


def cuda_udf(g, f, k, c_linkage=False):
    name = f"g{g}_f{f}_u{k}"
    body = [f"return x * {k + 1}.5f + {f}.25f;", f"return x > {k}.0f ? x - {g}.0f : x * x;",
            f"float acc = 0.0f; for (int i = 0; i < {k + 2}; i++) acc += x * i; return acc;",
            f"return sqrtf(fabsf(x) + {k + f}.0f);"][k % 4]
    linkage = 'extern "C" ' if c_linkage else ""
    return name, f"{linkage}__device__ float {name}(float x)\n{{\n    {body}\n}}\n"


def py_udf(g, k):
    name = f"py{g}_u{k}"
    body = [f"return x * {k + 2}.0 - 1.0", f"return x if x > {k}.0 else -x",
            f"acc = 0.0\n    for i in range({k + 2}):\n        acc += x * i\n    return acc",
            f"return math.sqrt(abs(x) + {k + 1}.0)"][k % 4]
    return name, f"def {name}(x):\n    {body}\n"


def generate(src, c_linkage=False):
    """Both projects share the UDF sources; returns the groups' UDF names. udfkit's kernels
    call a UDF by its C name (udfkit compile gives the C++ function that name), so (b') gives
    its UDFs C linkage."""
    groups = []
    for g in range(GROUPS):
        os.makedirs(os.path.join(src, f"group{g}"), exist_ok=True)
        cuda_names, py_names = [], []
        for f in range(CUDA_FILES_PER_GROUP):
            parts = [cuda_udf(g, f, k, c_linkage) for k in range(UDFS_PER_CUDA_FILE)]
            cuda_names += [(n, f"group{g}/udfs{f}.cu") for n, _ in parts]
            with open(os.path.join(src, f"group{g}", f"udfs{f}.cu"), "w") as out:
                out.write("".join(text for _, text in parts))
        parts = [py_udf(g, k) for k in range(PY_UDFS_PER_GROUP)]
        py_names = [n for n, _ in parts]
        with open(os.path.join(src, f"group{g}", "py_udfs.py"), "w") as out:
            out.write("import math\n\n\n" + "\n\n".join(text for _, text in parts))
        groups.append((cuda_names, py_names))
    return groups


def udfkit_project(src, groups):
    lines = ["cmake_minimum_required(VERSION 3.25)", "project(bench_udfkit LANGUAGES C)",
             "find_package(udfkit CONFIG REQUIRED)"]
    for g, (cuda_names, py_names) in enumerate(groups):
        sources = sorted({f for _, f in cuda_names}) + [f"group{g}/py_udfs.py"]
        specs = [f'"{n}:float32(float32)"' for n, _ in cuda_names] + [f'"{n}:float32(float32)"' for n in py_names]
        kernels = " ".join(f"map({n})" for n, _ in cuda_names) + " " + " ".join(f"map({n})" for n in py_names)
        lines += [f"add_ptx_udf(udfs{g} SOURCES {' '.join(sources)}", f"  FUNCTIONS {' '.join(specs)}",
                  f'  ARCHITECTURES "{ARCHS}")',
                  f'add_jit_library(lib{g} STATIC UDFS udfs{g} KERNELS {kernels} ARCHITECTURES "{ARCHS}")']
    with open(os.path.join(src, "CMakeLists.txt"), "w") as out:
        out.write("\n".join(lines) + "\n")


def generated_kernels(udfkit_build, g):
    """udfkit's generated kernels of library lib<g> (written for NVRTC, which compiles device
    code alone), as nvcc takes them: a kernel defined for sm_90 and later only is declared to
    nvcc's host pass too, which makes a launch stub for every kernel of any architecture."""
    text = open(os.path.join(udfkit_build, f"lib{g}.udfkit", f"lib{g}_kernels.cu")).read()
    return text.replace("\n#if __CUDA_ARCH__ >= 900\n", "\n#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900\n")


def nvcc_project(src, groups, udfkit_build=None):
    """(b); with udfkit_build, each library's kernels are those udfkit generated there."""
    lines = ["cmake_minimum_required(VERSION 3.25)", "project(bench_nvcc LANGUAGES CUDA)",
             f'set(CMAKE_CUDA_ARCHITECTURES "{ARCHS}")', "set(CMAKE_CUDA_STANDARD 17)",
             f'set(PYTHON "{PYTHON}")']
    for g, (cuda_names, py_names) in enumerate(groups):
        kernel_file = os.path.join(src, f"group{g}", "map_kernels.cu")
        with open(kernel_file, "w") as out:
            if udfkit_build:
                out.write(generated_kernels(udfkit_build, g))
            else:
                out.write("#include <cstddef>\n")
                for n, _ in cuda_names:
                    out.write(f"__device__ float {n}(float x);\n")
                for n in py_names:
                    out.write(f'extern "C" __device__ float {n}(float x);\n')
                for n in [n for n, _ in cuda_names] + py_names:
                    out.write(f'extern "C" __global__ void map_{n}(size_t n, const float *in, float *out)\n'
                              "{\n    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;"
                              " i += (size_t)gridDim.x * blockDim.x)\n"
                              f"        out[i] = {n}(in[i]);\n}}\n")
        if udfkit_build:
            # udfkit's kernels use <udfkit/udf.h>'s types, which udfkit compile includes.
            lines.append(f'set_source_files_properties(group{g}/map_kernels.cu PROPERTIES COMPILE_OPTIONS '
                         f'"-I{PREFIX}/include;-include;udfkit/udf.h")')
        sources = sorted({f for _, f in cuda_names}) + [f"group{g}/map_kernels.cu"]
        ltoirs = [f"${{CMAKE_CURRENT_BINARY_DIR}}/{n}.ltoir" for n in py_names]
        lines += [
            # The Python UDFs, compiled to LTO-IR by numba-cuda before the device link.
            f"add_custom_command(OUTPUT {' '.join(ltoirs)}",
            f"  COMMAND ${{PYTHON}} ${{CMAKE_CURRENT_SOURCE_DIR}}/numba_ltoir.py "
            f"${{CMAKE_CURRENT_SOURCE_DIR}}/group{g}/py_udfs.py ${{CMAKE_CURRENT_BINARY_DIR}} {' '.join(py_names)}",
            f"  DEPENDS ${{CMAKE_CURRENT_SOURCE_DIR}}/group{g}/py_udfs.py)",
            f"add_custom_target(py{g} DEPENDS {' '.join(ltoirs)})",
            f"add_library(lib{g} STATIC {' '.join(sources)})",
            f"set_target_properties(lib{g} PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_RESOLVE_DEVICE_SYMBOLS ON "
            "INTERPROCEDURAL_OPTIMIZATION ON)",
            f"add_dependencies(lib{g} py{g})",
            f"target_link_options(lib{g} PRIVATE {' '.join(f'$<DEVICE_LINK:{l}>' for l in ltoirs)})"]
    with open(os.path.join(src, "CMakeLists.txt"), "w") as out:
        out.write("\n".join(lines) + "\n")
    with open(os.path.join(src, "numba_ltoir.py"), "w") as out:
        out.write("""import importlib.util, os, sys
from numba import types
from numba.cuda import compile_all
path, outdir, names = sys.argv[1], sys.argv[2], sys.argv[3:]
spec = importlib.util.spec_from_file_location("py_udfs", path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
for n in names:
    codes, _ = compile_all(getattr(mod, n), types.float32(types.float32), device=True, abi="c",
                           abi_info={"abi_name": n}, output="ltoir", cc=(7, 5))
    open(os.path.join(outdir, n + ".ltoir"), "wb").write(codes[0])
""")


def cuda_overlay():
    """nvcc's device LTO loads <toolkit>/nvvm/lib64/libnvvm.so, which a toolkit assembled
    from wheels keeps in lib64: a private overlay of /usr/local/cuda adds the link."""
    overlay = os.path.join(tempfile.gettempdir(), "udfkit-bench-cuda")
    if not os.path.exists(os.path.join(overlay, "bin", "nvcc")):
        shutil.rmtree(overlay, ignore_errors=True)
        os.makedirs(os.path.join(overlay, "nvvm", "lib64"))
        subprocess.run(["cp", "-al", "/usr/local/cuda/bin", os.path.join(overlay, "bin")], check=True)
        for d in ("include", "lib", "lib64", "targets"):
            os.symlink(f"/usr/local/cuda/{d}", os.path.join(overlay, d))
        for d in ("bin", "libdevice"):
            os.symlink(f"/usr/local/cuda/nvvm/{d}", os.path.join(overlay, "nvvm", d))
        os.symlink("/usr/local/cuda/lib64/libnvvm.so", os.path.join(overlay, "nvvm", "lib64", "libnvvm.so"))
    return os.path.join(overlay, "bin", "nvcc")


def timed(cmd, env=None):
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return elapsed, proc.stdout


def step_split(bdir):
    """Seconds of the build's steps run by udfkit and by the C compiler and archiver."""
    build_ninja = open(os.path.join(bdir, "build.ninja")).read()
    udfkit_outputs = set()
    for block in build_ninja.split("\nbuild ")[1:]:
        head, _, rest = block.partition("\n")
        if "udfkit " in rest.split("\n\n")[0] and "COMMAND" in rest.split("\n\n")[0]:
            outs = head.split(":")[0].split("|")[0].split()
            udfkit_outputs.update(o.replace("$ ", " ") for o in outs)
    seen, split = set(), {"udfkit": 0.0, "other": 0.0}
    for line in open(os.path.join(bdir, ".ninja_log")).read().splitlines()[1:]:
        start, end, _, out, _ = line.split("\t")
        if (start, end) in seen:
            continue  # one command, several outputs
        seen.add((start, end))
        split["udfkit" if out in udfkit_outputs else "other"] += (int(end) - int(start)) / 1000
    return split


def main():
    work = tempfile.mkdtemp(prefix="udfkit-bench-build-")
    try:
        run(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(work):
    env = dict(os.environ, UDFKIT_CACHE_DIR=os.path.join(work, "cache"), XDG_RUNTIME_DIR=os.path.join(work, "run"))
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700)
    nvcc = cuda_overlay()
    ccache = shutil.which("ccache")
    results = {}
    for flow in ("udfkit", "nvcc", "nvcc_gen") + (("ccache",) if ccache else ()):
        src = os.path.join(work, flow, "src")
        groups = generate(src, flow == "nvcc_gen")
        if flow == "udfkit":
            udfkit_project(src, groups)
        else:
            nvcc_project(src, groups, os.path.join(work, "udfkit", "b1") if flow == "nvcc_gen" else None)
        extra = [f"-DCMAKE_PREFIX_PATH={PREFIX}"] if flow == "udfkit" else [f"-DCMAKE_CUDA_COMPILER={nvcc}"]
        flow_env = env
        if flow == "ccache":
            extra.append(f"-DCMAKE_CUDA_COMPILER_LAUNCHER={ccache}")
            flow_env = dict(env, CCACHE_DIR=os.path.join(work, "ccache"))
            # Both build directories compile the same sources: below the base directory ccache
            # hashes paths relative to the build directory, so the second finds the first's.
            flow_env["CCACHE_BASEDIR"] = work
        r = results[flow] = {}
        warm_builds = ("b2", "b3", "b4") if flow == "udfkit" else ("b2",)
        for step, build in [("cold", "b1")] + [("warm", b) for b in warm_builds]:
            bdir = os.path.join(work, flow, build)
            r[f"configure_{step}"], _ = timed(["cmake", "-S", src, "-B", bdir, "-G", "Ninja", *extra], flow_env)
            if flow == "ccache":
                timed([ccache, "--zero-stats"], flow_env)
            seconds, _ = timed(["ninja", "-C", bdir, "-j2"], flow_env)
            r.setdefault(step + "_all", []).append(seconds)
            if flow == "ccache":
                _, stats = timed([ccache, "--print-stats"], flow_env)
                counts = dict(line.split("\t", 1) for line in stats.splitlines() if "\t" in line)
                r[step + "_hits"] = int(counts.get("direct_cache_hit", 0)) + int(counts.get("preprocessed_cache_hit", 0))
                r[step + "_misses"] = int(counts.get("cache_miss", 0))
        r["cold"] = r["cold_all"][0]
        r["warm"] = sorted(r["warm_all"])[len(r["warm_all"]) // 2]
        if flow == "udfkit":
            r["warm_split"] = step_split(os.path.join(work, flow, warm_builds[-1]))
        if flow == "ccache":
            continue
        bdir = os.path.join(work, flow, warm_builds[0])
        r["noop"], _ = timed(["ninja", "-C", bdir, "-j2"], env)
        edited = os.path.join(src, "group1", "udfs2.cu")
        text = open(edited).read()
        assert "x * 1.5f" in text
        open(edited, "w").write(text.replace("x * 1.5f", "x * 1.75f", 1))
        r["edit"], log = timed(["ninja", "-C", bdir, "-j2", "-v"], env)
        if flow == "udfkit":
            r["edit_compiles"] = len(re.findall(r"udfkit compile ", log))
            r["edit_links"] = len(re.findall(r"udfkit link ", log))

    u, n = results["udfkit"], results["nvcc"]
    print(f"bench/build: {GROUPS * CUDA_FILES_PER_GROUP * UDFS_PER_CUDA_FILE} CUDA C UDFs in "
          f"{GROUPS * CUDA_FILES_PER_GROUP} files and {GROUPS * PY_UDFS_PER_GROUP} Python UDFs in {GROUPS} libraries "
          f"with map kernels, for {ARCHS}; Ninja -j2")
    print(f"{'step':38s} {'udfkit':>9s} {'nvcc':>9s} {'ratio':>7s}")
    for key, label in (("cold", "cold build"), ("warm", "fresh build dir, warm cache"), ("noop", "no-op build"),
                       ("edit", "one UDF edited")):
        print(f"{label:38s} {u[key]:8.2f}s {n[key]:8.2f}s {u[key] / n[key]:7.3f}")
    print(f"{'configure (cold build dir)':38s} {u['configure_cold']:8.2f}s {n['configure_cold']:8.2f}s "
          f"{u['configure_cold'] / n['configure_cold']:7.3f}")
    print(f"warm-cache rebuild / udfkit cold build: {u['warm'] / u['cold']:.3f} "
          f"(udfkit warm builds: {', '.join(f'{s:.2f}s' for s in u['warm_all'])}; median used)")
    s = u["warm_split"]
    print(f"in a warm-cache build, step time: udfkit commands {s['udfkit']:.2f}s, C compiler and archiver {s['other']:.2f}s")
    print(f"one UDF edited ran {u['edit_compiles']} udfkit compile(s) and {u['edit_links']} link(s)")
    k = results["nvcc_gen"]
    print(f"{'step':38s} {'udfkit':>9s} {'nvcc, udfkit kernels':>21s} {'ratio':>7s}")
    for key, label in (("cold", "cold build"), ("edit", "one UDF edited")):
        print(f"{label:38s} {u[key]:8.2f}s {k[key]:20.2f}s {u[key] / k[key]:7.3f}")
    if not ccache:
        print("nvcc with ccache: skipped, ccache is not installed (apt-get install ccache)")
        return
    c = results["ccache"]
    print(f"{'step':38s} {'udfkit':>9s} {'nvcc+ccache':>12s} {'ratio':>7s}")
    for key, label in (("cold", "cold build (empty caches)"), ("warm", "fresh build dir, warm cache")):
        print(f"{label:38s} {u[key]:8.2f}s {c[key]:11.2f}s {u[key] / c[key]:7.3f}")
    print(f"ccache: cold build {c['cold_hits']} hits, {c['cold_misses']} misses; "
          f"warm-cache build {c['warm_hits']} hits, {c['warm_misses']} misses")


if __name__ == "__main__":
    main()
