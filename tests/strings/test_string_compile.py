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
- g++ -std=c++17 -Wall -Wextra -Wpedantic -Werror on the header alone;
- no recursion and no call through a pointer in the PTX of the library (string_udfs.cu) and of
  the C ABI functions Python string UDFs call (udfkit_strings.SHIM_SOURCE): where a kernel's
  call graph has either, CUDA cannot size its stack when it is linked and gives it the default
  1 KiB a thread, which a Python UDF's row arena (512 bytes) and float() overflow.

Environment: UDFKIT (the tool), UDFKIT_TEST_DATA, UDFKIT_NVCC, UDFKIT_SOURCE_DIR, CXX."""
import os
import re
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


PTX_FUNCTION = re.compile(r"^\s*(?:\.(?:visible|weak|extern)\s+)*\.(?:func|entry)\s+(?:\([^)]*\)\s*)?([\w$.]+)")
PTX_CALL = re.compile(r"\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([\w$.%]+)")


def call_graph(ptx):
    """The functions a PTX module defines, each with the targets of its calls (a register
    where the call goes through a pointer)."""
    funcs, name, body, depth = {}, None, None, 0
    for line in ptx.splitlines():
        if body is None:
            m = PTX_FUNCTION.match(line)
            if m:
                name = m.group(1)
            elif line.strip().startswith(";"):
                name = None  # a declaration
            if name and line.strip() == "{":
                body, depth = [], 1
            continue
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            funcs[name] = PTX_CALL.findall("\n".join(body))
            name, body = None, None
        else:
            body.append(line)
    return funcs


def stack_problems(funcs):
    """What keeps the stack of a kernel calling these functions from being known statically:
    calls through a pointer, and cycles of calls (recursion)."""
    found = [f"{f} calls through a pointer" for f, calls in funcs.items() if any(c.startswith("%") for c in calls)]
    state = {}

    def visit(f, path):
        state[f] = 1
        for c in funcs.get(f, []):
            if state.get(c) == 1:
                found.append("recursion: " + " -> ".join(path[path.index(c):] + [c]))
            elif c in funcs and not state.get(c):
                visit(c, path + [c])
        state[f] = 2

    for f in funcs:
        if not state.get(f):
            visit(f, [f])
    return found


def check_stack(what, ptx_path):
    with open(ptx_path) as f:
        funcs = call_graph(f.read())
    calls = sum(len(c) for c in funcs.values())
    assert len(funcs) > 10 and calls > 100, f"{what}: {len(funcs)} functions and {calls} calls read from {ptx_path}"
    problems = stack_problems(funcs)
    assert not problems, f"{what}: the stack of a kernel calling it cannot be sized statically:\n" + "\n".join(problems)
    print(f"ok: {what}: {len(funcs)} functions, {calls} calls, no recursion, no call through a pointer")

# A UDF over the shim functions, so that `udfkit compile` takes the module (they are kept
# whether called or not: link-once and used).
SHIM_CALLER = """
extern "C" __device__ long long shim_len(const char *s, long long s_size)
{
    udfkit_pystr a;
    udfkit_pystr_param(&a, s, s_size, nullptr);
    return udfkit_pystr_len(&a);
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
        # The call graphs: the library's, and that of the functions Python string UDFs call.
        run([UDFKIT, "compile", udfs, "--function", "string_score:int64(string)", "--arch", "90", "--emit", "ptx",
             "-o", out("ptx.json")])
        check_stack("<udfkit/string.cuh>", out("ptx.string_udfs.compute_90.ptx"))
        sys.path.insert(0, os.path.join(SOURCE, "src", "frontend"))
        import udfkit_strings  # noqa: E402
        shim = out("shim.cu")
        with open(shim, "w") as f:
            f.write(udfkit_strings.SHIM_SOURCE + SHIM_CALLER)
        run([UDFKIT, "compile", shim, "--function", "shim_len:int64(string)", "--arch", "90", "--emit", "ptx", "-o",
             out("shim.json")])
        check_stack("udfkit_strings.SHIM_SOURCE", out("shim.shim.compute_90.ptx"))
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
