"""udfkit installs and ships as a tool of its own (README, "Installing udfkit").

The packages are made from this build tree with CPack (`cpack -G TGZ;DEB`), then:
- no installed file, of `cmake --install`, of the tarball or of the .deb, names the source
  tree, the build tree or the Python environment udfkit was built with;
- the .deb's control fields and contents, and its install into a chroot made here with
  `dpkg --root` (maintainer scripts included), and its removal;
- the tarball unpacked to a fresh directory and used in a mount namespace where the source
  tree, the build tree and that Python environment are hidden (`unshare -rm`, a tmpfs over
  each): `udfkit --version` says what is missing (exit 3), `udfkit setup-python` makes the
  install's Python environment, after which --version and doctor pass, the quickstart and
  the late-bound example build and run, and the quickstart's program builds with plain Make
  through pkg-config against its add_jit_library library (static, shared and PTX fallback).

setup-python installs requirements.txt's pins from a wheelhouse kept in the build tree
(UDFKIT_TEST_STORE/wheels, filled once with `pip download`); the environment it makes is
kept there between runs (UDFKIT_TEST_STORE/python, moved into each fresh prefix and back),
so that a second run pays for neither. UDFKIT_TEST_FRESH_PYTHON=1 makes it anew."""
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from harness import Skip, main  # noqa: E402

BUILD = os.environ["UDFKIT_BUILD_DIR"]
SOURCE = os.environ["UDFKIT_SOURCE_DIR"]
VENV_PYTHON = os.environ["UDFKIT_VENV_PYTHON"]
CMAKE = os.environ.get("UDFKIT_TEST_CMAKE") or "cmake"
CPACK = os.environ.get("UDFKIT_TEST_CPACK") or "cpack"
STORE = os.environ["UDFKIT_TEST_STORE"]
HERE = os.path.dirname(os.path.abspath(__file__))
VERSION = re.search(r"project\(udfkit VERSION ([0-9.]+)", open(os.path.join(SOURCE, "CMakeLists.txt")).read()).group(1)
TOP = f"udfkit-{VERSION}-Linux"
VENV = os.path.dirname(os.path.dirname(VENV_PYTHON))
# The base interpreter of the build's Python environment: what setup-python makes one from.
BASE_PYTHON = subprocess.run([VENV_PYTHON, "-c", "import sys; print(sys._base_executable)"], capture_output=True,
                             text=True, check=True).stdout.strip()
PACKAGES = tempfile.mkdtemp(prefix="udfkit-packages-")


def run(cmd, cwd=None, env=None, check=True, timeout=900):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def timed(what, start):
    print(f"  {what}: {time.monotonic() - start:.1f} s")


def packages():
    """The TGZ and the DEB, made once per run of this file."""
    tgz, deb = os.path.join(PACKAGES, f"{TOP}.tar.gz"), os.path.join(PACKAGES, f"udfkit_{VERSION}_amd64.deb")
    if not os.path.exists(deb):
        start = time.monotonic()
        run([CPACK, "--config", os.path.join(BUILD, "CPackConfig.cmake"), "-G", "TGZ;DEB", "-B", PACKAGES],
            cwd=PACKAGES)
        timed("cpack -G TGZ;DEB", start)
        for p in (tgz, deb):
            print(f"  {os.path.basename(p)}: {os.path.getsize(p) / 2**20:.1f} MiB")
    return tgz, deb


def unpack(tgz, dest):
    with tarfile.open(tgz) as t:
        t.extractall(dest)
    return os.path.join(dest, TOP)


def trees():
    """The folders no installed file may name, as written and as resolved."""
    found = set()
    for path in (SOURCE, BUILD, VENV):
        found |= {os.path.abspath(path).rstrip("/"), os.path.realpath(path).rstrip("/")}
    return sorted(found)


def hidden_trees():
    """trees() to mount over: each by its real path, none inside another."""
    real = sorted({os.path.realpath(t) for t in trees()})
    return [t for t in real if not any(t.startswith(o + "/") for o in real if o != t)]


def naming_trees(root):
    """Each file under root whose bytes name one of trees() (what `strings | grep` finds)."""
    needles = [t.encode() for t in trees()]
    hits = []
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                target = os.readlink(path).encode()
                hits += [(path, n.decode()) for n in needles if n in target]
                continue
            data = open(path, "rb").read()
            hits += [(os.path.relpath(path, root), n.decode()) for n in needles if n in data]
    return hits


def test_packages_hold_the_install(work):
    tgz, deb = packages()
    with tarfile.open(tgz) as t:
        names = set(t.getnames())
    for f in ("bin/udfkit", "lib/libudfkit_runtime.a", "lib/libudfkit_runtime.so", "lib/libudfkit_runtime.so.1",
              "lib/libudfkit_runtime_ptx.a", "lib/libudfkit_nvptxcompiler_static.a", "include/udfkit/runtime.h",
              "include/udfkit/udf.h", "lib/cmake/udfkit/udfkitConfig.cmake", "lib/cmake/udfkit/udfkitTargets.cmake",
              "lib/cmake/udfkit/modules/add_jit_library.cmake", "lib/pkgconfig/udfkit-runtime.pc",
              "lib/pkgconfig/udfkit-runtime-static.pc", "lib/pkgconfig/udfkit-runtime-ptx.pc",
              "share/udfkit/requirements.txt", "libexec/udfkit/udfkit-sandbox"):
        assert f"{TOP}/{f}" in names, (f, sorted(names))
    # Nothing of the build tree's own: no record of what CMake found, no Python environment
    # (libexec/udfkit holds the sandbox helper alone; setup-python makes python/ there).
    assert not any("build-tree" in n or "/libexec/udfkit/python" in n for n in names), sorted(names)
    assert [n for n in names if "/libexec/udfkit/" in n] == [f"{TOP}/libexec/udfkit/udfkit-sandbox"], sorted(names)


def test_no_installed_file_names_the_build_tree(work):
    tgz, deb = packages()
    run([CMAKE, "--install", BUILD, "--prefix", os.path.join(work, "install")])
    unpack(tgz, os.path.join(work, "tgz"))
    run(["dpkg-deb", "-x", deb, os.path.join(work, "deb")])
    for root in ("install", "tgz", "deb"):
        hits = naming_trees(os.path.join(work, root))
        assert not hits, f"{root}: installed files name the source, build or Python tree: {hits}"
    # The check finds what it looks for: the build tree's own record (never installed) names them.
    control = os.path.join(work, "control")
    os.makedirs(control)
    shutil.copy(os.path.join(BUILD, "src", "udfkit.build-tree"), control)
    assert naming_trees(control)


def make_chroot(root):
    """The least a chroot needs for dpkg's maintainer scripts: sh, ldconfig, rm, rmdir."""
    os.makedirs(os.path.join(root, "var/lib/dpkg/info"))
    os.makedirs(os.path.join(root, "var/lib/dpkg/updates"))
    for f in ("var/lib/dpkg/status", "var/lib/dpkg/available"):
        open(os.path.join(root, f), "w").close()
    tools = {"/bin/sh": "bin/sh", "/sbin/ldconfig": "sbin/ldconfig", "/bin/rm": "bin/rm", "/bin/rmdir": "bin/rmdir"}
    for src, dst in tools.items():
        os.makedirs(os.path.dirname(os.path.join(root, dst)), exist_ok=True)
        shutil.copy(os.path.realpath(src), os.path.join(root, dst))
    os.makedirs(os.path.join(root, "etc"), exist_ok=True)
    for line in run(["ldd", os.path.realpath("/bin/sh")]).stdout.splitlines():
        m = re.search(r"(/\S+)", line)
        if m:
            dst = os.path.join(root, m.group(1).lstrip("/"))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(os.path.realpath(m.group(1)), dst)


def test_deb_fields_contents_and_install(work):
    tgz, deb = packages()
    fields = run(["dpkg-deb", "-f", deb]).stdout
    control = dict(re.findall(r"^([A-Za-z-]+): (.*)$", fields, re.M))
    assert control["Package"] == "udfkit" and control["Version"] == VERSION, fields
    assert control["Architecture"] == run(["dpkg", "--print-architecture"]).stdout.strip(), fields
    assert control["Section"] == "devel" and control["Maintainer"], fields
    depends = control["Depends"]
    for dep in ("libc6", "libjansson4", "libxxhash0", "libhiredis0.14", "libcurl4"):
        assert re.search(rf"\b{re.escape(dep)}\b", depends), (dep, depends)
    assert "python3-venv" in control["Recommends"], fields
    listing = run(["dpkg-deb", "-c", deb]).stdout
    for f in ("./usr/bin/udfkit", "./usr/lib/libudfkit_runtime.a", "./usr/lib/libudfkit_runtime.so.1 ->",
              "./usr/include/udfkit/runtime.h", "./usr/lib/cmake/udfkit/udfkitConfig.cmake",
              "./usr/lib/pkgconfig/udfkit-runtime.pc", "./usr/share/udfkit/requirements.txt"):
        assert f in listing, (f, listing)
    info = run(["dpkg-deb", "-I", deb]).stdout
    assert "postinst" in info and "postrm" in info, info

    # Installed with dpkg into a chroot made here (its maintainer scripts run in it).
    root = os.path.join(work, "root")
    make_chroot(root)
    start = time.monotonic()
    r = run(["dpkg", f"--root={root}", "--force-depends", "-i", deb], check=False)
    timed("dpkg --root -i", start)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "install ok installed" in run(["dpkg", f"--root={root}", "-s", "udfkit"]).stdout
    assert os.path.exists(os.path.join(root, "etc/ld.so.cache"))  # postinst's ldconfig ran
    tool = os.path.join(root, "usr/bin/udfkit")
    # Without its Python environment it lists what it lacks; where a part is missing it names
    # the environment setup-python would make in this root.
    v = run([tool, "--version"], check=False, env=dict(os.environ, UDFKIT_PYTHON=""))
    assert v.returncode in (0, 3), v
    assert v.stdout.startswith(f"udfkit {VERSION}") and tool in v.stdout.splitlines()[0], v.stdout
    assert v.returncode == 0 or os.path.join(root, "usr/libexec/udfkit/python") in v.stdout, v.stdout
    pc = run(["pkg-config", "--cflags", "--libs", "udfkit-runtime"],
              env=dict(os.environ, PKG_CONFIG_PATH=os.path.join(root, "usr/lib/pkgconfig"))).stdout
    assert "-ludfkit_runtime" in pc and "include" in pc, pc

    # Removed: the package's files, and the Python environment setup-python would have made.
    env_dir = os.path.join(root, "usr/libexec/udfkit/python/bin")
    os.makedirs(env_dir)
    open(os.path.join(env_dir, "python"), "w").close()
    r = run(["dpkg", f"--root={root}", "-r", "udfkit"], check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not os.path.exists(tool) and not os.path.exists(os.path.join(root, "usr/libexec/udfkit")), r.stdout


def wheelhouse():
    """requirements.txt's wheels, downloaded once into the build tree."""
    wheels = os.path.join(STORE, "wheels")
    pins = open(os.path.join(SOURCE, "requirements.txt")).read()
    stamp = os.path.join(wheels, "requirements.txt")
    if not os.path.exists(stamp) or open(stamp).read() != pins:
        start = time.monotonic()
        os.makedirs(wheels, exist_ok=True)
        run([VENV_PYTHON, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps", "-r",
             os.path.join(SOURCE, "requirements.txt"), "-d", wheels], timeout=1800)
        open(stamp, "w").write(pins)
        timed("pip download (the wheelhouse)", start)
    return wheels


HIDDEN_SESSION = r"""
set -euo pipefail
work=$1; shift
# What the session needs from the build tree (the wheelhouse) first, then every tree hidden.
mkdir -p "$work/wheels"
mount --bind "$UDFKIT_TEST_WHEELS" "$work/wheels"
for tree in "$@"; do
  mount -t tmpfs -o size=64k,mode=0755 udfkit-hidden "$tree"
done
cd "$work"
for tree in "$@"; do
  [ -z "$(ls -A "$tree")" ] || { echo "$tree is not hidden" >&2; exit 1; }
done
source "$work/steps.sh"
"""

BEFORE_SETUP = r"""
set +e
udfkit --version > version-before.txt 2> version-before.err; echo $? > version-before.rc
udfkit compile examples/quickstart/udfs.cu -f "is_big:bool(float32)" -o x.ltoir 2> compile-before.err
echo $? > compile-before.rc
"""

AFTER_SETUP = r"""
step() { echo "$1: $(( $(date +%s) - started )) s" >> times.txt; started=$(date +%s); }
started=$(date +%s)
udfkit setup-python --python "$UDFKIT_TEST_BASE_PYTHON" > setup-1.txt 2>&1
step "setup-python"
udfkit setup-python --python "$UDFKIT_TEST_BASE_PYTHON" > setup-2.txt 2>&1
udfkit --version > version.txt
udfkit -v --version > version-v.txt
udfkit doctor --arch "75-real;80-real;90" > doctor.txt
step "setup-python again, --version, doctor"
echo "== quickstart"
cmake -S examples/quickstart -B qs -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build qs
qs/quickstart > quickstart.txt
step "the quickstart"
echo "== late-bound"
cmake -S examples/late-bound/engine -B lb/engine -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build lb/engine
cmake --install lb/engine --prefix lb/prefix > /dev/null
cmake -S examples/late-bound/udfs -B lb/udfs -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
cmake --build lb/udfs
cmake --install lb/udfs --prefix lb/prefix > /dev/null
cmake -S examples/late-bound/app -B lb/app -G Ninja "-DCMAKE_PREFIX_PATH=$work/lb/prefix;$prefix" > /dev/null
cmake --build lb/app
lb/app/late_bound_app lb/prefix/share/udfkit/shop_udfs/shop_udfs.fatbin > late-bound.txt
lb/app/late_bound_app lb/prefix/share/udfkit/shop_udfs/shop_udfs.json >> late-bound.txt
step "the late-bound example"
echo "== make"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" make -C make QS="$work/qs" SRC="$work/examples/quickstart"
for p in static shared ptx; do make/quickstart_$p > make-$p.txt; done
readelf -d make/quickstart_shared > make-shared.dyn
readelf -d make/quickstart_static > make-static.dyn
step "make with pkg-config"
"""


def hidden_env(work, prefix):
    """A plain user's environment: nothing of udfkit's, the prefix's bin/ first on PATH."""
    hidden = trees()
    path = [p for p in os.environ.get("PATH", "").split(":")
            if p and not any(p == t or p.startswith(t + "/") for t in hidden)]
    return {"PATH": ":".join([os.path.join(prefix, "bin")] + path), "HOME": os.environ.get("HOME", "/root"),
            "LANG": "C.UTF-8", "UDFKIT_CACHE_DIR": os.path.join(work, "cache"), "UDFKIT_SERVER_IDLE": "0",
            "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": os.path.join(work, "wheels"), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "UDFKIT_TEST_WHEELS": wheelhouse(), "UDFKIT_TEST_BASE_PYTHON": BASE_PYTHON}


def session(work, prefix, steps, name):
    """Runs steps (bash) in a mount namespace where trees() are hidden; its log is returned."""
    with open(os.path.join(work, "steps.sh"), "w") as f:
        f.write(f'prefix="{prefix}"\n{steps}')
    start = time.monotonic()
    r = subprocess.run(["unshare", "-rm", "bash", "-c", HIDDEN_SESSION, "session", work, *hidden_trees()], cwd=work,
                       env=hidden_env(work, prefix), capture_output=True, text=True, timeout=3000)
    timed(name, start)
    return r


def read(work, name):
    return open(os.path.join(work, name)).read()


def test_unpacked_prefix_without_the_build_tree(work):
    if subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        raise Skip("no mount namespace can be made here (unshare -rm), to hide the build tree")
    tgz, _ = packages()
    prefix = unpack(tgz, os.path.join(work, "unpacked"))
    shutil.copytree(os.path.join(SOURCE, "examples"), os.path.join(work, "examples"))
    shutil.copytree(os.path.join(HERE, "make"), os.path.join(work, "make"))

    # Before setup-python: every part listed, found or missing, exit 3, and what to do.
    r = session(work, prefix, BEFORE_SETUP, "before setup-python")
    assert r.returncode == 0, r.stdout + r.stderr
    before = read(work, "version-before.txt")
    assert read(work, "version-before.rc").strip() == "3", before
    assert before.startswith(f"udfkit {VERSION}") and os.path.join(prefix, "bin", "udfkit") in before, before
    assert re.search(r"^Python frontend +missing: ", before, re.M), before
    assert re.search(r"^nvFatbin +(13\.\d+ .*/libexec/udfkit/python/|missing: )", before, re.M), before
    assert "udfkit setup-python" in before and "missing:" in read(work, "version-before.err"), before
    assert read(work, "compile-before.rc").strip() == "3", read(work, "compile-before.err")
    assert "udfkit setup-python" in read(work, "compile-before.err")

    # The environment of an earlier run, moved into this fresh prefix (and back after).
    env_dir = os.path.join(prefix, "libexec", "udfkit", "python")
    kept = os.path.join(STORE, "python")
    if os.environ.get("UDFKIT_TEST_FRESH_PYTHON") == "1":
        shutil.rmtree(kept, ignore_errors=True)
    if os.path.isdir(kept):
        os.makedirs(os.path.dirname(env_dir), exist_ok=True)  # the sandbox helper is there already
        try:
            os.rename(kept, env_dir)
        except OSError as e:
            print(f"  the kept Python environment cannot be moved here ({e}): made anew")
    try:
        r = session(work, prefix, AFTER_SETUP, "setup-python, --version, doctor, the examples, make")
    finally:
        if os.path.isdir(env_dir):
            shutil.rmtree(kept, ignore_errors=True)
            try:
                os.rename(env_dir, kept)
            except OSError:
                pass
    if os.path.exists(os.path.join(work, "times.txt")):
        print("".join(f"    {line}" for line in open(os.path.join(work, "times.txt"))), end="")
    assert r.returncode == 0, f"{r.stdout[-6000:]}\n{r.stderr[-6000:]}"
    setup1, setup2 = read(work, "setup-1.txt"), read(work, "setup-2.txt")
    assert "done: " in setup1 or "nothing to do" in setup1, setup1
    print("  setup-python: " + ("made the environment" if "done: " in setup1 else "kept environment, up to date"))
    assert "nothing to do" in setup2, setup2

    # Every part from the install's own environment; a CUDA toolkit may give the headers.
    version = read(work, "version.txt")
    for part in ("NVRTC", "nvJitLink", "nvFatbin"):
        assert re.search(rf"^{part} 13\.\d+ +{re.escape(env_dir)}/lib/python3[^/]*/site-packages/nvidia/cu13/lib/",
                         version, re.M), version
    assert re.search(rf"^Python frontend +{re.escape(env_dir)}/bin/python \(numba-cuda 0\.30\.4, numba-cuda-mlir",
                     version, re.M), version
    assert "found through the install's Python environment" in read(work, "version-v.txt")
    doctor = read(work, "doctor.txt")
    assert re.search(r"^numba-cuda +0\.30\.4: imports", doctor, re.M), doctor
    assert "75-real;80-real;90: sm_75, sm_80, sm_90, compute_90" in doctor, doctor

    assert "discount" in read(work, "quickstart.txt"), read(work, "quickstart.txt")
    assert read(work, "late-bound.txt").strip(), "the late-bound application printed nothing"
    for p in ("static", "shared", "ptx"):
        assert "discount" in read(work, f"make-{p}.txt"), read(work, f"make-{p}.txt")
    assert "libudfkit_runtime.so.1" in read(work, "make-shared.dyn"), read(work, "make-shared.dyn")
    assert "libudfkit_runtime" not in read(work, "make-static.dyn"), read(work, "make-static.dyn")


if __name__ == "__main__":
    try:
        main([test_packages_hold_the_install, test_no_installed_file_names_the_build_tree,
              test_deb_fields_contents_and_install, test_unpacked_prefix_without_the_build_tree])
    finally:
        shutil.rmtree(PACKAGES, ignore_errors=True)
