"""Python UDFs: one worker compiles every function; manifests, headers, depfiles, link
lists, and the errors a user meets, located at the Python file and line."""
import json
import os
import re
import shutil
import sys

from harness import data, files_under, main, ok, run, udfkit

PY = os.path.join(data("py"), "udfs.py")
PYTHON = os.environ.get("UDFKIT_TEST_PYTHON", sys.executable)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def test_many_functions_in_one_call(work):
    specs = ["add:float32(float32, float32)", "fma3:(float64, float64, float64)", "clamp_i:int32(int32, int32, int32)",
             "is_positive:(float32)", "half_twice:(float16)", "accumulate:float32(float32*, float32)",
             "store_square:void(float64*, float64)", "mix64:(int64, int64)", "uses_ext:float32(float32)"]
    out = os.path.join(work, "out", "py.json")
    ok("compile", PY, "--function", *specs, "--arch", "80-real;90", "-o", out, "--depfile", out + ".d")
    m = json.load(open(out))
    fns = {f["c_name"]: f for f in m["functions"]}
    assert len(fns) == len(specs)
    # Left-out return types are inferred and reported.
    assert fns["fma3"]["signature"] == "float64(float64, float64, float64)"
    assert fns["is_positive"]["signature"] == "bool(float32)"
    assert fns["half_twice"]["prototype"] == "uint16_t half_twice(uint16_t a0)"
    assert fns["mix64"]["signature"] == "int64(int64, int64)"
    assert all(f["language"] == "python" for f in fns.values())
    lines = open(PY).read().splitlines()
    assert fns["add"]["line"] == lines.index("def add(x, y):") + 1
    assert m["producers"]["nvvm"] == "13.0" and m["producers"]["numba-cuda"]
    udf_artifacts = [a for a in m["artifacts"] if a.get("function")]
    assert len(udf_artifacts) == len(specs) and {a["arch"] for a in udf_artifacts} == {"compute_80"}
    # __udfkit_link__ code is compiled, shipped beside the manifest and recorded.
    assert m["link"] and m["link"][0]["declared"] == "ext/ext_scale.cu"
    links = [a for a in m["artifacts"] if a.get("role") == "link"]
    assert any(a["path"] == m["link"][0]["artifact"] for a in links)
    for a in m["artifacts"]:
        assert os.path.exists(os.path.join(work, "out", a["path"])), a
    # The header carries the inferred types and compiles as C11 and C++.
    header = os.path.join(work, "inc", "py_udfs.h")
    ok("header", out, "-o", header)
    text = open(header).read()
    assert "__device__ bool is_positive(float a0);" in text and "udfkit-udf fma3 float64(float64, float64, float64)" in text
    main_c = write(os.path.join(work, "main.c"), '#include "py_udfs.h"\nint main(void) { size_t n; return py_udfs_udfs(&n) && n == 9 ? 0 : 1; }\n')
    run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", os.path.dirname(header), main_c, "-o",
         os.path.join(work, "c")])
    run([os.path.join(work, "c")])
    shutil.copy(main_c, os.path.join(work, "main.cpp"))
    run(["g++", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", os.path.dirname(header),
         os.path.join(work, "main.cpp"), "-o", os.path.join(work, "cxx")])


def test_header_of_every_test_udf_compiles(work):
    """The 27 UDFs of the GPU test (built at build time) have a header for C11 and C++."""
    header = os.path.join(os.environ["UDFKIT_TEST_ARTIFACTS"], "python", "py_udfs.h")
    count = open(header).read().count("udfkit-udf ")
    assert count >= 20, count
    for compiler, ext, std in (("gcc", "c", "-std=c11"), ("g++", "cpp", "-std=c++17")):
        main_src = write(os.path.join(work, "main." + ext),
                         f'#include "py_udfs.h"\nint main(void) {{ size_t n; return py_udfs_udfs(&n) && n == {count} ? 0 : 1; }}\n')
        exe = os.path.join(work, "app_" + ext)
        run([compiler, std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", os.path.dirname(header), main_src, "-o", exe])
        run([exe])


def test_depfile_lists_local_imports_only(work):
    out = os.path.join(work, "py.json")
    ok("compile", PY, "-f", "scaled_area:float32(float32, float32)", "-o", out, "--depfile", out + ".d")
    deps = open(out + ".d").read()
    assert PY in deps and os.path.join(data("py"), "shapes.py") in deps
    assert "site-packages" not in deps and "numba" not in deps


def test_same_input_same_bytes(work):
    for sub in ("a", "b"):
        ok("compile", PY, "-f", "wave:(float64)", "poly:float64(float64)", "uses_ext:float32(float32)", "-o",
           os.path.join(work, sub, "py.json"))
    for name in os.listdir(os.path.join(work, "a")):
        assert open(os.path.join(work, "a", name), "rb").read() == open(os.path.join(work, "b", name), "rb").read(), name


def test_one_artifact_without_manifest(work):
    out = os.path.join(work, "area.ptx")
    ok("compile", os.path.join(data("py"), "shapes.py"), "-f", "area:float32(float32, float32)", "--emit", "ptx",
       "--arch", "80", "-o", out)
    ptx = open(out).read()
    assert ".visible .func  (.param .b32 func_retval0) area(" in ptx
    # A module with link files needs a manifest for them to travel with.
    r = udfkit("compile", PY, "-f", "add:float32(float32, float32)", "--emit", "ptx", "-o", os.path.join(work, "a.ptx"))
    assert r.rc == 2 and "travel beside a manifest" in r.err, r
    # PTX output with link files compiled by NVRTC works without a GPU too.
    ok("compile", PY, "-f", "uses_ext:float32(float32)", "--emit", "ptx", "-o", os.path.join(work, "m", "p.json"))


def test_same_module_names_do_not_merge(work):
    out = os.path.join(work, "two.json")
    ok("compile", os.path.join(data("py"), "one", "udfs.py"), os.path.join(data("py"), "two", "udfs.py"), "-f",
       "from_one@one/udfs.py:int32(int32)", "from_two@two/udfs.py:int32(int32)", "-o", out)
    r = udfkit("compile", os.path.join(data("py"), "one", "udfs.py"), os.path.join(data("py"), "two", "udfs.py"), "-f",
               "from_one@udfs.py:int32(int32)", "-o", os.path.join(work, "x.json"))
    assert r.rc == 1 and "matches several sources" in r.err, r
    # Both modules' helpers are named by module and qualname: linking both works.
    ok("link", out, "--arch", "80-real", "--emit", "cubin", "-o", os.path.join(work, "two.cubin"))


CASES = [
    ("syntax-error", "def f(x):\n    return x +\n", "f:float32(float32)", 1, r"^bad\.py:2: error: SyntaxError: invalid syntax"),
    ("import-error", "import math\nimport not_a_module_anywhere\ndef f(x):\n    return x\n", "f:float32(float32)", 1,
     r"^bad\.py:2: error: importing the module failed: ModuleNotFoundError: No module named 'not_a_module_anywhere'"),
    ("missing-function", "def g(x):\n    return x\n", "f:float32(float32)", 1,
     r"^bad\.py: error: function 'f' is not defined in .*bad\.py \(it defines: g\)"),
    ("typing-error", "def f(x):\n    return x.nothing\n", "f:float32(float32)", 1,
     r"^bad\.py:2: error: cannot compile 'f' for \(float32\): Unknown attribute 'nothing' of type float32"),
    # A typing error deep in the body: located at its statement, with the call numba could
    # not type, not cut short in the list of candidates.
    ("typing-error-in-body", "def f(x):\n    a = x * 2.0\n\n    y = a + 'text'\n    return y\n", "f:float32(float32)",
     1, r"^bad\.py:4: error: cannot compile 'f' for \(float32\): No implementation of function "
        r"Function\(<built-in function add>\) found for signature: >>> add\(float64, Literal\[str\]\(text\)\)$"),
    ("module-attribute", "import math\n\ndef f(x):\n    y = x + 1.0\n    return math.nosuch(y)\n", "f:float32(float32)",
     1, r"^bad\.py:5: error: cannot compile 'f' for \(float32\): AttributeError: module 'math' has no attribute "
        r"'nosuch'$"),
    ("array-return", "import numpy as np\ndef f(x):\n    return (x, x)\n", "f:(float32)", 1,
     r"^bad\.py:2: error: 'f' returns UniTuple\(float32 x 2\), which cannot cross the C ABI .* pass a pointer"),
    ("array-parameter", "def f(x):\n    return x[0]\n", "f:float32(float32[:])", 1, r"arrays cannot cross the C ABI: pass a pointer"),
    ("not-a-function", "f = 3\n", "f:float32(float32)", 1, r"'f' is not a Python function"),
    ("missing-link-file", "__udfkit_link__ = ['nothere.ltoir']\ndef f(x):\n    return x\n", "f:float32(float32)", 1,
     r"__udfkit_link__ names 'nothere\.ltoir', which does not exist"),
    ("bad-link-list", "__udfkit_link__ = 'x.ltoir'\ndef f(x):\n    return x\n", "f:float32(float32)", 1,
     r"__udfkit_link__ must be a list of file paths"),
    ("emit-cubin", "def f(x):\n    return x\n", "f:float32(float32)", 2, r"Python UDFs compile to ltoir or ptx"),
]


def make_case(name, source, spec, status, pattern):
    def test(work):
        write(os.path.join(work, "bad.py"), source)
        out = os.path.join(work, "out")
        os.makedirs(out)
        args = ["compile", "bad.py", "-f", spec, "-o", "out/x.json", "--depfile", "out/x.d"]
        if name == "emit-cubin":
            args += ["--emit", "cubin"]
        r = udfkit(*args, cwd=work)
        assert r.rc == status, r
        assert re.search(pattern, r.err, re.M), f"{pattern!r} not in {r.err!r}"
        assert "Traceback" not in r.err
        assert files_under(out) == [], files_under(out)
    test.__name__ = name.replace("-", "_")
    return test


def test_float16_modules_compiled_apart_link_together(work):
    """Each compile of a float16 module brings numba's float16 operators (C++ shims) as a
    link file of its own, with the operators it used; two, three and four of them (as
    add_ptx_udf targets make) link into one library, not 'symbol multiply defined', also
    with the LTO-IR kept for load-time linking."""
    manifests = []
    for name, body in (("a", "x + y"), ("b", "x + y"), ("c", "x * y"), ("d", "x + y * x")):
        write(os.path.join(work, name, "udfs.py"), f"def {name}_op(x, y):\n    return {body}\n")
        out = os.path.join(work, f"{name}.json")
        ok("compile", os.path.join(work, name, "udfs.py"), "-f", f"{name}_op:float16(float16, float16)",
           "--arch", "80", "-o", out)
        manifests.append(out)
    links = [a["xxh3_128"] for m in manifests for a in json.load(open(m))["artifacts"] if a.get("role") == "link"]
    assert len(links) == 4 and links[0] == links[1] and len(set(links)) == 3, links
    for count in (2, 3, 4):
        for keep in ([], ["--keep-ltoir"]):
            fatbin = os.path.join(work, f"x{count}{len(keep)}.fatbin")
            ok("link", *manifests[:count], "--arch", "80-real;90", *keep, "-o", fatbin)
            desc = json.loads(ok("inspect", fatbin, "--json").out)
            assert [e["kind"] for e in desc["entries"]].count("sass") == 2, desc
            names = [f["c_name"] for f in json.load(open(fatbin + ".json"))["functions"]]
            assert names == ["a_op", "b_op", "c_op", "d_op"][:count], names


def test_float_mod_helpers_are_named_by_type(work):
    """float % and // go through numba's divmod helper; under the C ABI numba-cuda named it
    'rem' for every float type, so linked float32 and float64 UDFs shared one body (the
    float32 caller stored a double: a fault on the GPU). Each type has its own now: the
    linked PTX calls no shared helper through a pointer."""
    write(os.path.join(work, "m.py"), "def fmod2(a, b):\n    return a % b\n\ndef fdiv2(a, b):\n    return a // b\n")
    specs = ["m32=fmod2:float32(float32, float32)", "m64=fmod2:float64(float64, float64)",
             "d32=fdiv2:float32(float32, float32)", "d64=fdiv2:float64(float64, float64)"]
    ok("compile", os.path.join(work, "m.py"), "-f", *specs, "--arch", "80", "-o", os.path.join(work, "m.json"))
    ok("header", os.path.join(work, "m.json"), "-o", os.path.join(work, "m.h"))
    write(os.path.join(work, "k.cu"), '#include "m.h"\n'
          'extern "C" __global__ void k(float *f, double *d) {\n'
          '    f[0] = m32(f[1], f[2]) + d32(f[1], f[2]);\n    d[0] = m64(d[1], d[2]) + d64(d[1], d[2]);\n}\n')
    ok("compile", os.path.join(work, "k.cu"), "-I", work, "--arch", "80", "-o", os.path.join(work, "k.json"))
    ptx = os.path.join(work, "x.ptx")
    ok("link", os.path.join(work, "k.json"), os.path.join(work, "m.json"), "--arch", "80-virtual", "--emit", "ptx",
       "-o", ptx)
    text = open(ptx).read()
    assert ".entry k(" in text and "callprototype" not in text and not re.search(r"\.func .*\brem\b", text), text


def test_python_map_with_outputs(work):
    """A Python UDF writing two outputs through pointers is a map with two output columns."""
    write(os.path.join(work, "s.py"), "def split(x, hi, lo):\n    hi[0] = x * 2.0\n    lo[0] = x - 1.0\n")
    ok("compile", os.path.join(work, "s.py"), "-f", "split:void(float32, float32*, float64*)", "--arch", "80",
       "-o", os.path.join(work, "s.json"))
    out = [os.path.join(work, n) for n in ("k.cu", "l.c", "lib.h")]
    ok("kernels", os.path.join(work, "s.json"), "--kernel", "map(split)", "--name", "lib", "--cuda", out[0], "--c",
       out[1], "--header", out[2])
    assert "lib_map_split(udfkit_stream s, size_t n, const float *a1, float *out1, double *out2);" in open(out[2]).read()
    ok("compile", out[0], "--arch", "80", "-o", os.path.join(work, "k.json"))
    ok("link", os.path.join(work, "k.json"), os.path.join(work, "s.json"), "--arch", "80-real",
       "-o", os.path.join(work, "lib.fatbin"))
    assert "udfkit_lib_map_split" in ok("inspect", os.path.join(work, "lib.fatbin")).out


def test_python_without_numba_cuda(work):
    r = udfkit("compile", PY, "-f", "add:float32(float32, float32)", "--python", "/usr/bin/python3", "-o",
               os.path.join(work, "x.json"))
    assert r.rc == 3, r
    assert "/usr/bin/python3 has no numba-cuda; install it:" in r.err and "pip install --no-deps numba-cuda==" in r.err, r.err
    assert "requirements.txt" not in r.err, r.err  # an install has none
    r = udfkit("compile", PY, "-f", "add:float32(float32, float32)", "--python", "/nonexistent/python", "-o",
               os.path.join(work, "x.json"))
    assert r.rc == 3 and "cannot run the Python interpreter '/nonexistent/python'" in r.err, r
    assert not os.path.exists(os.path.join(work, "x.json"))


def fake_distribution(root, name, version):
    info = os.path.join(root, f"{name.replace('-', '_')}-{version}.dist-info")
    write(os.path.join(info, "METADATA"), f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def test_old_numba_cuda_is_refused(work):
    fake_distribution(os.path.join(work, "site"), "numba-cuda", "0.29.0")
    env = dict(os.environ, PYTHONPATH=os.path.join(work, "site"))
    r = udfkit("compile", PY, "-f", "add:float32(float32, float32)", "-o", os.path.join(work, "x.json"), env=env)
    assert r.rc == 3, r
    assert "numba-cuda 0.29.0" in r.err and "older than 0.30.1" in r.err and "pip install" in r.err, r.err


def test_newer_nvvm_than_nvjitlink_is_refused(work):
    fake_distribution(os.path.join(work, "site"), "nvidia-nvvm", "13.9.0")
    env = dict(os.environ, PYTHONPATH=os.path.join(work, "site"))
    out = os.path.join(work, "x.json")
    r = udfkit("compile", PY, "-f", "add:float32(float32, float32)", "-o", out, env=env)
    assert r.rc == 3, r
    assert "made by NVVM 13.9, newer than this nvJitLink 13.0" in r.err, r.err
    assert not os.path.exists(out)


if __name__ == "__main__":
    main([test_float16_modules_compiled_apart_link_together, test_float_mod_helpers_are_named_by_type,
          test_python_map_with_outputs, test_many_functions_in_one_call, test_header_of_every_test_udf_compiles, test_depfile_lists_local_imports_only, test_same_input_same_bytes,
          test_one_artifact_without_manifest, test_same_module_names_do_not_merge, *[make_case(*c) for c in CASES],
          test_python_without_numba_cuda, test_old_numba_cuda_is_refused, test_newer_nvvm_than_nvjitlink_is_refused])
