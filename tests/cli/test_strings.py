"""Strings (docs/strings.md) without a GPU: string specs in manifests and headers (the C ABI
of SPEC.md: const char *aN, int64_t aN_size; a result through udfkit_string_out *out), every
form a CUDA C UDF may take (udfkit::string_view parameters, a returned view, the builder
first, the C ABI itself, string? as an optional), the compiler's checks of forms that do not
match, kernels of every template over strings generated, compiled as CUDA C++ and their
launchers as C17 with -Wall -Wextra -Werror, linked with the UDFs; a header compiled as C11
and C++; a SLOTS library taking string slots; <udfkit/string.cuh> under nvcc."""
import json
import os
import re
import subprocess

from harness import NVCC, data, files_under, main, ok, udfkit

SPECS = ["blen:int64(string)", "nonempty:bool(string)", "head2:string(string)", "twice:string(string)",
         "cat:string(string, string)", "parts:void(string, string*, int64*)", "maybe_head:string?(string?)",
         "add:int64(int64, int64)", "longer:bool(string, int64)", "shorter_first:bool(string, string)"]
KERNELS = ["map(blen)", "map(head2)", "map(twice)", "map(cat)", "map(parts)", "nullable_map(maybe_head, nullify)",
           "nullable_map(blen)", "filter(nonempty)", "filter(nonempty, indices32)",
           "filter(longer, values)", "nullable_filter(nonempty)", "transform_reduce(blen, add)", "sort(shorter_first)"]
RUNTIME_INCLUDE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src",
                               "runtime", "include")


def compile_plumbing(work):
    ok("compile", data("strings/plumbing.cu"), "-f", *SPECS, "--arch", "80", "-o", os.path.join(work, "s.json"))
    return os.path.join(work, "s.json")


def test_manifest_and_header(work):
    manifest = compile_plumbing(work)
    functions = {f["c_name"]: f for f in json.load(open(manifest))["functions"]}
    assert functions["cat"]["signature"] == "string(string, string)", functions["cat"]
    assert functions["cat"]["prototype"] == \
        "void cat(udfkit_string_out *out, const char *a0, int64_t a0_size, const char *a1, int64_t a1_size)"
    assert functions["maybe_head"]["prototype"] == \
        "bool maybe_head(udfkit_string_out *out, const char *a0, int64_t a0_size, bool a0_valid)"
    assert functions["parts"]["prototype"] == \
        "void parts(const char *a0, int64_t a0_size, udfkit_string_out *a1, int64_t *a2)"
    assert functions["blen"]["prototype"] == "int64_t blen(const char *a0, int64_t a0_size)"
    header = os.path.join(work, "s.h")
    ok("header", manifest, "-o", header)
    text = open(header).read()
    assert " *   udfkit-udf maybe_head string?(string?)" in text, text
    # The header compiles as C11 and C++ without CUDA headers, and its table names every function.
    main_c = os.path.join(work, "use.c")
    with open(main_c, "w") as f:
        f.write('#include "s.h"\nint main(void) { size_t n; return s_udfs(&n) && n == 10 ? 0 : 1; }\n')
    for cc, std in (("cc", "-std=c11"), ("c++", "-std=c++17")):
        out = os.path.join(work, f"use-{cc}")
        subprocess.run([cc, std, "-x", "c" if cc == "cc" else "c++", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I",
                        work, main_c, "-o", out], check=True)
        assert subprocess.run([out]).returncode == 0


def test_every_template_generates_compiles_and_links(work):
    manifest = compile_plumbing(work)
    out = os.path.join(work, "k")
    os.makedirs(out)
    args = ["kernels", manifest, *[x for k in KERNELS for x in ("--kernel", k)], "--name", "sk", "--cuda",
            os.path.join(out, "sk_kernels.cu"), "--c", os.path.join(out, "sk.c"), "--header", os.path.join(out, "sk.h")]
    ok(*args)
    header = open(os.path.join(out, "sk.h")).read()
    for decl in (
            "udfkit_status sk_map_blen(udfkit_stream s, size_t n, udfkit_strings a1, int64_t *out);",
            "udfkit_status sk_map_head2_sizes(udfkit_stream s, size_t n, udfkit_strings a1, int64_t *out_offsets);",
            "udfkit_status sk_map_head2(udfkit_stream s, size_t n, udfkit_strings a1, const int64_t *out_offsets, "
            "char *out_chars);",
            "udfkit_status sk_map_head2_sizes32(udfkit_stream s, size_t n, udfkit_strings a1, int32_t *out_offsets);",
            "udfkit_status sk_map_head232(udfkit_stream s, size_t n, udfkit_strings a1, const int32_t *out_offsets, "
            "char *out_chars);",
            "udfkit_status sk_map_cat(udfkit_stream s, size_t n, udfkit_strings a1, udfkit_strings a2, "
            "const int64_t *out_offsets, char *out_chars);",
            "udfkit_status sk_map_parts(udfkit_stream s, size_t n, udfkit_strings a1, const int64_t *out1_offsets, "
            "char *out1_chars, int64_t *out2);",
            "udfkit_status sk_nullable_map_maybe_head_nullify(udfkit_stream s, size_t n, udfkit_strings a1, udfkit_mask m1, "
            "const int64_t *out_offsets, char *out_chars, uint8_t *out_bits, uint64_t *null_count);",
            "udfkit_status sk_filter_longer_values(udfkit_stream s, size_t n, udfkit_strings a1, const int64_t *a2, "
            "int64_t *out1_offsets, char *out1_chars, int64_t *out2, uint64_t *count);",
            "udfkit_status sk_sort_shorter_first(udfkit_stream s, size_t n, udfkit_strings in, uint64_t *order);",
            "udfkit_status sk_transform_reduce_blen_add(udfkit_stream s, size_t n, udfkit_strings a1, int64_t init, "
            "int64_t *out);"):
        assert decl in header, (decl, header)
    # A string result's kernels: a sizes kernel for each offsets' width and one write kernel for
    # both (its launchers pass the width), so that the UDF is compiled three times, not four.
    cuda = open(os.path.join(out, "sk_kernels.cu")).read()
    for entry in ("map_head2", "map_parts", "nullable_map_maybe_head_nullify"):
        kernels = re.findall(r'__global__ void __launch_bounds__\([^)]*\)\s+udfkit_sk_%s(\w*)\(' % entry, cuda)
        assert sorted(kernels) == ["_sizes", "_sizes32", "_write"], (entry, kernels)
    # The kernels compile (NVRTC, through udfkit) and link with the UDFs; the launchers compile as C17.
    ok("compile", os.path.join(out, "sk_kernels.cu"), "--arch", "80", "-o", os.path.join(out, "k.json"))
    ok("link", os.path.join(out, "k.json"), manifest, "--arch", "80-real", "-o", os.path.join(out, "sk.fatbin"))
    subprocess.run(["cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", RUNTIME_INCLUDE, "-c",
                    os.path.join(out, "sk.c"), "-o", os.path.join(out, "sk.o")], check=True)
    # Kernels without strings include no string header: they are what they were.
    ok("kernels", "--function", "f:float32(float32)", "--kernel", "map(f)", "--name", "plain", "--cuda",
       os.path.join(out, "p.cu"), "--c", os.path.join(out, "p.c"), "--header", os.path.join(out, "p.h"))
    assert "string.cuh" not in open(os.path.join(out, "p.cu")).read()


FORMS = """#include <udfkit/string.cuh>
#include <cuda/std/optional>
__device__ long long view_param(udfkit::string_view s) { return s.size(); }
extern "C" __device__ long long pair_param(const char *s, long long s_size) { return s_size; }
__device__ udfkit::string_view returned(udfkit::string_view s) { return s; }
__device__ void builder_ref(udfkit::string_out &out, udfkit::string_view s) { out.append(s); }
__device__ void builder_ptr(udfkit_string_out *out, udfkit::string_view s, int k) { if (k) out->append(s); }
__device__ cuda::std::optional<udfkit::string_view> opt(cuda::std::optional<udfkit::string_view> s) { return s; }
__device__ bool opt_builder(udfkit::string_out &o, cuda::std::optional<udfkit::string_view> s) { if (s) o.append(*s); return (bool)s; }
__device__ int wrong_param(float x) { return (int)x; }
__device__ int returns_int(udfkit::string_view s) { return (int)s.size(); }
"""

CASES = [
    ("string-parameter-not-a-string", ["wrong_param:int32(string)"], 1,
     r"^u\.cu:10: error: 'wrong_param' does not match its declared signature int32\(string\): parameter 1 is "
     r"'float', declared string"),
    ("string-result-not-a-string", ["returns_int:string(string)"], 1,
     r"^u\.cu:11: error: 'returns_int' does not match its declared signature string\(string\): it returns 'int', "
     r"declared string"),
    ("plain-string-declared-nullable", ["view_param:int64(string?)"], 1,
     r"'view_param' does not match its declared signature int64\(string\?\)"),
    ("optional-string-returned-plain", ["opt:string(string?)"], 1,
     r"'opt' does not match its declared signature string\(string\?\): it returns "
     r"'cuda::std::.*optional<udfkit::string_view>', declared string"),
    ("string-type-misspelled", ["view_param:int64(str)"], 1, r"unknown type 'str': write string"),
    ("nullable-string-pointer", ["view_param:int64(string*?)"], 1, r"'string\*\?' is not a type"),
]


def make_case(name, specs, status, pattern):
    def test(work):
        with open(os.path.join(work, "u.cu"), "w") as f:
            f.write(FORMS)
        os.makedirs(os.path.join(work, "out"))
        r = udfkit("compile", "u.cu", "-f", *specs, "--arch", "80", "-o", "out/x.json", cwd=work)
        assert r.rc == status, r
        assert re.search(pattern, r.err, re.M), f"{pattern!r} not in {r.err!r}"
        assert files_under(os.path.join(work, "out")) == [], r
    test.__name__ = name.replace("-", "_")
    return test


def test_every_cuda_form(work):
    with open(os.path.join(work, "u.cu"), "w") as f:
        f.write(FORMS)
    ok("compile", "u.cu", "-f", "view_param:int64(string)", "pair_param:int64(string)", "returned:string(string)",
       "builder_ref:string(string)", "builder_ptr:string(string, int32)", "opt:string?(string?)",
       "opt_builder:string?(string?)", "--arch", "80", "-o", "f.json", cwd=work)
    # Kernels over each form link: the forwarders have the C ABI the kernels call.
    ok("kernels", "f.json", "--kernel", "map(view_param)", "--kernel", "map(returned)", "--kernel",
       "map(builder_ptr)", "--kernel", "nullable_map(opt_builder)", "--name", "fm", "--cuda", "fm.cu", "--c", "fm.c",
       "--header", "fm.h", cwd=work)
    ok("compile", "fm.cu", "--arch", "80", "-o", "fm.json", cwd=work)
    ok("link", "fm.json", "f.json", "--arch", "80-real", "-o", "fm.fatbin", cwd=work)


def test_slots_take_strings(work):
    """A SLOTS library whose slots take and return strings: its bind forwarders and header."""
    manifest = compile_plumbing(work)
    ok("kernels", manifest, "--slot", "user_fn:string(string)", "--slot", "user_len:int64(string)", "--kernel",
       "map(user_fn)", "--kernel", "map(user_len)", "--name", "eng", "--cuda", "eng.cu", "--c", "eng.c", "--header",
       "eng.h", cwd=work)
    header = open(os.path.join(work, "eng.h")).read()
    assert "udfkit_status eng_map_user_fn_sizes(eng_instance *inst, udfkit_stream s, size_t n, udfkit_strings a1, " \
        "int64_t *out_offsets);" in header, header
    assert " *   udfkit-slot user_fn string(string)" in header, header
    ok("compile", "eng.cu", "--arch", "80", "-o", "eng.json", cwd=work)
    subprocess.run(["cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-I", RUNTIME_INCLUDE, "-c", "eng.c", "-o", "eng.o"],
                   check=True, cwd=work)


def test_python_takes_strings(work):
    """A Python UDF over a string compiles (tests/strings/test_string_python.py checks what it
    computes); its manifest and header carry the C ABI of a CUDA C one."""
    with open(os.path.join(work, "m.py"), "w") as f:
        f.write("def n(s):\n    return len(s)\n")
    os.makedirs(os.path.join(work, "out"))
    ok("compile", "m.py", "-f", "n:int64(string)", "--arch", "80", "-o", "out/x.json", cwd=work)
    functions = {f["c_name"]: f for f in json.load(open(os.path.join(work, "out", "x.json")))["functions"]}
    assert functions["n"]["prototype"] == "int64_t n(const char *a0, int64_t a0_size)", functions["n"]


def test_string_header_under_nvcc(work):
    if not NVCC:
        return
    with open(os.path.join(work, "n.cu"), "w") as f:
        f.write("#include <udfkit/string.cuh>\n__global__ void k(udfkit::strings_column c, long long *o) "
                "{ o[0] = c[0].size(); }\n")
    subprocess.run([NVCC, "-dc", "-arch=sm_80", "-I", RUNTIME_INCLUDE, "n.cu", "-o", "n.o"], check=True, cwd=work)


if __name__ == "__main__":
    main([test_manifest_and_header, test_every_template_generates_compiles_and_links, test_every_cuda_form,
          *[make_case(*c) for c in CASES], test_slots_take_strings, test_python_takes_strings,
          test_string_header_under_nvcc])
