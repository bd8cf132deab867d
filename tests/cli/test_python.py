"""Python UDFs: one worker compiles every function; manifests, headers, depfiles, link
lists, and the errors a user meets, located at the Python file and line. Each test taking a
frontend runs under numba-cuda and under numba-cuda-mlir (--python-frontend), skipped where
that frontend does not import; the tests after those check what the two give alike and
what numba-cuda-mlir refuses."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

from harness import Skip, data, files_under, for_frontends, frontend_missing, main, ok, run, udfkit

PY = os.path.join(data("py"), "udfs.py")
# udfs.py's calls into CUDA C as numba-cuda-mlir declares them.
MLIR_CALLS = os.path.join(data("py"), "mlir", "calls.py")
MLIR = "numba-cuda-mlir"


def compile_with(frontend, *args, cwd=None, env=None):
    return udfkit("compile", *args, "--python-frontend", frontend, cwd=cwd, env=env)


def ok_with(frontend, *args, cwd=None):
    r = compile_with(frontend, *args, cwd=cwd)
    assert r.rc == 0, f"udfkit compile {' '.join(args)} --python-frontend {frontend} failed: {r!r}"
    return r


def uses_ext(frontend):
    """The sources and spec of udfs.py's uses_ext for `frontend` (numba-cuda-mlir calls
    CUDA C through its own declare_device)."""
    if frontend == MLIR:
        return [PY, MLIR_CALLS], "uses_ext@mlir/calls.py:float32(float32)"
    return [PY], "uses_ext:float32(float32)"
PYTHON = os.environ.get("UDFKIT_TEST_PYTHON", sys.executable)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def test_many_functions_in_one_call(work, frontend):
    sources, ext_spec = uses_ext(frontend)
    # numba-cuda-mlir types float16 arithmetic as float32: half_twice's return is declared for it.
    specs = ["add:float32(float32, float32)", "fma3:(float64, float64, float64)", "clamp_i:int32(int32, int32, int32)",
             "is_positive:(float32)", "half_twice:float16(float16)" if frontend == MLIR else "half_twice:(float16)",
             "accumulate:float32(float32*, float32)", "store_square:void(float64*, float64)", "mix64:(int64, int64)",
             ext_spec]
    out = os.path.join(work, "out", "py.json")
    ok_with(frontend, *sources, "--function", *specs, "--arch", "80-real;90", "-o", out, "--depfile", out + ".d")
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
    assert m["producers"]["nvvm"] == "13.0" and m["producers"][frontend]
    assert set(m["producers"]) == {"udfkit", frontend, "nvvm"}, m["producers"]
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


def test_header_of_every_test_udf_compiles(work, frontend):
    """The UDFs of the GPU test (built at build time, by each frontend) have a header for C11
    and C++; numba-cuda-mlir's is numba-cuda's, less the function it refuses."""
    cases = os.path.join(os.environ["UDFKIT_TEST_ARTIFACTS"], "python-mlir" if frontend == MLIR else "python")
    if os.path.exists(os.path.join(cases, "skip.txt")):
        raise Skip(open(os.path.join(cases, "skip.txt")).read().strip())
    header = os.path.join(cases, "py_udfs.h")
    if frontend == MLIR:
        # numba-cuda's functions less the two it refuses (declare_device(link=...), a float16
        # argument of a declared function): the same markers, prototypes and table rows.
        theirs = open(os.path.join(os.environ["UDFKIT_TEST_ARTIFACTS"], "python", "py_udfs.h")).read().splitlines()
        ours = open(header).read().splitlines()
        refused = ("py_uses_declared_link", "py_half_gate_twice")
        def lines(text, *marks):
            return [line for line in text if line.lstrip().startswith(marks)]
        for marks in (("*   udfkit-udf ",), ("__device__ ",), ('{"',)):
            kept = [line for line in lines(theirs, *marks) if not any(r in line for r in refused)]
            assert lines(ours, *marks) == kept and len(kept) < len(lines(theirs, *marks)), (marks, header)
    count = open(header).read().count("udfkit-udf ")
    assert count >= 20, count
    for compiler, ext, std in (("gcc", "c", "-std=c11"), ("g++", "cpp", "-std=c++17")):
        main_src = write(os.path.join(work, "main." + ext),
                         f'#include "py_udfs.h"\nint main(void) {{ size_t n; return py_udfs_udfs(&n) && n == {count} ? 0 : 1; }}\n')
        exe = os.path.join(work, "app_" + ext)
        run([compiler, std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", os.path.dirname(header), main_src, "-o", exe])
        run([exe])


def test_depfile_lists_local_imports_only(work, frontend):
    out = os.path.join(work, "py.json")
    ok_with(frontend, PY, "-f", "scaled_area:float32(float32, float32)", "-o", out, "--depfile", out + ".d")
    deps = open(out + ".d").read().split(": ", 1)[1]  # past the target, whose path names the frontend
    assert PY in deps and os.path.join(data("py"), "shapes.py") in deps
    assert "site-packages" not in deps and "numba" not in deps


def test_same_input_same_bytes(work, frontend):
    sources, ext_spec = uses_ext(frontend)
    for sub in ("a", "b"):
        ok_with(frontend, *sources, "-f", "wave:(float64)", "poly:float64(float64)", ext_spec, "-o",
                os.path.join(work, sub, "py.json"))
    for name in os.listdir(os.path.join(work, "a")):
        assert open(os.path.join(work, "a", name), "rb").read() == open(os.path.join(work, "b", name), "rb").read(), name


def test_one_artifact_without_manifest(work, frontend):
    out = os.path.join(work, "area.ptx")
    ok_with(frontend, os.path.join(data("py"), "shapes.py"), "-f", "area:float32(float32, float32)", "--emit", "ptx",
            "--arch", "80", "-o", out)
    ptx = open(out).read()
    assert ".visible .func  (.param .b32 func_retval0) area(" in ptx
    # A module with link files needs a manifest for them to travel with.
    r = compile_with(frontend, PY, "-f", "add:float32(float32, float32)", "--emit", "ptx", "-o",
                     os.path.join(work, "a.ptx"))
    assert r.rc == 2 and "travel beside a manifest" in r.err, r
    # PTX output with link files compiled by NVRTC works without a GPU too.
    sources, ext_spec = uses_ext(frontend)
    ok_with(frontend, *sources, "-f", ext_spec, "--emit", "ptx", "-o", os.path.join(work, "m", "p.json"))


def test_same_module_names_do_not_merge(work, frontend):
    out = os.path.join(work, "two.json")
    ok_with(frontend, os.path.join(data("py"), "one", "udfs.py"), os.path.join(data("py"), "two", "udfs.py"), "-f",
            "from_one@one/udfs.py:int32(int32)", "from_two@two/udfs.py:int32(int32)", "-o", out)
    r = compile_with(frontend, os.path.join(data("py"), "one", "udfs.py"), os.path.join(data("py"), "two", "udfs.py"),
                     "-f", "from_one@udfs.py:int32(int32)", "-o", os.path.join(work, "x.json"))
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
    def test(work, frontend):
        write(os.path.join(work, "bad.py"), source)
        out = os.path.join(work, "out")
        os.makedirs(out)
        args = ["bad.py", "-f", spec, "-o", "out/x.json", "--depfile", "out/x.d"]
        if name == "emit-cubin":
            args += ["--emit", "cubin"]
        r = compile_with(frontend, *args, cwd=work)
        assert r.rc == status, r
        assert re.search(pattern, r.err, re.M), f"{pattern!r} not in {r.err!r}"
        assert "Traceback" not in r.err
        assert files_under(out) == [], files_under(out)
    test.__name__ = name.replace("-", "_")
    return test


def test_float16_modules_compiled_apart_link_together(work, frontend):
    """Each compile of a float16 module brings numba's float16 operators (C++ shims) as a
    link file of its own, with the operators it used; two, three and four of them (as
    add_ptx_udf targets make) link into one library, not 'symbol multiply defined', also
    with the LTO-IR kept for load-time linking. numba-cuda-mlir needs no shims."""
    manifests = []
    for name, body in (("a", "x + y"), ("b", "x + y"), ("c", "x * y"), ("d", "x + y * x")):
        write(os.path.join(work, name, "udfs.py"), f"def {name}_op(x, y):\n    return {body}\n")
        out = os.path.join(work, f"{name}.json")
        ok_with(frontend, os.path.join(work, name, "udfs.py"), "-f", f"{name}_op:float16(float16, float16)",
                "--arch", "80", "-o", out)
        manifests.append(out)
    links = [a["xxh3_128"] for m in manifests for a in json.load(open(m))["artifacts"] if a.get("role") == "link"]
    if frontend == MLIR:
        assert links == [], links
    else:
        assert len(links) == 4 and links[0] == links[1] and len(set(links)) == 3, links
    for count in (2, 3, 4):
        for keep in ([], ["--keep-ltoir"]):
            fatbin = os.path.join(work, f"x{count}{len(keep)}.fatbin")
            ok("link", *manifests[:count], "--arch", "80-real;90", *keep, "-o", fatbin)
            desc = json.loads(ok("inspect", fatbin, "--json").out)
            assert [e["kind"] for e in desc["entries"]].count("sass") == 2, desc
            names = [f["c_name"] for f in json.load(open(fatbin + ".json"))["functions"]]
            assert names == ["a_op", "b_op", "c_op", "d_op"][:count], names


def text_sections(cubin):
    """The .text sections of an ELF cubin (the code of each kernel), by name."""
    import struct
    d = open(cubin, "rb").read()
    shoff = struct.unpack_from("<Q", d, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
    header = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
    names = header[shstrndx][4]
    out = {}
    for h in header:
        name = d[names + h[0]:d.index(b"\0", names + h[0])].decode()
        if name.startswith(".text"):
            out[name] = d[h[4]:h[4] + h[5]]
    return out


CALLER = """#include "py.h"
extern "C" __global__ void call_all(const float *a, const float *b, const int *c, float *o, bool *k, long long *w,
                                    int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    o[i] = surcharge(a[i], b[i]);
    k[i] = is_round(a[i]) && larger_first(a[i], b[i]);
    w[i] = triple(c[i]);
}
__device__ float ident(float x) { return x; }
"""


def test_one_ltoir_serves_every_architecture(work, frontend):
    """Python UDFs compile once, to LTO-IR for the lowest architecture asked (CUDA C compiles
    for each: its text may hold per-architecture paths, #if __CUDA_ARCH__, which Python has
    not); the code for each device is made where the LTO-IR is linked, for that device. So a
    kernel calling them, linked for sm_80 and for sm_90, has the same machine code whether the
    UDFs' LTO-IR is compute_75's or that of any architecture up to the device's."""
    py = data(os.path.join("late", "py_udfs.py"))
    fns = ["surcharge:float32(float32, float32)", "is_round:bool(float32)", "triple:int64(int32)",
           "larger_first:bool(float32, float32)"]
    ok_with(frontend, py, "-f", *fns, "--arch", "75;90", "-o", os.path.join(work, "both", "p.json"))
    arts = [a for a in json.load(open(os.path.join(work, "both", "p.json")))["artifacts"] if a.get("arch")]
    assert sorted({a["arch"] for a in arts}) == ["compute_75"], arts
    for arch in ("75", "80", "90"):
        ok_with(frontend, py, "-f", *fns, "--arch", arch, "-o", os.path.join(work, arch, "p.json"))
    ok("header", os.path.join(work, "90", "p.json"), "-o", os.path.join(work, "py.h"), "--name", "py")
    write(os.path.join(work, "caller.cu"), CALLER)
    ok("compile", os.path.join(work, "caller.cu"), "-I", work, "-f", "ident:float32(float32)", "--arch", "80;90",
       "-o", os.path.join(work, "caller", "c.json"))
    for device in ("80", "90"):
        code = {}
        for arch in [a for a in ("75", "80", "90") if int(a) <= int(device)]:
            cubin = os.path.join(work, f"{arch}.sm_{device}.cubin")
            ok("link", os.path.join(work, "caller", "c.json"), os.path.join(work, arch, "p.json"), "--arch",
               f"{device}-real", "--emit", "cubin", "-o", cubin)
            code[arch] = text_sections(cubin)
        assert ".text.call_all" in code["75"] and len(code["75"][".text.call_all"]) > 256, code["75"].keys()
        assert all(c == code["75"] for c in code.values()), f"sm_{device}: the kernel's code differs"


def test_float_mod_helpers_are_named_by_type(work, frontend):
    """float % and // go through numba's divmod helper; under the C ABI numba-cuda named it
    'rem' for every float type, so linked float32 and float64 UDFs shared one body (the
    float32 caller stored a double: a fault on the GPU). Each type has its own now: the
    linked PTX calls no shared helper through a pointer."""
    write(os.path.join(work, "m.py"), "def fmod2(a, b):\n    return a % b\n\ndef fdiv2(a, b):\n    return a // b\n")
    specs = ["m32=fmod2:float32(float32, float32)", "m64=fmod2:float64(float64, float64)",
             "d32=fdiv2:float32(float32, float32)", "d64=fdiv2:float64(float64, float64)"]
    ok_with(frontend, os.path.join(work, "m.py"), "-f", *specs, "--arch", "80", "-o", os.path.join(work, "m.json"))
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


def test_python_map_with_outputs(work, frontend):
    """A Python UDF writing two outputs through pointers is a map with two output columns."""
    write(os.path.join(work, "s.py"), "def split(x, hi, lo):\n    hi[0] = x * 2.0\n    lo[0] = x - 1.0\n")
    ok_with(frontend, os.path.join(work, "s.py"), "-f", "split:void(float32, float32*, float64*)", "--arch", "80",
            "-o", os.path.join(work, "s.json"))
    out = [os.path.join(work, n) for n in ("k.cu", "l.c", "lib.h")]
    ok("kernels", os.path.join(work, "s.json"), "--kernel", "map(split)", "--name", "lib", "--cuda", out[0], "--c",
       out[1], "--header", out[2])
    assert "lib_map_split(udfkit_stream s, size_t n, const float *a1, float *out1, double *out2);" in open(out[2]).read()
    ok("compile", out[0], "--arch", "80", "-o", os.path.join(work, "k.json"))
    ok("link", os.path.join(work, "k.json"), os.path.join(work, "s.json"), "--arch", "80-real",
       "-o", os.path.join(work, "lib.fatbin"))
    assert "udfkit_lib_map_split" in ok("inspect", os.path.join(work, "lib.fatbin")).out


def test_python_without_a_frontend(work):
    """/usr/bin/python3 has neither frontend: auto names both, an explicit one itself, each
    with the pip command of udfkit's pins; nothing is left."""
    for frontend, said in (("auto", "/usr/bin/python3 has neither numba-cuda nor numba-cuda-mlir"),
                           ("numba-cuda", "/usr/bin/python3 has no numba-cuda; install it:"),
                           (MLIR, "/usr/bin/python3 has no numba-cuda-mlir; install it:")):
        r = compile_with(frontend, PY, "-f", "add:float32(float32, float32)", "--python", "/usr/bin/python3", "-o",
                         os.path.join(work, "x.json"))
        assert r.rc == 3, r
        assert said in r.err and "pip install --no-deps numba-cuda==" in r.err, r.err
        assert "numba-cuda-mlir==0.6.0" in r.err and "nvidia-nvvm==13.0." in r.err, r.err
        assert "requirements.txt" not in r.err, r.err  # an install has none
        assert not os.path.exists(os.path.join(work, "x.json"))
    r = udfkit("compile", PY, "-f", "add:float32(float32, float32)", "--python", "/nonexistent/python", "-o",
               os.path.join(work, "x.json"))
    assert r.rc == 3 and "cannot run the Python interpreter '/nonexistent/python'" in r.err, r
    assert not os.path.exists(os.path.join(work, "x.json"))


def fake_distribution(root, name, version):
    info = os.path.join(root, f"{name.replace('-', '_')}-{version}.dist-info")
    write(os.path.join(info, "METADATA"), f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def test_old_numba_cuda_is_refused(work):
    """An old numba-cuda is refused, also under auto (which takes an installed numba-cuda, and
    never a numba-cuda-mlir in its place); and an old numba-cuda-mlir."""
    fake_distribution(os.path.join(work, "site"), "numba-cuda", "0.29.0")
    env = dict(os.environ, PYTHONPATH=os.path.join(work, "site"))
    r = udfkit("compile", PY, "-f", "add:float32(float32, float32)", "-o", os.path.join(work, "x.json"), env=env)
    assert r.rc == 3, r
    assert "numba-cuda 0.29.0" in r.err and "older than 0.30.1" in r.err and "pip install" in r.err, r.err
    fake_distribution(os.path.join(work, "site"), MLIR, "0.5.4")
    r = compile_with(MLIR, PY, "-f", "add:float32(float32, float32)", "-o", os.path.join(work, "x.json"), env=env)
    assert r.rc == 3, r
    assert "numba-cuda-mlir 0.5.4" in r.err and "older than 0.6.0" in r.err and "numba-cuda-mlir==0.6.0" in r.err, r.err
    assert not os.path.exists(os.path.join(work, "x.json"))


def test_newer_nvvm_than_nvjitlink_is_refused(work, frontend):
    fake_distribution(os.path.join(work, "site"), "nvidia-nvvm", "13.9.0")
    env = dict(os.environ, PYTHONPATH=os.path.join(work, "site"))
    out = os.path.join(work, "x.json")
    r = compile_with(frontend, PY, "-f", "add:float32(float32, float32)", "-o", out, env=env)
    assert r.rc == 3, r
    assert "made by NVVM 13.9, newer than this nvJitLink 13.0" in r.err, r.err
    assert not os.path.exists(out)


def need(*frontends):
    for frontend in frontends:
        missing = frontend_missing(frontend)
        if missing:
            raise Skip(f"{frontend} does not import here ({missing})")


def env_with(work, **extra):
    env = dict(os.environ, UDFKIT_CACHE_DIR=os.path.join(work, "cache"))
    env.update(extra)
    return env


# Functions of every type, both frontends: c_name, the spec's rest, numba-cuda-mlir's @file.
AGREED = [("add", "add:float32(float32, float32)"), ("fma3", "fma3:(float64, float64, float64)"),
          ("clamp_i", "clamp_i:int32(int32, int32, int32)"), ("is_positive", "is_positive:(float32)"),
          ("select", "select:float32(bool, float32, float32)"), ("count_true", "count_true:int32(bool, bool, bool)"),
          ("half_lerp", "half_lerp:float16(float16, float16, float16)"), ("i8_wrap", "i8_wrap:int8(int8)"),
          ("u16_div", "u16_div:uint16(uint16, uint16)"), ("umix", "umix:uint32(uint32, uint32)"),
          ("accumulate", "accumulate:float32(float32*, float32)"), ("store_square", "store_square:void(float64*, float64)"),
          ("mix64", "mix64:(int64, int64)"), ("sign64", "sign64:int32(int64)"), ("wave", "wave:(float64)"),
          ("collatz_steps", "collatz_steps:(int64)"), ("floor_mod", "floor_mod:float64(float64, float64)"),
          ("from_one", "from_one@one/udfs.py:int32(int32)"), ("from_two", "from_two@two/udfs.py:int32(int32)"),
          ("uses_ext", "uses_ext{at}:float32(float32)")]
# half_gate_twice calls CUDA C with a float16 argument, which numba-cuda-mlir drops: refused
# there (REFUSED), compiled by numba-cuda alone.
AGREED_SOURCES = [PY, os.path.join(data("py"), "one", "udfs.py"), os.path.join(data("py"), "two", "udfs.py")]


def compile_agreed(work, frontend, prefix="", emit="ltoir"):
    at = "@mlir/calls.py" if frontend == MLIR else "@py/udfs.py"
    sources = AGREED_SOURCES + ([MLIR_CALLS] if frontend == MLIR else [])
    specs = [f"{prefix}{c}={rest.format(at=at)}" for c, rest in AGREED]
    out = os.path.join(work, f"{frontend}{prefix}", "m.json")
    ok_with(frontend, *sources, "-f", *specs, "--arch", "80", "--emit", emit, "-o", out)
    return out


def c_abi_of(ptx, name):
    """What crosses the C ABI for function `name` in PTX: its parameter and return
    declarations, and the width its result is stored with."""
    at = ptx.index(f") {name}(")
    head = ptx[ptx.rindex(".func", 0, at):ptx.index("{", at)]
    body = ptx[ptx.index("{", at):]
    body = body[:body.index("\n}")]
    return re.sub(rf"{name}_param_\d+", "p", head).split(), sorted(set(re.findall(r"st\.param\.\w(\d+)\s+\[func_retval0", body)))


def test_frontends_give_the_same_functions_and_header(work):
    """The same functions (every type, bool and float16 among them, pointers, inferred
    returns, calls into CUDA C) through both frontends: the manifests' functions and the
    headers are the same; the producers differ; the parameters cross the C ABI alike in the
    PTX; numba-cuda-mlir's LTO-IR links with a CUDA C caller compiled by NVRTC, beside
    numba-cuda's, to SASS."""
    need("numba-cuda", MLIR)
    manifests = {f: compile_agreed(work, f) for f in ("numba-cuda", MLIR)}
    loaded = {f: json.load(open(m)) for f, m in manifests.items()}
    for f, m in loaded.items():
        assert set(m["producers"]) == {"udfkit", f, "nvvm"} and m["producers"]["nvvm"] == "13.0", m["producers"]
    assert loaded[MLIR]["producers"][MLIR] == "0.6.0"
    keys = ("c_name", "source_name", "language", "signature", "prototype")
    shown = {f: [{k: fn[k] for k in keys} for fn in m["functions"]] for f, m in loaded.items()}
    assert shown["numba-cuda"] == shown[MLIR], shown
    assert [fn["line"] for fn in loaded["numba-cuda"]["functions"][:-1]] == \
        [fn["line"] for fn in loaded[MLIR]["functions"][:-1]]
    headers = {}
    for f, m in manifests.items():
        headers[f] = os.path.join(work, f, "udfs.h")
        ok("header", m, "-o", headers[f], "--name", "udfs")
    assert open(headers["numba-cuda"]).read() == open(headers[MLIR]).read()
    ptx = {f: compile_agreed(work, f, "p_", "ptx") for f in ("numba-cuda", MLIR)}
    for name in ("p_select", "p_is_positive", "p_half_lerp", "p_count_true", "p_i8_wrap"):
        texts = [open(os.path.join(os.path.dirname(ptx[f]), f"m.{name}.compute_80.ptx")).read() for f in ptx]
        assert c_abi_of(texts[0], name) == c_abi_of(texts[1], name), (name, [c_abi_of(t, name) for t in texts])
    # A CUDA C kernel calls numba-cuda-mlir's UDFs through the header; numba-cuda's (of a
    # module of their own) link beside them, and c_side.cu defines the CUDA C function they call.
    nc = os.path.join(work, "nc", "nc.json")
    write(os.path.join(work, "nc", "nc.py"), "def nc_add(x, y):\n    return x + y\n\n\n"
          "def nc_half_lerp(a, b, t):\n    return a + (b - a) * t\n\n\ndef nc_count_true(a, b, c):\n"
          "    return int(a) + int(b) + int(c)\n")
    ok_with("numba-cuda", os.path.join(work, "nc", "nc.py"), "-f", "nc_add:float32(float32, float32)",
            "nc_half_lerp:float16(float16, float16, float16)", "nc_count_true:int32(bool, bool, bool)", "--arch", "80",
            "-o", nc)
    ok("header", nc, "-o", os.path.join(work, "nc.h"), "--name", "nc")
    write(os.path.join(work, "k.cu"), '#include "udfs.h"\n#include "nc.h"\n'
          'extern "C" __global__ void k(const float *f, const bool *b, const uint16_t *h, float *out, uint16_t *hout,\n'
          '                             int *iout) {\n'
          '    int i = threadIdx.x;\n'
          '    out[i] = select(b[i], f[i], add(f[i], 1.0f)) + (is_positive(f[i]) ? 1.0f : 0.0f)\n'
          '             + nc_add(f[i], f[i]) + uses_ext(f[i]);\n'
          '    hout[i] = half_lerp(h[i], h[i + 1], h[i + 2]) ^ nc_half_lerp(h[i], h[i], h[i]);\n'
          '    iout[i] = count_true(b[i], b[i + 1], b[i + 2]) + nc_count_true(b[i], b[i], b[i]) + from_one(i) + from_two(i);\n'
          '}\n')
    ok("compile", os.path.join(work, "k.cu"), "-I", os.path.join(work, MLIR), "-I", work, "--arch", "80",
       "-o", os.path.join(work, "k.json"))
    ok("compile", os.path.join(data("py"), "c_side.cu"), "-f", "c_half_gate:float16(float16, bool)", "--arch", "80",
       "-o", os.path.join(work, "c.json"))
    cubin = os.path.join(work, "k.cubin")
    ok("link", os.path.join(work, "k.json"), manifests[MLIR], nc, os.path.join(work, "c.json"), "--arch", "80-real",
       "--emit", "cubin", "-o", cubin)
    desc = json.loads(ok("inspect", cubin, "--json").out)
    assert desc["kind"] == "cubin" and desc["arch"] == "sm_80" and "k" in desc["kernels"], desc


def test_frontend_cache_entries(work):
    """The frontend is part of the cache key: the same source and specs under both give two
    entries, and a second run of each is a hit with the same bytes."""
    need("numba-cuda", MLIR)
    env = env_with(work)
    outs = {}
    for frontend in ("numba-cuda", MLIR, "numba-cuda", MLIR):
        out = os.path.join(work, frontend, "m.json")
        before = {n: open(os.path.join(os.path.dirname(out), n), "rb").read()
                  for n in os.listdir(os.path.dirname(out))} if os.path.exists(out) else None
        r = compile_with(frontend, PY, "-f", "poly:float64(float64)", "mix64:(int64, int64)", "-o", out, "-v", env=env)
        assert r.rc == 0, r
        cached = re.search(rf"^udfkit: {frontend} .*: from the cache$", r.err, re.M)
        assert bool(cached) == (before is not None), r.err
        after = {n: open(os.path.join(os.path.dirname(out), n), "rb").read() for n in os.listdir(os.path.dirname(out))}
        assert before is None or before == after
        outs[frontend] = after
    assert json.loads(outs[MLIR]["m.json"])["producers"][MLIR] == "0.6.0"
    assert outs["numba-cuda"]["m.poly.compute_75.ltoir"] != outs[MLIR]["m.poly.compute_75.ltoir"]
    stats = subprocess.run([os.environ["UDFKIT"], "cache", "stats", "--json"], env=env, capture_output=True, text=True)
    local = json.loads(stats.stdout)["local"]
    assert local["entries"] == 2 and local["hits"] == 2 and local["misses"] == 2, local


REFUSED = [
    ("nullable parameter", "def f(a, b):\n    if a is None:\n        return b\n    return a\n",
     "f:float32(float32?, float32)", 1, r"'f': nullable types \(T\?\) are not supported under numba-cuda-mlir 0\.6\.0"),
    ("nullable return", "def f(a, b):\n    if b == 0.0:\n        return None\n    return a / b\n",
     "f:float64?(float64, float64)", 1, r"'f': nullable types \(T\?\) are not supported under numba-cuda-mlir"),
    ("inferred nullable", "def f(a, b):\n    if b == 0.0:\n        return None\n    return a / b\n",
     "f:(float64, float64)", 1, r"'f' may return None, but its spec has no nullable return: nullable returns \(T\?\) "
                                r"are not supported under numba-cuda-mlir 0\.6\.0; compile it with --python-frontend "
                                r"numba-cuda"),
    ("raise", "def f(x):\n    if x < 0.0:\n        raise ValueError('negative')\n    return x\n", "f:float32(float32)", 3,
     r"'f' raises an exception: raise and assert are not supported under numba-cuda-mlir 0\.6\.0, which compiles them "
     r"to an error flag of its own that udfkit's kernels never read .* call udfkit\.row_error\(code\) instead"),
    ("assert", "def f(x):\n    assert x > 0.0\n    return x\n", "f:float32(float32)", 2,
     r"'f' raises an exception: raise and assert are not supported under numba-cuda-mlir"),
    ("RowError", "import udfkit\n\n\ndef f(x):\n    if x < 0:\n        raise udfkit.RowError(3)\n    return x\n",
     "f:int32(int32)", 6, r"'f' raises an exception: raise and assert"),
    ("raise in a helper", "def check(x):\n    if x < 0:\n        raise ValueError()\n    return x\n\n\n"
     "def f(x):\n    return check(x) * 2\n", "f:int32(int32)", 3, r"'f' raises an exception \(in check\)"),
    ("declare_device link", "from numba_cuda_mlir import cuda\n\nlinked = cuda.declare_device('ext', 'float64(float64)', "
     "abi='c', link=['ext.cu'])\n\n\ndef f(x):\n    return linked(x)\n", "f:float64(float64)", 6,
     r"'f' calls 'ext', declared with cuda\.declare_device\(\.\.\., link=\[\.\.\.\]\): numba-cuda-mlir 0\.6\.0 does not "
     r"hand back the code such a declaration links; name the files in the module's __udfkit_link__ instead"),
    ("float16 argument of a declared function", "from numba_cuda_mlir import cuda\n\ngate = cuda.declare_device("
     "'gate', 'float16(float16, boolean)', abi='c')\n\n\ndef f(h, b):\n    return gate(h, b)\n", "f:float16(float16, bool)",
     6, r"'f' calls 'gate' \(\(float16, bool\) -> float16\), declared with cuda\.declare_device, with a float16 "
        r"argument: numba-cuda-mlir 0\.6\.0 leaves float16 arguments out of calls to declared functions"),
    ("numba-cuda declare_device", "from numba import cuda\n\next = cuda.declare_device('ext', 'float64(float64)', "
     "abi='c')\n\n\ndef f(x):\n    return ext(x)\n", "f:float64(float64)", 6,
     r"'f' calls 'ext', declared with numba-cuda's cuda\.declare_device: under numba-cuda-mlir declare it with its own"),
]


def test_mlir_refuses_what_it_cannot_do(work):
    """What numba-cuda-mlir does not do as udfkit's C ABI needs is an input error at the
    function (or its raise), naming the feature and numba-cuda-mlir: exit 1, nothing left."""
    need(MLIR)
    for name, source, spec, line, pattern in REFUSED:
        if name == "numba-cuda declare_device" and frontend_missing("numba-cuda"):
            continue
        write(os.path.join(work, "bad.py"), source)
        out = os.path.join(work, "out")
        os.makedirs(out, exist_ok=True)
        r = compile_with(MLIR, "bad.py", "-f", spec, "-o", "out/x.json", "--depfile", "out/x.d", cwd=work)
        assert r.rc == 1, (name, r)
        assert re.search(rf"^bad\.py:{line}: error: {pattern}", r.err, re.M), (name, r.err)
        assert "Traceback" not in r.err and files_under(out) == [], (name, r.err, files_under(out))
    # numba-cuda-mlir leaves a log file of its internal errors in the temporary directory:
    # udfkit reads the reason from it and removes it.
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp)
    write(os.path.join(work, "ice.py"), "def f(a):\n    if a is None:\n        return 0.0\n    return a * 2.0\n\n\n"
          "def g(x):\n    return f(x if x > 0.0 else None)\n")
    r = compile_with(MLIR, "ice.py", "-f", "g:float64(float64)", "-o", "out/x.json", cwd=work,
                     env=dict(os.environ, TMPDIR=tmp, UDFKIT_SERVER_IDLE="0"))
    assert r.rc == 1 and re.search(r"^ice\.py:\d+: error: numba-cuda-mlir 0\.6\.0 cannot compile 'g' for \(float64\): "
                                   r".*\(numba-cuda-mlir's internal error\)$", r.err, re.M), r
    assert files_under(out) == [] and not [n for n in os.listdir(tmp) if n.startswith("numba_cuda_mlir_error_")]


def test_mlir_row_error(work):
    """udfkit.row_error(code) under numba-cuda-mlir calls the C ABI's udfkit_row_error, with
    a constant and with a computed int64 code."""
    need(MLIR)
    write(os.path.join(work, "e.py"), "import udfkit\n\n\ndef f(x):\n    if x < 0.0:\n        udfkit.row_error(7)\n"
          "        return 0.0\n    return x\n\n\ndef g(x):\n    if x < 0:\n        udfkit.row_error(x)\n    return x\n")
    out = os.path.join(work, "e.json")
    ok_with(MLIR, os.path.join(work, "e.py"), "-f", "f:float32(float32)", "g:int64(int64)", "--emit", "ptx", "-o", out)
    for name in ("f", "g"):
        ptx = open(os.path.join(work, f"e.{name}.compute_75.ptx")).read()
        assert ".extern .func udfkit_row_error" in ptx and re.search(r"call\.uni\s*\n\s*udfkit_row_error,", ptx), ptx


HELPER = "def helper(x):\n    s = x\n" + "".join(
    f"    for i in range(3):\n        s = s * {k} + i\n        if s > 1000:\n            s = s - 7\n"
    f"        elif s < -1000:\n            s = s + 11\n        else:\n            s = s ^ 5\n" for k in (3, 5, 7, 9)) + \
    "    return s + 1\n\n\ndef uses_a(x):\n    return helper(x) * 2\n\n\ndef uses_b(x):\n    return helper(x) * 3\n"


def test_mlir_helpers_named_per_udf(work):
    """numba-cuda-mlir names a helper it does not inline by its dispatcher's address, with
    external linkage: udfkit names each UDF's copy by the UDF. The same input gives the same
    bytes in another process, and two UDFs calling one helper link together."""
    need(MLIR)
    write(os.path.join(work, "h.py"), HELPER)
    alone = dict(os.environ, UDFKIT_CACHE="0", UDFKIT_SERVER_IDLE="0")
    for sub in ("a", "b"):
        r = compile_with(MLIR, os.path.join(work, "h.py"), "-f", "uses_a:(int32)", "uses_b:(int32)", "--arch", "80",
                         "-o", os.path.join(work, sub, "h.json"), env=alone)
        assert r.rc == 0, r
    for name in os.listdir(os.path.join(work, "a")):
        assert open(os.path.join(work, "a", name), "rb").read() == open(os.path.join(work, "b", name), "rb").read(), name
    ok("link", os.path.join(work, "a", "h.json"), "--arch", "80-real", "--emit", "cubin", "-o", os.path.join(work, "h.cubin"))
    ok_with(MLIR, os.path.join(work, "h.py"), "-f", "uses_a:(int32)", "--emit", "ptx", "-o", os.path.join(work, "a.ptx"))
    assert re.search(r"\.visible \.func .*_Z\d+helper__udfkit_uses_a_0i\(", open(os.path.join(work, "a.ptx")).read())


def site_without(work, name, dropped):
    """A virtual environment whose site-packages links every entry of this one's but those
    `dropped` matches: the same interpreter without some distributions."""
    import site

    venv = os.path.join(work, name)
    run([sys.executable, "-m", "venv", "--without-pip", venv])
    ours = next(p for p in site.getsitepackages() if os.path.isdir(os.path.join(p, "numba_cuda_mlir")))
    theirs = next(p for p in glob.glob(os.path.join(venv, "lib", "python*", "site-packages")))
    for entry in os.listdir(ours):
        if not dropped(entry) and not os.path.exists(os.path.join(theirs, entry)):
            os.symlink(os.path.join(ours, entry), os.path.join(theirs, entry))
    return os.path.join(venv, "bin", "python"), ours, theirs


NUMBA_CUDA_ENTRIES = re.compile(r"^(numba_cuda($|-)|numba($|-)|llvmlite|_numba_cuda_redirector)")


def test_auto_takes_numba_cuda_mlir_where_numba_cuda_is_missing(work):
    """auto is numba-cuda where it is installed, else numba-cuda-mlir; a cached answer of
    auto's numba-cuda-mlir is not used once numba-cuda is installed."""
    need("numba-cuda", MLIR)
    python, ours, theirs = site_without(work, "venv", NUMBA_CUDA_ENTRIES.match)
    env = env_with(work, UDFKIT_SERVER_IDLE="0")
    src = write(os.path.join(work, "m.py"), "import math\n\n\ndef poly(x):\n    return math.sqrt(x) * 2.0 + x\n")
    producers = []
    for step in ("alone", "again", "installed"):
        if step == "installed":
            for entry in os.listdir(ours):
                if NUMBA_CUDA_ENTRIES.match(entry):
                    os.symlink(os.path.join(ours, entry), os.path.join(theirs, entry))
        out = os.path.join(work, step, "m.json")
        r = udfkit("compile", src, "-f", "poly:float64(float64)", "--python", python, "-o", out, "-v", env=env)
        assert r.rc == 0, r
        assert ("from the cache" in r.err) == (step == "again"), (step, r.err)
        producers.append(sorted(json.load(open(out))["producers"]))
    assert producers == [[MLIR, "nvvm", "udfkit"]] * 2 + [["numba-cuda", "nvvm", "udfkit"]], producers


def test_python_frontend_choice_errors(work):
    """--python-frontend takes numba-cuda, numba-cuda-mlir or auto (a usage error otherwise,
    exit 2); a numba-cuda-mlir without the private global udfkit sets to compile without a
    GPU is refused with exit 3."""
    r = compile_with("nonsense", PY, "-f", "add:float32(float32, float32)", "-o", os.path.join(work, "x.json"))
    assert r.rc == 2 and "--python-frontend takes numba-cuda, numba-cuda-mlir or auto, not 'nonsense'" in r.err, r
    fake = os.path.join(work, "site")
    fake_distribution(fake, MLIR, "0.6.0")
    write(os.path.join(fake, "numba_cuda_mlir", "__init__.py"), "")
    write(os.path.join(fake, "numba_cuda_mlir", "tools.py"), "def get_gpu_compute_capability(as_type=str):\n"
          "    raise RuntimeError('no GPU')\n")
    r = compile_with(MLIR, PY, "-f", "add:float32(float32, float32)", "-o", os.path.join(work, "x.json"),
                     env=dict(os.environ, PYTHONPATH=fake))
    assert r.rc == 3 and "numba-cuda-mlir 0.6.0 in " in r.err and "has no tools._cached_cc, which udfkit sets so that " \
        "it compiles without a GPU; install the version udfkit pins:" in r.err and "numba-cuda-mlir==0.6.0" in r.err, r
    assert files_under(work) == sorted(os.path.relpath(os.path.join(d, n), work) for d, _, ns in os.walk(fake)
                                       for n in ns)


if __name__ == "__main__":
    main([*for_frontends(test_float16_modules_compiled_apart_link_together, test_float_mod_helpers_are_named_by_type,
                         test_python_map_with_outputs, test_many_functions_in_one_call,
                         test_header_of_every_test_udf_compiles, test_depfile_lists_local_imports_only,
                         test_same_input_same_bytes, test_one_artifact_without_manifest,
                         test_same_module_names_do_not_merge, test_one_ltoir_serves_every_architecture,
                         *[make_case(*c) for c in CASES],
                         test_newer_nvvm_than_nvjitlink_is_refused),
          test_python_without_a_frontend, test_old_numba_cuda_is_refused, test_python_frontend_choice_errors,
          test_frontends_give_the_same_functions_and_header, test_frontend_cache_entries,
          test_mlir_refuses_what_it_cannot_do, test_mlir_row_error, test_mlir_helpers_named_per_udf,
          test_auto_takes_numba_cuda_mlir_where_numba_cuda_is_missing])
