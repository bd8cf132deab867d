#!/usr/bin/env python3
"""What a program linking an add_jit_library library carries, by runtime choice: the
quickstart example (examples/quickstart) built against an installed udfkit with its
add_jit_library given each option set, every program and library stripped. Prints, per
variant, the program's size, the size beyond the embedded fatbin, the jit library's size
(STATIC: the archive; SHARED: the .so) and libudfkit_runtime.so.1 where the program needs
it, and the ratio of each to `before`: what every program carried before udfkit made
nvPTXCompiler opt-in and compressed fatbins by default.

    bash scripts/run-example   # builds and installs udfkit in build/install
    python3 bench/size/runtime_size.py [build/install] > bench/results/runtime_size.txt"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The installed udfkit takes its Python frontend and CUDA wheels from UDFKIT_PYTHON's environment.
os.environ.setdefault("UDFKIT_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))
VARIANTS = [  # name, library type, extra add_jit_library options
    ("before", "STATIC", "PTX_FALLBACK COMPRESS none"),
    ("fallback", "STATIC", "PTX_FALLBACK"),
    ("default", "STATIC", ""),
    ("shared-runtime", "STATIC", "SHARED_RUNTIME"),
    ("shared-library", "SHARED", ""),
    ("shared-library+fallback", "SHARED", "PTX_FALLBACK"),
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def stripped_size(path, work):
    copy = os.path.join(work, "stripped-" + os.path.basename(path))
    shutil.copy(path, copy)
    run(["strip", "--strip-unneeded" if path.endswith((".a", ".so")) or ".so." in path else "--strip-all", copy])
    return os.path.getsize(copy)


def build(prefix, work, name, kind, options):
    src = os.path.join(work, name, "src")
    shutil.copytree(os.path.join(ROOT, "examples", "quickstart"), src)
    cmake = os.path.join(src, "CMakeLists.txt")
    text = open(cmake).read()
    call = 'add_jit_library(quickstart_kernels STATIC'
    assert call in text
    text = text.replace(call, f"add_jit_library(quickstart_kernels {kind} {options}")
    open(cmake, "w").write(text)
    out = os.path.join(work, name, "build")
    run(["cmake", "-S", src, "-B", out, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", out])
    return out


def main():
    prefix = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "install"))
    runtime_so = os.path.join(prefix, "lib", "libudfkit_runtime.so.1")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, kind, options in VARIANTS:
            out = build(prefix, work, name, kind, options)
            app = os.path.join(out, "quickstart")
            fatbin = os.path.getsize(os.path.join(out, "quickstart_kernels.udfkit", "quickstart_kernels.fatbin"))
            lib = os.path.join(out, "libquickstart_kernels.a" if kind == "STATIC" else "libquickstart_kernels.so")
            needed = re.findall(r"\(NEEDED\).*\[(.*)\]", run(["readelf", "-d", app]) +
                                (run(["readelf", "-d", lib]) if kind == "SHARED" else ""))
            shared_rt = stripped_size(runtime_so, work) if "libudfkit_runtime.so.1" in needed else 0
            app_size = stripped_size(app, work)
            lib_size = stripped_size(lib, work)
            # What the program maps at start: itself, its jit library where shared, the runtime where shared.
            total = app_size + (lib_size if kind == "SHARED" else 0) + shared_rt
            rows.append((name, app_size, app_size - (fatbin if kind == "STATIC" else 0), lib_size, shared_rt, total,
                         fatbin))
    base = rows[0]
    print("# bench/size/runtime_size.py: examples/quickstart (one Python and two CUDA C UDFs, map/filter/reduce for")
    print("# 75-real;80-real;90), Release, stripped; fatbin embedded, compressed (speed) but in `before`. Bytes.")
    print("# beyond fatbin: the program less its embedded fatbin (STATIC variants; a SHARED library holds it).")
    print("# total: the program + the jit library where shared + libudfkit_runtime.so.1 where needed.")
    print(f"{'variant':<26}{'fatbin':>8}{'program':>10}{'beyond fatbin':>15}{'jit library':>13}{'runtime .so':>13}"
          f"{'total':>11}{'total vs before':>17}")
    for name, app_size, beyond, lib_size, shared_rt, total, fatbin in rows:
        print(f"{name:<26}{fatbin:>8}{app_size:>10}{beyond:>15}{lib_size:>13}{shared_rt:>13}{total:>11}"
              f"{total / base[5]:>17.4f}")
    default = rows[2]
    print(f"default_beyond_fatbin: {default[2]} bytes ({default[2] / 2**20:.3f} MiB; goal under 1 MiB)")
    print(f"default_vs_before_program: {default[1] / base[1]:.4f} ratio")
    print(f"compressed_vs_plain_fatbin: {rows[1][6] / base[6]:.4f} ratio")


if __name__ == "__main__":
    main()
