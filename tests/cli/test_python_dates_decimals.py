"""Python UDFs over decimals, dates and times (numba-cuda): specs with decimal32/64/128(p,s),
date32, date64, timestamp[unit] and duration[unit] (nullable too) compile to the C ABI of
SPEC.md (decimal128 parameters as two halves, a decimal128 result through a leading out
pointer, date32 and decimal32 as int32), with the CUDA C their operations call as a link
artifact; a kernel calling them through the header links with no symbol left undefined; and
what cannot work is refused with one `file:line: error:` naming the operation, exit 1, no
output left. Their values are checked on a GPU by gpu-python-dates-decimals."""
import json
import os
import re

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


def test_numba_cuda_mlir_refuses_them(work):
    missing = frontend_missing("numba-cuda-mlir")
    if missing:
        raise Skip(f"numba-cuda-mlir does not import: {missing}")
    r = udfkit("compile", data("py_dates_decimals/udfs.py"), "-f", "date_fields:int64(date32)", "--arch", "80",
               "--python-frontend", "numba-cuda-mlir", "-o", os.path.join(work, "m.json"))
    assert r.rc == 1 and re.search(r"udfs\.py:\d+: error: 'date_fields': dates, times and decimals "
                                   r"\(date_fields:int64\(date32\)\) are supported under numba-cuda only", r.err), r
    assert not os.path.exists(os.path.join(work, "m.json")), r


if __name__ == "__main__":
    main([test_specs_manifest_header_and_link, test_refusals_name_the_operation_and_its_line,
          test_numba_cuda_mlir_refuses_them])
