"""The whole CUDA C path: compile, link, inspect, header, embed, depfile, and an nvcc
kernel that reaches the UDFs through the header."""
import hashlib
import json
import os
import re
import shutil

from harness import NVCC, data, main, ok, run, udfkit

SPECS = ["clamp_i32=ops::clamp<int>:int32(int32, int32, int32)", "scale:float32(float32, float32)",
         "mix64:int64(int64, int32)"]
ARCHS = "75-real;80-real;90"


def compile_udfs(work, archs=ARCHS, out="build/udfs.json"):
    ok("compile", data("udfs.cu"), "--function", *SPECS, "--arch", archs, "-o", os.path.join(work, out),
       "--depfile", os.path.join(work, out + ".d"))
    return os.path.join(work, out)


def test_manifest_names_functions_and_artifacts(work):
    manifest = compile_udfs(work)
    m = json.load(open(manifest))
    assert m["udfkit_manifest"] == 1 and m["kind"] == "udfs"
    assert m["producers"]["nvrtc"] == "13.0"
    fns = {f["c_name"]: f for f in m["functions"]}
    assert set(fns) == {"clamp_i32", "scale", "mix64"}
    assert fns["clamp_i32"]["source_name"] == "ops::clamp<int>"
    assert fns["clamp_i32"]["line"] == 6
    assert fns["scale"]["line"] == 12
    assert fns["mix64"]["prototype"] == "int64_t mix64(int64_t a0, int32_t a1)"
    assert fns["scale"]["signature"] == "float32(float32, float32)"
    # Paths are relative to the manifest, so a package of them can move.
    assert os.path.normpath(os.path.join(os.path.dirname(manifest), fns["scale"]["source"])) == data("udfs.cu")
    # One artifact per source and virtual architecture (75, 80 and 90), hashed.
    archs = sorted(a["arch"] for a in m["artifacts"])
    assert archs == ["compute_75", "compute_80", "compute_90"], archs
    for a in m["artifacts"]:
        assert a["kind"] == "ltoir"
        path = os.path.join(os.path.dirname(manifest), a["path"])
        assert os.path.getsize(path) == a["size"]


def test_depfile_lists_included_headers(work):
    manifest = compile_udfs(work)
    text = open(manifest + ".d").read()
    target, deps = text.split(":", 1)
    assert target == manifest
    assert data("udfs.cu") in deps and data("udf_helpers.cuh") in deps
    # The target as a build tool spells the output (gcc's -MT); dependencies stay absolute
    # when the compile is given relative paths, as Ninja reads them against its own directory.
    out = os.path.join(work, "rel")
    os.makedirs(out)
    shutil.copy(data("udfs.cu"), out)
    shutil.copy(data("udf_helpers.cuh"), out)
    run_dir = os.getcwd()
    os.chdir(out)
    try:
        ok("compile", "udfs.cu", "--function", *SPECS, "-o", "udfs.json", "--depfile", "udfs.json.d",
           "--depfile-target", "rel/udfs.json")
    finally:
        os.chdir(run_dir)
    target, deps = open(os.path.join(out, "udfs.json.d")).read().split(":", 1)
    assert target == "rel/udfs.json", target
    assert deps.split() == ["\\", os.path.join(out, "udfs.cu"), "\\", os.path.join(out, "udf_helpers.cuh")], deps


def test_same_input_same_bytes(work):
    first = compile_udfs(work, out="a/udfs.json")
    second = compile_udfs(work, out="b/udfs.json")
    for name in os.listdir(os.path.dirname(first)):
        if name.endswith(".d"):
            continue
        a = open(os.path.join(os.path.dirname(first), name), "rb").read()
        b = open(os.path.join(os.path.dirname(second), name), "rb").read()
        assert a == b, name


def test_fatbin_for_three_architectures(work):
    manifest = compile_udfs(work)
    fatbin = os.path.join(work, "udfs.fatbin")
    ok("link", manifest, "--arch", ARCHS, "-o", fatbin)
    desc = json.loads(ok("inspect", fatbin, "--json").out)
    assert desc["kind"] == "fatbin"
    entries = {(e["kind"], e["arch"]) for e in desc["entries"]}
    assert entries == {("sass", "sm_75"), ("sass", "sm_80"), ("sass", "sm_90"), ("ptx", "compute_90")}, entries
    assert "apply_udfs" in desc["kernels"]
    assert desc["udfs"] == ["clamp_i32", "scale", "mix64"]
    text = ok("inspect", fatbin).out
    assert "sm_75" in text and "compute_90" in text and "apply_udfs" in text and "mix64" in text
    # The fatbin's manifest records each PTX entry's ISA version.
    m = json.load(open(fatbin + ".json"))
    ptx = [e for e in m["artifacts"][0]["entries"] if e["kind"] == "ptx"]
    assert ptx == [{"kind": "ptx", "arch": "compute_90", "ptx_isa": "9.0"}]
    assert m["producers"]["nvjitlink"] == "13.0" and m["producers"]["nvfatbin"] == "13.0"
    assert m["artifacts"][0]["xxh3_128"]


def test_keep_ltoir_adds_lto_entries(work):
    manifest = compile_udfs(work, archs="80")
    fatbin = os.path.join(work, "udfs.fatbin")
    ok("link", manifest, "--arch", "80", "--keep-ltoir", "-o", fatbin)
    desc = json.loads(ok("inspect", fatbin, "--json").out)
    kinds = sorted((e["kind"], e["arch"]) for e in desc["entries"])
    assert kinds == [("ltoir", "compute_80"), ("ptx", "compute_80"), ("sass", "sm_80")], kinds


def test_emit_cubin_and_ptx(work):
    manifest = compile_udfs(work, archs="80")
    ok("link", manifest, "--arch", "80-real", "--emit", "cubin", "-o", os.path.join(work, "k.cubin"))
    ok("link", manifest, "--arch", "80-virtual", "--emit", "ptx", "-o", os.path.join(work, "k.ptx"))
    assert json.loads(ok("inspect", os.path.join(work, "k.cubin"), "--json").out)["kind"] == "cubin"
    ptx = open(os.path.join(work, "k.ptx")).read()
    assert ".entry apply_udfs" in ptx and ".target sm_80" in ptx


def test_compile_ptx_and_cubin_directly(work):
    ok("compile", data("udfs.cu"), "-f", SPECS[1], "--arch", "80-virtual", "--emit", "ptx", "-o",
       os.path.join(work, "u.ptx"))
    ptx = open(os.path.join(work, "u.ptx")).read()
    assert ".visible .func  (.param .b32 func_retval0) scale(" in ptx or "scale(" in ptx
    ok("compile", data("udfs.cu"), "-f", SPECS[1], "--arch", "80-real", "--emit", "cubin", "-o",
       os.path.join(work, "u.cubin"))
    desc = json.loads(ok("inspect", os.path.join(work, "u.cubin"), "--json").out)
    assert "scale" in desc["functions"]


def test_header_compiles_as_c_and_cxx(work):
    manifest = compile_udfs(work)
    header = os.path.join(work, "inc", "udfs.h")
    ok("header", manifest, "-o", header)
    text = open(header).read()
    assert "__device__ int32_t clamp_i32(int32_t a0, int32_t a1, int32_t a2);" in text
    assert "udfkit-udf mix64 int64(int64, int32)" in text
    main_c = os.path.join(work, "main.c")
    with open(main_c, "w") as f:
        f.write('#include "udfs.h"\n#include <stdio.h>\n#include <string.h>\n'
                "int main(void) { size_t n; const udfkit_udf_info *u = udfs_udfs(&n);\n"
                "  for (size_t i = 0; i < n; i++) printf(\"%s %s\\n\", u[i].c_name, u[i].signature);\n"
                "  return n == 3 && strcmp(u[2].prototype, \"int64_t mix64(int64_t a0, int32_t a1)\") == 0 ? 0 : 1; }\n")
    run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", os.path.dirname(header), main_c,
         "-o", os.path.join(work, "c_app")])
    out = run([os.path.join(work, "c_app")]).stdout
    assert out.splitlines() == ["clamp_i32 int32(int32, int32, int32)", "scale float32(float32, float32)",
                                "mix64 int64(int64, int32)"]
    shutil.copy(main_c, os.path.join(work, "main.cpp"))
    run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", os.path.dirname(header),
         os.path.join(work, "main.cpp"), "-o", os.path.join(work, "cxx_app")])
    run([os.path.join(work, "cxx_app")])


def test_nvcc_kernel_links_against_udf_ltoir(work):
    if not NVCC:
        print("nvcc not found: skipping the nvcc half")
        return
    manifest = compile_udfs(work, archs="80")
    inc = os.path.join(work, "inc")
    ok("header", manifest, "-o", os.path.join(inc, "udfs.h"))
    obj = os.path.join(work, "caller.o")
    run([NVCC, "-dc", "-Xcompiler=-Wall,-Werror", "-gencode", "arch=compute_80,code=lto_80", "-I", inc,
         data("caller_kernel.cu"), "-o", obj])
    fatbin = os.path.join(work, "caller.fatbin")
    ok("link", obj, manifest, "--arch", "80-real", "-o", fatbin)
    desc = json.loads(ok("inspect", fatbin, "--json").out)
    assert "call_udfs" in desc["kernels"]
    # Without the UDFs the kernel's references stay unresolved, and the error names them.
    bad = os.path.join(work, "alone.fatbin")
    from harness import udfkit
    r = udfkit("link", obj, "--arch", "80-real", "-o", bad)
    assert r.rc == 1, r
    assert "unresolved symbols: scale" in r.err, r.err  # ptxas stops at the first
    assert not os.path.exists(bad) and not os.path.exists(bad + ".json")


def test_embed_puts_bytes_under_symbol(work):
    blob = os.path.join(work, "data with space.bin")
    payload = os.urandom(100000) + b"\0end"
    open(blob, "wb").write(payload)
    src, hdr = os.path.join(work, "blob.c"), os.path.join(work, "blob.h")
    ok("embed", blob, "--symbol", "my_blob", "-o", src, "--header", hdr)
    text = open(src).read()
    digest = hashlib.sha256(payload).hexdigest()
    assert ".incbin" in text and "my_blob_size = 100004u" in text
    assert len(text) < 4096  # the bytes come through the assembler, not the source
    main_c = os.path.join(work, "main.c")
    with open(main_c, "w") as f:
        f.write('#include "blob.h"\n#include <stdint.h>\n#include <stdio.h>\n'
                "int main(void) { if ((uintptr_t)my_blob % 64) return 2;\n"
                "  fwrite(my_blob, 1, my_blob_size, stdout); return 0; }\n")
    exe = os.path.join(work, "app")
    run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", work, main_c, src, "-o", exe])
    import subprocess
    out = subprocess.run([exe], capture_output=True, timeout=60)
    assert out.returncode == 0 and hashlib.sha256(out.stdout).hexdigest() == digest
    # A changed input changes the source, so the object rebuilds.
    open(blob, "ab").write(b"!")
    ok("embed", blob, "--symbol", "my_blob", "-o", src)
    assert open(src).read() != text


def test_merge_and_link_write_header_and_embedding_in_one_step(work):
    """merge --header and link --embed give what header and embed give on their own."""
    manifest = compile_udfs(work, archs="80")
    ok("merge", manifest, "-f", *SPECS, "-o", os.path.join(work, "one", "udfs.json"),
       "--header", os.path.join(work, "one", "udfs.h"), "--name", "udfs")
    ok("merge", manifest, "-f", *SPECS, "-o", os.path.join(work, "two", "udfs.json"))
    ok("header", os.path.join(work, "two", "udfs.json"), "--name", "udfs", "-o", os.path.join(work, "two", "udfs.h"))
    assert open(os.path.join(work, "one", "udfs.h")).read() == open(os.path.join(work, "two", "udfs.h")).read()
    fatbin = os.path.join(work, "one", "udfs.fatbin")
    ok("link", os.path.join(work, "one", "udfs.json"), "--arch", "80-real", "-o", fatbin,
       "--embed", os.path.join(work, "one", "udfs_fatbin.c"), "--symbol", "udfs_fatbin")
    ok("embed", fatbin, "--symbol", "udfs_fatbin", "-o", os.path.join(work, "two", "udfs_fatbin.c"))
    assert open(os.path.join(work, "one", "udfs_fatbin.c")).read() == open(os.path.join(work, "two", "udfs_fatbin.c")).read()


def test_functions_that_already_have_c_linkage(work):
    src = data("udfs_c_linkage.cu")
    out = os.path.join(work, "c.json")
    ok("compile", src, "-f", "twice_c:float64(float64)", "negate_c:float32(float32)", "widen:int64(int64, uint64)",
       "--arch", "80", "-o", out)
    m = json.load(open(out))
    assert [f["line"] for f in m["functions"]] == [3, 9, 15]
    ok("link", out, "--arch", "80-real", "-o", os.path.join(work, "c.fatbin"))
    # Only the type check runs for them, and it still catches a wrong signature.
    from harness import udfkit
    r = udfkit("compile", src, "-f", "twice_c:float32(float64)", "-o", os.path.join(work, "x.ltoir"))
    assert r.rc == 1 and "'twice_c' does not match its declared signature float32(float64): it returns 'double'" in r.err, r


def test_tool_options_take_their_value_as_it_is(work):
    """-Xnvrtc OPT and -Xnvjitlink OPT pass OPT on even where it starts with '-'."""
    src = os.path.join(work, "s.cu")
    with open(src, "w") as f:
        f.write("__device__ float f(float x) { return x * SCALE; }\n")
    out = os.path.join(work, "s.ltoir")
    ok("compile", src, "-f", "f:float32(float32)", "--arch", "80", "-Xnvrtc", "-DSCALE=3", "-o", out)
    ok("link", out, "--arch", "80-real", "--emit", "cubin", "-Xnvjitlink", "-lineinfo", "-o",
       os.path.join(work, "s.cubin"))


def test_inspect_finds_fatbins_embedded_in_programs(work):
    """A fatbin carried as data (udfkit embed) is found in an object, an archive, a shared
    library and an executable."""
    manifest = compile_udfs(work, archs="80")
    fatbin = os.path.join(work, "u.fatbin")
    ok("link", manifest, "--arch", "80-real", "-o", fatbin)
    src = os.path.join(work, "u.c")
    ok("embed", fatbin, "--symbol", "u_fatbin", "-o", src)
    main_c = os.path.join(work, "main.c")
    with open(main_c, "w") as f:
        f.write("extern const unsigned char u_fatbin[];\nint main(void) { return u_fatbin[0] == 0; }\n")
    obj, lib, so, exe = (os.path.join(work, n) for n in ("u.o", "libu.a", "libu.so", "app"))
    run(["cc", "-c", src, "-o", obj])
    run(["ar", "rcs", lib, obj])
    run(["cc", "-shared", "-fPIC", src, "-o", so])
    run(["cc", main_c, src, "-o", exe])
    expected = json.loads(ok("inspect", fatbin, "--json").out)["kernels"]
    for path in (obj, lib, so, exe):
        desc = json.loads(ok("inspect", path, "--json").out)
        assert desc["kernels"] == expected and all(e["embedded"] for e in desc["entries"]), (path, desc)


def test_verbose_tells_each_step(work):
    """-v tells every NVRTC and nvJitLink step with its options and where its result came
    from; a link of several architectures that takes long says how far it got."""
    manifest = compile_udfs(work, archs="80;90")
    quiet = ok("compile", data("udfs.cu"), "--function", *SPECS, "--arch", "80;90", "-o", manifest)
    assert quiet.err == "", quiet.err
    r = ok("-v", "compile", data("udfs.cu"), "--function", *SPECS, "--arch", "80;90", "-o", manifest)
    lines = r.err.splitlines()
    for arch in ("compute_80", "compute_90"):
        assert any(line.startswith("udfkit: nvrtc ") and f"-arch={arch}: from the cache" in line and "-dlto" in line
                   for line in lines), r.err
    env = dict(os.environ, UDFKIT_CACHE="0", UDFKIT_PROGRESS_SECONDS="0")
    r = udfkit("link", manifest, "--arch", "80-real;90-real", "-o", os.path.join(work, "u.fatbin"), "--verbose",
               env=env)
    assert r.rc == 0, r
    for arch in ("sm_80", "sm_90"):
        assert re.search(rf"^udfkit: nvjitlink {arch}: -arch={arch} -lto .*udfs\.compute_\d0\.ltoir: [0-9.]+ s$", r.err,
                         re.M), r.err
    assert re.search(r"^udfkit: \[1/2\] sm_[89]0 linked \([0-9.]+ s\)$", r.err, re.M), r.err
    assert re.search(r"^udfkit: \[2/2\] sm_[89]0 linked", r.err, re.M), r.err
    assert re.search(r"^udfkit: nvfatbin 2 entries, compression speed -> .*u\.fatbin: \d+ bytes", r.err, re.M), r.err


def test_compressed_fatbin(work):
    """Fatbins are compressed (speed) by default, --compress chooses; inspect reads the kernels back."""
    manifest = compile_udfs(work, archs="75;80")
    # Each in a directory of its own: a fatbin records its file name.
    names = ("plain", "default", "speed", "small", "kept")
    for n in names:
        os.makedirs(os.path.join(work, n))
    plain, default, speed, small, kept = (os.path.join(work, n, "f.fatbin") for n in names)
    ok("link", manifest, "--arch", "75-real;80", "--compress", "none", "-o", plain)
    ok("link", manifest, "--arch", "75-real;80", "-o", default)
    ok("link", manifest, "--arch", "75-real;80", "--compress", "speed", "-o", speed)
    ok("link", manifest, "--arch", "75-real;80", "--compress", "size", "-o", small)
    ok("link", manifest, "--arch", "75-real;80", "--keep-ltoir", "-o", kept)
    assert open(default, "rb").read() == open(speed, "rb").read()
    assert os.path.getsize(small) <= os.path.getsize(speed) < os.path.getsize(plain) * 0.6
    a, d, b, k = (json.loads(ok("inspect", f, "--json").out) for f in (plain, default, small, kept))
    assert a["kernels"] == d["kernels"] == b["kernels"] == k["kernels"] == ["apply_udfs"], (a, b)
    assert all(e["compressed"] for e in b["entries"] + d["entries"]), (b, d)
    assert not any(e.get("compressed") for e in a["entries"] + k["entries"]), (a, k)
    r = udfkit("link", manifest, "--arch", "80", "--compress", "size", "--keep-ltoir", "-o", plain)
    assert r.rc == 2 and "--compress and --keep-ltoir do not go together" in r.err, r
    r = udfkit("link", manifest, "--arch", "80", "--compress", "tiny", "-o", plain)
    assert r.rc == 2 and "--compress takes none, speed, balance or size, not 'tiny'" in r.err, r


def test_link_takes_every_input_kind(work):
    """PTX, cubin, fatbin, LTO-IR, host objects and archives, in one link."""
    ok("compile", data("udfs.cu"), "-f", SPECS[1], "--arch", "80-virtual", "--emit", "ptx", "-o",
       os.path.join(work, "udfs.ptx"))
    ok("compile", data("udfs_c_linkage.cu"), "-f", "twice_c:float64(float64)", "--arch", "80-real", "--emit", "cubin",
       "-o", os.path.join(work, "c.cubin"))
    for inp in ("udfs.ptx", "c.cubin"):
        out = os.path.join(work, inp + ".out.cubin")
        ok("link", os.path.join(work, inp), "--arch", "80-real", "--emit", "cubin", "-o", out)
        desc = json.loads(ok("inspect", out, "--json").out)
        assert desc["kind"] == "cubin" and desc["kernels"], (inp, desc)
    if not NVCC:
        return
    inc = os.path.join(work, "inc")
    manifest = compile_udfs(work, archs="80")
    ok("header", manifest, "-o", os.path.join(inc, "udfs.h"))
    obj = os.path.join(work, "caller.o")
    run([NVCC, "-dc", "-gencode", "arch=compute_80,code=lto_80", "-I", inc, data("caller_kernel.cu"), "-o", obj])
    # A relocatable fatbin (SASS) and one of LTO-IR, as nvcc makes them.
    for flags, name in ((["-rdc=true", "-arch=sm_80"], "rdc.fatbin"), (["-gencode", "arch=compute_80,code=lto_80"], "lto.fatbin")):
        fat = os.path.join(work, name)
        run([NVCC, "-fatbin", *flags, data("udfs_c_linkage.cu"), "-o", fat])
        out = os.path.join(work, name + ".cubin")
        ok("link", fat, "--arch", "80-real", "--emit", "cubin", "-o", out)
        assert "use_c" in json.loads(ok("inspect", out, "--json").out)["kernels"]
    lib = os.path.join(work, "libcaller.a")
    run(["ar", "rcs", lib, obj])
    fatbin = os.path.join(work, "from_archive.fatbin")
    ok("link", lib, manifest, "--arch", "80-real", "-o", fatbin)
    assert "call_udfs" in json.loads(ok("inspect", fatbin, "--json").out)["kernels"]


if __name__ == "__main__":
    main([test_merge_and_link_write_header_and_embedding_in_one_step, test_manifest_names_functions_and_artifacts, test_depfile_lists_included_headers, test_same_input_same_bytes,
          test_fatbin_for_three_architectures, test_keep_ltoir_adds_lto_entries, test_emit_cubin_and_ptx,
          test_compile_ptx_and_cubin_directly, test_header_compiles_as_c_and_cxx,
          test_nvcc_kernel_links_against_udf_ltoir, test_embed_puts_bytes_under_symbol,
          test_functions_that_already_have_c_linkage, test_tool_options_take_their_value_as_it_is,
          test_inspect_finds_fatbins_embedded_in_programs, test_verbose_tells_each_step, test_compressed_fatbin,
          test_link_takes_every_input_kind])
