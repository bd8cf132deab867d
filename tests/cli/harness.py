"""A small runner for udfkit's command-line tests: each test_* function gets a fresh
directory; the closing line reads 'N passed, N failed' as CTest logs show it."""
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

UDFKIT = os.environ["UDFKIT"]
DATA = os.environ["UDFKIT_TEST_DATA"]
NVCC = os.environ.get("UDFKIT_NVCC") or ""
if NVCC.endswith("-NOTFOUND"):
    NVCC = ""


class Result:
    def __init__(self, proc):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def __repr__(self):
        return f"exit {self.rc}\nstdout:\n{self.out}\nstderr:\n{self.err}"


def udfkit(*args, cwd=None, env=None):
    """Runs the tool (never through a shell) and returns its exit status and output."""
    proc = subprocess.run([UDFKIT, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    return Result(proc)


def ok(*args, cwd=None):
    r = udfkit(*args, cwd=cwd)
    assert r.rc == 0, f"udfkit {' '.join(args)} failed: {r!r}"
    return r


def run(cmd, cwd=None):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def data(name):
    return os.path.join(DATA, name)


def files_under(path):
    found = []
    for root, _, names in os.walk(path):
        found += [os.path.relpath(os.path.join(root, n), path) for n in names]
    return sorted(found)


class Skip(Exception):
    """Raised by a test that cannot run here; main prints the reason."""


PYTHON_FRONTENDS = ("numba-cuda", "numba-cuda-mlir")
_IMPORTS = {"numba-cuda": "import numba.cuda", "numba-cuda-mlir": "import numba_cuda_mlir.cuda"}
_MISSING = {}


def frontend_missing(frontend, python=None):
    """Why `python` (default: the interpreter udfkit uses, the one running the tests) cannot
    import the Python frontend, or None where it can."""
    python = python or os.environ.get("UDFKIT_TEST_PYTHON", sys.executable)
    if (frontend, python) not in _MISSING:
        proc = subprocess.run([python, "-c", _IMPORTS[frontend]], capture_output=True, text=True, timeout=300)
        lines = proc.stderr.strip().splitlines()
        reason = lines[-1] if lines else f"exit {proc.returncode}"
        _MISSING[frontend, python] = None if proc.returncode == 0 else reason
    return _MISSING[frontend, python]


def for_frontends(*tests, frontends=PYTHON_FRONTENDS):
    """Each test(work, frontend) once per Python frontend, named test_x[frontend]; skipped,
    saying why, where the frontend does not import."""
    runs = []
    for test in tests:
        for frontend in frontends:
            def run_one(work, test=test, frontend=frontend):
                missing = frontend_missing(frontend)
                if missing:
                    raise Skip(f"{frontend} does not import here ({missing})")
                test(work, frontend)
            run_one.__name__ = f"{test.__name__}[{frontend}]"
            runs.append(run_one)
    return runs


def main(tests):
    """Runs the tests, or those whose names contain UDFKIT_TEST_FILTER where it is set."""
    passed = failed = skipped = 0
    wanted = os.environ.get("UDFKIT_TEST_FILTER", "")
    # UDFKIT_TEST_WORK: each test's directory at a fixed path below it, so that outputs that
    # name their sources (LTO-IR does) can be compared between runs (scripts/output-identity).
    fixed = os.environ.get("UDFKIT_TEST_WORK")
    for test in (t for t in tests if wanted in t.__name__):
        if fixed:
            work = os.path.join(fixed, f"udfkit-{test.__name__}")
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
        else:
            work = tempfile.mkdtemp(prefix=f"udfkit-{test.__name__}-")
        try:
            test(work)
            passed += 1
            print(f"PASS {test.__name__}")
        except Skip as why:
            skipped += 1
            print(f"SKIP {test.__name__}: {why}")
        except Exception:
            failed += 1
            print(f"FAIL {test.__name__}")
            traceback.print_exc(file=sys.stdout)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    sys.exit(1 if failed else 0)
