"""Python UDFs over decimals, dates and times (numba-cuda): specs with decimal32/64/128(p,s),
date32, date64, timestamp[unit] and duration[unit] (nullable too) compile to the C ABI of
SPEC.md (decimal128 parameters as two halves, a decimal128 result through a leading out
pointer, date32 and decimal32 as int32), with the CUDA C their operations call as a link
artifact; a kernel calling them through the header links with no symbol left undefined; and
what cannot work is refused with one `file:line: error:` naming the operation, exit 1, no
output left. The values: gpu-python-dates-decimals checks them on a GPU, and here the same
cases run on the host (test_cases_on_the_host): numba-cuda's LLVM IR of each wrapped UDF,
retargeted to this machine and compiled by llvmlite's JIT, calling the same CUDA C compiled
as C++ by the host compiler, every row against the same expected values and codes."""
import ctypes
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import types as pytypes

from harness import Skip, data, files_under, frontend_missing, main, ok, udfkit

SPECS = ["net:decimal128(38,4)(decimal128(15,2), decimal64(4,2))", "charge:decimal64(18,2)(decimal64(15,2), "
         "decimal64(15,2), decimal64(15,2))", "narrow:decimal32(9,2)(decimal128(20,4))", "rounded:int64(decimal64(18,4))",
         "compare:int32(decimal32(9,2), decimal128(20,5))", "date_fields:int64(date32)",
         "plus_duration:(date32, duration[s])", "days_apart:duration[s](date32, date32)", "to_day:date32(timestamp[ms])",
         "earlier:(timestamp[us], timestamp[ns])", "in_seconds:(timestamp[ns])", "from_float:decimal64(18,3)(float64)",
         "later_months:date32(date32, int32)", "nullable_net=net:decimal128(38,4)?(decimal128(15,2)?, decimal64(4,2))",
         "nullable_days=days_apart:duration[ms]?(date32?, date32)", "date64_day=to_day:date32(date64)"]

KERNEL = """#include "dd.h"

extern "C" __device__ void udfkit_row_error(int code) { (void)code; }

extern "C" __global__ void k(const udfkit_decimal128 *p, const long long *d, const int *day, const long long *ms,
                             udfkit_decimal128 *out, int *days, long long *secs, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    net(&out[i], p[i].lo, p[i].hi, d[i]);
    bool valid = nullable_net(&out[i], p[i].lo, p[i].hi, i & 1, d[i]);
    days[i] = to_day(ms[i]) + (valid ? 1 : 0) + (int)date_fields(day[i]) + later_months(day[i], 3);
    secs[i] = plus_duration(day[i], ms[i]) + days_apart(day[i], days[i]) + earlier(ms[i], ms[i]);
}
"""


def need_numba_cuda():
    missing = frontend_missing("numba-cuda")
    if missing:
        raise Skip(f"numba-cuda does not import: {missing}")


def test_specs_manifest_header_and_link(work):
    need_numba_cuda()
    manifest = os.path.join(work, "dd.json")
    ok("compile", data("py_dates_decimals/udfs.py"), "-f", *SPECS, "--arch", "80", "-o", manifest)
    m = json.load(open(manifest))
    functions = {f["c_name"]: f for f in m["functions"]}
    # Return types left to inference: numpy's result types as spec types.
    assert functions["plus_duration"]["signature"] == "timestamp[s](date32, duration[s])", functions["plus_duration"]
    assert functions["earlier"]["signature"] == "bool(timestamp[us], timestamp[ns])", functions["earlier"]
    assert functions["in_seconds"]["signature"] == "timestamp[s](timestamp[ns])", functions["in_seconds"]
    links = [a for a in m["artifacts"] if a.get("role") == "link"]
    assert len(links) == 1 and links[0]["kind"] == "ltoir", m["artifacts"]  # the shims, once for all
    ok("header", manifest, "-o", os.path.join(work, "dd.h"))
    header = open(os.path.join(work, "dd.h")).read()
    for line in ("__device__ void net(udfkit_decimal128 *out, uint64_t a0_lo, int64_t a0_hi, int64_t a1);",
                 "__device__ int32_t narrow(uint64_t a0_lo, int64_t a0_hi);",
                 "__device__ int32_t compare(int32_t a0, uint64_t a1_lo, int64_t a1_hi);",
                 "__device__ int64_t plus_duration(int32_t a0, int64_t a1);",
                 "__device__ bool nullable_net(udfkit_decimal128 *out, uint64_t a0_lo, int64_t a0_hi, bool a0_valid, "
                 "int64_t a1);",
                 "__device__ bool nullable_days(int64_t *out, int32_t a0, bool a0_valid, int32_t a1);"):
        assert line in header, (line, header)
    with open(os.path.join(work, "k.cu"), "w") as f:
        f.write(KERNEL)
    ok("compile", os.path.join(work, "k.cu"), "-I", work, "--arch", "80", "-o", os.path.join(work, "k.json"))
    # Every operation's C ABI function is defined by the shims: nothing is left undefined.
    ok("link", os.path.join(work, "k.json"), manifest, "--arch", "80-real", "-o", os.path.join(work, "dd.fatbin"))
    # PTX too: the shims come as PTX.
    ok("compile", data("py_dates_decimals/udfs.py"), "-f", SPECS[0], "--arch", "80", "--emit", "ptx", "-o",
       os.path.join(work, "ptx.json"))
    kinds = sorted(a["kind"] for a in json.load(open(os.path.join(work, "ptx.json")))["artifacts"])
    assert kinds == ["ptx", "ptx"], kinds


BAD = """import numpy as np

import udfkit
from udfkit import Decimal


def bad_literal(a):
    return a + Decimal("1.2.3")


def float_needs_scale(x):
    return Decimal(x)


def mixes_float(a, x):
    return a * x


def untyped_result(a):
    return a * 2


def wrong_result(a):
    return float(a)


def unknown_unit(t):
    return udfkit.floor_to(t, "fortnight")


def day_count(a, b):
    return b - a


def field_of_duration(d):
    return udfkit.year(d)


def runtime_unit(t, unit):
    return udfkit.between(t, t, unit)


def long_literal(a):
    return a * Decimal("1234567890123456789012345678901234567.89")
"""

# spec, line, what the message says.
REFUSALS = [
    ("bad_literal:decimal64(10,2)(decimal64(10,2))", 8, r"udfkit\.Decimal\('1\.2\.3'\): not a decimal number"),
    ("float_needs_scale:decimal64(10,2)(float64)", 12, r"udfkit\.Decimal\(x\) of a float x needs a scale: "
                                                       r"Decimal\(x, 2\)"),
    ("mixes_float:decimal64(10,2)(decimal64(10,2), float64)", 16, r"mul\(udfkit\.Decimal, float64\)"),
    ("untyped_result:(decimal64(10,2))", 19, r"'untyped_result' returns a udfkit\.Decimal: declare the result's "
                                             r"type in its spec"),
    ("wrong_result:decimal64(10,2)(decimal64(10,2))", 23, r"'wrong_result' returns float64, where its spec "
                                                          r"declares decimal64\(10,2\)"),
    ("unknown_unit:(timestamp[us])", 28, r"udfkit\.floor_to: unknown unit 'fortnight'"),
    ("day_count:(date32, date32)", 31, r"'day_count' returns timedelta64\[D\], which no spec type holds as it is"),
    ("field_of_duration:int64(duration[s])", 36, r"udfkit\.year takes a datetime64, not a timedelta64\[s\]"),
    ("runtime_unit:int64(timestamp[s], int32)", 40, r"udfkit\.between takes its unit as a constant string"),
    ("long_literal:decimal128(38,2)(decimal128(38,2))", 44, r"has more than 38 digits"),
    ("bad_literal:decimal64(10,2)(decimal64(10,2)*)", 7, r"parameter 1 is decimal64\(10,2\)\*: Python UDFs take "
                                                         r"dates, times and decimals by value"),
]


def test_refusals_name_the_operation_and_its_line(work):
    need_numba_cuda()
    source = os.path.join(work, "bad.py")
    with open(source, "w") as f:
        f.write(BAD)
    os.makedirs(os.path.join(work, "out"))
    for spec, line, said in REFUSALS:
        r = udfkit("compile", "bad.py", "-f", spec, "--arch", "80", "-o", os.path.join(work, "out", "b.json"),
                   cwd=work)
        assert r.rc == 1, (spec, r)
        assert re.search(rf"^bad\.py:{line}: error: .*{said}", r.err, re.M), (spec, said, r)
        assert "Traceback" not in r.err and files_under(os.path.join(work, "out")) == [], (spec, r)


def test_worker_fits_one_argument(work):
    """The worker, with this module in it, is one argument of `python -c`: Linux takes at
    most 128 KiB (MAX_ARG_STRLEN) in one argument."""
    worker = os.path.join(os.path.dirname(os.environ["UDFKIT"]), "generated", "udfkit_worker.py")
    if not os.path.isfile(worker):
        raise Skip(f"{worker} is not beside the tool (an installed udfkit)")
    text = open(worker, "rb").read()
    assert b"@UDFKIT_PY_DATES_DECIMALS@" not in text and b"def install(module, compiled=True)" in text
    assert len(text) < 128 * 1024, f"the worker is {len(text)} bytes: past what one argument of execve may hold"


def test_numba_cuda_mlir_refuses_them(work):
    missing = frontend_missing("numba-cuda-mlir")
    if missing:
        raise Skip(f"numba-cuda-mlir does not import: {missing}")
    r = udfkit("compile", data("py_dates_decimals/udfs.py"), "-f", "date_fields:int64(date32)", "--arch", "80",
               "--python-frontend", "numba-cuda-mlir", "-o", os.path.join(work, "m.json"))
    assert r.rc == 1 and re.search(r"udfs\.py:\d+: error: 'date_fields': dates, times and decimals "
                                   r"\(date_fields:int64\(date32\)\) are supported under numba-cuda only", r.err), r
    assert not os.path.exists(os.path.join(work, "m.json")), r


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST_PRELUDE = """#define __device__
#define __forceinline__ inline
extern "C" {
int udfkit_host_row_error;
void udfkit_row_error(int code)
{
    if (!udfkit_host_row_error)
        udfkit_host_row_error = code;
}
}
"""


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def host_udfs(work):
    """udfkit_dates_decimals.py as the worker runs it, its `udfkit` module, and its shims
    compiled for the host (a shared library that defines udfkit_row_error)."""
    cxx = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++")
    if not cxx:
        raise Skip("no C++ compiler for the shims on the host")
    dd = load("udfkit_dates_decimals", os.path.join(ROOT, "src/frontend/udfkit_dates_decimals.py"))
    source = os.path.join(work, "shims.cpp")
    with open(source, "w") as f:
        f.write(HOST_PRELUDE + dd.SHIMS)
    shims = os.path.join(work, "shims.so")
    proc = subprocess.run([cxx, "-std=c++17", "-O1", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror",
                           "-I", os.path.join(ROOT, "src/runtime/include"), source, "-o", shims],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    module = pytypes.ModuleType("udfkit")
    sys.modules["udfkit"] = module
    dd.install(module)
    return dd, shims


def test_cases_on_the_host(work):
    need_numba_cuda()
    try:
        import llvmlite.binding as llvm
        import numpy  # noqa: F401
        import pyarrow  # noqa: F401
        from numba import cuda
        from numba.cuda import dispatcher
        from numba.cuda.compiler import _compile_pyfunc_with_fixup
    except ImportError as exc:
        raise Skip(f"cannot run the cases on the host: {exc}")
    dd, shims = host_udfs(work)

    class Target:  # device functions compile for a named architecture, as the worker does
        compute_capability = (8, 0)

    dispatcher.get_current_device = lambda: Target
    builder = load("build_python_dates_decimals", os.path.join(ROOT, "tests/gpu/build_python_dates_decimals.py"))
    udfs = load("dd_udfs_host", data("py_dates_decimals/udfs.py"))
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.load_library_permanently(shims)
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine)
    row_error = ctypes.c_int.in_dll(ctypes.CDLL(shims), "udfkit_host_row_error")

    class Frontend:
        def device_function(self, pyfunc):
            return cuda.jit(device=True)(pyfunc)

    def host(text):
        text = re.sub(r'target triple = ".*"', f'target triple = "{llvm.get_default_triple()}"', text)
        return re.sub(r'target datalayout = ".*"', f'target datalayout = "{machine.target_data}"', text)

    scalar = {"decimal32": ctypes.c_int32, "date32": ctypes.c_int32, "int32": ctypes.c_int32,
              "float64": ctypes.c_double, "bool": ctypes.c_bool}
    failures, rows = [], 0
    for name, source_name, params, ret, inputs, expected in builder.build_cases():
        fn = {"source_name": source_name, "c_name": name, "params": params, "ret": ret}
        numba_types = {"int32": "int32", "int64": "int64", "float64": "float64", "bool": "boolean"}
        wrapper, sig, _ = dd.wrapper(fn, getattr(udfs, source_name), "udfs.py", 1, Frontend(),
                                     lambda t: getattr(sys.modules["numba"].types, numba_types[t]), str)
        lib, _ = _compile_pyfunc_with_fixup(wrapper, sig, debug=False, lineinfo=False, device=True, fastmath=False,
                                            cc=(8, 0), opt=True, abi="c", abi_info={"abi_name": name},
                                            forceinline=False, launch_bounds=None, lto=False)
        modules = [llvm.parse_assembly(host(str(m))) for m in lib.modules]
        for m in modules[1:]:
            modules[0].link_in(m)
        modules[0].verify()
        engine.add_module(modules[0])
        engine.finalize_object()
        out_kind = builder.storage(ret)
        wide_out = out_kind == "decimal128"
        argtypes = []
        if wide_out or ret.endswith("?"):
            argtypes.append(ctypes.c_void_p)
        for t in params:
            kind = builder.storage(t)
            argtypes += [ctypes.c_uint64, ctypes.c_int64] if kind == "decimal128" else [scalar.get(kind, ctypes.c_int64)]
            if t.endswith("?"):
                argtypes.append(ctypes.c_bool)
        restype = ctypes.c_bool if ret.endswith("?") else None if wide_out else scalar.get(out_kind, ctypes.c_int64)
        call = ctypes.CFUNCTYPE(restype, *argtypes)(engine.get_function_address(name))
        out = (ctypes.c_uint64 * 2)()
        wrong = 0
        for i, (row, (want, want_code)) in enumerate(zip(zip(*inputs), expected)):
            args = [ctypes.addressof(out)] if wide_out or ret.endswith("?") else []
            for k, (t, v) in enumerate(zip(params, row)):
                if builder.storage(t) == "decimal128":
                    bits = v & ((1 << 128) - 1)
                    args += [bits & ((1 << 64) - 1), (bits >> 64) - ((bits >> 127) << 64)]
                else:
                    args.append(v)
                if t.endswith("?"):
                    args.append(i % 5 != 0 if k == 0 else True)
            out[0] = out[1] = 0
            row_error.value = 0
            r = call(*args)
            code = row_error.value
            if ret.endswith("?"):
                code = code or (0 if r else builder.NULL)
            if wide_out:
                got = out[0] | (out[1] << 64)
                got -= (got >> 127) << 128
            elif ret.endswith("?"):
                got = ctypes.cast(out, ctypes.POINTER(scalar.get(out_kind, ctypes.c_int64)))[0]
            else:
                got = r
            ok_row = code == want_code and (code != 0 or got == want)
            if not ok_row and wrong < 3:
                failures.append(f"{name} row {i} {row}: got {got!r} (error {code}), expected {want!r} "
                                f"(error {want_code})")
            wrong += not ok_row
            rows += 1
        if wrong:
            failures.append(f"{name}: {wrong} of {len(expected)} rows wrong")
    print(f"{rows} rows run on the host")
    assert not failures, "\n".join(failures)


if __name__ == "__main__":
    main([test_specs_manifest_header_and_link, test_refusals_name_the_operation_and_its_line,
          test_numba_cuda_mlir_refuses_them, test_cases_on_the_host, test_worker_fits_one_argument])
