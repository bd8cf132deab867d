"""<udfkit/decimal.cuh> and <udfkit/datetime.cuh> against a real engine: every operation
applied on the host (apply.cpp, compiled by the C++ compiler with -Wall -Wextra -Werror) to
the cases of cases.py, whose expectations come from pyarrow.compute over Arrow arrays of the
same values (Python's decimal, fractions and numpy where SPEC.md's rules are not Arrow's),
compared line for line; then both headers under NVRTC (udfkit compile of UDFs using them
through the C ABI) and nvcc (-dc -arch=sm_80).

    test_libs.py                 the tests (ctest: dates-libs)
    test_libs.py --report        cases per operation and oracle, and Arrow's differences
    test_libs.py --write DIR     the cases, their expected results and, where nvcc is, the
                                 GPU runner (apply_gpu.cu for sm_80, sm_90, compute_90) into DIR
    test_libs.py --gpu [DIR]     the cases (DIR's, else new ones) on this machine's GPU, by
                                 DIR's runner or one nvcc builds: with DIR, the standard
                                 library is all it needs (tests/README.md, GPU machine)"""
import collections
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INCLUDE = os.path.join(ROOT, "src", "runtime", "include")
sys.path.insert(0, os.path.join(ROOT, "tests", "cli"))
sys.path.insert(0, HERE)

CXX = os.environ.get("CXX") or "c++"
NVCC = os.environ.get("UDFKIT_NVCC") or ""
if NVCC.endswith("-NOTFOUND"):
    NVCC = ""

SPECS = ["net_price:decimal128(38,4)(decimal128(15,2), decimal64(4,2))",
         "share:decimal64(18,6)(decimal64(18,2), decimal64(18,2))", "as_double:float64(decimal128(38,10))",
         "parse_cents:decimal64(18,2)(string)", "format_cents:string(decimal64(18,2))", "next_month:date32(date32)",
         "month_start:timestamp[ns](timestamp[ns])", "days_apart:int64(timestamp[us], timestamp[s])",
         "weekday_of:int32(date32)", "later:timestamp[ms](timestamp[s], duration[ms])"]


def run(cmd, cwd=None, timeout=900):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


def build_cases():
    import cases as case_gen  # pyarrow, only where the cases are made
    return case_gen.build()


def write_cases(work, cases=None):
    cases = cases or build_cases()
    path = os.path.join(work, "cases.txt")
    with open(path, "w") as f:
        for _, line, _, _ in cases.lines:
            f.write(line + "\n")
    with open(os.path.join(work, "expected.txt"), "w") as f:
        for _, _, expected, _ in cases.lines:
            f.write(expected + "\n")
    return cases, path


class Stored:
    """Cases read back from a directory --write filled: lines and expectations only."""
    def __init__(self, directory):
        with open(os.path.join(directory, "cases.txt")) as f:
            lines = f.read().splitlines()
        with open(os.path.join(directory, "expected.txt")) as f:
            expected = f.read().splitlines()
        self.lines = [(line.split()[0], line, want, "") for line, want in zip(lines, expected)]


def compare(cases, output):
    """Every result line against its expectation; the mismatches, at most 20 shown."""
    got = output.splitlines()
    assert len(got) == len(cases.lines), f"{len(got)} results for {len(cases.lines)} cases"
    bad = [(line, want, have) for (_, line, want, _), have in zip(cases.lines, got) if want != have]
    for line, want, have in bad[:20]:
        print(f"  {line}\n    expected {want}\n    got      {have}")
    return bad


def summary(cases):
    per_op = collections.Counter()
    per_source = collections.Counter()
    for op, _, _, source in cases.lines:
        per_op[op] += 1
        per_source[op, source] += 1
    lines = [f"{len(cases.lines)} cases"]
    for op in sorted(per_op):
        sources = ", ".join(f"{per_source[op, s]} {s}" for s in ("arrow", "numpy", "python") if per_source[op, s])
        lines.append(f"  {op}: {per_op[op]} ({sources})")
    lines.append("where Arrow's result differs from SPEC.md's rules (cases):")
    for reason, count in sorted(cases.differences.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {count:6d}  {reason}")
    return "\n".join(lines)


def test_host_against_arrow(work):
    cases, path = write_cases(work)
    exe = os.path.join(work, "apply")
    sanitize = os.environ.get("UDFKIT_TEST_SANITIZE", "")
    flags = [f"-fsanitize={sanitize}", "-fno-sanitize-recover=all"] if sanitize else []
    run([CXX, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", *flags, "-I", INCLUDE,
         os.path.join(HERE, "apply.cpp"), "-o", exe])
    bad = compare(cases, run([exe, path]).stdout)
    assert not bad, f"{len(bad)} of {len(cases.lines)} cases differ"
    print(summary(cases))


def test_fast_paths(work):
    """The fast paths (32-bit calendar, reciprocals of 10^k, one-scale sums, 64-bit products)
    against the host's __int128 arithmetic and a calendar walked a day at a time
    (fast_paths.cpp)."""
    exe = os.path.join(work, "fast_paths")
    sanitize = os.environ.get("UDFKIT_TEST_SANITIZE", "")
    flags = [f"-fsanitize={sanitize}", "-fno-sanitize-recover=all"] if sanitize else []
    run([CXX, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", *flags, "-I", INCLUDE,
         os.path.join(HERE, "fast_paths.cpp"), "-o", exe])
    print("  " + run([exe]).stdout.strip())


def test_headers_alone(work):
    """Each header compiles by itself, as C++17 on the host, and udf.h as C11 too."""
    for header in ("decimal.cuh", "datetime.cuh"):
        src = os.path.join(work, "one.cpp")
        with open(src, "w") as f:
            f.write(f"#include <udfkit/{header}>\nint main() {{ return 0; }}\n")
        run([CXX, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", INCLUDE, src, "-o",
             os.path.join(work, "one")])
    src = os.path.join(work, "abi.c")
    with open(src, "w") as f:
        f.write("#include <udfkit/udf.h>\n#include <udfkit/runtime.h>\n"
                "int main(void) { udfkit_decimal128 d = {1, -1}; return d.lo == 1 && d.hi == -1 &&\n"
                "    UDFKIT_ROW_ERROR_INVALID_DATETIME == UDFKIT_ROW_ERROR_STRING_CHANGED + 5 ? 0 : 1; }\n")
    run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", INCLUDE, src, "-o",
         os.path.join(work, "abi")])
    run([os.path.join(work, "abi")])


def test_under_nvrtc(work):
    """UDFs using both headers through the C ABI of decimal, date and time specs, compiled by
    udfkit (NVRTC, which finds the headers in memory) for two architectures, LTO-IR and PTX,
    and the UDF header's prototypes."""
    from harness import ok
    src = os.path.join(HERE, "udfs.cu")
    ok("compile", src, "-f", *SPECS, "--arch", "75;80", "-o", os.path.join(work, "u.json"))
    ok("compile", src, "-f", *SPECS, "--arch", "90", "--emit", "ptx", "-o", os.path.join(work, "u.ptx"))
    ptx = open(os.path.join(work, "u.ptx")).read()
    for name in ("net_price", "share", "parse_cents", "format_cents", "next_month", "days_apart", "later"):
        assert name in ptx, name
    ok("header", os.path.join(work, "u.json"), "-o", os.path.join(work, "u.h"))
    header = open(os.path.join(work, "u.h")).read()
    assert "void net_price(udfkit_decimal128 *out, uint64_t a0_lo, int64_t a0_hi, int64_t a1)" in header, header


def test_under_nvcc(work):
    if not NVCC:
        print("  (no nvcc: skipped)")
        return
    run([NVCC, "-std=c++17", "-dc", "-arch=sm_80", "-I", INCLUDE, os.path.join(HERE, "udfs.cu"), "-o",
         os.path.join(work, "udfs.o")])


def nvcc():
    return NVCC or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def build_gpu_runner(exe, archs):
    run([nvcc(), "-std=c++17", "-O2", *archs, "-I", INCLUDE, os.path.join(HERE, "apply_gpu.cu"), "-o", exe])


def write(directory):
    os.makedirs(directory, exist_ok=True)
    cases, _ = write_cases(directory)
    print(f"{len(cases.lines)} cases in {directory}")
    if os.path.exists(nvcc()):
        build_gpu_runner(os.path.join(directory, "apply_gpu"),
                         ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=[sm_90,compute_90]"])
        print(f"the GPU runner in {directory}")


def gpu(work, directory=None):
    """The cases on this machine's GPU (apply_gpu.cu), against the same expectations."""
    if directory:
        cases, path = Stored(directory), os.path.join(directory, "cases.txt")
    else:
        cases, path = write_cases(work)
    exe = os.path.join(directory, "apply_gpu") if directory else ""
    if not os.path.exists(exe):
        exe = os.path.join(work, "apply_gpu")
        build_gpu_runner(exe, ["-arch=native"])
    proc = subprocess.run([exe, path], capture_output=True, text=True, timeout=900)
    if proc.returncode == 77:
        print("no GPU visible: skipped")
        return 77
    assert proc.returncode == 0, proc.stderr
    bad = compare(cases, proc.stdout)
    print(f"gpu: {len(cases.lines) - len(bad)} of {len(cases.lines)} cases as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--gpu"] and len(sys.argv) <= 3:
        with tempfile.TemporaryDirectory() as work:
            sys.exit(gpu(work, sys.argv[2] if len(sys.argv) == 3 else None))
    if sys.argv[1:] == ["--report"]:
        print(summary(build_cases()))
        sys.exit(0)
    if sys.argv[1:2] == ["--write"] and len(sys.argv) == 3:
        write(sys.argv[2])
        sys.exit(0)
    from harness import main
    main([test_host_against_arrow, test_fast_paths, test_headers_alone, test_under_nvrtc, test_under_nvcc])
