"""Dates, times and decimals in every kernel template, without a GPU (docs/decimals-and-dates.md,
"What works where"): for each of date32, date64, timestamp[s|ms|us|ns], duration[s|ms|us|ns],
decimal32(9,2), decimal64(18,2) and decimal128(38,2), CUDA C UDFs (values, and T? through the
C ABI pairs) in map, filter (indices, values, indices32), reduce, transform_reduce, both scans,
segmented_reduce, reduce_by_key (the type as values and as keys), sort, nullable_map (T and
T?, nullify), nullable_filter (bool and bool? over T?) and nullable_reduce: every launcher's
prototype in the header with the type's C ABI type where the template's T stands, the
launchers compiled by gcc (-Werror), the kernels compiled by NVRTC and linked with the UDFs for
sm_80 and sm_90. The same types as slots of a late-bound library (--slot): the launchers, the
slots' prototypes, and the engine's kernels linked offline with UDFs that define the slots, as
a bind links them. And Python UDFs (numba-cuda) over every type in the same templates, linked.
gpu-decimals runs such kernels on a GPU."""
import json
import os
import re
import shutil

import subprocess

from harness import UDFKIT, Skip, frontend_missing, main, ok, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNTIME_INCLUDE = os.path.join(ROOT, "src", "runtime", "include")
ARCHS = "80-real;90-real"

# (tag, spec type, C ABI type, CUDA C implementation suffix)
TYPES = [("d32", "date32", "int32_t", "32"), ("d64", "date64", "int64_t", "64")]
TYPES += [(f"ts_{u}", f"timestamp[{u}]", "int64_t", "64") for u in ("s", "ms", "us", "ns")]
TYPES += [(f"du_{u}", f"duration[{u}]", "int64_t", "64") for u in ("s", "ms", "us", "ns")]
TYPES += [("dec32", "decimal32(9,2)", "int32_t", "32"), ("dec64", "decimal64(18,2)", "int64_t", "64"),
          ("dec128", "decimal128(38,2)", "udfkit_decimal128", "128")]

SOURCE = r"""
__device__ long long op64(long long a, long long b) { return a > b ? a : b; }
__device__ long long neg64(long long a) { return -a; }
__device__ bool less64(long long a, long long b) { return a < b; }
__device__ bool pos64(long long a) { return a > 0; }
extern "C" __device__ bool nop64(long long *out, long long a, bool a_valid) { *out = -a; return a_valid && a != 0; }
extern "C" __device__ bool npos64(bool *out, long long a, bool a_valid) { *out = a > 0; return a_valid; }
__device__ int op32(int a, int b) { return a > b ? a : b; }
__device__ int neg32(int a) { return -a; }
__device__ bool less32(int a, int b) { return a < b; }
__device__ bool pos32(int a) { return a > 0; }
extern "C" __device__ bool nop32(int *out, int a, bool a_valid) { *out = -a; return a_valid && a != 0; }
extern "C" __device__ bool npos32(bool *out, int a, bool a_valid) { *out = a > 0; return a_valid; }
extern "C" __device__ void op128(udfkit_decimal128 *out, unsigned long long a_lo, long long a_hi,
                                 unsigned long long b_lo, long long b_hi)
{
    const bool a_less = a_hi < b_hi || (a_hi == b_hi && a_lo < b_lo);
    out->lo = a_less ? b_lo : a_lo;
    out->hi = a_less ? b_hi : a_hi;
}
extern "C" __device__ void neg128(udfkit_decimal128 *out, unsigned long long a_lo, long long a_hi)
{
    out->lo = ~a_lo + 1;
    out->hi = (long long)(~(unsigned long long)a_hi + (a_lo == 0));
}
extern "C" __device__ bool less128(unsigned long long a_lo, long long a_hi, unsigned long long b_lo, long long b_hi)
{
    return a_hi < b_hi || (a_hi == b_hi && a_lo < b_lo);
}
extern "C" __device__ bool pos128(unsigned long long a_lo, long long a_hi) { return a_hi > 0 || (a_hi == 0 && a_lo); }
extern "C" __device__ bool nop128(udfkit_decimal128 *out, unsigned long long a_lo, long long a_hi, bool a_valid)
{
    neg128(out, a_lo, a_hi);
    return a_valid && (a_lo || a_hi);
}
extern "C" __device__ bool npos128(bool *out, unsigned long long a_lo, long long a_hi, bool a_valid)
{
    *out = pos128(a_lo, a_hi);
    return a_valid;
}
__device__ long long count64(long long a, long long b) { return a + b; }
"""


def specs(tag, t, impl):
    """The functions of one type: c_name=definition:signature."""
    return [f"op_{tag}=op{impl}:{t}({t}, {t})", f"neg_{tag}=neg{impl}:{t}({t})", f"less_{tag}=less{impl}:bool({t}, {t})",
            f"pos_{tag}=pos{impl}:bool({t})", f"nop_{tag}=nop{impl}:{t}?({t}?)", f"npos_{tag}=npos{impl}:bool?({t}?)"]


def count_by(t):
    """reduce_by_key(count, T): int64 values by keys of T; once a kind (launchers are named by
    the keys' kind, and the keys of timestamp[s] and timestamp[ns] are the same int64s)."""
    return [f"reduce_by_key(count, {t})"] if not t.startswith(("timestamp", "duration")) or t.endswith("[s]") else []


def kernels(tag, t):
    return [f"map(op_{tag})", f"map(neg_{tag})", f"filter(pos_{tag})", f"filter(pos_{tag}, values)",
            f"filter(pos_{tag}, indices32)", f"reduce(op_{tag})", f"transform_reduce(neg_{tag}, op_{tag})",
            f"inclusive_scan(op_{tag})", f"exclusive_scan(op_{tag})", f"segmented_reduce(op_{tag})",
            f"reduce_by_key(op_{tag}, {t})", *count_by(t), f"sort(less_{tag})",
            f"nullable_map(op_{tag})", f"nullable_map(nop_{tag})", f"nullable_map(neg_{tag}, nullify)",
            f"nullable_filter(pos_{tag})", f"nullable_filter(npos_{tag})", f"nullable_reduce(op_{tag})"]


def prototypes(lib, tag, t, c, inst=""):
    """Each launcher's prototype: the type's C ABI type c wherever the template's T stands."""
    k = re.sub(r"[\[(].*", "", t)  # reduce_by_key's launchers are named by the keys' kind
    s = f"{inst}udfkit_stream s, size_t n"
    return [
        f"udfkit_status {lib}_map_op_{tag}({s}, const {c} *a1, const {c} *a2, {c} *out);",
        f"udfkit_status {lib}_map_neg_{tag}({s}, const {c} *a1, {c} *out);",
        f"udfkit_status {lib}_filter_pos_{tag}({s}, const {c} *a1, uint64_t *indices, uint64_t *count);",
        f"udfkit_status {lib}_filter_pos_{tag}_values({s}, const {c} *a1, {c} *out1, uint64_t *count);",
        f"udfkit_status {lib}_filter_pos_{tag}_indices32({s}, const {c} *a1, uint32_t *indices, uint64_t *count);",
        f"udfkit_status {lib}_reduce_op_{tag}({s}, const {c} *in, {c} init, {c} *out);",
        f"udfkit_status {lib}_transform_reduce_neg_{tag}_op_{tag}({s}, const {c} *a1, {c} init, {c} *out);",
        f"udfkit_status {lib}_inclusive_scan_op_{tag}({s}, const {c} *in, {c} *out);",
        f"udfkit_status {lib}_exclusive_scan_op_{tag}({s}, const {c} *in, {c} init, {c} *out);",
        f"udfkit_status {lib}_segmented_reduce_op_{tag}({inst}udfkit_stream s, size_t segments, const uint64_t *offsets, "
        f"const {c} *in, {c} init, {c} *out);",
        f"udfkit_status {lib}_reduce_by_key_op_{tag}_by_{k}({s}, const {c} *keys, const {c} *in, {c} *unique_keys, "
        f"{c} *out, uint64_t *runs);",
        *[f"udfkit_status {lib}_reduce_by_key_count_by_{k}({s}, const {c} *keys, const int64_t *in, {c} *unique_keys, "
          f"int64_t *out, uint64_t *runs);" for _ in count_by(t)],
        f"udfkit_status {lib}_sort_less_{tag}({s}, const {c} *in, {c} *out, uint64_t *order);",
        f"udfkit_status {lib}_nullable_map_op_{tag}({s}, const {c} *a1, udfkit_mask m1, const {c} *a2, udfkit_mask m2, "
        f"{c} *out, uint8_t *out_bits, uint64_t *null_count);",
        f"udfkit_status {lib}_nullable_map_nop_{tag}({s}, const {c} *a1, udfkit_mask m1, {c} *out, uint8_t *out_bits, "
        f"uint64_t *null_count);",
        f"udfkit_status {lib}_nullable_map_neg_{tag}({s}, const {c} *a1, udfkit_mask m1, {c} *out, uint8_t *out_bits, "
        f"uint64_t *null_count);",
        f"udfkit_status {lib}_nullable_filter_pos_{tag}({s}, const {c} *a1, udfkit_mask m1, uint64_t *indices, "
        f"uint64_t *count);",
        f"udfkit_status {lib}_nullable_filter_npos_{tag}({s}, const {c} *a1, udfkit_mask m1, uint64_t *indices, "
        f"uint64_t *count);",
        f"udfkit_status {lib}_nullable_reduce_op_{tag}({s}, const {c} *in, udfkit_mask m, {c} init, {c} *out, "
        f"uint64_t *valid_count);",
    ]


def link(work, *args):
    """udfkit link, given the time a big link takes on a busy machine."""
    proc = subprocess.run([UDFKIT, "link", *args], cwd=work, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"udfkit link {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}"


def check_header(header, expected):
    text = " ".join(open(header).read().split())
    missing = [p for p in expected if p not in text]
    assert not missing, f"{len(missing)} prototypes missing, the first: {missing[:3]}"


def build_launchers(work, header_dir, launchers):
    run(["gcc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", RUNTIME_INCLUDE, "-I", header_dir, "-c",
         launchers, "-o", os.path.join(work, os.path.basename(launchers) + ".o")])


def udf_library(work):
    with open(os.path.join(work, "u.cu"), "w") as f:
        f.write(SOURCE)
    all_specs = [s for tag, t, _, impl in TYPES for s in specs(tag, t, impl)] + ["count=count64:int64(int64, int64)"]
    ok("compile", "u.cu", "-f", *all_specs, "--arch", "80", "-o", "u.json", cwd=work)
    return all_specs


def test_cuda_c_every_template(work):
    udf_library(work)
    functions = {f["c_name"]: f for f in json.load(open(os.path.join(work, "u.json")))["functions"]}
    for tag, t, c, _ in TYPES:
        # The C ABI of a T? function: the value and its validity, a result through out.
        v = "uint64_t a0_lo, int64_t a0_hi" if c == "udfkit_decimal128" else f"{c} a0"
        assert functions[f"nop_{tag}"]["prototype"] == f"bool nop_{tag}({c} *out, {v}, bool a0_valid)", functions[f"nop_{tag}"]
        assert functions[f"npos_{tag}"]["prototype"] == f"bool npos_{tag}(bool *out, {v}, bool a0_valid)"
    entries = [k for tag, t, _, _ in TYPES for k in kernels(tag, t)]
    ok("kernels", "u.json", *[a for k in entries for a in ("--kernel", k)], "--name", "tm", "--cuda", "tm.cu", "--c",
       "tm.c", "--header", "tm.h", cwd=work)
    check_header(os.path.join(work, "tm.h"), [p for tag, t, c, _ in TYPES for p in prototypes("tm", tag, t, c)])
    build_launchers(work, work, os.path.join(work, "tm.c"))
    ok("compile", "tm.cu", "--arch", "80", "-o", "tm.json", cwd=work)
    link_each_storage(work, "u.json", ARCHS)


def link_each_storage(work, udfs, archs, tags=("du_s", "dec32", "dec128")):
    """The templates' kernels of one type of each storage (int32, int64, 16 bytes), linked
    with the UDFs: one library of every type is too big to link in a test's time, and kernels
    see only the storage (the other types' kernels are compiled above)."""
    for tag, t, _, _ in (x for x in TYPES if x[0] in tags):
        lib = f"l_{tag}"
        ok("kernels", udfs, *[a for k in kernels(tag, t) for a in ("--kernel", k)], "--name", lib, "--cuda",
           f"{lib}.cu", "--c", f"{lib}.c", "--header", f"{lib}.h", cwd=work)
        ok("compile", f"{lib}.cu", "--arch", "80", "-o", f"{lib}.json", cwd=work)
        link(work, f"{lib}.json", udfs, "--arch", archs, "-o", f"{lib}.fatbin")
        assert os.path.getsize(os.path.join(work, f"{lib}.fatbin")) > 0


def test_slots_of_every_type(work):
    """A late-bound engine whose slots are of every type: the launchers take the instance, the
    slots are listed with their signatures, and the engine's LTO-IR links with UDFs that define
    the slots (what <engine>_bind does on the device)."""
    all_specs = udf_library(work)
    slots = [s.split("=", 1)[0] + ":" + s.split(":", 1)[1] for s in all_specs if not s.startswith("count=")]
    entries = [k for tag, t, _, _ in TYPES for k in kernels(tag, t)]
    ok("kernels", "--slot", *slots, "--function", "count:int64(int64, int64)",
       *[a for k in entries for a in ("--kernel", k)], "--name", "eng", "--cuda", "eng.cu", "--c", "eng.c", "--header",
       "eng.h", cwd=work)
    check_header(os.path.join(work, "eng.h"),
                 [p for tag, t, c, _ in TYPES for p in prototypes("eng", tag, t, c, "eng_instance *inst, ")])
    header = open(os.path.join(work, "eng.h")).read()
    launchers = open(os.path.join(work, "eng.c")).read()
    for slot in slots:
        name, signature = slot.split(":", 1)
        assert f" *   udfkit-slot {name} {signature}" in header, (slot, header)
        assert f'{{"{name}", "' in launchers, (slot, launchers)
    # The slots' signatures as the bind compares them: the spec's own spelling.
    for tag, t, _, _ in TYPES:
        assert f'{{"op_{tag}", "{t}({t}, {t})"}}' in launchers, (tag, launchers)
        assert f'{{"nop_{tag}", "{t}?({t}?)"}}' in launchers, (tag, launchers)
    build_launchers(work, work, os.path.join(work, "eng.c"))
    ok("compile", "eng.cu", "--arch", "80", "-o", "eng.json", cwd=work)
    link(work, "eng.json", "u.json", "--arch", "80-real", "-o", "eng.fatbin")


PYTHON = '''import numpy as np

ZERO_D = np.datetime64(0, "D")
ZERO_S = np.timedelta64(0, "s")


def op(a, b):
    return a if a > b else b


def same(a):
    return a


def neg(a):
    return -a


def less(a, b):
    return a < b


def after_epoch(a):
    return a > ZERO_D


def positive_duration(a):
    return a > ZERO_S


def positive(a):
    return a > 0


def maybe(a):
    if a is None:
        return None
    return a


def maybe_after_epoch(a):
    if a is None:
        return None
    return a > ZERO_D


def maybe_positive_duration(a):
    if a is None:
        return None
    return a > ZERO_S


def maybe_positive(a):
    if a is None:
        return None
    return a > 0


def count(a, b):
    return a + b
'''


def python_specs(tag, t):
    kind = "date" if t.startswith(("date", "timestamp")) else "duration" if t.startswith("duration") else "decimal"
    neg = "same" if kind == "date" else "neg"
    pos = {"date": "after_epoch", "duration": "positive_duration", "decimal": "positive"}[kind]
    return [f"op_{tag}=op:{t}({t}, {t})", f"neg_{tag}={neg}:{t}({t})", f"less_{tag}=less:bool({t}, {t})",
            f"pos_{tag}={pos}:bool({t})", f"nop_{tag}=maybe:{t}?({t}?)", f"npos_{tag}=maybe_{pos}:bool?({t}?)"]


def test_python_every_template(work):
    missing = frontend_missing("numba-cuda")
    if missing:
        raise Skip(f"numba-cuda does not import: {missing}")
    with open(os.path.join(work, "u.py"), "w") as f:
        f.write(PYTHON)
    all_specs = [s for tag, t, _, _ in TYPES for s in python_specs(tag, t)] + ["count:int64(int64, int64)"]
    ok("compile", "u.py", "-f", *all_specs, "--arch", "80", "--python-frontend", "numba-cuda", "-o", "u.json", cwd=work)
    entries = [k for tag, t, _, _ in TYPES for k in kernels(tag, t)]
    ok("kernels", "u.json", *[a for k in entries for a in ("--kernel", k)], "--name", "pm", "--cuda", "pm.cu", "--c",
       "pm.c", "--header", "pm.h", cwd=work)
    check_header(os.path.join(work, "pm.h"), [p for tag, t, c, _ in TYPES for p in prototypes("pm", tag, t, c)])
    build_launchers(work, work, os.path.join(work, "pm.c"))
    ok("compile", "pm.cu", "--arch", "80", "-o", "pm.json", cwd=work)
    # Linked: duration[s]'s. Python decimal UDFs in templates take minutes of CPU each to link
    # (their arithmetic inlined into every kernel); gpu-decimals' library dk links and runs them.
    link_each_storage(work, "u.json", "80-real", ("du_s",))


def test_cmake_kernels_entries(work):
    """add_jit_library's KERNELS with a type of parameters second (reduce_by_key(op,
    decimal128(38,2)), reduce_by_key(op, timestamp[us])), quoted and unquoted: taken, and each
    launcher named as `udfkit kernels` names it (the names CMake claims and exports)."""
    cmake = shutil.which("cmake")
    if not cmake:
        raise Skip("no cmake on PATH")
    udf_library(work)
    entries = [k for tag, t, _, _ in TYPES for k in kernels(tag, t)]
    ok("kernels", "u.json", *[a for k in entries for a in ("--kernel", k)], "--name", "tm", "--cuda", "tm.cu", "--c",
       "tm.c", "--header", "tm.h", cwd=work)
    generated = re.findall(r"^udfkit_status tm_(\w+)\(", open(os.path.join(work, "tm.h")).read(), re.M)
    quoted = " ".join(f'"{k}"' for k in entries)
    unquoted = " ".join(entries)  # CMake splits these at blanks and parentheses; reassembled
    module = os.path.join(ROOT, "modules", "detail", "_udfkit_kernels.cmake")
    for form, args in (("quoted", quoted), ("unquoted", unquoted)):
        script = os.path.join(work, f"{form}.cmake")
        with open(script, "w") as f:
            f.write(f'include("{module}")\n_udfkit_kernel_entries(add_jit_library lib out {args})\n'
                    'foreach(e IN LISTS out)\n  _udfkit_kernel_launcher("${e}" l)\n  message("${l}")\nendforeach()\n')
        r = run([cmake, "-P", script])
        launchers = r.stderr.split()
        assert launchers == [g for g in generated if g not in ("load", "udf_error")], (form, launchers, generated)


if __name__ == "__main__":
    main([test_cuda_c_every_template, test_slots_of_every_type, test_python_every_template, test_cmake_kernels_entries])
