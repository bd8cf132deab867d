"""What the tool needs, as `udfkit --version`, `udfkit doctor` and `udfkit setup-python` tell
it: a missing part is listed with how to get it (exit 3), never a failure of the listing;
doctor checks a project's Python frontends, architectures and remote caches (a Redis server
started here, and a port where nothing answers); setup-python's usage and its idempotence
(the environment it would make is made by tests/install, which installs the wheels)."""
import os
import re
import shutil
import sys

from harness import Skip, main, udfkit
import servers

REQUIREMENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "requirements.txt")


def test_version_lists_every_part_also_when_one_is_missing(work):
    env = dict(os.environ, UDFKIT_NVFATBIN_LIBRARY=os.path.join(work, "libnvfatbin.so.13"))
    r = udfkit("--version", env=env)
    assert r.rc == 3, r
    for part in ("udfkit ", "NVRTC 13.", "nvJitLink 13.", "nvPTXCompiler 13.", "CUDA headers ", "Python frontend "):
        assert re.search(rf"^{re.escape(part)}", r.out, re.M), (part, r.out)
    line = next(l for l in r.out.splitlines() if l.startswith("nvFatbin"))
    assert "missing: " in line and "UDFKIT_NVFATBIN_LIBRARY" in line and "cannot be loaded" in line, line
    assert "udfkit: error: missing: nvFatbin" in r.err, r.err
    # With -v, where each part comes from.
    r = udfkit("-v", "--version")
    assert r.rc == 0 and "found through the build tree" in r.out, r


def test_version_without_a_python_frontend(work):
    r = udfkit("--version", env=dict(os.environ, UDFKIT_PYTHON="/bin/true"))
    assert r.rc == 3, r
    assert re.search(r"^Python frontend +missing: /bin/true cannot be run as Python", r.out, re.M), r
    r = udfkit("--version", env=dict(os.environ, UDFKIT_PYTHON="/usr/bin/python3"))
    assert r.rc == 3, r
    assert re.search(r"^Python frontend +missing: /usr/bin/python3 has neither numba-cuda nor numba-cuda-mlir", r.out,
                     re.M), r
    assert "udfkit setup-python" in r.out, r.out


def test_doctor_checks_a_projects_set_up(work):
    r = udfkit("doctor", "--arch", "75-real;80-real;90")
    assert r.rc == 0, r
    assert re.search(r"^numba-cuda +\d+\.\d+\.\d+: imports", r.out, re.M), r.out
    assert "75-real;80-real;90: sm_75, sm_80, sm_90, compute_90 (NVRTC supports each)" in r.out, r.out
    assert re.search(r"^Cache +\S+: writable", r.out, re.M) and re.search(r"^GPU ", r.out, re.M), r.out
    r = udfkit("doctor", "--arch", "75;sm_99")
    assert r.rc == 3 and "architectures" in r.err, r
    r = udfkit("doctor", "--python", "/bin/true")
    assert r.rc == 3 and "Python frontend" in r.err, r
    assert udfkit("doctor", "--python-frontend", "nonsense").rc == 2


def test_doctor_checks_remote_caches(work):
    why = servers.missing("redis-server")
    if why:
        raise Skip(why)
    redis = servers.Redis(work)
    try:
        closed = servers.free_port()
        env = dict(os.environ, UDFKIT_REMOTE_CACHE=f"{redis.url()} redis://127.0.0.1:{closed}|connect-timeout=200")
        r = udfkit("doctor", env=env)
        assert r.rc == 3 and "a remote cache" in r.err, r
        assert re.search(rf"^Remote cache +redis://127\.0\.0\.1:{redis.port}/0: reachable", r.out, re.M), r.out
        assert re.search(rf"^Remote cache +redis://127\.0\.0\.1:{closed}\S*: unreachable \(", r.out, re.M), r.out
        env["UDFKIT_REMOTE_CACHE"] = redis.url()
        assert udfkit("doctor", env=env).rc == 0
    finally:
        redis.stop()


def test_setup_python(work):
    # Run from its build tree, udfkit's Python is CMake's: setup-python says so.
    r = udfkit("setup-python")
    assert r.rc == 2 and "build tree" in r.err, r
    # An environment holding requirements.txt's pins already is left as it is.
    env_dir = os.path.join(work, "env")
    os.makedirs(os.path.join(env_dir, "bin"))
    os.symlink(sys.executable, os.path.join(env_dir, "bin", "python"))
    shutil.copy(REQUIREMENTS, os.path.join(env_dir, "udfkit-requirements.txt"))
    r = udfkit("setup-python", "--dir", env_dir)
    assert r.rc == 0 and "nothing to do" in r.out, r
    # An interpreter that cannot make one: exit 3, saying what ran and what to do.
    r = udfkit("setup-python", "--dir", os.path.join(work, "new"), "--python", "/bin/false")
    assert r.rc == 3 and "/bin/false -m venv" in r.err and "python3-venv" in r.err, r
    assert "udfkit setup-python: creating the environment: /bin/false -m venv" in r.out, r


if __name__ == "__main__":
    main([test_version_lists_every_part_also_when_one_is_missing, test_version_without_a_python_frontend,
          test_doctor_checks_a_projects_set_up, test_doctor_checks_remote_caches, test_setup_python])
