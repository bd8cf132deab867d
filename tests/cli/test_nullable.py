"""Nullable types (T?) in specs: CUDA C UDFs taking and returning cuda::std::optional, or
the C ABI pairs themselves; Python UDFs taking and returning None; the header's pairs; and
the errors (optional-ness that does not match the spec, a nullable pointer, void?, None
returned under a plain return type, a template kernel over a nullable function), each with
its message and exit status and no output left. Under numba-cuda-mlir, which cannot build
udfkit's C ABI for T?, the Python cases are refused, saying so."""
import json
import os
import re

from harness import Skip, data, files_under, frontend_missing, main, ok, udfkit

CUDA_SPECS = ["coalesce:float32?(float32?, float32)", "safe_div:float64?(float64, float64)",
              "first_valid:int32?(int32?, int32?)", "halve:void(float32, float32?*)"]
PY_SPECS = ["py_coalesce:float32?(float32?, float32)", "py_safe_div:float64?(float64, float64)",
            "py_both:(int64?, int64?)"]


def test_cuda_and_python_nullable_udfs_and_headers(work):
    cu, py = data("nullable/udfs.cu"), data("nullable/udfs.py")
    ok("compile", cu, "-f", *CUDA_SPECS, "--arch", "80", "-o", os.path.join(work, "c.json"))
    ok("compile", py, "-f", *PY_SPECS, "--arch", "80", "-o", os.path.join(work, "p.json"))
    functions = {f["c_name"]: f for m in ("c.json", "p.json") for f in json.load(open(os.path.join(work, m)))["functions"]}
    assert functions["py_both"]["signature"] == "int64?(int64?, int64?)", functions["py_both"]  # inferred T?
    assert functions["halve"]["prototype"] == "void halve(float a0, float *a1, bool *a1_valid)", functions["halve"]
    for m in ("c", "p"):
        ok("header", os.path.join(work, f"{m}.json"), "-o", os.path.join(work, f"{m}.h"))
    header = open(os.path.join(work, "c.h")).read() + open(os.path.join(work, "p.h")).read()
    for line in ("__device__ bool coalesce(float *out, float a0, bool a0_valid, float a1);",
                 "__device__ bool safe_div(double *out, double a0, double a1);",
                 "__device__ bool first_valid(int32_t *out, int32_t a0, bool a0_valid, int32_t a1, bool a1_valid);",
                 "__device__ void halve(float a0, float *a1, bool *a1_valid);",
                 "__device__ bool py_both(int64_t *out, int64_t a0, bool a0_valid, int64_t a1, bool a1_valid);"):
        assert line in header, (line, header)
    # A kernel calling them through the header links.
    os.rename(os.path.join(work, "c.h"), os.path.join(work, "nullable_cuda.h"))
    os.rename(os.path.join(work, "p.h"), os.path.join(work, "nullable_py.h"))
    ok("compile", data("nullable/kernels.cu"), "-I", work, "--arch", "80", "-o", os.path.join(work, "k.json"))
    ok("link", *(os.path.join(work, m) for m in ("k.json", "c.json", "p.json")), "--arch", "80-real",
       "-o", os.path.join(work, "n.fatbin"))


CU = """#include <cuda/std/optional>
__device__ cuda::std::optional<float> opt(cuda::std::optional<float> a, float b) { return a ? a : b; }
__device__ float plain(float a) { return a; }
__device__ void out(float x, float *y) { *y = x; }
__device__ bool pairs(int *out, float a, bool a_valid) { *out = (int)a; return a_valid; }
__device__ int pairs_ret(int *out, int a, bool a_valid) { *out = a; return a_valid; }
"""
PY = "def maybe(x):\n    if x < 0.0:\n        return None\n    return x\n"
PY_ERRORS = """import udfkit


def bad_code(x):
    if x < 0:
        raise udfkit.RowError(1.5)
    return x


def float_code(x):
    udfkit.row_error(x)
    return x
"""

# name, source, specs, status, message
CASES = [
    ("optional-parameter-declared-plain", "u.cu", ["opt:float32?(float32, float32)"], 1,
     r"^u\.cu:2: error: 'opt' does not match its declared signature float32\?\(float32, float32\): parameter 1 is "
     r"'cuda::std::.*optional<float>', declared float32$"),
    ("optional-return-declared-plain", "u.cu", ["opt:float32(float32?, float32)"], 1,
     r"'opt' does not match its declared signature float32\(float32\?, float32\): it returns "
     r"'cuda::std::.*optional<float>', declared float32"),
    ("plain-return-declared-nullable", "u.cu", ["plain:float32?(float32)"], 1,
     r"^u\.cu:3: error: 'plain' does not match its declared signature float32\?\(float32\): it returns 'float', "
     r"declared float32\?$"),
    ("nullable-output-needs-pairs", "u.cu", ["out:void(float32, float32?*)"], 1,
     r"parameter 2 is an output that may be set to null \(T\?\*\): 'out' must take the C ABI pairs itself"),
    ("pair-form-parameter", "u.cu", ["pairs:int32?(int32?)"], 1,
     r"^u\.cu:5: error: 'pairs' does not match its declared signature int32\?\(int32\?\): its C ABI parameter 2 "
     r"is 'float', declared int$"),
    ("pair-form-return", "u.cu", ["pairs_ret:int32?(int32?)"], 1,
     r"^u\.cu:6: error: 'pairs_ret' does not match its declared signature int32\?\(int32\?\): it returns 'int', "
     r"declared bool \(whether the T\? result is valid, in the C ABI pair form\)$"),
    ("nullable-pointer", "u.cu", ["plain:float32(float32*?)"], 1,
     r"'float32\*\?' is not a type: a pointer cannot be null in udfkit's C ABI; an output that may be set to null "
     r"is T\?\*"),
    ("nullable-void", "u.cu", ["plain:void?(float32)"], 1, r"'void\?' is not a type: void cannot be null"),
    ("python-none-under-plain-return", "m.py", ["maybe:float32(float32)"], 1,
     r"^m\.py:3: error: 'maybe' may return None, but its return type float32 is not nullable: declare float32\? "
     r"in its spec$"),
    ("python-none-inferred-without-nullable", "m.py", ["maybe:(float32)"], 1,
     r"^m\.py:1: error: 'maybe' may return None, but its spec has no nullable return"),
    ("python-nullable-output", "m.py", ["maybe:void(float32, float32?*)"], 1,
     r"parameter 2 is float32\?\*, an output that may be set to null; a Python UDF returns None instead"),
    ("python-row-error-code-not-int", "e.py", ["bad_code:int32(int32)"], 1,
     r"^e\.py:6: error: .*udfkit\.RowError takes one constant int code \(an int32\), not \(1\.5,\)"),
    ("python-row-error-float", "e.py", ["float_code:float32(float32)"], 1,
     r"^e\.py:11: error: cannot compile 'float_code' for \(float32\): No implementation of function "
     r"Function\(<intrinsic row_error>\) found for signature: >>> row_error\(float32\)"),
]


def make_case(name, source, specs, status, pattern):
    def test(work):
        with open(os.path.join(work, "u.cu"), "w") as f:
            f.write(CU)
        with open(os.path.join(work, "m.py"), "w") as f:
            f.write(PY)
        with open(os.path.join(work, "e.py"), "w") as f:
            f.write(PY_ERRORS)
        os.makedirs(os.path.join(work, "out"))
        r = udfkit("compile", source, "-f", *specs, "--arch", "80", "-o", "out/x.json", cwd=work)
        assert r.rc == status, r
        assert re.search(pattern, r.err, re.M), f"{pattern!r} not in {r.err!r}"
        assert "Traceback" not in r.err and files_under(os.path.join(work, "out")) == [], r
    test.__name__ = name.replace("-", "_")
    return test


def test_row_errors_reach_the_c_abi(work):
    """A CUDA C UDF calls udfkit_row_error without an include (<udfkit/udf.h> is pre-included,
    and may be included); a Python UDF calls udfkit.row_error or raises: each compiles to a
    call of the C ABI's void udfkit_row_error(int), with RowError's code or -1."""
    with open(os.path.join(work, "c.cu"), "w") as f:
        f.write("__device__ int d(int a, int b) { if (b == 0) udfkit_row_error(a); return b ? a / b : 0; }\n"
                "#include <udfkit/udf.h>\n__device__ int e(int a) { if (a < 0) udfkit_row_error(7); return a; }\n")
    with open(os.path.join(work, "p.py"), "w") as f:
        f.write("import udfkit\nfrom udfkit import RowError, row_error\n\n\ndef called(a, b):\n    if b == 0:\n"
                "        row_error(a)\n    return a\n\n\ndef raised(x):\n    if x < 0:\n        raise RowError(42)\n"
                "    return x\n\n\ndef other(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x\n")
    ok("compile", "c.cu", "-f", "d:int32(int32, int32)", "e:int32(int32)", "--arch", "80", "--emit", "ptx",
       "-o", "c.json", cwd=work)
    ok("compile", "p.py", "-f", "called:int32(int32, int32)", "raised:int32(int32)", "other:int32(int32)",
       "--arch", "80", "--emit", "ptx", "-o", "p.json", cwd=work)
    ptx = {}
    for m in ("c.json", "p.json"):
        manifest = json.load(open(os.path.join(work, m)))
        for a in manifest["artifacts"]:
            # Python: a PTX file per function; CUDA C: one per source, for all its functions.
            for name in [a["function"]] if "function" in a else [f["c_name"] for f in manifest["functions"]]:
                ptx[name] = ptx.get(name, "") + open(os.path.join(work, a["path"])).read()
    for name, code in (("d", None), ("e", "7"), ("called", None), ("raised", "42"), ("other", "-1")):
        text = ptx[name]
        assert re.search(r"\.extern \.func udfkit_row_error\s*\(\s*\.param \.b32 udfkit_row_error_param_0\s*\)", text), \
            (name, text)
        if code is not None:
            assert re.search(rf"(mov\.[bus]32\s+%r\d+|st\.param\.b32\s+\[param0\+0\]), {code};", text), (name, code)


def test_templates_refuse_nullable_functions(work):
    ok("compile", data("nullable/udfs.cu"), "-f", *CUDA_SPECS, "--arch", "80", "-o", os.path.join(work, "c.json"))
    r = udfkit("kernels", os.path.join(work, "c.json"), "--kernel", "map(coalesce)", "--name", "lib", "--check")
    assert r.rc == 1 and "map takes no nullable (T?) types" in r.err and "use nullable_map(coalesce)" in r.err, r


def test_python_nullable_under_numba_cuda_mlir(work):
    """numba-cuda-mlir cannot compute with, store or pass on an optional value, so udfkit's
    C ABI for T? cannot be built with it: each nullable Python spec is an input error at the
    function naming the feature and the frontend, with nothing left; None under a plain
    return is the same error as under numba-cuda; row_error compiles, a raise is refused."""
    if frontend_missing("numba-cuda-mlir"):
        raise Skip(f"numba-cuda-mlir does not import here ({frontend_missing('numba-cuda-mlir')})")
    py = data("nullable/udfs.py")
    lines = {name: n + 1 for n, text in enumerate(open(py).read().splitlines()) for name in ("py_coalesce", "py_safe_div",
                                                                                              "py_both")
             if text.startswith(f"def {name}(")}
    os.makedirs(os.path.join(work, "out"))
    for spec in PY_SPECS:
        name = spec.split(":")[0]
        r = udfkit("compile", py, "-f", spec, "--python-frontend", "numba-cuda-mlir", "-o", os.path.join(work, "out", "x.json"))
        said = (rf"'{name}': nullable types \(T\?\) are not supported under numba-cuda-mlir 0\.6\.0" if "?" in spec else
                rf"'{name}' may return None, but its spec has no nullable return: nullable returns \(T\?\) are not "
                rf"supported under numba-cuda-mlir")
        assert r.rc == 1 and re.search(rf"udfs\.py:{lines[name]}: error: {said}", r.err), (spec, r)
        assert files_under(os.path.join(work, "out")) == [], r
    with open(os.path.join(work, "m.py"), "w") as f:
        f.write(PY)
    r = udfkit("compile", "m.py", "-f", "maybe:float32(float32)", "--python-frontend", "numba-cuda-mlir", "-o",
               "out/x.json", cwd=work)
    assert r.rc == 1 and re.search(r"^m\.py:3: error: 'maybe' may return None, but its return type float32 is not "
                                   r"nullable: declare float32\? in its spec$", r.err, re.M), r
    with open(os.path.join(work, "p.py"), "w") as f:
        f.write("from udfkit import RowError, row_error\n\n\ndef called(a, b):\n    if b == 0:\n        row_error(a)\n"
                "    return a\n\n\ndef raised(x):\n    if x < 0:\n        raise RowError(42)\n    return x\n")
    ok("compile", "p.py", "-f", "called:int32(int32, int32)", "--python-frontend", "numba-cuda-mlir", "--emit", "ptx",
       "-o", "out/p.json", cwd=work)
    assert "udfkit_row_error" in open(os.path.join(work, "out", "p.called.compute_75.ptx")).read()
    r = udfkit("compile", "p.py", "-f", "raised:int32(int32)", "--python-frontend", "numba-cuda-mlir", "-o",
               "out/r.json", cwd=work)
    assert r.rc == 1 and "p.py:12: error: 'raised' raises an exception: raise and assert are not supported under " \
        "numba-cuda-mlir" in r.err and not os.path.exists(os.path.join(work, "out", "r.json")), r


if __name__ == "__main__":
    main([test_cuda_and_python_nullable_udfs_and_headers, *[make_case(*c) for c in CASES],
          test_row_errors_reach_the_c_abi, test_templates_refuse_nullable_functions,
          test_python_nullable_under_numba_cuda_mlir])
