"""The CMake package: a C-only downstream project finds the installed udfkit, builds with
Ninja and Makefiles, rebuilds exactly what an edit touches, survives a moved prefix, and
reports mistakes naming the function and keyword. Every project here is configured with
-Werror=dev -Werror=deprecated and must print no warning, under the CMake named by
UDFKIT_TEST_CMAKE (default: cmake on the PATH; CTest runs this file under CMake 3.25 and 4.x)."""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from harness import main  # noqa: E402

BUILD = os.environ["UDFKIT_BUILD_DIR"]
SOURCE = os.environ["UDFKIT_SOURCE_DIR"]
PYTHON = os.environ["UDFKIT_PYTHON"]
HERE = os.path.dirname(os.path.abspath(__file__))
CMAKE = os.environ.get("UDFKIT_TEST_CMAKE") or "cmake"
UDFKIT = os.environ["UDFKIT"]
STRICT = ["-Werror=dev", "-Werror=deprecated"]


def run(cmd, cwd=None, check=True):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def install(prefix):
    run([CMAKE, "--install", BUILD, "--prefix", prefix])
    return prefix


def configure(src, build, prefix_path, generator="Ninja", *extra, check=True):
    r = run([CMAKE, "-S", src, "-B", build, "-G", generator, f"-DCMAKE_PREFIX_PATH={prefix_path}", *STRICT, *extra],
            check=check)
    if r.returncode == 0:
        assert "Warning" not in r.stderr, r.stderr
    return r


def ninja(build):
    return run(["ninja", "-C", build, "-v"]).stdout


def steps(log, word):
    """The udfkit commands of one kind a build ran, as their command lines."""
    return [line for line in log.splitlines() if re.search(rf"udfkit[^ ]* {word} ", line)]


def edit(path, old, new):
    text = open(path).read()
    assert old in text, (path, old)
    open(path, "w").write(text.replace(old, new))


def copy_project(name, work):
    dst = os.path.join(work, name)
    shutil.copytree(os.path.join(HERE, name), dst)
    return dst


def run_app(path):
    out = run([path]).stdout
    assert "load: " in out, out
    return out


def test_ninja_build_and_incremental_rebuilds(work):
    prefix = install(os.path.join(work, "prefix"))
    src = copy_project("downstream", work)
    build = os.path.join(work, "build")
    configure(src, build, prefix)
    first = ninja(build)
    assert len(steps(first, "compile")) == 5, steps(first, "compile")  # 2 CUDA UDF sources, Python, 2 kernel sources
    out = run_app(os.path.join(build, "shop"))
    assert "discount float32(float32, float32)" in out and "ratio float32(float32, float32)" in out, out
    # LINK files and Python link lists travel with the UDF target into the library's link.
    manifest = json.load(open(os.path.join(build, "shop_udfs.udfkit", "shop_udfs.json")))
    links = [a["source"] for a in manifest["artifacts"] if a.get("role") == "link"]
    assert any(l.endswith("bias.ltoir") for l in links) and any(l.endswith("shift.cu") for l in links), links

    assert "no work to do" in run(["ninja", "-C", build]).stdout

    # Touching a file whose compile gives the same bytes rebuilds nothing after that compile.
    os.utime(os.path.join(src, "udfs", "ratios.cu"))
    log = ninja(build)
    compiles = steps(log, "compile")
    assert len(compiles) == 1 and "ratios.cu" in compiles[0], compiles
    assert steps(log, "link") == [], log

    # An edited UDF source: its compile and the dependent link, nothing else of udfkit's.
    edit(os.path.join(src, "udfs", "ratios.cu"), "0.0f;", "-1.0f;")
    log = ninja(build)
    compiles = steps(log, "compile")
    assert len(compiles) == 1 and "ratios.cu" in compiles[0], compiles
    assert len(steps(log, "link")) == 1, log

    # An edited header that one source includes.
    edit(os.path.join(src, "udfs", "include", "threshold.h"), "return BIG_THRESHOLD;", "return BIG_THRESHOLD + 1.0f;")
    log = ninja(build)
    compiles = steps(log, "compile")
    assert len(compiles) == 1 and "limits.cu" in compiles[0], compiles
    assert len(steps(log, "link")) == 1, log

    # An edited Python module that a UDF module imports.
    edit(os.path.join(src, "udfs", "rates.py"), "1.0)", "0.9)")
    log = ninja(build)
    compiles = steps(log, "compile")
    assert len(compiles) == 1 and "pricing.py" in compiles[0], compiles
    assert len(steps(log, "link")) == 1, log
    assert "no work to do" in run(["ninja", "-C", build]).stdout

    configure(src, build, prefix, "Ninja", "-DTEST_ARCHITECTURES=90-real")
    log = ninja(build)
    assert len(steps(log, "compile")) == 5 and all("--arch 90-real" in c for c in steps(log, "compile")), log
    run_app(os.path.join(build, "shop"))


def test_makefiles_and_library_types(work):
    prefix = install(os.path.join(work, "prefix"))
    src = copy_project("downstream", work)
    build = os.path.join(work, "make")
    configure(src, build, prefix, "Unix Makefiles")
    run([CMAKE, "--build", build, "-j8"])
    run_app(os.path.join(build, "shop"))

    def make():
        out = run([CMAKE, "--build", build]).stdout
        return [line for line in out.splitlines() if "udfkit:" in line or "Building" in line or "Linking" in line]
    # A second build does nothing, after a build and after an edit's build alike.
    assert make() == []
    os.utime(os.path.join(src, "udfs", "ratios.cu"))
    assert any("compiling shop_udfs ratios.cu" in line for line in make())
    assert make() == []
    edit(os.path.join(src, "udfs", "ratios.cu"), "0.0f;", "-1.0f;")
    steps_run = make()
    assert [line for line in steps_run if "udfkit: compiling shop_udfs" in line] == [
        line for line in steps_run if "ratios.cu" in line and "compiling" in line], steps_run
    assert any("linking shop_kernels" in line for line in steps_run), steps_run
    assert make() == []
    run_app(os.path.join(build, "shop"))
    for kind in ("SHARED", "OBJECT"):
        build = os.path.join(work, kind)
        configure(src, build, prefix, "Ninja", f"-DLIBRARY_TYPE={kind}")
        ninja(build)
        run_app(os.path.join(build, "shop"))
        if kind == "SHARED":
            assert os.path.exists(os.path.join(build, "libshop_kernels.so"))


def dynamic_symbols(path):
    """The functions and data a shared object or program exports."""
    out = run(["nm", "-D", "--defined-only", path]).stdout
    return sorted(line.split()[-1] for line in out.splitlines() if line.split()[-2] not in ("A",))


def header_functions(path):
    """The functions a generated library header declares."""
    return sorted(re.findall(r"^\w[\w \*]*?\b(\w+)\(", open(path).read(), re.M))


def needed(path):
    return re.findall(r"\(NEEDED\).*\[(.*)\]", run(["readelf", "-d", path]).stdout)


def test_shared_library_exports_its_header_only(work):
    """A SHARED library exports exactly what its header declares: not the runtime's
    functions, not its internals, not nvPTXCompiler's, even with PTX_FALLBACK linked in."""
    prefix = install(os.path.join(work, "prefix"))
    src = copy_project("downstream", work)
    for name, options in (("plain", ""), ("static-runtime", "STATIC_RUNTIME"), ("fallback", "PTX_FALLBACK")):
        build = os.path.join(work, name)
        configure(src, build, prefix, "Ninja", "-DLIBRARY_TYPE=SHARED", f"-DLIBRARY_OPTIONS={options}")
        ninja(build)
        run_app(os.path.join(build, "shop"))
        lib = os.path.join(build, "libshop_kernels.so")
        declared = header_functions(os.path.join(build, "shop_kernels.udfkit", "include", "shop_kernels.h"))
        assert declared == ["shop_kernels_filter_is_big", "shop_kernels_filter_is_big_values",
                            "shop_kernels_inclusive_scan_add_f32", "shop_kernels_library",
                            "shop_kernels_load", "shop_kernels_map_discount", "shop_kernels_nullable_map_discount_nullify",
                            "shop_kernels_reduce_add_f32", "shop_kernels_reduce_by_key_add_f32_by_int32",
                            "shop_kernels_segmented_reduce_add_f32", "shop_kernels_transform_reduce_discount_add_f32",
                            "shop_kernels_udf_error", "shop_kernels_unload"], declared
        # The functions, and the fatbin the header declares too.
        assert dynamic_symbols(lib) == sorted(declared + ["shop_kernels_fatbin", "shop_kernels_fatbin_size"]), (
            name, dynamic_symbols(lib))
        strings = run(["nm", lib]).stdout
        assert ("nvPTXCompilerCompile" in strings) == (name == "fallback"), name
        # The library and its program share one runtime unless told otherwise.
        assert ("libudfkit_runtime.so.1" in needed(lib)) == (name != "static-runtime"), (name, needed(lib))


def test_runtime_variants(work):
    """By default a program carries no nvPTXCompiler; PTX_FALLBACK links it; SHARED_RUNTIME
    links libudfkit_runtime.so.1, which exports the runtime's functions and nothing else;
    COMPRESS chooses the fatbin's compression (speed by default)."""
    prefix = install(os.path.join(work, "prefix"))
    src = copy_project("downstream", work)
    sizes = {}
    for name, options in (("default", ""), ("fallback", "PTX_FALLBACK"), ("shared", "SHARED_RUNTIME"),
                          ("shared-fallback", "SHARED_RUNTIME;PTX_FALLBACK"), ("none", "COMPRESS;none")):
        build = os.path.join(work, name)
        configure(src, build, prefix, "Ninja", f"-DLIBRARY_OPTIONS={options}")
        ninja(build)
        app = os.path.join(build, "shop")
        run_app(app)
        sizes[name] = os.path.getsize(app)
        symbols = run(["nm", app]).stdout
        assert ("nvPTXCompilerCompile" in symbols) == ("fallback" in name), name
        assert ("libudfkit_runtime.so.1" in needed(app)) == name.startswith("shared"), (name, needed(app))
        fatbin = os.path.join(build, "shop_kernels.udfkit", "shop_kernels.fatbin")
        entries = json.loads(run([os.path.join(prefix, "bin", "udfkit"), "inspect", fatbin, "--json"]).stdout)["entries"]
        assert all(bool(e.get("compressed")) == (name != "none") for e in entries), (name, entries)
    assert sizes["fallback"] > sizes["default"] + 20_000_000, sizes
    assert sizes["default"] < 2_000_000 and sizes["shared"] < sizes["default"], sizes
    runtime = os.path.join(prefix, "lib", "libudfkit_runtime.so.1")
    exported = dynamic_symbols(runtime)
    api = sorted(name for header in ("runtime.h", "arrow.h")
                 for name in re.findall(r"^UDFKIT_RUNTIME_API [\w \*]*?\b(\w+)\(",
                                        open(os.path.join(prefix, "include", "udfkit", header)).read(), re.M))
    assert exported == sorted(api + ["udfkit_runtime_ptx_register"]), exported


def test_examples_and_udfkit_configure_without_warnings(work):
    """The examples and udfkit itself configure under -Werror=dev -Werror=deprecated with no
    warning (the test projects do in every other test, through configure())."""
    prefix = install(os.path.join(work, "prefix"))
    configure(os.path.join(SOURCE, "examples", "quickstart"), os.path.join(work, "quickstart"), prefix)
    for generator in ("Ninja", "Unix Makefiles"):
        r = run([CMAKE, "-S", SOURCE, "-B", os.path.join(work, "udfkit-" + generator.split()[-1]), "-G", generator,
                 f"-DPython3_EXECUTABLE={PYTHON}", *STRICT])
        assert "Warning" not in r.stderr, r.stderr


def test_late_bound_example(work):
    """examples/late-bound as its three projects would be used: the engine (SLOTS) installed
    to a prefix of its own, then moved; the user's UDF package built in another project and
    installed with FATBIN, then moved; the application built against the moved engine, bound
    to the moved package's fatbin and manifest. The engine ships LTO-IR for compute_75 and,
    for each real architecture (sm_75, sm_80, sm_90), SASS of the kernels that call no slot (docs/late-binding.md), which a bind loads
    without linking; its header has no _load; a second build of each does nothing."""
    prefix = install(os.path.join(work, "prefix"))
    examples = os.path.join(SOURCE, "examples", "late-bound")
    for name, dest in (("engine", "engine-installed"), ("udfs", "udfs-installed")):
        build = os.path.join(work, name)
        configure(os.path.join(examples, name), build, prefix)
        run([CMAKE, "--build", build])
        assert "no work to do" in run([CMAKE, "--build", build]).stdout
        run([CMAKE, "--install", build, "--prefix", os.path.join(work, dest)])
        shutil.move(os.path.join(work, dest), os.path.join(work, dest + "-moved"))
    engine, udfs = os.path.join(work, "engine-installed-moved"), os.path.join(work, "udfs-installed-moved")
    header = open(os.path.join(engine, "include", "engine.h")).read()
    assert "udfkit_status engine_bind(" in header and "engine_load" not in header, header
    fatbin = os.path.join(work, "engine", "engine.udfkit", "engine.fatbin")
    entries = json.loads(run([UDFKIT, "inspect", "--json", fatbin]).stdout)["entries"]
    ltoir = [e for e in entries if e["kind"] == "ltoir"]
    sass = [e for e in entries if e["kind"] == "sass"]
    assert len(ltoir) + len(sass) == len(entries) and {e["arch"] for e in ltoir} == {"compute_75"}, entries
    assert sorted(e["arch"] for e in sass) == ["sm_75", "sm_80", "sm_90"], entries
    assert all(e["kernels"] == sass[0]["kernels"] for e in sass), sass
    # The engine's own kernels that call no slot (its scan, sort and the filter's init), and
    # none of those that do (their names hold the slot they call: price, keep).
    kernels = set(sass[0]["kernels"])
    assert {"udfkit_engine_select_init", "udfkit_engine_sort_before_block_keys"} <= kernels, kernels
    assert not any("map_price" in k or "keep" in k for k in kernels), kernels
    package = os.path.join(udfs, "share", "udfkit", "shop_udfs")
    assert sorted(os.listdir(package)) == ["cuda-limits.limits.compute_75.ltoir", "cuda-limits.limits.compute_90.ltoir",
                                           "include", "python.discount.compute_75.ltoir", "shop_udfs.fatbin",
                                           "shop_udfs.json"], os.listdir(package)
    app = os.path.join(work, "app")
    configure(os.path.join(examples, "app"), app, f"{engine};{prefix}")
    run([CMAKE, "--build", app])
    for path in ("shop_udfs.fatbin", "shop_udfs.json"):
        out = run([os.path.join(app, "late_bound_app"), os.path.join(package, path)]).stdout
        assert "engine slots: price float32(float32, float32); keep bool(float32);" in out, out
        assert ": discount float32(float32, float32); is_big bool(float32);" in out, out
        assert "user.cu (compiled at run time): surcharge float32(float32, float32); is_cheap bool(float32);" in out, out
        assert "no GPU here" in out or out.count("as on the host") == 2, out


def test_compile_commands(work):
    """With CMAKE_EXPORT_COMPILE_COMMANDS, compile_commands.json lists udfkit's compiles
    beside the C ones (each source file, the command as the build runs it), also after a
    re-configure rewrites the file; a second build does nothing."""
    prefix = install(os.path.join(work, "prefix"))
    src = copy_project("downstream", work)
    for generator in ("Ninja", "Unix Makefiles"):
        build = os.path.join(work, generator.split()[-1])
        for _ in range(2):  # the second configure rewrites compile_commands.json
            configure(src, build, prefix, generator, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
            run([CMAKE, "--build", build, "-j2"])
            entries = json.load(open(os.path.join(build, "compile_commands.json")))
            udfkit = {os.path.basename(e["file"]): e["arguments"] for e in entries if "arguments" in e}
            assert sorted(udfkit) == ["limits.cu", "pricing.py", "ratios.cu", "scale_kernel.cu",
                                      "shop_kernels_kernels.cu"], entries
            assert all(a[0].endswith("/bin/udfkit") and "compile" in a and "-o" in a for a in udfkit.values()), udfkit
            assert "BIG_THRESHOLD=100.0f" in udfkit["limits.cu"], udfkit["limits.cu"]
            assert any(os.path.basename(e["file"]) == "main.c" for e in entries), entries
        out = run([CMAKE, "--build", build]).stdout
        assert "no work to do" in out or not re.search(r"udfkit:|Building|Linking", out), out


def test_moved_prefix(work):
    prefix = install(os.path.join(work, "prefix"))
    moved = os.path.join(work, "elsewhere", "udfkit")
    os.makedirs(os.path.dirname(moved))
    shutil.move(prefix, moved)
    src = copy_project("downstream", work)
    build = os.path.join(work, "build")
    configure(src, build, moved)
    ninja(build)
    run_app(os.path.join(build, "shop"))
    config = open(os.path.join(moved, "lib", "cmake", "udfkit", "udfkitTargets.cmake")).read()
    assert BUILD not in config and work not in config


def test_build_tree_package(work):
    src = copy_project("downstream", work)
    build = os.path.join(work, "build")
    run([CMAKE, "-S", src, "-B", build, "-G", "Ninja", f"-Dudfkit_DIR={BUILD}", *STRICT])
    ninja(build)
    run_app(os.path.join(build, "shop"))


def test_udf_package_installed_and_consumed(work):
    prefix = install(os.path.join(work, "prefix"))
    pkg_build = os.path.join(work, "pkg-build")
    configure(os.path.join(HERE, "udf_package"), pkg_build, prefix)
    ninja(pkg_build)
    pkg_prefix = os.path.join(work, "pkg-prefix")
    run([CMAKE, "--install", pkg_build, "--prefix", pkg_prefix])
    manifest = os.path.join(pkg_prefix, "share", "udfkit", "pkg_udfs", "pkg_udfs.json")
    assert os.path.exists(manifest) and os.path.exists(os.path.join(os.path.dirname(manifest), "include", "pkg_udfs.h"))
    # The sources it names are the files' names: no path of the build or source tree.
    installed = json.load(open(manifest))
    sources = {e["source"] for key in ("functions", "artifacts") for e in installed[key] if "source" in e}
    assert sources == {"scale.cu"}, sources
    for root, _, names in os.walk(pkg_prefix):
        for name in names:
            text = open(os.path.join(root, name), errors="replace").read() if name.endswith((".json", ".cmake")) else ""
            for tree in (pkg_build, os.path.join(HERE, "udf_package"), BUILD, SOURCE):
                assert tree not in text, (name, tree)
    # FATBIN: the package's LTO-IR in one fatbin, built with the target, installed beside the
    # manifest; its entries name the package's functions.
    assert os.path.exists(os.path.join(pkg_build, "pkg_udfs.udfkit", "pkg_udfs.package.fatbin"))
    fatbin = os.path.join(os.path.dirname(manifest), "pkg_udfs.fatbin")
    desc = json.loads(run([os.environ["UDFKIT"], "inspect", "--json", fatbin]).stdout)
    assert desc["functions"] == ["scale2"], desc
    assert [e["arch"] for e in desc["entries"]] == ["compute_80", "compute_90"], desc["entries"]
    assert desc["entries"][0]["package"]["functions"] == [{"c_name": "scale2", "signature": "float32(float32)"}]
    targets = open(os.path.join(pkg_prefix, "lib", "cmake", "pkg", "pkgTargets.cmake")).read()
    assert 'UDFKIT_PACKAGE_FATBIN_NAME "pkg_udfs.fatbin"' in targets, targets
    # The package moves with its prefix: paths in it are relative.
    moved = os.path.join(work, "pkg-moved")
    shutil.move(pkg_prefix, moved)
    build = os.path.join(work, "consumer")
    configure(os.path.join(HERE, "udf_consumer"), build, f"{moved};{prefix}")
    ninja(build)
    out = run_app(os.path.join(build, "consumer"))
    assert out.startswith("scale2"), out


def test_install_chain(work):
    """UDF package -> engine library -> application, each installed to a prefix of its own
    and moved before the next is built; udfkit's prefix moved too. The application knows
    nothing of UDFs: it finds the engine and calls its launcher. STATIC and SHARED engines."""
    udfkit_prefix = install(os.path.join(work, "udfkit-prefix"))
    moved_udfkit = os.path.join(work, "moved", "udfkit")
    os.makedirs(os.path.dirname(moved_udfkit))
    shutil.move(udfkit_prefix, moved_udfkit)
    pkg_build = os.path.join(work, "pkg-build")
    configure(os.path.join(HERE, "udf_package"), pkg_build, moved_udfkit)
    ninja(pkg_build)
    run([CMAKE, "--install", pkg_build, "--prefix", os.path.join(work, "pkg-prefix")])
    shutil.move(os.path.join(work, "pkg-prefix"), os.path.join(work, "moved", "pkg"))
    for kind in ("STATIC", "SHARED"):
        engine_build = os.path.join(work, f"engine-build-{kind}")
        configure(os.path.join(HERE, "engine"), engine_build, f"{work}/moved/pkg;{moved_udfkit}", "Ninja",
                  f"-DENGINE_TYPE={kind}")
        ninja(engine_build)
        engine_prefix = os.path.join(work, f"engine-prefix-{kind}")
        run([CMAKE, "--install", engine_build, "--prefix", engine_prefix])
        assert os.path.exists(os.path.join(engine_prefix, "include", "engine_kernels.h"))
        engine = os.path.join(work, "moved", f"engine-{kind}")
        shutil.move(engine_prefix, engine)
        targets = open(os.path.join(engine, "lib", "cmake", "engine", "engineTargets.cmake")).read()
        assert "pkg_udfs" not in targets and engine_build not in targets, targets
        app_build = os.path.join(work, f"app-build-{kind}")
        configure(os.path.join(HERE, "engine_app"), app_build, f"{engine};{moved_udfkit}")
        ninja(app_build)
        run([CMAKE, "--install", app_build, "--prefix", os.path.join(work, f"app-prefix-{kind}")])
        app = os.path.join(work, "moved", f"app-{kind}")
        shutil.move(os.path.join(work, f"app-prefix-{kind}"), app)
        out = run_app(os.path.join(app, "bin", "engine_app"))
        assert "scale2 over 1000 rows: 0 wrong" in out or "no CUDA driver" in out or "no GPU" in out, out
        if kind == "SHARED":
            # The engine ships the shared runtime beside itself and finds it there.
            lib = os.path.join(engine, "lib", "libengine_kernels.so")
            assert os.path.exists(os.path.join(engine, "lib", "libudfkit_runtime.so.1"))
            assert "$ORIGIN" in run(["readelf", "-d", lib]).stdout
            assert dynamic_symbols(os.path.join(engine, "lib", "libengine_kernels.so")) == [
                "engine_kernels_fatbin", "engine_kernels_fatbin_size", "engine_kernels_library", "engine_kernels_load",
                "engine_kernels_map_scale2", "engine_kernels_udf_error", "engine_kernels_unload"]


def test_add_subdirectory(work):
    src = os.path.join(work, "super")
    os.makedirs(src)
    os.makedirs(os.path.join(src, "udfs"))
    with open(os.path.join(src, "udfs", "ratios.cu"), "w") as f:
        f.write("__device__ float ratio(float a, float b) { return b != 0.0f ? a / b : 0.0f; }\n")
    with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
        f.write(f"""cmake_minimum_required(VERSION 3.25)
project(super LANGUAGES C)
add_subdirectory("{SOURCE}" udfkit)
add_ptx_udf(sub_udfs SOURCES udfs/ratios.cu FUNCTIONS "ratio:float32(float32, float32)" ARCHITECTURES 80-real)
add_jit_library(sub_kernels UDFS sub_udfs KERNELS "map(ratio)" ARCHITECTURES 80-real)
add_executable(app app.c)
target_link_libraries(app PRIVATE sub_kernels)
""")
    with open(os.path.join(src, "app.c"), "w") as f:
        f.write('#include "sub_kernels.h"\n#include <stdio.h>\n'
                'int main(void) { printf("load: %s\\n", udfkit_status_string(sub_kernels_load())); return 0; }\n')
    build = os.path.join(work, "build")
    r = run([CMAKE, "-S", src, "-B", build, "-G", "Ninja", f"-DPython3_EXECUTABLE={PYTHON}", *STRICT])
    assert "Warning" not in r.stderr, r.stderr
    run(["ninja", "-C", build, "app"])
    run_app(os.path.join(build, "app"))


ERRORS = [
    ("unknown-template", 'KERNELS "scan(discount)"', r"unknown kernel template 'scan' in 'scan\(discount\)'"),
    ("kernel-names-no-function", "KERNELS map(nosuch)", r"nosuch"),
    ("signature-does-not-fit", "KERNELS filter(discount)", r"filter.*discount"),
    ("transform-reduce-without-op", "KERNELS transform_reduce(discount)",
     r"kernel entry 'transform_reduce\(discount\)': transform_reduce takes the function and the op"),
    ("reduce-by-key-float-keys", 'KERNELS "reduce_by_key(discount, float32)"',
     r"reduce_by_key's keys are of a type compared as a whole \(int8, .*\), not 'float32'"),
    ("malformed-kernel", 'KERNELS "map("', r"add_jit_library: KERNELS entry 'map\(' of target 'lib' is not of the form"),
    ("bad-architecture", 'KERNELS map(discount) ARCHITECTURES "85x"',
     r"add_jit_library: ARCHITECTURES entry '85x' of target 'lib' is not of the form"),
    ("unsupported-architecture", 'KERNELS map(discount) ARCHITECTURES "35"',
     r"add_jit_library: ARCHITECTURES entry '35' of target 'lib' is not supported by this toolchain"),
]


def error_project(work, udf_args, lib_args, extra=()):
    src = os.path.join(work, "p")
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, "udfs.py"), "w") as f:
        f.write("def discount(price, rate):\n    return price * (1.0 - rate)\n\ndef pair(x):\n    return (x, x)\n")
    with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
        f.write(f"""cmake_minimum_required(VERSION 3.25)
project(p LANGUAGES C)
find_package(udfkit CONFIG REQUIRED)
add_ptx_udf(udfs SOURCES udfs.py {udf_args} ARCHITECTURES 80-real)
add_jit_library(lib UDFS udfs {lib_args})
""")
    return configure(src, os.path.join(work, "b"), install(os.path.join(work, "prefix")), "Ninja", *extra, check=False)


def make_error_case(name, lib_args, pattern):
    def test(work):
        r = error_project(work, 'FUNCTIONS "discount:float32(float32, float32)"', lib_args)
        assert r.returncode != 0, r.stdout
        assert re.search(pattern, " ".join(r.stderr.split())), r.stderr
    test.__name__ = name.replace("-", "_")
    return test


def test_udf_errors(work):
    r = error_project(work, 'FUNCTIONS "discount"', "")
    assert r.returncode != 0, r.stdout
    assert "add_ptx_udf: FUNCTIONS entry 'discount' of target 'udfs' has no signature" in " ".join(r.stderr.split())
    r = error_project(os.path.join(work, "2"), 'FUNCTIONS "discount:float32(float32, float32)"', "",
                      ("-DUDFKIT_PYTHON=/usr/bin/python3",))
    text = " ".join(r.stderr.split())
    assert r.returncode != 0 and "add_ptx_udf: SOURCES of target 'udfs' has Python UDFs" in text, r.stderr
    assert "no usable numba-cuda" in text and "pip install" in text
    r = error_project(os.path.join(work, "3"), 'FUNCTIONS "discount:float32(float32, float32)" PYTHON_FRONTEND '
                      "numba-cuda-mlir", "", ("-DUDFKIT_PYTHON=/usr/bin/python3",))
    text = " ".join(r.stderr.split())
    assert r.returncode != 0 and "has no usable numba-cuda-mlir (PYTHON_FRONTEND numba-cuda-mlir)" in text, r.stderr
    assert "numba-cuda-mlir==0.6.0" in text, r.stderr


CONFIGURE_ERRORS = [
    ("missing-source", 'add_ptx_udf(u SOURCES gone.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)',
     r"add_ptx_udf: SOURCES entry 'gone\.cu' of target 'u' does not exist \(.*/gone\.cu\), and no rule of this "
     r"directory generates it"),
    ("static-and-shared", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)\n'
                          'add_jit_library(lib STATIC SHARED UDFS u KERNELS map(f) ARCHITECTURES 80-real)',
     r"add_jit_library: target 'lib' is given STATIC and SHARED; a library is one of STATIC, SHARED or OBJECT"),
    ("function-twice", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" "f=g:float32(float32)")',
     r"add_ptx_udf: FUNCTIONS of target 'u' export 'f' twice; each c_name must be unique"),
    ("udf-in-two-targets", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)\n'
                           'add_ptx_udf(v SOURCES g.cu FUNCTIONS "f=g:float32(float32)" ARCHITECTURES 80-real)\n'
                           'add_jit_library(lib UDFS u v KERNELS map(f) ARCHITECTURES 80-real)',
     r"add_jit_library: UDFS of target 'lib': function 'f' is exported by both 'u' and 'v'; a c_name must be "
     r"unique across everything linked together"),
    ("same-identifier", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)\n'
                        'add_jit_library(my-lib UDFS u KERNELS map(f) ARCHITECTURES 80-real)\n'
                        'add_jit_library(my_lib UDFS u KERNELS map(f) ARCHITECTURES 80-real)',
     r"add_jit_library: the library of target 'my_lib' defines the C identifier 'my_lib_load', which the library "
     r"of target 'my-lib' defines too; rename one of the two"),
    ("spec-typo-at-its-line", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(double)" ARCHITECTURES 80-real)\n'
                              'add_jit_library(lib UDFS u KERNELS map(f) ARCHITECTURES 80-real)',
     r"add_ptx_udf: FUNCTIONS of target 'u': function spec 'f:float32\(double\)': unknown type 'double': write "
     r"float64 .*CMakeLists\.txt:4 \(add_ptx_udf\)"),
    ("bad-compress", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)\n'
                     'add_jit_library(lib UDFS u KERNELS map(f) ARCHITECTURES 80-real COMPRESS tiny)',
     r"add_jit_library: COMPRESS of target 'lib' is 'tiny'; it is none, speed, balance or size"),
    ("compress-keep-ltoir", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)\n'
                            'add_jit_library(lib UDFS u KERNELS map(f) ARCHITECTURES 80-real KEEP_LTOIR COMPRESS size)',
     r"add_jit_library: target 'lib' is given KEEP_LTOIR and COMPRESS size; the runtime links kept LTO-IR at load "
     r"time"),
    ("two-runtimes", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)\n'
                     'add_jit_library(lib UDFS u KERNELS map(f) ARCHITECTURES 80-real STATIC_RUNTIME SHARED_RUNTIME)',
     r"add_jit_library: target 'lib' is given STATIC_RUNTIME and SHARED_RUNTIME; it links one runtime"),
    ("bad-python-frontend", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" PYTHON_FRONTEND numba)',
     r"add_ptx_udf: PYTHON_FRONTEND of target 'u' is 'numba'; it takes numba-cuda, numba-cuda-mlir or auto"),
    ("slot-error-named-as-slots", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)\n'
                                  'add_jit_library(lib UDFS u SLOTS "price:float33(float32)" KERNELS map(f) map(price)'
                                  ' ARCHITECTURES 80-real)',
     r"add_jit_library: SLOTS of target 'lib': .*unknown type 'float33'"),
    ("slot-with-source-name", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)\n'
                              'add_jit_library(lib UDFS u SLOTS "price=foo:float32(float32)" KERNELS map(price)'
                              ' ARCHITECTURES 80-real)',
     r"add_jit_library: SLOTS entry 'price=foo:float32\(float32\)' of target 'lib' is not of the form "
     r"c_name:signature"),
    ("optional-slots-without-entry", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)\n'
                                     'add_jit_library(lib UDFS u SLOTS "price:float32(float32)" OPTIONAL_SLOTS'
                                     ' KERNELS map(price) ARCHITECTURES 80-real)',
     r"add_jit_library: target 'lib' is given OPTIONAL_SLOTS without an entry"),
    ("optional-slot-with-source-name", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)\n'
                                       'add_jit_library(lib UDFS u OPTIONAL_SLOTS "keep=k:bool(float32)"'
                                       ' KERNELS map(f) ARCHITECTURES 80-real)',
     r"add_jit_library: OPTIONAL_SLOTS entry 'keep=k:bool\(float32\)' of target 'lib' is not of the form "
     r"c_name:signature"),
    ("calls-not-a-slot", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" CALLS "price:float32(float32)"'
                         ' ARCHITECTURES 80-real)\n'
                         'add_jit_library(lib UDFS u SLOTS "price:float64(float32)" KERNELS map(price)'
                         ' ARCHITECTURES 80-real)',
     r"add_jit_library: UDFS of target 'lib': 'u' calls 'price:float32\(float32\)', which is not one of its SLOTS "
     r"\(price:float64\(float32\)\); a UDFS function may call only a slot of the library, of the same signature"),
    ("calls-own-function", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" CALLS "f:float32(float32)"'
                           ' ARCHITECTURES 80-real)',
     r"add_ptx_udf: CALLS entry 'f:float32\(float32\)' of target 'u' names 'f', which its FUNCTIONS define; CALLS "
     r"are functions defined elsewhere"),
    ("calls-bad-form", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" CALLS "g=h:float32(float32)"'
                       ' ARCHITECTURES 80-real)',
     r"add_ptx_udf: CALLS entry 'g=h:float32\(float32\)' of target 'u' is not of the form c_name:signature"),
    ("source-named-as-generated", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" ARCHITECTURES 80-real)\n'
                                  'add_jit_library(lib UDFS u SOURCES g.cu lib_kernels.cu KERNELS map(f)'
                                  ' ARCHITECTURES 80-real)',
     r"add_jit_library: SOURCES file 'lib_kernels.cu' of target 'lib' has the name of the file add_jit_library "
     r"generates for its KERNELS \(lib_kernels.cu\); rename it"),
    ("launcher-names-meet", 'add_ptx_udf(u SOURCES f.cu FUNCTIONS "f:float32(float32)" "map_f=f:float32(float32)"'
                            ' ARCHITECTURES 80-real)\n'
                            'add_jit_library(a_filter UDFS u KERNELS map(f) ARCHITECTURES 80-real)\n'
                            'add_jit_library(a UDFS u KERNELS filter(map_f) ARCHITECTURES 80-real)',
     r"add_jit_library: KERNELS entry 'filter\(map_f\)' of target 'a' defines the C identifier 'a_filter_map_f', "
     r"which KERNELS entry 'map\(f\)' of target 'a_filter' defines too"),
]


def test_configure_time_errors(work):
    """Mistakes that once passed configure and failed at build or link time are errors at
    configure time, naming the function and the keyword; a generated source is accepted."""
    prefix = install(os.path.join(work, "prefix"))
    for name, body, pattern in CONFIGURE_ERRORS + [("generated-source", None, None)]:
        src = os.path.join(work, name)
        os.makedirs(src)
        for f in ("f", "g"):
            with open(os.path.join(src, f"{f}.cu"), "w") as out:
                out.write(f"__device__ float {f}(float x) {{ return x + 1.0f; }}\n")
        if body is None:  # a source another rule of the directory writes
            body = ('add_custom_command(OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/made.cu" COMMAND "${CMAKE_COMMAND}" -E '
                    'copy "${CMAKE_CURRENT_SOURCE_DIR}/f.cu" "${CMAKE_CURRENT_BINARY_DIR}/made.cu" VERBATIM)\n'
                    'add_ptx_udf(u SOURCES "${CMAKE_CURRENT_BINARY_DIR}/made.cu" FUNCTIONS "f:float32(float32)" '
                    'ARCHITECTURES 80-real)')
        with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
            f.write(f"cmake_minimum_required(VERSION 3.25)\nproject(p LANGUAGES C)\n"
                    f"find_package(udfkit CONFIG REQUIRED)\n{body}\n")
        r = configure(src, os.path.join(work, name + "-build"), prefix, "Ninja", check=False)
        if pattern is None:
            assert r.returncode == 0, (name, r.stderr)
        else:
            assert r.returncode != 0, (name, r.stdout)
            assert re.search(pattern, " ".join(r.stderr.split())), (name, r.stderr)


def test_cuda_and_python_with_inferred_return_in_one_target(work):
    """One add_ptx_udf target with a .cu source and a Python UDF whose return type is
    inferred: the CUDA compile leaves the Python spec to the Python compile. A second
    target compiles the same module with PYTHON_FRONTEND numba-cuda-mlir (where it imports)
    into the same library: the same signature, its producer recorded."""
    mlir = subprocess.run([PYTHON, "-c", "import numba_cuda_mlir.cuda"], capture_output=True).returncode == 0
    src = os.path.join(work, "p")
    os.makedirs(src)
    with open(os.path.join(src, "udfs.py"), "w") as f:
        f.write("def discount(price, rate):\n    return price * (1.0 - rate)\n")
    with open(os.path.join(src, "udfs.cu"), "w") as f:
        f.write("__device__ float twice(float x) { return 2.0f * x; }\n")
    with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
        f.write("cmake_minimum_required(VERSION 3.25)\nproject(p LANGUAGES C)\nfind_package(udfkit CONFIG REQUIRED)\n"
                'add_ptx_udf(u SOURCES udfs.py udfs.cu FUNCTIONS "discount:(float32, float32)" '
                '"twice:float32(float32)" ARCHITECTURES 80-real)\n'
                + ('add_ptx_udf(m SOURCES udfs.py FUNCTIONS "discount_m=discount:(float32, float32)" '
                   "PYTHON_FRONTEND numba-cuda-mlir ARCHITECTURES 80-real)\n" if mlir else "")
                + f"add_jit_library(lib UDFS u {'m' if mlir else ''} KERNELS map(twice) map(discount) "
                + f"{'map(discount_m)' if mlir else ''} ARCHITECTURES 80-real)\n")
    build = os.path.join(work, "b")
    configure(src, build, install(os.path.join(work, "prefix")))
    ninja(build)
    header = open(os.path.join(build, "lib.udfkit", "include", "lib.h")).read()
    # numba infers float64: 1.0 is a double.
    assert "lib_map_discount(udfkit_stream s, size_t n, const float *a1, const float *a2, double *out)" in header, header
    if mlir:
        assert "lib_map_discount_m(udfkit_stream s, size_t n, const float *a1, const float *a2, double *out)" in header
        producers = json.load(open(os.path.join(build, "m.udfkit", "m.json")))["producers"]
        assert producers["numba-cuda-mlir"] == "0.6.0" and "numba-cuda" not in producers, producers


def test_inferred_signature_checked_at_build_time(work):
    r = error_project(work, 'FUNCTIONS "pair:(float32)"', "KERNELS map(pair)")
    assert r.returncode == 0, r.stderr
    r = run(["ninja", "-C", os.path.join(work, "b")], check=False)
    assert r.returncode != 0
    assert "pair" in r.stdout and "cannot cross the C ABI" in r.stdout, r.stdout


if __name__ == "__main__":
    main([test_ninja_build_and_incremental_rebuilds, test_makefiles_and_library_types,
          test_shared_library_exports_its_header_only, test_runtime_variants, test_late_bound_example,
          test_examples_and_udfkit_configure_without_warnings, test_compile_commands, test_moved_prefix,
          test_build_tree_package, test_udf_package_installed_and_consumed, test_install_chain, test_add_subdirectory,
          *[make_error_case(*c) for c in ERRORS], test_udf_errors, test_configure_time_errors,
          test_cuda_and_python_with_inferred_return_in_one_target, test_inferred_signature_checked_at_build_time])
