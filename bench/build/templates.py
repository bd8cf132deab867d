"""Link time of a library with one entry of every template (issue 22, item 4): for each
architecture, the cold link of its kernels with their UDFs, one architecture a link, an empty
cache each time, with one udfkit or two (before and after a change), and the ratio after /
before.

The library takes its UDFs from the tests' data: tests/data/kernel_udfs.cu (numbers),
tests/data/grouped/ops.cu (scans, grouped reductions, sort) and tests/data/strings/plumbing.cu
(strings, string results), and has one entry of each template and of each form that
generates other kernels:
  map, map with a string result, nullable_map, nullable_map with a string result,
  filter, filter(p, indices32), filter(p, values) over numbers and over strings,
  nullable_filter, reduce, nullable_reduce, transform_reduce, inclusive_scan, exclusive_scan,
  reduce_by_key, segmented_reduce, sort over numbers and over strings.
Each udfkit compiles the UDFs and generates and compiles the kernels itself (its own
templates), then links them for each architecture, timed; the link is the step that issue
22 measures (nvJitLink's LTO and ptxas), the other steps are printed too. Same machine, one
run, one step at a time. The SASS bytes of each link are printed beside its time. Then, for
the last udfkit given, where the time goes: each kernel linked alone for the last
architecture (nvJitLink's -kernels-used), slowest first (each such link also pays what any
link pays: reading the inputs, about 0.05 s here).

usage: python bench/build/templates.py BEFORE [AFTER]
       BEFORE, AFTER: a udfkit executable or an install prefix (its bin/udfkit)
       UDFKIT_BENCH_ARCHS (default 75-real;80-real;90-real): the architectures linked
"""
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as project  # noqa: E402  (bench/build/run.py: its interpreter and timing)

DATA = os.path.join(project.ROOT, "tests", "data")
ARCHS = os.environ.get("UDFKIT_BENCH_ARCHS", "75-real;80-real;90-real").split(";")

UDF_FILES = [
    ("kernel_udfs.cu", ["is_even:bool(int32)", "add64:int64(int64, int64)", "inc8:int8(int8)",
                        "pick2:bool(int32, int64)"]),
    ("grouped/ops.cu", ["add_i32:int32(int32, int32)", "square64:int64(int32)", "add_i64:int64(int64, int64)",
                        "less_i32:bool(int32, int32)"]),
    ("strings/plumbing.cu", ["blen:int64(string)", "nonempty:bool(string)", "head2:string(string)",
                             "maybe_head:string?(string?)", "add:int64(int64, int64)",
                             "shorter_first:bool(string, string)"]),
]
KERNELS = [
    "map(inc8)", "map(head2)", "nullable_map(inc8)", "nullable_map(maybe_head)", "filter(is_even)",
    "filter(is_even, indices32)", "filter(pick2, values)", "filter(nonempty, values)", "nullable_filter(is_even)",
    "reduce(add64)", "nullable_reduce(add64)", "transform_reduce(square64, add_i64)", "inclusive_scan(add_i32)",
    "exclusive_scan(add_i32)", "reduce_by_key(add_i32, int32)", "segmented_reduce(add_i32)", "sort(less_i32)",
    "sort(shorter_first)",
]


def executable(given):
    path = os.path.join(given, "bin", "udfkit") if os.path.isdir(given) else given
    if not os.access(path, os.X_OK):
        sys.exit(f"templates.py: {path} is not an executable udfkit (give one, or an install prefix)")
    return os.path.abspath(path)


def timed(cmd, env):
    return project.timed(cmd, env)[0]


def measure(udfkit, work):
    """The steps' seconds and, for each architecture, the link's seconds and SASS bytes."""
    os.makedirs(work)
    env = dict(os.environ, UDFKIT_CACHE_DIR=os.path.join(work, "cache"))
    compile_archs = ",".join(a.replace("-real", "") for a in ARCHS)
    steps, manifests = {}, []
    start = time.perf_counter()
    for i, (source, functions) in enumerate(UDF_FILES):
        manifests.append(os.path.join(work, f"udfs{i}.json"))
        timed([udfkit, "compile", os.path.join(DATA, source), "-f", *functions, "--arch", compile_archs,
               "-o", manifests[-1]], env)
    steps["compile the UDFs"] = time.perf_counter() - start
    cuda = os.path.join(work, "every_kernels.cu")
    steps["generate the kernels"] = timed(
        [udfkit, "kernels", *manifests, *[x for k in KERNELS for x in ("--kernel", k)], "--name", "every", "--cuda",
         cuda, "--c", os.path.join(work, "every.c"), "--header", os.path.join(work, "every.h")], env)
    kernels = os.path.join(work, "every_kernels.json")
    steps["compile the kernels"] = timed([udfkit, "compile", cuda, "--arch", compile_archs, "-o", kernels], env)
    links = {}
    for arch in ARCHS:
        # Each link from an empty cache: a cold link, not the cache's answer.
        env["UDFKIT_CACHE_DIR"] = os.path.join(work, f"cache-{arch}")
        out = os.path.join(work, f"every-{arch}.cubin")
        seconds = timed([udfkit, "link", kernels, *manifests, "--arch", arch, "--emit", "cubin", "-o", out], env)
        links[arch] = (seconds, os.path.getsize(out))
    # Where the time goes: each kernel (the .entry names of the linked PTX) linked alone.
    arch = ARCHS[-1]
    ptx = os.path.join(work, "every.ptx")
    env["UDFKIT_CACHE_DIR"] = os.path.join(work, "cache-ptx")
    timed([udfkit, "link", kernels, *manifests, "--arch", arch.replace("-real", "-virtual"), "--emit", "ptx", "-o", ptx],
          env)
    with open(ptx) as f:
        entries = [line.split()[-1] for line in f if line.startswith((".visible .entry ", ".entry "))]
    alone = []
    for k, entry in enumerate(entries):
        env["UDFKIT_CACHE_DIR"] = os.path.join(work, f"cache-alone-{k}")
        out = os.path.join(work, "alone.cubin")
        seconds = timed([udfkit, "link", kernels, *manifests, "--arch", arch, "--emit", "cubin",
                         "-Xnvjitlink", f"-kernels-used={entry.rstrip('(')}", "-o", out], env)
        alone.append((seconds, entry.rstrip("("), os.path.getsize(out)))
    return steps, links, len(entries), sorted(alone, reverse=True)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    udfkits = [executable(a) for a in sys.argv[1:]]
    work = tempfile.mkdtemp(prefix="udfkit-bench-templates-")
    try:
        results = [measure(u, os.path.join(work, f"u{i}")) for i, u in enumerate(udfkits)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    names = ["before", "after"][:len(udfkits)] if len(udfkits) == 2 else ["udfkit"]
    print(f"bench/build/templates.py: a library of {len(KERNELS)} entries, one of each template and form, "
          f"linked for each of {', '.join(ARCHS)} (one architecture a link, an empty cache)")
    for name, u, (_, _, count, _) in zip(names, udfkits, results):
        print(f"{name}: {u} ({count} kernels)")
    header = f"{'step':28s}" + "".join(f" {n:>18s}" for n in names) + ("   ratio" if len(results) == 2 else "")
    print(header)
    for step in results[0][0]:
        row = [r[0][step] for r in results]
        line = f"{step:28s}" + "".join(f" {s:17.2f}s" for s in row)
        print(line + (f" {row[1] / row[0]:7.3f}" if len(row) == 2 else ""))
    for arch in ARCHS:
        row = [r[1][arch] for r in results]
        line = f"{'link ' + arch:28s}" + "".join(f" {s:8.2f}s {b / 1e6:6.2f} MB" for s, b in row)
        print(line + (f" {row[1][0] / row[0][0]:7.3f}" if len(row) == 2 else ""))
    total = [sum(r[1][a][0] for a in ARCHS) for r in results]
    print(f"{'link, all architectures':28s}" + "".join(f" {s:17.2f}s" for s in total) +
          (f" {total[1] / total[0]:7.3f}" if len(total) == 2 else ""))
    alone = results[-1][3]
    print(f"each kernel linked alone for {ARCHS[-1]} ({names[-1]}; {len(alone)} kernels, "
          f"{sum(a[0] for a in alone):.2f}s in all), slowest first:")
    for seconds, entry, size in alone[:15]:
        print(f"  {seconds:6.2f}s {size / 1e3:8.1f} KB  {entry}")


if __name__ == "__main__":
    main()
