#!/usr/bin/env python3
"""strings-compile: <udfkit/string.cuh> compiles cleanly where UDFs are compiled.

tests/data/strings/string_udfs.cu calls every function of the library, from a string in the
C ABI pair form (string_score, exported as `int64(string)`) and from a number (number_text):
- `udfkit compile` (NVRTC, the header found in memory) to LTO-IR for three architectures and
  `udfkit link` of it to SASS (nvJitLink), and straight to a cubin: no diagnostic at all;
- `udfkit compile` of a second unit including the header, linked with the first (each unit
  keeps the tables it reads to itself);
- nvcc -dc for sm_80 with -Werror all-warnings and the host compiler's -Wall -Wextra -Wshadow
  -Werror (skipped, saying why, without nvcc);
- g++ -std=c++17 -Wall -Wextra -Wpedantic -Werror on the header alone.

Environment: UDFKIT (the tool), UDFKIT_TEST_DATA, UDFKIT_NVCC, UDFKIT_SOURCE_DIR, CXX."""
import os
import subprocess
import sys
import tempfile

UDFKIT = os.environ["UDFKIT"]
DATA = os.path.join(os.environ["UDFKIT_TEST_DATA"], "strings")
SOURCE = os.environ.get("UDFKIT_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
INCLUDE = os.path.join(SOURCE, "src", "runtime", "include")
NVCC = os.environ.get("UDFKIT_NVCC", "")
SECOND_UNIT = """#include <udfkit/string.cuh>
extern "C" __device__ long long string_length(const char *s, long long s_size)
{
    return udfkit::string_view(s, s_size).length();
}
"""


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    shown = " ".join(cmd)
    assert proc.returncode == 0, f"{shown} failed:\n{proc.stdout}\n{proc.stderr}"
    assert not proc.stdout.strip() and not proc.stderr.strip(), f"{shown} said:\n{proc.stdout}\n{proc.stderr}"
    print(f"ok: {shown}")


def main():
    udfs = os.path.join(DATA, "string_udfs.cu")
    with tempfile.TemporaryDirectory() as work:
        out = lambda name: os.path.join(work, name)  # noqa: E731
        run([UDFKIT, "compile", udfs, "--function", "number_text:int64(int64)", "--function", "string_score:int64(string)", "--arch", "75;80;90",
             "-o", out("udfs.json")])
        second = out("second.cu")
        with open(second, "w") as f:
            f.write(SECOND_UNIT)
        run([UDFKIT, "compile", second, "--arch", "75;80;90", "-o", out("second.json")])
        run([UDFKIT, "link", out("udfs.json"), out("second.json"), "--arch", "80-real;90", "-o", out("udfs.fatbin")])
        run([UDFKIT, "compile", udfs, "--function", "number_text:int64(int64)", "--arch", "80-real", "--emit", "cubin",
             "-o", out("cubin.json")])
        header_only = out("header_only.cpp")
        with open(header_only, "w") as f:
            f.write("#include <udfkit/string.cuh>\nint main() { return udfkit::string_view(\"abc\").length() != 3; }\n")
        run([os.environ.get("CXX") or "g++", "-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Werror",
             "-I", INCLUDE, header_only, "-o", out("header_only")])
        if not NVCC or NVCC.endswith("-NOTFOUND"):
            print("nvcc: skipped: no nvcc (UDFKIT_NVCC)")
            return 0
        run([NVCC, "-dc", "-arch=sm_80", "-std=c++17", "-Werror", "all-warnings", "-Xcompiler",
             "-Wall,-Wextra,-Wshadow,-Werror", "-I", INCLUDE, udfs, "-o", out("udfs.o")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
