"""udfkit compile --untrusted: sources someone else wrote (a build that compiles packages it
was handed), compiled with NVRTC in udfkit's sandbox, reading only below the -I and
--allow-include directories and CUDA's headers (docs/security.md); and --time-limit and
--memory-limit, which any compile may take."""
import os
import re
import shutil
import subprocess
import time

from harness import Skip, main, udfkit

BODY = "__device__ float f(float x) { return x + 1.0f; }\n"
SPEC = ("-f", "f:float32(float32)", "--arch", "80")
COMPUTED = '#define Q(x) #x\n#define S(x) Q(x)\n#include S({path})\n'
BOMB = ("template <int N, int M> struct F { enum { v = F<N - 1, 2 * M>::v + F<N - 1, 2 * M + 1>::v }; };\n"
        "template <int M> struct F<0, M> { enum { v = 1 }; };\n"
        "__device__ float f(float x) { return x + F<40, 0>::v; }\n")


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def engine_dirs(work):
    """An include directory users may read, with a link and a FIFO in it, and a secret beside it."""
    write(os.path.join(work, "inc", "helper.h"), "__device__ inline float helper(float x) { return 3 * x; }\n")
    write(os.path.join(work, "secret.txt"), "udfkit-cli-secret-line\n")
    os.symlink("/etc/hostname", os.path.join(work, "inc", "host.h"))
    os.mkfifo(os.path.join(work, "inc", "pipe.h"))


def compile_untrusted(work, text, *extra):
    write(os.path.join(work, "src", "user.cu"), text)
    return udfkit("compile", "--untrusted", "src/user.cu", "-I", "inc", *SPEC, "-o", "out/user.ltoir", *extra,
                  cwd=work)


def no_secret_in(r):
    with open("/etc/passwd") as f:
        first = f.readline().strip()
    for secret in (first, "udfkit-cli-secret-line"):
        assert secret not in r.err and secret not in r.out, r


def test_the_servers_files_are_refused(work):
    engine_dirs(work)
    cases = {
        '#include "/etc/passwd"\n': 'src/user.cu:1: error: #include "/etc/passwd" is refused: an absolute path',
        '#include "../../etc/hostname"\n': "is refused: a name with '..'",
        "#include </proc/self/environ>\n": '#include "/proc/self/environ" is refused',
        '#include "/proc/self/fd/7"\n': "is refused: an absolute path",
        "#include_next <helper.h>\n": "src/user.cu:1: error: #include_next",
        '#include "../secret.txt"\n': "is refused: a name with '..'",
        '#include "host.h"\n': '#include "host.h" is refused: a name that leads outside',
        '#include "pipe.h"\n': '#include "pipe.h" is refused: a name that is not a regular file',
    }
    for text, message in cases.items():
        r = compile_untrusted(work, text + BODY)
        assert r.rc == 1 and message in r.err, (text, r)
        no_secret_in(r)
        assert not os.path.exists(os.path.join(work, "out")), text
    for path in ("/etc/passwd", "/proc/self/environ", os.path.join(work, "secret.txt"), "/nonexistent/x.h"):
        r = compile_untrusted(work, COMPUTED.format(path=path) + BODY)
        assert r.rc == 1 and f'cannot open source file "{path}"' in r.err, (path, r)
        assert "Permission denied" not in r.err, r  # an existing file reads as a missing one
        no_secret_in(r)


def test_allowed_headers_and_has_include(work):
    engine_dirs(work)
    text = (COMPUTED.format(path="x").split("#include")[0] +
            f'#if __has_include(S({work}/secret.txt)) || __has_include(S(/etc/passwd))\n#error a secret exists\n#endif\n'
            '#include "helper.h"\n#include <cuda/std/optional>\n'
            "__device__ float f(float x) { return helper(x); }\n")
    r = compile_untrusted(work, text)
    assert r.rc == 0, r
    with open(os.path.join(work, "out", "user.ltoir"), "rb") as f:
        assert f.read(4) == b"\xedCN\x7f"
    # --allow-include: readable, not searched; without --untrusted, a usage error.
    write(os.path.join(work, "more", "m.h"), "#define TWO 2.0f\n")
    text = COMPUTED.format(path=f"{work}/more/m.h") + "__device__ float f(float x) { return TWO * x; }\n"
    assert compile_untrusted(work, text).rc == 1
    assert compile_untrusted(work, text, "--allow-include", "more").rc == 0
    r = udfkit("compile", "src/user.cu", *SPEC, "-o", "o.ltoir", "--allow-include", "more", cwd=work)
    assert r.rc == 2 and "--allow-include goes with --untrusted" in r.err, r


def test_python_is_not_compiled_untrusted(work):
    write(os.path.join(work, "u.py"), "def f(x):\n    return x\n")
    r = udfkit("compile", "--untrusted", "u.py", "-f", "f:float32(float32)", "-o", "u.json", cwd=work)
    assert r.rc == 2 and "--untrusted compiles CUDA C/C++ only" in r.err, r


def test_limits(work):
    engine_dirs(work)
    start = time.monotonic()
    r = compile_untrusted(work, BOMB, "--time-limit", "2")
    assert r.rc == 1 and "stopped: it ran past its time limit of 2 s" in r.err, r
    assert time.monotonic() - start < 30, "the limit did not stop it"
    r = compile_untrusted(work, COMPUTED.format(path=f"{work}/inc/pipe.h") + BODY, "--time-limit", "2")
    assert r.rc == 1 and "ran past its time limit of 2 s" in r.err, r
    r = compile_untrusted(work, BOMB, "--memory-limit", "400M")
    assert r.rc == 1 and "memory limit of 400 MiB" in r.err, r
    # Limits alone, on a trusted compile: NVRTC in the sandbox, unconfined.
    write(os.path.join(work, "b.cu"), BOMB)
    r = udfkit("compile", "b.cu", *SPEC, "-o", "b.ltoir", "--time-limit", "2", cwd=work)
    assert r.rc == 1 and "ran past its time limit of 2 s" in r.err, r
    for bad in (("--time-limit", "0"), ("--time-limit", "x"), ("--memory-limit", "1M"), ("--memory-limit", "4Q")):
        r = udfkit("compile", "b.cu", *SPEC, "-o", "b.ltoir", *bad, cwd=work)
        assert r.rc == 2 and bad[0] in r.err, (bad, r)


def test_strace_shows_no_other_file_read(work):
    """Under strace -f: the sandboxed NVRTC, once Landlock confines it, opens nothing outside
    the include directory and CUDA's headers (what it tries is refused), and no process
    opens the secrets."""
    if not shutil.which("strace"):
        raise Skip("strace is not installed")
    engine_dirs(work)
    text = (COMPUTED.format(path="/etc/passwd").replace("#include S(/etc/passwd)\n", "") +
            f"#if __has_include(S({work}/secret.txt))\n#error\n#endif\n"
            '#include "helper.h"\n#include <cuda/std/optional>\n'
            "#include S(/etc/passwd)\n" + BODY)
    write(os.path.join(work, "src", "user.cu"), text)
    trace = os.path.join(work, "trace.txt")
    # LeakSanitizer cannot run under ptrace: a sanitized udfkit is traced without it.
    asan = ":".join(o for o in os.environ.get("ASAN_OPTIONS", "").split(":") if o and "detect_leaks" not in o)
    env = dict(os.environ, UDFKIT_CACHE_DIR=os.path.join(work, "cache"), ASAN_OPTIONS=asan + ":detect_leaks=0")
    proc = subprocess.run(["strace", "-f", "-o", trace, "-e", "trace=open,openat,openat2,landlock_restrict_self",
                           os.environ["UDFKIT"], "compile", "--untrusted", "src/user.cu", "-I", "inc", *SPEC, "-o",
                           "out/user.ltoir"], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and 'cannot open source file "/etc/passwd"' in proc.stderr, proc.stderr
    headers = re.search(r"^CUDA headers\s+(\S+)", udfkit("--version").out, re.M).group(1)
    roots = [os.path.realpath(os.path.join(work, "inc")), os.path.realpath(headers)]
    confined, checked = set(), 0
    for line in open(trace):
        m = re.match(r"(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)", line)
        if not m:
            continue
        pid, call, args, result = m.group(1), m.group(2), m.group(3), int(m.group(4))
        if call == "landlock_restrict_self" and result == 0:
            confined.add(pid)
            continue
        path = re.search(r'"([^"]*)"', args)
        if not path:
            continue
        path = os.path.realpath(os.path.join(work, path.group(1)))
        assert not (result >= 0 and (path.endswith("secret.txt") or path == "/etc/passwd")), line
        if pid in confined and result >= 0:
            checked += 1
            assert any(path == r or path.startswith(r + "/") for r in roots), line
    assert confined, "no process confined itself"
    assert checked > 0, "the confined compile opened nothing: the trace missed it"


if __name__ == "__main__":
    main([test_the_servers_files_are_refused, test_allowed_headers_and_has_include, test_python_is_not_compiled_untrusted,
          test_limits, test_strace_shows_no_other_file_read])
