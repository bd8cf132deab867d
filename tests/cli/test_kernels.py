"""udfkit kernels: every error (the same with --check), no output left after one, and the
whole path: UDFs compiled, kernels generated, compiled and linked with them for 80-real;90,
embedded, and the launchers built with gcc into a program that, without a GPU, reports
UDFKIT_ERROR_NO_DRIVER; generated code made for another runtime ABI reports
UDFKIT_ERROR_ABI_MISMATCH."""
import json
import os
import shutil
import re
import subprocess

from harness import data, files_under, main, ok, run, udfkit

ARTIFACTS = os.environ["UDFKIT_TEST_ARTIFACTS"]
RUNTIME_LIBRARY = os.environ["UDFKIT_RUNTIME_LIBRARY"]
PTX_COMPILER_LIBRARY = os.environ["UDFKIT_NVPTXCOMPILER_LIBRARY"]  # the runtime compiles PTX with it
RUNTIME_INCLUDE = os.environ["UDFKIT_RUNTIME_INCLUDE"]
SANITIZE = [f"-fsanitize={os.environ['UDFKIT_TEST_SANITIZE']}"] if os.environ.get("UDFKIT_TEST_SANITIZE") else []
ARCHS = "80-real;90"
KERNEL_UDFS = ["is_even:bool(int32)", "add64:int64(int64, int64)", "affine:int64(int64, int64)",
               "max_f32:float32(float32, float32)", "inc8:int8(int8)"]
ENTRIES = ["map(scale)", "map(inc8)", "filter(is_even)", "reduce(add64)", "reduce(max_f32)"]
DECLARED = ["scale:float32(float32, float32)", "vf:void(float32)", "pf:float32(float32*)", "pr:float32*(float32)",
            "z:float32()", "mix:int64(int64, int32)", "rp:float32*(float32*, float32*)", "py:(float32)",
            "pp:bool(int32*)", "mo:void(float32, int32*, float64*)", "mixo:void(float32, float32*, float32)",
            "noin:void(float32*)", "vpo:void(float32, void*)", "nsum:float32?(float32?, float32)",
            "nred:float32?(float32?, float32?)", "nfl:float32?(float32)", "bq:bool?(int32?)",
            "nho:void(float32, float32?*, int64*)", "isbig:bool(float32)", "add64d:int64(int64, int64)",
            "half:float16(float16, float16)", "sq:float64(float32, int8)", "fadd:float64(float64, float64)",
            "hless:bool(float16, float16)"]

# name, arguments (besides the functions), exit status, message pattern
CASES = [
    ("nullable-entry-option", ["--kernel", "nullable_map(nsum, nulls)"], 1,
     r"^udfkit: error: kernel entry 'nullable_map\(nsum, nulls\)': unknown option 'nulls' \(nullable_map takes "
     r"'nullify': rows the UDF fails become nulls\)$"),
    ("option-on-map", ["--kernel", "map(scale, nullify)"], 1,
     r"^udfkit: error: kernel entry 'map\(scale, nullify\)': map takes no option \('nullify'\)$"),
    ("option-missing", ["--kernel", "nullable_map(nsum, )"], 1, r"kernel entry 'nullable_map\(nsum, \)' is not of the form"),
    ("map-of-nullable", ["--kernel", "map(nsum)"], 1,
     r"'nsum' is float32\?\(float32\?, float32\), but map takes no nullable \(T\?\) types: it passes dense "
     r"columns, with no validity; use nullable_map\(nsum\), whose columns come with validity bitmaps$"),
    ("filter-of-nullable", ["--kernel", "filter(bq)"], 1, r"but filter takes no nullable .* use nullable_filter\(bq\)"),
    ("nullable-filter-not-bool", ["--kernel", "nullable_filter(nfl)"], 1,
     r"'nfl' is float32\?\(float32\), but nullable_filter needs a predicate bool\(A1\.\.An\) or "
     r"bool\?\(A1\.\.An\)$"),
    ("nullable-reduce-nullable", ["--kernel", "nullable_reduce(nred)"], 1,
     r"'nred' is float32\?\(float32\?, float32\?\), but nullable_reduce skips nulls and combines valid values "
     r"only: op is T\(T, T\), with no nullable \(T\?\) types$"),
    ("nullable-reduce-shape", ["--kernel", "nullable_reduce(mix)"], 1,
     r"'mix' is int64\(int64, int32\), but nullable_reduce needs T\(T, T\): two parameters of the type it "
     r"returns$"),
    ("filter-option", ["--kernel", "filter(scale, rows32)"], 1,
     r"^udfkit: error: kernel entry 'filter\(scale, rows32\)': unknown option 'rows32' \(filter takes 'indices32': "
     r"32-bit row numbers, or 'values': the kept rows' values of every input\)$"),
    ("filter-values-twice", ["--kernel", "filter(isbig, values)", "--kernel", "filter( isbig , values)"], 1,
     r"kernel entry 'filter\( isbig , values\)' is given twice \(also as 'filter\(isbig, values\)'\)"),
    ("nullable-map-twice", ["--kernel", "nullable_map(nsum, nullify)", "--kernel", "nullable_map( nsum , nullify )"], 1,
     r"kernel entry 'nullable_map\( nsum , nullify \)' is given twice \(also as 'nullable_map\(nsum, nullify\)'\)"),
    # nullable_map(f, nullify) is <name>_nullable_map_<f>_nullify: a function named f_nullify
    # would make the same launcher.
    ("nullify-launcher-clash", ["--function", "nsum_nullify:float32?(float32?, float32)",
                                "--kernel", "nullable_map(nsum, nullify)", "--kernel", "nullable_map(nsum_nullify)"], 1,
     r"^udfkit: error: kernel entries 'nullable_map\(nsum, nullify\)' and 'nullable_map\(nsum_nullify\)' would both "
     r"make the launcher lib_nullable_map_nsum_nullify: rename one function$"),
    ("unknown-template", ["--kernel", "scan(scale)"], 1,
     r"^udfkit: error: unknown kernel template 'scan' in 'scan\(scale\)' \(templates: map, filter, reduce, nullable_map, nullable_filter, nullable_reduce, "
     r"inclusive_scan, exclusive_scan, reduce_by_key, transform_reduce, segmented_reduce, sort\)$"),
    ("scan-shape", ["--kernel", "inclusive_scan(mix)"], 1,
     r"^udfkit: error: kernel entry 'inclusive_scan\(mix\)': 'mix' is int64\(int64, int32\), but inclusive_scan needs "
     r"T\(T, T\): two parameters of the type it returns$"),
    ("scan-pointer", ["--kernel", "exclusive_scan(rp)"], 1,
     r"'rp' is float32\*\(float32\*, float32\*\), but exclusive_scan needs T\(T, T\) with T a value"),
    ("scan-nullable", ["--kernel", "exclusive_scan(nred)"], 1,
     r"'nred' is float32\?\(float32\?, float32\?\), but exclusive_scan takes no nullable \(T\?\) types: it passes "
     r"dense columns, with no validity$"),
    ("scan-option", ["--kernel", "inclusive_scan(scale, nullify)"], 1,
     r"kernel entry 'inclusive_scan\(scale, nullify\)': inclusive_scan takes no option \('nullify'\)$"),
    ("reduce-by-key-no-key", ["--kernel", "reduce_by_key(scale)"], 1,
     r"^udfkit: error: kernel entry 'reduce_by_key\(scale\)': reduce_by_key takes the op and the keys' type: "
     r"reduce_by_key\(op, K\), e\.g\. reduce_by_key\(add, int32\)$"),
    ("reduce-by-key-float-key", ["--kernel", "reduce_by_key(scale, float32)"], 1,
     r"reduce_by_key's keys are of a type compared as a whole \(int8, int16, int32, int64, uint8, uint16, uint32, "
     r"uint64, date32, date64, timestamp\[unit\], duration\[unit\], decimal32\(p,s\), decimal64\(p,s\), "
     r"decimal128\(p,s\)\), not 'float32'$"),
    ("reduce-by-key-shape", ["--kernel", "reduce_by_key(mix, int32)"], 1,
     r"'mix' is int64\(int64, int32\), but reduce_by_key needs T\(T, T\)"),
    ("reduce-by-key-twice", ["--kernel", "reduce_by_key(scale, int32)", "--kernel", "reduce_by_key(scale,int32)"], 1,
     r"kernel entry 'reduce_by_key\(scale,int32\)' is given twice"),
    ("transform-reduce-no-op", ["--kernel", "transform_reduce(sq)"], 1,
     r"transform_reduce takes the function and the op: transform_reduce\(f, op\)"),
    ("transform-reduce-op-type", ["--kernel", "transform_reduce(sq, scale)"], 1,
     r"^udfkit: error: kernel entry 'transform_reduce\(sq, scale\)': 'scale' is float32\(float32, float32\), but "
     r"transform_reduce needs op: T\(T, T\) with T the type 'sq' returns \(float64\), with no nullable \(T\?\) types$"),
    ("transform-reduce-no-such-op", ["--kernel", "transform_reduce(sq, nosuch)"], 1,
     r"kernel entry 'transform_reduce\(sq, nosuch\)': no function 'nosuch' among the inputs"),
    ("transform-reduce-void-f", ["--kernel", "transform_reduce(vf, scale)"], 1,
     r"'vf' is void\(float32\), but transform_reduce needs f: T\(A1\.\.An\) with T a value"),
    ("transform-reduce-pointer-f", ["--kernel", "transform_reduce(pf, scale)"], 1,
     r"'pf' is float32\(float32\*\), but transform_reduce passes one element of each input array"),
    ("sort-not-bool", ["--kernel", "sort(scale)"], 1,
     r"kernel entry 'sort\(scale\)': 'scale' is float32\(float32, float32\), but sort needs"),
    ("sort-one-parameter", ["--kernel", "sort(isbig)"], 1, r"kernel entry 'sort\(isbig\)': 'isbig' is bool\(float32\), but sort needs"),
    ("segmented-reduce-shape", ["--kernel", "segmented_reduce(isbig)"], 1,
     r"'isbig' is bool\(float32\), but segmented_reduce needs T\(T, T\): two parameters"),
    ("entry-without-parentheses", ["--kernel", "map"], 1,
     r"^udfkit: error: kernel entry 'map' is not of the form template\(c_name\), e\.g\. map\(f\)$"),
    ("entry-empty-name", ["--kernel", "map()"], 1, r"kernel entry 'map\(\)' is not of the form template\(c_name\)"),
    ("entry-two-names", ["--kernel", "map(scale vf)"], 1, r"kernel entry 'map\(scale vf\)' is not of the form"),
    ("entry-trailing-text", ["--kernel", "map(scale)x"], 1, r"kernel entry 'map\(scale\)x' is not of the form"),
    ("no-such-function", ["--kernel", "map(nosuch)"], 1,
     r"^udfkit: error: kernel entry 'map\(nosuch\)': no function 'nosuch' among the inputs \(functions: scale, vf,"),
    ("map-void", ["--kernel", "map(vf)"], 1,
     r"^udfkit: error: kernel entry 'map\(vf\)': 'vf' is void\(float32\), but map needs R\(A1\.\.An\) with R not "
     r"void, or void\(A1\.\.An, O1\*, \.\.\., Ok\*\) writing k outputs$"),
    ("map-outputs-not-last", ["--kernel", "map(mixo)"], 1,
     r"'mixo' is void\(float32, float32\*, float32\), but a map with outputs takes its inputs first, then only its "
     r"outputs \(O1\*, \.\.\., Ok\*\)$"),
    ("map-outputs-without-input", ["--kernel", "map(noin)"], 1,
     r"'noin' is void\(float32\*\), but a map with outputs needs void\(A1\.\.An, O1\*, \.\.\., Ok\*\) with at "
     r"least one input"),
    ("map-output-void-pointer", ["--kernel", "map(vpo)"], 1,
     r"'vpo' is void\(float32, void\*\), but a map's outputs point to values"),
    ("map-pointer-parameter", ["--kernel", "map(pf)"], 1,
     r"kernel entry 'map\(pf\)': 'pf' is float32\(float32\*\), but map passes one element of each input array, "
     r"not a pointer: parameter 1 is float32\*$"),
    ("map-pointer-return", ["--kernel", "map(pr)"], 1,
     r"kernel entry 'map\(pr\)': 'pr' is float32\*\(float32\), but map needs R\(A1\.\.An\) with R a value, not a pointer$"),
    ("map-no-parameter", ["--kernel", "map(z)"], 1,
     r"kernel entry 'map\(z\)': 'z' is float32\(\), but map needs at least one parameter"),
    ("filter-not-bool", ["--kernel", "filter(scale)"], 1,
     r"kernel entry 'filter\(scale\)': 'scale' is float32\(float32, float32\), but filter needs a predicate "
     r"bool\(A1\.\.An\)$"),
    ("filter-pointer-parameter", ["--kernel", "filter(pp)"], 1,
     r"kernel entry 'filter\(pp\)': 'pp' is bool\(int32\*\), but filter passes one element .*: parameter 1 is int32\*$"),
    ("reduce-mixed-types", ["--kernel", "reduce(mix)"], 1,
     r"kernel entry 'reduce\(mix\)': 'mix' is int64\(int64, int32\), but reduce needs T\(T, T\): two parameters of "
     r"the type it returns$"),
    ("reduce-pointer", ["--kernel", "reduce(rp)"], 1,
     r"kernel entry 'reduce\(rp\)': 'rp' is float32\*\(float32\*, float32\*\), but reduce needs T\(T, T\) with T a "
     r"value, not void or a pointer$"),
    ("entry-twice", ["--kernel", "map(scale)", "--kernel", "map( scale )"], 1,
     r"kernel entry 'map\( scale \)' is given twice \(also as 'map\(scale\)'\)"),
    ("name-not-identifier", ["--kernel", "map(scale)", "--name", "my-lib"], 1,
     r"^udfkit: error: --name 'my-lib' is not a C identifier"),
    ("name-reserved", ["--kernel", "map(scale)", "--name", "udfkit"], 1,
     r"--name 'udfkit' cannot name a library \(udfkit_load\): the prefix udfkit_ is udfkit's own"),
    ("function-twice", ["--kernel", "map(scale)", "--function", "scale:float32(float32, float32)"], 1,
     r"function 'scale' is given twice: by --function 'scale:float32\(float32, float32\)' and by --function"),
    ("function-spec-bad", ["--kernel", "map(scale)", "--function", "nosig"], 1, r"function spec 'nosig' has no signature"),
    ("manifest-missing", ["missing.json", "--kernel", "map(scale)"], 1, r"^missing\.json: error: cannot read"),
    ("fatbin-symbol-bad", ["--kernel", "map(scale)", "--fatbin-symbol", "a-b"], 2,
     r"--fatbin-symbol 'a-b' is not a C identifier"),
]


def outputs(work):
    return ["--cuda", os.path.join(work, "out", "lib_kernels.cu"), "--c", os.path.join(work, "out", "lib.c"),
            "--header", os.path.join(work, "out", "lib.h")]


def test_errors_leave_no_output_and_match_check(work):
    for name, args, status, pattern in CASES:
        base = ["kernels", "--function", *DECLARED, *args]
        if "--name" not in args:
            base += ["--name", "lib"]
        # Older outputs of the same names must go too.
        os.makedirs(os.path.join(work, "out"), exist_ok=True)
        for path in outputs(work)[1::2]:
            open(path, "w").write("old")
        r = udfkit(*base, *outputs(work), cwd=work)
        assert r.rc == status, f"{name}: {r!r}"
        assert re.search(pattern, r.err.strip(), re.M), f"{name}: {r.err!r} does not match {pattern!r}"
        assert files_under(os.path.join(work, "out")) == [], f"{name}: left {files_under(os.path.join(work, 'out'))}"
        checked = udfkit(*base, "--check", cwd=work)
        assert (checked.rc, checked.err) == (r.rc, r.err), f"{name}: --check differs: {checked!r}"


def test_map_with_outputs(work):
    """A map function void(A1..An, O1*, ..., Ok*) gets a launcher with k output columns."""
    r = udfkit("kernels", "--function", *DECLARED, "--kernel", "map(mo)", "--name", "lib", *outputs(work), cwd=work)
    assert r.rc == 0, r
    header = open(os.path.join(work, "out", "lib.h")).read()
    assert ("udfkit_status lib_map_mo(udfkit_stream s, size_t n, const float *a1, int32_t *out1, double *out2);"
            in header), header
    kernels = open(os.path.join(work, "out", "lib_kernels.cu")).read()
    assert "::mo(x.a1, &r->r1, &r->r2);" in kernels, kernels
    assert "udfkit_lib_map_mo(unsigned long long n, unsigned long long tiles, unsigned per_thread, const float *a1, int *out1, double *out2)" in kernels, kernels


def test_nullable_launchers(work):
    """nullable_map, nullable_filter and nullable_reduce: SPEC.md's launchers, each input with
    its udfkit_mask, each output with its bitmap; a null-aware UDF gets the validity pairs, a
    plain one is called only where its inputs are valid; <name>_udf_error is declared."""
    entries = ["nullable_map(nsum)", "nullable_map(nho, nullify)", "nullable_filter(bq)", "nullable_filter(isbig)",
               "nullable_reduce(scale2)"]
    r = udfkit("kernels", "--function", *DECLARED, "scale2:float32(float32, float32)",
               *[a for e in entries for a in ("--kernel", e)], "--name", "lib", *outputs(work), cwd=work)
    assert r.rc == 0, r
    header = open(os.path.join(work, "out", "lib.h")).read()
    for line in (
            "udfkit_status lib_udf_error(udfkit_stream s, uint64_t *row, int *code);",
            "udfkit_status lib_nullable_map_nsum(udfkit_stream s, size_t n, const float *a1, udfkit_mask m1, "
            "const float *a2, udfkit_mask m2, float *out, uint8_t *out_bits, uint64_t *null_count);",
            "udfkit_status lib_nullable_map_nho_nullify(udfkit_stream s, size_t n, const float *a1, udfkit_mask m1, "
            "float *out1, uint8_t *out1_bits, int64_t *out2, uint8_t *out2_bits, uint64_t *null_count);",
            "udfkit_status lib_nullable_filter_bq(udfkit_stream s, size_t n, const int32_t *a1, udfkit_mask m1, "
            "uint64_t *indices, uint64_t *count);",
            "udfkit_status lib_nullable_reduce_scale2(udfkit_stream s, size_t n, const float *in, udfkit_mask m, "
            "float init, float *out, uint64_t *valid_count);",
            " *   udfkit-kernel nullable_map nho void(float32, float32?*, int64*) lib_nullable_map_nho_nullify"):
        assert line in header, (line, header)
    kernels = open(os.path.join(work, "out", "lib_kernels.cu")).read()
    # The C ABI pairs: a T? parameter passes its validity, a T? return comes back as bool.
    assert "__device__ bool nsum(float *out, float a0, bool a0_valid, float a1);" in kernels, kernels
    assert "r->valid = ::nsum(&r->r1, x.a1, x.v1, x.a2) ? 1u : 0u;" in kernels, kernels
    # nsum's second parameter takes no null: a null there skips the call.
    assert "    if (!(x.v2))\n        return;\n" in kernels, kernels
    # nho: a T?* output is valid where the UDF says, a T* output where it runs; nullify.
    assert "bool w1 = false;" in kernels and "bool w2 = true;" in kernels, kernels
    assert "::nho(x.a1, &r->r1, &w1, &r->r2);" in kernels, kernels
    assert "if (check && udfkit_detail::row_failed(i, true))" in kernels, kernels
    assert "const bool known = ::bq(&result, x.a1, x.v1);" in kernels, kernels
    # isbig takes no null: a null input drops the row without a call.
    assert "const bool keep = ::isbig(x.a1);" in kernels, kernels
    # Each nullable_map has a second kernel for inputs without bitmaps (empty masks, which the
    # compiler folds away), and its launcher picks it where every input's bitmap is NULL.
    for f, masks in (("nsum", "a1, udfkit_detail::mask(), a2, udfkit_detail::mask()"),
                     ("nho_nullify", "a1, udfkit_detail::mask()")):
        assert f"__launch_bounds__(UDFKIT_BLOCK)\nudfkit_lib_nullable_map_{f}_dense(unsigned long long n, " in kernels
        assert f"udfkit_lib_nullable_map_{f}_validity(begin + t, {masks}, &x);" in kernels, kernels
    launchers = open(os.path.join(work, "out", "lib.c")).read()
    assert '    "udfkit_lib_nullable_map_nsum",\n    "udfkit_lib_nullable_map_nsum_dense",\n' in launchers, launchers
    assert "const unsigned dense = m1.bits == NULL && m2.bits == NULL;" in launchers, launchers
    assert "const unsigned dense = m1.bits == NULL;" in launchers, launchers
    assert launchers.count("udfkit_lib_kernel(NULL, 0 + dense, &k);") == 1, launchers
    # Every launcher is C17 without warnings.
    run(["cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I", os.path.join(work, "out"),
         "-I", RUNTIME_INCLUDE, os.path.join(work, "out", "lib.c")])


def test_grouped_launchers(work):
    """The grouped and ordered templates: SPEC.md's launchers (reduce_by_key's and
    transform_reduce's names carry their second argument), float16 as its bits, and each
    kernel's UDF calls; a library of only these needs none of the block helpers."""
    entries = ["inclusive_scan(scale)", "exclusive_scan(half)", "reduce_by_key(add64d, uint8)",
               "reduce_by_key(add64d, int64)", "transform_reduce(sq, fadd)", "segmented_reduce(fadd)", "sort(hless)"]
    r = udfkit("kernels", "--function", *DECLARED, *[a for e in entries for a in ("--kernel", e)], "--name", "lib",
               *outputs(work), cwd=work)
    assert r.rc == 0, r
    header = open(os.path.join(work, "out", "lib.h")).read()
    for line in (
            "udfkit_status lib_inclusive_scan_scale(udfkit_stream s, size_t n, const float *in, float *out);",
            "udfkit_status lib_exclusive_scan_half(udfkit_stream s, size_t n, const uint16_t *in, uint16_t init, "
            "uint16_t *out);",
            "udfkit_status lib_reduce_by_key_add64d_by_uint8(udfkit_stream s, size_t n, const uint8_t *keys, "
            "const int64_t *in, uint8_t *unique_keys, int64_t *out, uint64_t *runs);",
            "udfkit_status lib_reduce_by_key_add64d_by_int64(udfkit_stream s, size_t n, const int64_t *keys, "
            "const int64_t *in, int64_t *unique_keys, int64_t *out, uint64_t *runs);",
            "udfkit_status lib_transform_reduce_sq_fadd(udfkit_stream s, size_t n, const float *a1, const int8_t *a2, "
            "double init, double *out);",
            "udfkit_status lib_segmented_reduce_fadd(udfkit_stream s, size_t segments, const uint64_t *offsets, "
            "const double *in, double init, double *out);",
            " *   udfkit-kernel reduce_by_key add64d int64(int64, int64) lib_reduce_by_key_add64d_by_uint8",
            " *   udfkit-kernel transform_reduce sq float64(float32, int8) lib_transform_reduce_sq_fadd",
            "udfkit_status lib_sort_hless(udfkit_stream s, size_t n, const uint16_t *in, uint16_t *out, uint64_t *order);"):
        assert line in header, (line, header)
    kernels = open(os.path.join(work, "out", "lib_kernels.cu")).read()
    # Every function is declared once, transform_reduce's op too; the ops are called by name.
    assert kernels.count("__device__ double fadd(double a0, double a1);") == 1, kernels
    assert "typedef carried_op<float, ::scale> scan_op_" in kernels, kernels
    assert "typedef carried_op<long, ::add64d> rbk_op_" in kernels, kernels
    assert "return ::fadd(a, b);" in kernels, kernels
    # A scan's values (reduce_by_key's too) are scan_value<T>, zeroed, only where CUB keeps T
    # apart from its tile status; a number is packed with it and carried as itself. The choice
    # and the operator over carried values are written once (carried_helpers.cu.in).
    assert "typedef carried<float> scan_accum_" in kernels, kernels
    assert "typedef carried<long> rbk_accum_" in kernels, kernels
    assert kernels.count("using carried = typename cuda::std::conditional<cub::detail::is_primitive<T>::value, T, "
                         "scan_value<T>>::type;") == 1, kernels
    assert kernels.count("template <class T, auto F> struct carried_op {") == 1, kernels
    assert "r->r1 = ::sq(x.a1, x.a2);" in kernels, kernels
    # CUB's tiles as the launchers assume them: 15 rows a thread for 4-byte T, 30 for 2-byte.
    assert "TILE_ITEMS == 1920" in kernels and "TILE_ITEMS == 3840" in kernels, kernels
    c = open(os.path.join(work, "out", "lib.c")).read()
    assert "udfkit_lib_chunks(" in c, c  # transform_reduce gives each block a chunk of rows, as reduce
    # The C compiles warning-free.
    run(["cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-c", os.path.join(work, "out", "lib.c"), "-I",
         RUNTIME_INCLUDE, "-I", os.path.join(work, "out"), "-o", os.path.join(work, "lib.o")])


def test_usage_errors(work):
    r = udfkit("kernels", "--function", "scale:float32(float32, float32)", "--kernel", "map(scale)", *outputs(work))
    assert r.rc == 2 and "no library name given (--name IDENT)" in r.err, r
    r = udfkit("kernels", "--function", "scale:float32(float32, float32)", "--kernel", "map(scale)", "--name", "lib")
    assert r.rc == 2 and "no --cuda OUT.cu given (or --check to only validate)" in r.err, r
    r = ok("help", "kernels")
    for option in ("--kernel", "--function", "--name", "--cuda", "--c", "--header", "--fatbin-symbol", "--check",
                   "--arrow"):
        assert option in r.out, option
    assert "kernels" in ok("--help").out


def test_check_writes_nothing(work):
    r = ok("kernels", "--function", *DECLARED, "--kernel", "map(scale)", "--kernel", "reduce(scale)", "--name", "lib",
           "--check", cwd=work)
    assert r.out == "" and r.err == "" and files_under(work) == []


def test_unknown_return_type_is_checked_at_build_time(work):
    """A Python function's return type is inferred when it compiles: at configure time
    (--check, declared specs) its parameters are checked, when generating it must be known."""
    ok("kernels", "--function", "py:(float32)", "--kernel", "map(py)", "--name", "lib", "--check", cwd=work)
    r = udfkit("kernels", "--function", "py:(float32*)", "--kernel", "map(py)", "--name", "lib", "--check", cwd=work)
    assert r.rc == 1 and "'py' is (float32*), but map passes one element" in r.err, r
    r = udfkit("kernels", "--function", "py:(float32)", "--kernel", "map(py)", "--name", "lib", *outputs(work), cwd=work)
    assert r.rc == 1 and r.err.strip() == ("udfkit: error: kernel entry 'map(py)': 'py' is (float32), but its return "
                                           "type is not declared; give one in the spec"), r
    assert files_under(work) == []


def test_float16_crosses_as_bits(work):
    """float16 is uint16_t in the header and unsigned short in the kernels; NVRTC compiles
    them without <cuda_fp16.h> or any other header."""
    ok("kernels", "--function", "h16:float16(float16, float16)", "--kernel", "map(h16)", "--kernel", "reduce(h16)",
       "--name", "half", *outputs(work))
    header = open(os.path.join(work, "out", "lib.h")).read()
    assert ("udfkit_status half_map_h16(udfkit_stream s, size_t n, const uint16_t *a1, const uint16_t *a2, "
            "uint16_t *out);") in header
    assert ("udfkit_status half_reduce_h16(udfkit_stream s, size_t n, const uint16_t *in, uint16_t init, "
            "uint16_t *out);") in header
    cuda = open(os.path.join(work, "out", "lib_kernels.cu")).read()
    assert "#include" not in cuda and "__half" not in cuda
    assert "__device__ unsigned short h16(unsigned short a0, unsigned short a1);" in cuda
    ok("compile", os.path.join(work, "out", "lib_kernels.cu"), "--arch", "90", "-o", os.path.join(work, "k.ltoir"))


def compile_udfs(work):
    udfs = os.path.join(work, "build", "udfs.json")
    ok("compile", data("udfs.cu"), "--function", "scale:float32(float32, float32)", "--arch", ARCHS, "-o", udfs)
    kernel_udfs = os.path.join(work, "build", "kernel_udfs.json")
    ok("compile", data("kernel_udfs.cu"), "--function", *KERNEL_UDFS, "--arch", ARCHS, "-o", kernel_udfs)
    return [udfs, kernel_udfs]


def generate(work, manifests, name="lib"):
    build = os.path.join(work, "build")
    args = ["kernels", *manifests]
    for entry in ENTRIES:
        args += ["--kernel", entry]
    ok(*args, "--name", name, "--cuda", os.path.join(build, "lib_kernels.cu"), "--c", os.path.join(build, "src", "lib.c"),
       "--header", os.path.join(build, "include", "lib.h"))
    return build


MAIN = r"""
#include "lib.h"

#include <stdio.h>

int main(void)
{
    udfkit_status s = lib_load();
    printf("load: %s: %s\n", udfkit_status_string(s), udfkit_last_error());
    s = lib_map_scale(NULL, 0, NULL, NULL, NULL);
    printf("map: %s\n", udfkit_status_string(s));
    printf("library: %s\n", lib_library() ? "loaded" : "none");
    lib_unload();
    return 0;
}
"""


def build_program(work, build, launchers, name="app"):
    main_c = os.path.join(work, "main.c")
    open(main_c, "w").write(MAIN)
    program = os.path.join(work, name)
    flags = ["-std=c17", "-Wall", "-Wextra", "-Wshadow", "-Wstrict-prototypes", "-Werror", "-pedantic", *SANITIZE]
    run(["gcc", *flags, "-I", os.path.join(build, "include"), "-I", RUNTIME_INCLUDE, main_c, launchers,
         os.path.join(build, "lib_fatbin.c"), RUNTIME_LIBRARY, PTX_COMPILER_LIBRARY,
         f"-Wl,-rpath,{os.path.dirname(RUNTIME_LIBRARY)}", "-lpthread", "-ldl", "-lm", "-o", program])
    return program


def test_whole_path_to_a_c_program(work):
    manifests = compile_udfs(work)
    build = generate(work, manifests)
    # The kernels compile with NVRTC and link with the UDFs for every architecture.
    ok("compile", os.path.join(build, "lib_kernels.cu"), "--arch", ARCHS, "-o", os.path.join(build, "k", "kernels.json"))
    fatbin = os.path.join(build, "lib.fatbin")
    ok("link", os.path.join(build, "k", "kernels.json"), *manifests, "--arch", ARCHS, "-o", fatbin)
    desc = json.loads(ok("inspect", fatbin, "--json").out)
    assert {(e["kind"], e["arch"]) for e in desc["entries"]} == {("sass", "sm_80"), ("sass", "sm_90"),
                                                                 ("ptx", "compute_90")}
    assert set(desc["kernels"]) >= {
        "udfkit_lib_map_scale", "udfkit_lib_map_inc8", "udfkit_lib_filter_is_even",
        "udfkit_lib_select_init", "udfkit_lib_reduce_add64_partials",
        "udfkit_lib_reduce_add64_final", "udfkit_lib_reduce_max_f32_partials", "udfkit_lib_reduce_max_f32_final"}
    ok("embed", fatbin, "--symbol", "lib_fatbin", "-o", os.path.join(build, "lib_fatbin.c"))

    # The header: plain C11 and C++, no CUDA headers; the launchers C17; both warning-free.
    header = os.path.join(build, "include", "lib.h")
    text = open(header).read()
    assert "Generated by udfkit" in text and "do not edit" in text
    assert len(re.findall(r"^ \*   udfkit-kernel ", text, re.M)) == len(ENTRIES)
    assert "udfkit_status lib_filter_is_even(udfkit_stream s, size_t n, const int32_t *a1, uint64_t *indices, " \
           "uint64_t *count);" in text
    assert "udfkit_status lib_map_inc8(udfkit_stream s, size_t n, const int8_t *a1, int8_t *out);" in text
    for compiler, std in (("gcc", "-std=c11"), ("g++", "-std=c++17")):
        lang = "c" if compiler == "gcc" else "c++"
        run([compiler, std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", RUNTIME_INCLUDE, "-x", lang,
             "-fsyntax-only", header])
    launchers = os.path.join(build, "src", "lib.c")
    assert '#include "../include/lib.h"' in open(launchers).read()
    program = build_program(work, build, launchers)

    # No GPU here: the program starts and says so.
    proc = subprocess.run([program], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("load: no CUDA driver: no CUDA driver: libcuda.so.1 cannot be loaded"), lines
    assert lines[1:] == ["map: no CUDA driver", "library: none"], lines

    # Generated code made for another runtime ABI is refused before anything is loaded.
    other = os.path.join(work, "other_abi.c")
    source = open(launchers).read()
    assert source.count("udfkit_runtime_check_abi(1, ") == 1
    open(other, "w").write(source.replace("udfkit_runtime_check_abi(1, ", "udfkit_runtime_check_abi(999, ")
                           .replace('#include "../include/lib.h"', '#include "lib.h"'))
    proc = subprocess.run([build_program(work, build, other, "other")], capture_output=True, text=True, timeout=60)
    assert proc.stdout.splitlines()[0] == (
        "load: ABI version mismatch: the generated library lib was generated for udfkit runtime ABI version 999, but "
        "this runtime has ABI version 1; generate it again with the udfkit that matches the runtime"), proc.stdout


def test_slots_library(work):
    """--slot: a library whose kernels call functions bound later. Its header (plain C11 and
    C++) declares _bind, _release, _instance_library, _udf_error, _slot_count, _slot and
    launchers taking the instance; no _load; the launchers compile warning-free; the kernels
    declare the slots as they declare UDFs; a slot needs a return type."""
    slots = ["price:float32(float32, float32)", "keep:bool(float32)", "maybe:float32?(float32?, float32)"]
    r = udfkit("kernels", "--slot", *slots, "--function", "add:float32(float32, float32)",
               "--kernel", "map(price)", "--kernel", "filter(keep)", "--kernel", "transform_reduce(price, add)",
               "--kernel", "nullable_map(maybe)", "--kernel", "nullable_map(maybe, nullify)", "--name", "eng",
               *outputs(work), cwd=work)
    assert r.rc == 0, r
    header = os.path.join(work, "out", "lib.h")
    text = open(header).read()
    for decl in ("typedef struct eng_instance eng_instance;",
                 "udfkit_status eng_bind(const udfkit_slot_binding *bindings, size_t count, eng_instance **out);",
                 "void eng_release(eng_instance *inst);",
                 "udfkit_library *eng_instance_library(eng_instance *inst);",
                 "udfkit_status eng_udf_error(eng_instance *inst, udfkit_stream s, uint64_t *row, int *code);",
                 "size_t eng_slot_count(void);", "const udfkit_slot *eng_slot(size_t i);",
                 "udfkit_status eng_map_price(eng_instance *inst, udfkit_stream s, size_t n, const float *a1, "
                 "const float *a2, float *out);",
                 # A slot offers both forms of nullable_map: the nullify one has a name of its own.
                 "udfkit_status eng_nullable_map_maybe(eng_instance *inst, udfkit_stream s, size_t n, const float *a1, "
                 "udfkit_mask m1, const float *a2, udfkit_mask m2, float *out, uint8_t *out_bits, uint64_t *null_count);",
                 "udfkit_status eng_nullable_map_maybe_nullify(eng_instance *inst, udfkit_stream s, size_t n, "
                 "const float *a1, udfkit_mask m1, const float *a2, udfkit_mask m2, float *out, uint8_t *out_bits, "
                 "uint64_t *null_count);",
                 " *   udfkit-slot maybe float32?(float32?, float32)"):
        assert decl in text, (decl, text)
    assert "eng_load" not in text and "eng_library(" not in text, text
    for compiler, std in (("gcc", "-std=c11"), ("g++", "-std=c++17")):
        lang = "c" if compiler == "gcc" else "c++"
        run([compiler, std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", RUNTIME_INCLUDE, "-x", lang,
             "-fsyntax-only", header])
    launchers = os.path.join(work, "out", "lib.c")
    source = open(launchers).read()
    assert '{"keep", "bool(float32)"},' in source and "udfkit_library_bind_with_optional(&image, eng_fatbin_hash," in source, source
    run(["gcc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", RUNTIME_INCLUDE, "-c", launchers,
         "-o", os.path.join(work, "lib.o")])
    kernels = open(os.path.join(work, "out", "lib_kernels.cu")).read()
    assert "__device__ float price(float a0, float a1);" in kernels, kernels
    assert "__device__ bool maybe(float *out, float a0, bool a0_valid, float a1);" in kernels, kernels
    # A slot without a return type cannot be bound to anything: refused, nothing written.
    shutil.rmtree(os.path.join(work, "out"))
    r = udfkit("kernels", "--slot", "price:(float32, float32)", "--kernel", "map(price)", "--name", "eng",
               *outputs(work), cwd=work)
    assert r.rc == 1 and "slot 'price:(float32, float32)': a slot's signature needs a return type" in r.err, r
    assert not os.path.exists(os.path.join(work, "out")) or files_under(os.path.join(work, "out")) == []
    # A slot is c_name:signature: a source name or a file would be dropped, so it is refused.
    for slot in ("price=foo:float32(float32, float32)", "price@a.cu:float32(float32, float32)"):
        for extra in ([], ["--check"]):
            r = udfkit("kernels", "--slot", slot, "--kernel", "map(price)", "--name", "eng",
                       *(extra or outputs(work)), cwd=work)
            assert r.rc == 1 and f"slot '{slot}' is not of the form c_name:signature" in r.err, (slot, r)
            assert not os.path.exists(os.path.join(work, "out")) or files_under(os.path.join(work, "out")) == []


def test_arrow_launchers_only_where_asked(work):
    """--arrow: an _arrow launcher beside each map, nullable_map and filter entry's (docs/arrow.md),
    with the nullable kernels and bit kernels they run; without it, none of them. With --slot the
    _arrow launchers take the instance first; header (C11, C++) and launchers (C17) compile."""
    fns = ["scale:float32(float32, float32)", "is_big:bool(float32)", "add:float32(float32, float32)"]
    kernels = ["--kernel", "map(scale)", "--kernel", "filter(is_big)", "--kernel", "reduce(add)"]
    texts = {}
    for arrow in ([], ["--arrow"]):
        ok("kernels", "--function", *fns, *kernels, "--name", "lib", *arrow, *outputs(work), cwd=work)
        texts[bool(arrow)] = {p: open(os.path.join(work, "out", p)).read() for p in ("lib_kernels.cu", "lib.c", "lib.h")}
        shutil.rmtree(os.path.join(work, "out"))
    plain, arrow = texts[False], texts[True]
    assert all("_arrow" not in text for text in plain.values()), plain["lib.h"]
    for decl in ("udfkit_status lib_map_scale_arrow(udfkit_stream s, const struct ArrowDeviceArray *a1, ",
                 "udfkit_status lib_filter_is_big_arrow(udfkit_stream s, const struct ArrowDeviceArray *a1, "):
        assert decl in arrow["lib.h"], decl
    assert "lib_reduce_add_arrow" not in arrow["lib.h"]
    assert "udfkit_lib_nullable_map_scale_arrow_masked(" in arrow["lib_kernels.cu"]
    assert "udfkit_lib_arrow_gather(" in arrow["lib_kernels.cu"]
    assert len(arrow["lib_kernels.cu"]) > len(plain["lib_kernels.cu"])
    ok("kernels", "--slot", "scale:float32(float32, float32)", "is_big:bool(float32)", "--kernel", "map(scale)",
       "--kernel", "filter(is_big)", "--name", "eng", "--arrow", *outputs(work), cwd=work)
    header = os.path.join(work, "out", "lib.h")
    text = open(header).read()
    for decl in ("udfkit_status eng_map_scale_arrow(eng_instance *inst, udfkit_stream s, const struct ArrowDeviceArray *a1, ",
                 "udfkit_status eng_filter_is_big_arrow(eng_instance *inst, udfkit_stream s, "):
        assert decl in text, decl
    for compiler, std in (("gcc", "-std=c11"), ("g++", "-std=c++17")):
        lang = "c" if compiler == "gcc" else "c++"
        run([compiler, std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", RUNTIME_INCLUDE, "-x", lang,
             "-fsyntax-only", header])
    launchers = os.path.join(work, "out", "lib.c")
    source = open(launchers).read()
    assert "eng_nullable_map_scale_arrow_masked(inst, s, c.n, " in source, source
    assert "udfkit_eng_kernel(inst, " in source and "udfkit_eng_kernel(NULL, " not in source, source
    run(["gcc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", RUNTIME_INCLUDE, "-c", launchers,
         "-o", os.path.join(work, "lib.o")])


def test_optional_slots_library(work):
    """--optional-slot: slots a bind may leave unbound. They follow the others in the slot
    table, marked optional in its flags and in their header markers; the header declares
    _slot_optional and _slot_bound; a slot given both ways, or an optional one not of the form
    c_name:signature, is refused and nothing is written."""
    r = udfkit("kernels", "--slot", "price:float32(float32, float32)", "--optional-slot", "keep:bool(float32)",
               "--kernel", "map(price)", "--kernel", "filter(keep)", "--name", "eng", *outputs(work), cwd=work)
    assert r.rc == 0, r
    header = open(os.path.join(work, "out", "lib.h")).read()
    for decl in (" *   udfkit-slot price float32(float32, float32)\n", " *   udfkit-slot keep bool(float32) optional\n",
                 "bool eng_slot_bound(eng_instance *inst, const char *slot);",
                 "udfkit_status eng_filter_keep(eng_instance *inst, "):
        assert decl in header, (decl, header)
    source = open(os.path.join(work, "out", "lib.c")).read()
    assert "udfkit_eng_slot_optional[] = {0, 1};" in source, source
    assert "bool eng_slot_optional(size_t i);" in header, header
    run(["gcc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", RUNTIME_INCLUDE, "-c",
         os.path.join(work, "out", "lib.c"), "-o", os.path.join(work, "lib.o")])
    # Only optional slots: a library whose every slot may be left unbound.
    shutil.rmtree(os.path.join(work, "out"))
    r = udfkit("kernels", "--optional-slot", "keep:bool(float32)", "--kernel", "filter(keep)", "--name", "eng",
               *outputs(work), cwd=work)
    assert r.rc == 0 and "eng_bind(" in open(os.path.join(work, "out", "lib.h")).read(), r
    shutil.rmtree(os.path.join(work, "out"))
    r = udfkit("kernels", "--slot", "keep:bool(float32)", "--optional-slot", "keep:bool(float32)",
               "--kernel", "filter(keep)", "--name", "eng", *outputs(work), cwd=work)
    assert r.rc == 1 and "--optional-slot 'keep:bool(float32)'" in r.err, r
    assert not os.path.exists(os.path.join(work, "out")) or files_under(os.path.join(work, "out")) == []
    r = udfkit("kernels", "--optional-slot", "keep=k:bool(float32)", "--kernel", "filter(keep)", "--name", "eng",
               *outputs(work), cwd=work)
    assert r.rc == 1 and "slot 'keep=k:bool(float32)' is not of the form c_name:signature" in r.err, r
    assert not os.path.exists(os.path.join(work, "out")) or files_under(os.path.join(work, "out")) == []


def test_dependent_launch_only_where_the_code_waits(work):
    """A pass after the first (reduce's final pass, filter's select, the scans' and
    reduce_by_key's tile pass) is launched dependently (programmatic dependent launch) only
    where the loaded code has udfkit_dependent_launch: code compiled for compute_90 or later,
    whose kernels wait (griddepcontrol). LTO-IR compiled for compute_80 and linked for sm_90,
    as a library of the lowest architecture's LTO-IR is on such a device, has neither the
    marker nor the waits, so its passes are never started early."""
    entries = ["reduce(add64)", "filter(is_even)", "inclusive_scan(add64)", "reduce_by_key(add64, int32)",
               "transform_reduce(affine, add64)", "segmented_reduce(add64)"]
    udfs = os.path.join(work, "udfs.json")
    ok("compile", data("kernel_udfs.cu"), "--function", *KERNEL_UDFS, "--arch", "80;90", "-o", udfs)
    r = udfkit("kernels", udfs, *[a for e in entries for a in ("--kernel", e)], "--name", "lib", *outputs(work),
               cwd=work)
    assert r.rc == 0, r
    out = os.path.join(work, "out")
    c = open(os.path.join(out, "lib.c")).read()
    # Asked per device when a pass is launched (udfkit_launch_dependent), never once at load.
    assert "udfkit_library_has_kernel" not in c, c
    assert "    return udfkit_launch_dependent(k, grid, block, 0, s, args);\n" in c, c
    # Five passes after a first one (the reduces' final passes, the select (in its selection
    # function, where the library is `self`) and the two tile passes); segmented_reduce is one pass.
    assert c.count("udfkit_lib_launch_next(NULL, ") + c.count("udfkit_lib_launch_next(self, ") == 5, c
    kernels = os.path.join(out, "lib_kernels.cu")
    ptx = {}
    for arch in ("80", "90"):
        ok("compile", kernels, "--arch", arch, "-o", os.path.join(work, f"k{arch}.json"))
        target = os.path.join(work, f"k{arch}.sm90.ptx")
        ok("link", os.path.join(work, f"k{arch}.json"), udfs, "--arch", "90-virtual", "--emit", "ptx", "-o", target)
        ptx[arch] = open(target).read()
    assert ".target sm_90" in ptx["80"] and ".target sm_90" in ptx["90"]
    assert "udfkit_dependent_launch" not in ptx["80"] and "griddepcontrol" not in ptx["80"], "compute_80 code waits"
    assert re.search(r"\.entry udfkit_dependent_launch\(", ptx["90"]), "no marker in compute_90 code"
    # Every pass that may start early waits, and every first pass lets it start.
    assert ptx["90"].count("griddepcontrol.wait") >= 5 and "griddepcontrol.launch_dependents" in ptx["90"]


def test_same_input_same_bytes(work):
    manifests = compile_udfs(work)
    build = generate(work, manifests)
    first = {p: open(os.path.join(build, p), "rb").read() for p in ("lib_kernels.cu", "src/lib.c", "include/lib.h")}
    build = generate(work, manifests)
    for p, text in first.items():
        assert open(os.path.join(build, p), "rb").read() == text, p


if __name__ == "__main__":
    main([test_errors_leave_no_output_and_match_check, test_map_with_outputs, test_nullable_launchers,
          test_grouped_launchers, test_usage_errors,
          test_check_writes_nothing, test_unknown_return_type_is_checked_at_build_time, test_float16_crosses_as_bits,
          test_whole_path_to_a_c_program, test_slots_library, test_arrow_launchers_only_where_asked,
          test_optional_slots_library,
          test_dependent_launch_only_where_the_code_waits,
          test_same_input_same_bytes])
