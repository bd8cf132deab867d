"""The Python frontend's server: requests from many processes at once get the same bytes
a worker of their own gives, no request sees another's modules, an upgraded toolchain is
noticed, and the server goes away when idle. Each test runs with a private runtime
directory, so the server it talks to is its own."""
import atexit
import contextlib
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from harness import UDFKIT, Skip, frontend_missing, main, udfkit


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


RUNTIME_DIRS = {}


def runtime_dir(work):
    """A private runtime directory short enough for socket addresses (108 bytes)."""
    if work not in RUNTIME_DIRS:
        RUNTIME_DIRS[work] = tempfile.mkdtemp(prefix="uk-")
        atexit.register(shutil.rmtree, RUNTIME_DIRS[work], True)
    return RUNTIME_DIRS[work]


def env_for(work, **extra):
    env = dict(os.environ, XDG_RUNTIME_DIR=runtime_dir(work), UDFKIT_CACHE="0", UDFKIT_SERVER_IDLE="10")
    env.update(extra)
    return env


def sockets(work):
    return glob.glob(os.path.join(runtime_dir(work), "udfkit", "py-*.sock"))


def module(work, k):
    helper = write(os.path.join(work, f"src{k}", "helper.py"), f"OFFSET = {k}.5\n")
    src = write(os.path.join(work, f"src{k}", "udfs.py"),
                "from helper import OFFSET\n\n\n"
                f"def f{k}(x):\n    return x * {k + 2}.0 + OFFSET\n\n\n"
                f"def g{k}(x, y):\n    return x if x > y else y - {k}.0\n")
    return src, helper


def compile_module(work, k, env, out):
    src, _ = module(work, k) if not os.path.exists(os.path.join(work, f"src{k}", "udfs.py")) else (
        os.path.join(work, f"src{k}", "udfs.py"), None)
    return udfkit("compile", src, "-f", f"f{k}:float32(float32)", f"g{k}:(float64, float64)", "--arch", "80-real",
                  "-o", out, env=env)


def artifacts(out):
    m = json.load(open(out))
    return {a["path"]: open(os.path.join(os.path.dirname(out), a["path"]), "rb").read() for a in m["artifacts"]}


def test_many_processes_get_a_workers_bytes(work):
    env = env_for(work)
    for k in range(6):
        module(work, k)
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda k: compile_module(work, k, env, os.path.join(work, "server", f"{k}.json")),
                                range(6)))
    assert all(r.rc == 0 for r in results), results
    assert len(sockets(work)) == 1, sockets(work)  # one server answered them all
    alone = env_for(work, UDFKIT_SERVER_IDLE="0")
    for k in range(6):
        r = compile_module(work, k, alone, os.path.join(work, "worker", f"{k}.json"))
        assert r.rc == 0, r
        assert artifacts(os.path.join(work, "server", f"{k}.json")) == artifacts(os.path.join(work, "worker", f"{k}.json"))


def test_no_request_sees_another_requests_modules(work):
    env = env_for(work)
    _, helper = module(work, 1)
    out = os.path.join(work, "out", "a.json")
    assert compile_module(work, 1, env, out).rc == 0
    before = artifacts(out)
    write(helper, "OFFSET = 100.25\n")  # an imported module changed between two requests
    assert compile_module(work, 1, env, out).rc == 0
    after = artifacts(out)
    assert before != after
    alone = env_for(work, UDFKIT_SERVER_IDLE="0")
    assert compile_module(work, 1, alone, os.path.join(work, "worker", "a.json")).rc == 0
    assert after == artifacts(os.path.join(work, "worker", "a.json"))


def test_one_server_for_every_working_directory(work):
    """Builds in different directories (a shell sets PWD, OLDPWD and _ for each) share one
    server per interpreter and environment."""
    base = env_for(work)
    outputs = []
    for k, cwd in enumerate(("a", "b/c", "d")):
        os.makedirs(os.path.join(work, cwd), exist_ok=True)
        src, _ = module(work, k)
        env = dict(base, PWD=os.path.join(work, cwd), OLDPWD=os.path.join(work, "elsewhere", str(k)), _=f"/bin/x{k}",
                   SHLVL=str(k + 1))
        out = os.path.join(work, cwd, "out.json")
        r = udfkit("compile", os.path.relpath(src, os.path.join(work, cwd)), "-f", f"f{k}:float32(float32)", "-o",
                   "out.json", cwd=os.path.join(work, cwd), env=env)
        assert r.rc == 0, r
        outputs.append(out)
    assert len(sockets(work)) == 1, sockets(work)
    # A variable that can change an answer still gets a server of its own.
    r = udfkit("compile", module(work, 0)[0], "-f", "f0:float32(float32)", "-o", os.path.join(work, "e.json"),
               env=dict(base, NUMBA_OPT="1"))
    assert r.rc == 0, r
    assert len(sockets(work)) == 2, sockets(work)


def server_pids(work):
    """The server processes of this test's runtime directory (their command line names the socket)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = open(f"/proc/{entry}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if b"--serve" in cmdline and runtime_dir(work).encode() in b" ".join(cmdline):
            pids.append(int(entry))
    return pids


def test_stopped_server_is_not_waited_for(work):
    """A server that is stopped (SIGSTOP) takes no request: the command gives up on it after
    UDFKIT_SERVER_TIMEOUT and its own worker answers, with the same bytes."""
    env = env_for(work, UDFKIT_SERVER_TIMEOUT="3")
    assert compile_module(work, 1, env, os.path.join(work, "first", "x.json")).rc == 0
    (server,) = server_pids(work)
    os.kill(server, signal.SIGSTOP)
    try:
        start = time.time()
        r = compile_module(work, 1, env, os.path.join(work, "second", "x.json"))
        assert r.rc == 0 and time.time() - start < 60, r
        assert artifacts(os.path.join(work, "first", "x.json")) == artifacts(os.path.join(work, "second", "x.json"))
    finally:
        os.kill(server, signal.SIGKILL)


def test_stopped_request_is_answered_by_a_worker(work):
    """A server child that stops while it compiles (here: a module that stops itself, only
    inside the server) is noticed; a worker of the command's own answers."""
    src = write(os.path.join(work, "stop", "udfs.py"),
                "import os, signal, sys\nif '--serve' in sys.argv:\n    os.kill(os.getpid(), signal.SIGSTOP)\n\n\n"
                "def h(x):\n    return x + 1.0\n")
    env = env_for(work)
    assert compile_module(work, 1, env, os.path.join(work, "warm.json")).rc == 0  # a server runs
    before = set(server_pids(work))
    start = time.time()
    r = udfkit("compile", src, "-f", "h:float32(float32)", "-o", os.path.join(work, "server", "h.json"), env=env)
    assert r.rc == 0 and time.time() - start < 60, r
    alone = udfkit("compile", src, "-f", "h:float32(float32)", "-o", os.path.join(work, "worker", "h.json"),
                   env=env_for(work, UDFKIT_SERVER_IDLE="0"))
    assert alone.rc == 0, alone
    assert artifacts(os.path.join(work, "server", "h.json")) == artifacts(os.path.join(work, "worker", "h.json"))
    for pid in set(server_pids(work)) - before:  # the stopped child
        os.kill(pid, signal.SIGKILL)


def test_errors_are_located_through_the_server(work):
    env = env_for(work)
    bad = write(os.path.join(work, "bad", "udfs.py"), "def f(x):\n    return x.nope\n")
    r = udfkit("compile", bad, "-f", "f:float32(float32)", "-o", os.path.join(work, "out", "b.json"), env=env)
    # The file as udfkit shows it (relative to the working directory where that is shorter).
    located = re.match(r"(.*):2: error: ", r.err)
    assert r.rc == 1 and located and os.path.realpath(located.group(1)) == os.path.realpath(bad), r
    assert not os.path.exists(os.path.join(work, "out", "b.json"))
    assert sockets(work)


def test_printing_modules_and_new_directories(work):
    """What a module prints never reaches udfkit's answer, in a worker or a server child;
    and a directory on PYTHONPATH made after the server started is searched like any."""
    late = os.path.join(work, "late")
    env = env_for(work, PYTHONPATH=late)
    src = write(os.path.join(work, "p", "udfs.py"),
                "import sys\nprint('loading udfs')\nprint('to stderr', file=sys.stderr)\n\n\n"
                "def f(x):\n    print('never run on the CPU')\n    return x * 3.0\n")
    outs = {}
    for mode, mode_env in (("server", env), ("worker", env_for(work, UDFKIT_SERVER_IDLE="0", PYTHONPATH=late))):
        out = os.path.join(work, mode, "x.json")
        r = udfkit("compile", src, "-f", "f:float32(float32)", "-o", out, env=mode_env)
        assert r.rc == 0, (mode, r)
        outs[mode] = artifacts(out)
    assert outs["server"] == outs["worker"]
    assert sockets(work)
    # The server runs; now the directory appears, with a module a UDF imports.
    write(os.path.join(late, "late_helper.py"), "SCALE = 7.0\n")
    uses = write(os.path.join(work, "q", "udfs.py"), "from late_helper import SCALE\n\n\ndef g(x):\n    return x * SCALE\n")
    r = udfkit("compile", uses, "-f", "g:float32(float32)", "-o", os.path.join(work, "late_out", "x.json"), env=env)
    assert r.rc == 0, r


@contextlib.contextmanager
def touched_metadata(distribution):
    """An installed distribution's METADATA with a newer time stamp, as an upgrade leaves it,
    put back after."""
    probe = subprocess.run([sys.executable, "-c",
                            f"import importlib.metadata as m, os; d = m.distribution('{distribution}'); "
                            "print(os.path.join(str(d._path), 'METADATA'))"], capture_output=True, text=True)
    metadata = probe.stdout.strip()
    st = os.stat(metadata)
    os.utime(metadata, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    try:
        yield
    finally:
        os.utime(metadata, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_upgraded_toolchain_is_noticed(work):
    env = env_for(work)
    assert compile_module(work, 2, env, os.path.join(work, "a", "x.json")).rc == 0
    assert len(sockets(work)) == 1
    # A newer numba-cuda install changes the files that identify it; the server must not
    # answer with the numba it imported. The request still gets its answer.
    with touched_metadata("numba-cuda"):
        assert compile_module(work, 2, env, os.path.join(work, "b", "x.json")).rc == 0
    assert artifacts(os.path.join(work, "a", "x.json")) == artifacts(os.path.join(work, "b", "x.json"))
    deadline = time.time() + 10
    while sockets(work) and time.time() < deadline:
        time.sleep(0.05)
    assert not sockets(work), "the stale server did not stop"


def test_idle_server_goes_away(work):
    env = env_for(work, UDFKIT_SERVER_IDLE="1")
    assert compile_module(work, 3, env, os.path.join(work, "out", "a.json")).rc == 0
    assert len(sockets(work)) == 1
    deadline = time.time() + 15
    while sockets(work) and time.time() < deadline:
        time.sleep(0.1)
    assert not sockets(work), "the server outlived its idle time"


def test_command_does_not_wait_for_the_server(work):
    # The server holds nothing of the command's: a caller reading its output sees the end
    # as soon as udfkit exits (Ninja and ctest wait for every holder of the pipe).
    env = env_for(work, UDFKIT_SERVER_IDLE="60")
    module(work, 4)
    start = time.time()
    proc = subprocess.run([UDFKIT, "compile", os.path.join(work, "src4", "udfs.py"), "-f", "f4:float32(float32)",
                           "-o", os.path.join(work, "out", "a.json")], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert time.time() - start < 30
    assert sockets(work)


def test_one_warm_server_per_frontend(work):
    """Each Python frontend asked (numba-cuda, numba-cuda-mlir, auto) has a server of its own,
    started with that frontend, whose answers are a worker's bytes; requests for several
    frontends at once are each answered by theirs; an upgraded numba-cuda-mlir stops its
    server and no other."""
    for frontend in ("numba-cuda", "numba-cuda-mlir"):
        if frontend_missing(frontend):
            raise Skip(f"{frontend} does not import here ({frontend_missing(frontend)})")
    env = env_for(work, UDFKIT_SERVER_IDLE="120")  # none leaves while the test runs, however slow
    frontends = ("numba-cuda", "numba-cuda-mlir", "auto")
    for k in range(6):
        module(work, k)

    def compile_k(k, mode_env, sub):
        out = os.path.join(work, sub, f"{k}.json")
        r = udfkit("compile", os.path.join(work, f"src{k}", "udfs.py"), "-f", f"f{k}:float32(float32)",
                   f"g{k}:(float64, float64)", "--arch", "80-real", "--python-frontend", frontends[k % 3], "-o", out,
                   env=mode_env)
        assert r.rc == 0, r
        return out

    with ThreadPoolExecutor(6) as pool:
        outs = list(pool.map(lambda k: compile_k(k, env, "server"), range(6)))
    assert len(sockets(work)) == 3, sockets(work)
    # --serve SOCKET IDLE FRONTEND: each server's socket by its frontend.
    serving = {}
    for pid in server_pids(work):
        argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        serving[argv[-2].decode()] = argv[-4].decode()
    assert sorted(serving) == sorted(frontends) and sorted(serving.values()) == sorted(sockets(work)), serving
    for k in range(6):
        producers = json.load(open(outs[k]))["producers"]
        assert ("numba-cuda-mlir" in producers) == (k % 3 == 1), producers
        assert artifacts(outs[k]) == artifacts(compile_k(k, env_for(work, UDFKIT_SERVER_IDLE="0"), "worker"))
    with touched_metadata("numba-cuda-mlir"):
        compile_k(1, env, "again")
    deadline = time.time() + 30
    while os.path.exists(serving["numba-cuda-mlir"]) and time.time() < deadline:
        time.sleep(0.05)
    assert sorted(sockets(work)) == sorted([serving["numba-cuda"], serving["auto"]]), \
        "the stale numba-cuda-mlir server did not stop, or another did"
    for pid in server_pids(work):
        os.kill(pid, signal.SIGTERM)


if __name__ == "__main__":
    main([test_many_processes_get_a_workers_bytes, test_no_request_sees_another_requests_modules,
          test_one_server_for_every_working_directory, test_stopped_server_is_not_waited_for,
          test_stopped_request_is_answered_by_a_worker,
          test_errors_are_located_through_the_server, test_printing_modules_and_new_directories,
          test_upgraded_toolchain_is_noticed, test_idle_server_goes_away,
          test_command_does_not_wait_for_the_server, test_one_warm_server_per_frontend])
