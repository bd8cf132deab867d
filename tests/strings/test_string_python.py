#!/usr/bin/env python3
"""strings-python: Python UDFs over str compile (numba-cuda), and what cannot be compiled is
refused at its line, naming the operation.

- tests/data/strings/py_strings.py: every supported operation (SPECS), compiled by `udfkit
  compile` into one manifest: each function's LTO-IR, and udfkit's string functions linked
  beside them (one link artifact, the same for all);
- the same module compiled apart as a second package, linked with the first (udfkit's string
  functions are link-once) and a udfkit_row_error;
- a UDF calling str.encode, one multiplying a str by a float, one returning a str where its
  spec says int64: `file:line: error:` naming the operation, exit status non-zero, no output;
- under --python-frontend numba-cuda-mlir (where it imports), a str parameter is refused at
  the function's line, naming the frontend to use.

- str() and repr() of floats and ints, and str() of a str, type to udfkit's str where numba-cuda's
  own builtins were registered first (as in udfkit's compile server), whose generic str() made
  the constant "<object type:float64>";
- udfkit's string functions for Python UDFs on the host against CPython over the
  gpu-python-strings corpus, with every heap block freed at the end of its row
  (python_shims_host.py).

Environment: UDFKIT (the tool), UDFKIT_TEST_DATA, UDFKIT_SOURCE_DIR, CXX."""
import json
import os
import subprocess
import sys
import tempfile

UDFKIT = os.environ["UDFKIT"]
DATA = os.path.join(os.environ["UDFKIT_TEST_DATA"], "strings")
sys.path.insert(0, DATA)
import py_strings  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_shims_host  # noqa: E402

SOURCE = os.environ.get("UDFKIT_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")

BAD = '''def enc(s):
    n = len(s)
    return n + len(s.encode())


def times(s):
    return s * 1.5


def wrong(s):
    return s.upper()
'''


def str_after_numba_builtins():
    """str() of numbers and of a str types to udfkit's str where numba-cuda's own builtins were
    registered first, as in udfkit's compile server (its warm-up compiles before the request
    defines udfkit's str): numba-cuda's generic str() then comes first, and made the constant
    "<object type:float64>" of a float. Run in a child process of this Python (numba-cuda
    imported there, in that order); skipped where numba-cuda does not import."""
    code = r"""
import sys
sys.path.insert(0, sys.argv[1])
try:
    from numba import cuda, types
    from numba.cuda import compile_all, dispatcher
except ImportError:
    print("skip")
    sys.exit(0)
class Target:
    compute_capability = (7, 5)
dispatcher.get_current_device = lambda: Target
def warm(x):
    return x * 2.0 + 1.0
compile_all(warm, types.float32(types.float32), device=True, abi="c", abi_info={"abi_name": "warm"},
            output="ltoir", cc=(7, 5))
import udfkit_strings
ns = udfkit_strings.define()
def text(x):
    return str(x)
def both(x):
    return repr(x) + str(x)
for ty in (types.float64, types.float32, types.int64, types.int32, types.uint64, ns.str_type):
    for fn in (text, both) if ty != ns.str_type else (text,):
        got = cuda.jit(device=True)(fn).compile_device((ty,)).signature.return_type
        assert got == ns.str_type, f"{fn.__name__}({ty}) is {got}, not udfkit's str"
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code, os.path.join(SOURCE, "src", "frontend")], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, f"str() after numba-cuda's builtins:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout.strip()


def udfkit(args, expect_ok=True):
    proc = subprocess.run([UDFKIT] + args, capture_output=True, text=True, timeout=1200)
    shown = " ".join(args)
    if expect_ok:
        assert proc.returncode == 0, f"udfkit {shown} failed:\n{proc.stdout}\n{proc.stderr}"
    else:
        assert proc.returncode != 0, f"udfkit {shown} succeeded, but must not"
    return proc


def located(path, line, stderr):
    """The location udfkit gives: the path as given, or relative to the working directory where
    that is shorter (as udfkit shows it)."""
    absolute, relative = f"{path}:{line}: error:", f"{os.path.relpath(path)}:{line}: error:"
    return relative if relative in stderr else absolute


def main():
    source = os.path.join(DATA, "py_strings.py")
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "py_strings.json")
        args = ["compile", source, "--arch", "80", "-o", out, "--python-frontend", "numba-cuda"]
        for name, spec in py_strings.SPECS.items():
            args += ["--function", f"{name}:{spec}"]
        udfkit(args)
        with open(out) as f:
            manifest = json.load(f)
        arts = manifest["artifacts"]
        funcs = {a.get("function") for a in arts if a.get("function")}
        assert funcs == set(py_strings.SPECS), sorted(set(py_strings.SPECS) - funcs)
        links = [a for a in arts if a.get("role") == "link"]
        assert len(links) == 1 and links[0]["kind"] == "ltoir", links
        for a in arts:
            assert os.path.getsize(os.path.join(work, a["path"])) == a["size"] > 0, a
        print(f"ok: {len(funcs)} string UDFs compiled, string functions linked once")

        # A UDF without strings in its spec that makes them links the string functions too.
        digits = os.path.join(work, "digits.json")
        udfkit(["compile", source, "--function", "p_digits:int64(int64)", "--arch", "80", "-o", digits])
        with open(digits) as f:
            roles = [a.get("role") for a in json.load(f)["artifacts"]]
        assert roles.count("link") == 1, roles
        print("ok: str() in a UDF over int64 links the string functions")

        # Two packages compiled apart, each bringing udfkit's string functions, link together
        # (the functions are link-once), with a kernel side's udfkit_row_error.
        second = os.path.join(work, "second.py")
        with open(source) as f, open(second, "w") as g:
            g.write(f.read())
        udfkit(["compile", second, "--function", "q_concat=p_concat_many:string(string, string)", "--function",
                "q_int=p_int:int64(string)", "--arch", "80", "-o", os.path.join(work, "second.json")])
        row_error = os.path.join(work, "row_error.cu")
        with open(row_error, "w") as f:
            f.write('extern "C" __device__ void udfkit_row_error(int code) { (void)code; }\n')
        udfkit(["compile", row_error, "--arch", "80", "-o", os.path.join(work, "row_error.json")])
        udfkit(["link", out, os.path.join(work, "second.json"), os.path.join(work, "row_error.json"), "--arch",
                "80-real", "-o", os.path.join(work, "both.fatbin")])
        assert os.path.getsize(os.path.join(work, "both.fatbin")) > 0
        print("ok: two packages of string UDFs compiled apart link together")

        bad = os.path.join(work, "bad.py")
        with open(bad, "w") as f:
            f.write(BAD)
        for fn, spec, line, words in (("enc", "int64(string)", 3, "str.encode is not supported"),
                                      ("times", "string(string)", 7, "mul(str, float64)"),
                                      ("wrong", "int64(string)", 10, "returns str, but its spec says int64")):
            target = os.path.join(work, f"{fn}.ltoir")
            proc = udfkit(["compile", bad, "--function", f"{fn}:{spec}", "--arch", "80", "-o", target], False)
            want = located(bad, line, proc.stderr)
            assert want in proc.stderr and words in proc.stderr, f"{fn}: wanted '{want}' and '{words}':\n{proc.stderr}"
            assert not os.path.exists(target), target
            print(f"ok: {fn} refused at line {line}")

        if str_after_numba_builtins() == "skip":
            print("str() after numba-cuda's builtins: skipped: numba-cuda does not import in this Python")
        else:
            print("ok: str() and repr() of floats, ints and a str are udfkit's after numba-cuda's builtins")

        cases = python_shims_host.check(os.path.join(SOURCE, "src", "runtime", "include"),
                                        os.environ.get("CXX") or "g++", work)
        print(f"ok: the string functions on the host: {cases} cases as CPython's, no heap block left")

        mlir = os.path.join(work, "mlir.ltoir")
        proc = subprocess.run([UDFKIT, "compile", source, "--function", "p_len:int64(string)", "--arch", "80",
                               "-o", mlir, "--python-frontend", "numba-cuda-mlir"], capture_output=True, text=True,
                              timeout=600)
        if "has no numba-cuda-mlir" in proc.stderr:
            print("numba-cuda-mlir: skipped: not installed")
        else:
            want = located(source, 6, proc.stderr)
            assert proc.returncode != 0 and want in proc.stderr and "--python-frontend numba-cuda" in proc.stderr, \
                proc.stderr
            assert not os.path.exists(mlir)
            print("ok: numba-cuda-mlir refuses str, located")


main()
