"""Dates, times and decimals (docs/decimals-and-dates.md) without a GPU: every form a CUDA C
UDF may take for a decimal128 (the out first, a value returned, values taken, the C ABI
itself) compiled, checked against the spec and linked with kernels over them; the forms
that do not match refused at the definition (file:line), with exit 1 and no output left."""
import json
import os
import re

from harness import main, ok, udfkit

D2 = "decimal128(38,2)"
FORMS = r"""
#include <udfkit/decimal.cuh>

__device__ void widen(udfkit_decimal128 *out, long long v)
{
    out->lo = (unsigned long long)v;
    out->hi = v < 0 ? -1 : 0;
}

__device__ udfkit_decimal128 widen_by_value(long long v)
{
    udfkit_decimal128 r;
    if (int e = udfkit::decimal(v, 2).store(&r, 38, 2))
        udfkit_row_error(e);
    return r;
}

__device__ udfkit_decimal128 add_values(udfkit_decimal128 a, udfkit_decimal128 b)
{
    udfkit_decimal128 r;
    if (int e = (udfkit::decimal::from_abi(a, 2) + udfkit::decimal::from_abi(b, 2)).store(&r, 38, 2))
        udfkit_row_error(e);
    return r;
}

__device__ void add_out(udfkit_decimal128 *out, udfkit_decimal128 a, udfkit_decimal128 b)
{
    *out = add_values(a, b);
}

extern "C" __device__ void add_abi(udfkit_decimal128 *out, unsigned long long a_lo, long long a_hi,
                                   unsigned long long b_lo, long long b_hi)
{
    udfkit_decimal128 a = {a_lo, a_hi}, b = {b_lo, b_hi};
    *out = add_values(a, b);
}

__device__ bool positive(udfkit_decimal128 a) { return a.hi > 0 || (a.hi == 0 && a.lo > 0); }

__device__ int days(int d, long long t) { return d + (int)(t / 86400000000ll); }
"""

SPECS = [f"widen:{D2}(decimal64(15,2))", f"widen_by_value:{D2}(decimal64(15,2))", f"add_values:{D2}({D2}, {D2})",
         f"add_out:{D2}({D2}, {D2})", f"add_abi:{D2}({D2}, {D2})", f"positive:bool({D2})",
         "days:date32(date32, timestamp[us])"]


def test_every_decimal128_form(work):
    with open(os.path.join(work, "u.cu"), "w") as f:
        f.write(FORMS)
    ok("compile", "u.cu", "-f", *SPECS, "--arch", "80", "-o", "u.json", cwd=work)
    functions = {f["c_name"]: f for f in json.load(open(os.path.join(work, "u.json")))["functions"]}
    for name in ("widen", "widen_by_value"):
        assert functions[name]["prototype"] == f"void {name}(udfkit_decimal128 *out, int64_t a0)", functions[name]
    for name in ("add_values", "add_out", "add_abi"):
        assert functions[name]["prototype"] == \
            f"void {name}(udfkit_decimal128 *out, uint64_t a0_lo, int64_t a0_hi, uint64_t a1_lo, int64_t a1_hi)", \
            functions[name]
    assert functions["positive"]["prototype"] == "bool positive(uint64_t a0_lo, int64_t a0_hi)", functions["positive"]
    assert functions["days"]["prototype"] == "int32_t days(int32_t a0, int64_t a1)", functions["days"]
    # Kernels over each form link: the forwarders have the C ABI the kernels call.
    ok("kernels", "u.json", "--kernel", "map(widen)", "--kernel", "map(widen_by_value)", "--kernel",
       "reduce(add_values)", "--kernel", "reduce(add_out)", "--kernel", "reduce_by_key(add_abi, int32)",
       "--kernel", "filter(positive)", "--kernel", "map(days)", "--name", "dm", "--cuda", "dm.cu", "--c", "dm.c",
       "--header", "dm.h", cwd=work)
    ok("compile", "dm.cu", "--arch", "80", "-o", "dm.json", cwd=work)
    ok("link", "dm.json", "u.json", "--arch", "80-real", "-o", "dm.fatbin", cwd=work)


REFUSED = [
    # (source, spec, what the message says)
    ("__device__ udfkit_decimal128 f(udfkit_decimal128 a) { return a; }",
     f"f:{D2}?({D2}?)", r"'f' must take a decimal128\? through the C ABI itself"),
    ("__device__ long long f(long long a) { return a; }",
     f"f:{D2}(decimal64(15,2))", r"'f' does not match its declared signature decimal128\(38,2\)\(decimal64\(15,2\)\): it returns 'long long', "
     r"declared decimal128\(38,2\)"),
    ("__device__ udfkit_decimal128 f(long long a) { udfkit_decimal128 r = {0, 0}; return r; }",
     f"f:{D2}({D2})", r"'f' does not match its declared signature decimal128\(38,2\)\(decimal128\(38,2\)\): parameter 1 "
                     r"is 'long long', declared decimal128\(38,2\)"),
    ("__device__ void f(udfkit_decimal128 *out, double a) { }",
     f"f:{D2}(float32)", r"'f' does not match its declared signature decimal128\(38,2\)\(float32\): parameter 1 is 'double', "
     r"declared float32"),
]


def make_refused(i, source, spec, pattern):
    def test(work):
        path = os.path.join(work, "bad.cu")
        with open(path, "w") as f:
            f.write("\n" + source + "\n")
        r = udfkit("compile", path, "-f", spec, "--arch", "80", "-o", os.path.join(work, "bad.json"))
        assert r.rc == 1, r
        assert re.search(r"bad\.cu:2(:\d+)?: error: ", r.err), r.err
        assert re.search(pattern, r.err), r.err
        assert not os.path.exists(os.path.join(work, "bad.json")), os.listdir(work)
    test.__name__ = f"test_refused_{i}"
    return test


if __name__ == "__main__":
    main([test_every_decimal128_form, *[make_refused(i, *c) for i, c in enumerate(REFUSED)]])
