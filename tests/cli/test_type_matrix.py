"""Dates, times and decimals in every kernel template, without a GPU (docs/decimals-and-dates.md,
"What works where"): for each of date32, date64, timestamp[s|ms|us|ns], duration[s|ms|us|ns],
decimal32(9,2), decimal64(18,2) and decimal128(38,2), CUDA C UDFs (values, and T? through the
C ABI pairs) in map, filter (indices, values, indices32), reduce, transform_reduce, both scans,
segmented_reduce, reduce_by_key (the type as values and as keys), sort, nullable_map (T and
T?, nullify), nullable_filter (bool and bool? over T?) and nullable_reduce: every launcher's
prototype in the header with the type's C ABI type where the template's T stands, the
launchers compiled by gcc (-Werror), the kernels of every type compiled by NVRTC, and those of
one type per storage (int32, int64, 16 bytes: all a kernel sees) linked with the UDFs for sm_80
in one library, every kernel found in the image. The same types as slots of a late-bound
library (--slot): the launchers, the slots' prototypes, and the engine's device code, which is
byte for byte that of the library over the UDFs (compiled and linked as above). And Python UDFs (numba-cuda) over every type in the same templates, compiled, and an
int64 type's linked. gpu-decimals runs such kernels on a GPU."""
import json
import os
import re
import shutil

import subprocess

from harness import UDFKIT, Skip, frontend_missing, main, ok, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNTIME_INCLUDE = os.path.join(ROOT, "src", "runtime", "include")

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
        f"udfkit_status {lib}_nullable_map_neg_{tag}_nullify({s}, const {c} *a1, udfkit_mask m1, {c} *out, uint8_t *out_bits, "
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


def every_template(work, lib):
    """u.json's functions in every template of every type as library `lib`: its header's
    prototypes checked, its launchers built, its kernels compiled (for sm_80)."""
    entries = [k for tag, t, _, _ in TYPES for k in kernels(tag, t)]
    ok("kernels", "u.json", *[a for k in entries for a in ("--kernel", k)], "--name", lib, "--cuda", f"{lib}.cu", "--c",
       f"{lib}.c", "--header", f"{lib}.h", cwd=work)
    check_header(os.path.join(work, f"{lib}.h"), [p for tag, t, c, _ in TYPES for p in prototypes(lib, tag, t, c)])
    build_launchers(work, work, os.path.join(work, f"{lib}.c"))
    ok("compile", f"{lib}.cu", "--arch", "80", "-o", f"{lib}.json", cwd=work)


def test_cuda_c_every_template(work):
    udf_library(work)
    functions = {f["c_name"]: f for f in json.load(open(os.path.join(work, "u.json")))["functions"]}
    for tag, t, c, _ in TYPES:
        # The C ABI of a T? function: the value and its validity, a result through out.
        v = "uint64_t a0_lo, int64_t a0_hi" if c == "udfkit_decimal128" else f"{c} a0"
        assert functions[f"nop_{tag}"]["prototype"] == f"bool nop_{tag}({c} *out, {v}, bool a0_valid)", functions[f"nop_{tag}"]
        assert functions[f"npos_{tag}"]["prototype"] == f"bool npos_{tag}(bool *out, {v}, bool a0_valid)"
    every_template(work, "tm")
    link_storages(work, "u.json", "ls")


# One type of each storage (int32, int64, 16 bytes): kernels see only the storage, so the
# kernels of these types linked with the UDFs stand for every type's (all of them are
# compiled). One library of every type's kernels took minutes to link.
LINKED = ("du_s", "dec32", "dec128")


def link_storages(work, udfs, lib, tags=LINKED):
    """The templates' kernels of the types tags, in one library, linked with the UDFs for
    sm_80; every kernel of the library found in the image."""
    chosen = [x for x in TYPES if x[0] in tags]
    ok("kernels", udfs, *[a for tag, t, _, _ in chosen for k in kernels(tag, t) for a in ("--kernel", k)], "--name", lib,
       "--cuda", f"{lib}.cu", "--c", f"{lib}.c", "--header", f"{lib}.h", cwd=work)
    launchers = re.findall(r"^udfkit_status (\w+)\(", open(os.path.join(work, f"{lib}.h")).read(), re.M)
    for tag, t, _, _ in chosen:
        assert f"{lib}_sort_less_{tag}" in launchers and f"{lib}_nullable_reduce_op_{tag}" in launchers, (tag, launchers)
    ok("compile", f"{lib}.cu", "--arch", "80", "-o", f"{lib}.json", cwd=work)
    link(work, f"{lib}.json", udfs, "--arch", "80-real", "-o", f"{lib}.fatbin")
    # Every kernel of the library is in the linked image, as SASS for sm_80.
    source = open(os.path.join(work, f"{lib}.cu")).read()
    wanted = sorted(set(re.findall(rf"__global__ void __launch_bounds__\(\w+\)\s+(udfkit_{lib}_\w+)\(", source)))
    assert len(wanted) >= 10 * len(chosen), (lib, wanted)
    image = json.loads(ok("inspect", f"{lib}.fatbin", "--json", cwd=work).out)
    entries = image["entries"]
    assert [e["kind"] + ":" + e["arch"] for e in entries] == ["sass:sm_80"], entries
    absent = [k for k in wanted if k not in entries[0]["kernels"]]
    assert not absent, f"{len(absent)} of {len(wanted)} kernels of {lib}.cu not in {lib}.fatbin, the first: {absent[:3]}"


def test_slots_of_every_type(work):
    """A late-bound engine whose slots are of every type: the launchers take the instance, the
    slots are listed with their signatures, and the engine's kernels are those of a library over
    UDFs that define the slots (what <engine>_bind links on the device)."""
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
    # The engine's device code is, byte for byte, that of a library of the same kernels over
    # the UDFs themselves (the slots are the functions a kernel calls, resolved when the bind
    # links the engine with a package): test_cuda_c_every_template compiles that code for
    # every type and links it, with these UDFs, for one type of each storage, as the bind
    # would (one link of every type's kernels took minutes; this one would repeat it).
    ok("kernels", "u.json", *[a for k in entries for a in ("--kernel", k)], "--name", "eng", "--cuda", "twin.cu",
       "--c", "twin.c", "--header", "twin.h", cwd=work)
    engine, twin = (open(os.path.join(work, f)).read() for f in ("eng.cu", "twin.cu"))
    assert engine == twin, "the engine's kernels differ from those of a library over the UDFs"


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
    every_template(work, "pm")
    # Linked: duration[s]'s. Python decimal UDFs in templates take minutes of CPU each to link
    # (their arithmetic inlined into every kernel); gpu-decimals' library dk links and runs them.
    link_storages(work, "u.json", "lp", ("du_s",))


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
