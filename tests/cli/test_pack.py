"""udfkit pack: LTO-IR packed unlinked into one fatbin, each entry named with its group,
producer and role, the first also with the function table; --arch selection, the errors
that leave no output, --embed, and the package read back by inspect, header and link."""
import json
import os
import re

from harness import data, main, ok, run, udfkit

SPECS = ["clamp_i32=ops::clamp<int>:int32(int32, int32, int32)", "scale:float32(float32, float32)",
         "mix64:int64(int64, int32)"]
CALLER = """extern "C" __device__ float scale(float x, float k);
extern "C" __global__ void call_scale(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = scale(in[i], 2.0f);
}
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def compile_cuda(work, name="cuda/udfs.json", archs="75;80;90", specs=SPECS, *extra):
    out = os.path.join(work, name)
    ok("compile", data("udfs.cu"), "--function", *specs, "--arch", archs, "-o", out, *extra)
    return out


def compile_python(work):
    """A Python UDF and the link file its module brings; None where numba-cuda is missing."""
    out = os.path.join(work, "py", "py.json")
    r = udfkit("compile", os.path.join(data("py"), "udfs.py"), "--function", "add:float32(float32, float32)",
               "uses_ext:float32(float32)", "--arch", "80-real;90", "-o", out)
    if r.rc == 3 and "numba-cuda" in r.err:
        print(f"skipping the Python parts: {r.err.strip()}")
        return None
    assert r.rc == 0, r
    return out


def inspect(path):
    return json.loads(ok("inspect", "--json", path).out)


def packages(desc):
    return [(e["arch"], e["package"]) for e in desc["entries"]]


def assert_no_output(out):
    assert not os.path.exists(out) and not os.path.exists(out + ".json"), os.listdir(os.path.dirname(out))


def test_entries_groups_and_identifiers(work):
    cuda = compile_cuda(work)
    py = compile_python(work)
    out = os.path.join(work, "out", "pkg.fatbin")
    r = ok("-v", "pack", cuda, *([py] if py else []), "-o", out)
    groups = 4 if py else 1
    assert re.search(rf"^udfkit: pack: {6 if py else 3} entries of {groups} groups into {re.escape(out)} "
                     rf"\({os.path.getsize(out)} bytes, \d+\.\d\d s\)$", r.err, re.M), r.err
    desc = inspect(out)
    entries = packages(desc)
    # The CUDA source's three architectures are one group: alternatives of each other.
    assert [(a, p["group"], p["producer"]) for a, p in entries[:3]] == [
        ("compute_75", "0", "nvrtc 13.0"), ("compute_80", "0", "nvrtc 13.0"), ("compute_90", "0", "nvrtc 13.0")]
    assert [p["file"] for _, p in entries[:3]] == [f"udfs.udfs.compute_{n}.ltoir" for n in (75, 80, 90)]
    table = [("clamp_i32", "int32(int32, int32, int32)"), ("scale", "float32(float32, float32)"),
             ("mix64", "int64(int64, int32)")]
    if py:
        # One group per Python function, one for the link file its module brings (compiled
        # once, at the lowest architecture), each named with the manifest's NVVM.
        assert [(a, p["group"], p["producer"], p.get("role")) for a, p in entries[3:]] == [
            ("compute_80", "1", "nvvm 13.0", None), ("compute_80", "2", "nvvm 13.0", None),
            ("compute_80", "3", "nvvm 13.0", "link")], entries[3:]
        table += [("add", "float32(float32, float32)"), ("uses_ext", "float32(float32)")]
    # The function table on the first entry only, in input order.
    assert [(f["c_name"], f["signature"]) for f in entries[0][1]["functions"]] == table
    assert all(p["functions"] == [] for _, p in entries[1:])
    assert [name for name, _ in table] == desc["functions"] == desc["udfs"]
    # The identifier as the runtime reads it, byte for byte.
    ident = ("0:udfs.udfs.compute_75.ltoir\nudfkit-package 1\nproducer nvrtc 13.0\n" +
             "\n".join(f"function {c} {s}" for c, s in table))
    blob = open(out, "rb").read()
    assert ident.encode() + b"\0" in blob
    assert b"1:udfs.udfs.compute_80.ltoir" not in blob and b"0:udfs.udfs.compute_80.ltoir\nudfkit-package 1\n" \
        b"producer nvrtc 13.0\0" in blob
    # The manifest: a fatbin of LTO-IR entries, marked as a package.
    m = json.load(open(out + ".json"))
    assert m["kind"] == "fatbin" and m["package"] == 1 and m["producers"]["nvfatbin"]
    assert [f["c_name"] for f in m["functions"]] == [name for name, _ in table]
    assert os.path.normpath(os.path.join(os.path.dirname(out), m["functions"][0]["source"])) == data("udfs.cu")
    [fatbin] = m["artifacts"]
    assert fatbin["path"] == "pkg.fatbin" and [e["arch"] for e in fatbin["entries"]] == [a for a, _ in entries]
    # header reads it as it reads a linked fatbin's manifest; inspect's text names groups.
    ok("header", out + ".json", "-o", os.path.join(work, "inc", "pkg.h"))
    assert "udfkit-udf scale float32(float32, float32)" in open(os.path.join(work, "inc", "pkg.h")).read()
    text = ok("inspect", out).out
    assert "group 0, nvrtc 13.0" in text and "package function scale float32(float32, float32)" in text, text


def test_arch_picks_per_group(work):
    cuda = compile_cuda(work)
    out = os.path.join(work, "pkg.fatbin")
    for archs, expect in (("75", ["compute_75"]), ("80;90", ["compute_80", "compute_90"]),
                          ("86-real", ["compute_80"]), ("75-real;80;90-virtual;100", ["compute_75", "compute_80",
                                                                                   "compute_90"])):
        ok("pack", cuda, "--arch", archs, "-o", out)
        desc = inspect(out)
        assert [e["arch"] for e in desc["entries"]] == expect, (archs, desc["entries"])
        assert desc["entries"][0]["package"]["functions"], archs
    # A group without code for an architecture: named with what it has; nothing written.
    # (CUDA 13 compiles nothing older than 75: ask for 75 of code compiled for 80 and 90.)
    newer = compile_cuda(work, "newer/udfs.json", "80;90")
    os.remove(out)
    r = udfkit("pack", newer, "--arch", "75", "-o", out)
    assert r.rc == 1, r
    assert r.err.strip() == (f"{newer}: error: '{os.path.relpath(data('udfs.cu'), os.path.dirname(newer))}' has no "
                             "LTO-IR for compute_75 or lower (it has compute_80, compute_90)"), r.err
    assert_no_output(out)
    r = udfkit("pack", cuda, "--arch", "70", "-o", out)
    assert r.rc == 1 and "architecture '70' is not supported by this toolchain" in r.err, r
    assert_no_output(out)


def test_python_function_without_code_for_an_architecture(work):
    py = compile_python(work)
    if not py:
        return
    out = os.path.join(work, "pkg.fatbin")
    r = udfkit("pack", compile_cuda(work), py, "--arch", "75;90", "-o", out)
    assert r.rc == 1 and f"{py}: error: function 'add' has no LTO-IR for compute_75 or lower (it has compute_80)" \
        in r.err, r
    assert_no_output(out)


def test_duplicate_c_name_names_both_inputs(work):
    first = compile_cuda(work, "a/a.json", "80", SPECS[1:2])
    second = compile_cuda(work, "b/b.json", "90", SPECS[1:3])
    out = os.path.join(work, "pkg.fatbin")
    r = udfkit("pack", first, second, "-o", out)
    assert r.rc == 1, r
    assert r.err.strip() == f"{second}: error: exports 'scale', which another input exports too ({first})", r.err
    assert_no_output(out)


def test_ptx_artifact_is_refused(work):
    manifest = compile_cuda(work, "ptx/udfs.json", "80", SPECS, "--emit", "ptx")
    out = os.path.join(work, "pkg.fatbin")
    r = udfkit("pack", manifest, "-o", out)
    assert r.rc == 1, r
    assert r.err.strip() == (f"{manifest}: error: pack takes LTO-IR; artifact 'udfs.udfs.compute_80.ptx' is PTX: "
                             "compile with --emit ltoir (add_ptx_udf OUTPUT LTOIR)"), r.err
    assert_no_output(out)
    # A raw input that is not LTO-IR either.
    r = udfkit("pack", os.path.join(work, "ptx", "udfs.udfs.compute_80.ptx"), "-o", out)
    assert r.rc == 1 and "pack takes LTO-IR and udfkit manifests; this is PTX" in r.err, r
    assert_no_output(out)


def test_corrupt_artifact_leaves_no_output(work):
    manifest = compile_cuda(work)
    out = os.path.join(work, "pkg.fatbin")
    ok("pack", manifest, "-o", out)
    artifact = os.path.join(os.path.dirname(manifest), "udfs.udfs.compute_80.ltoir")
    blob = bytearray(open(artifact, "rb").read())
    blob[len(blob) // 2] ^= 0xFF
    open(artifact, "wb").write(blob)
    r = udfkit("pack", manifest, "-o", out)
    assert r.rc == 1 and f"{artifact}: error: changed since {manifest} was written" in r.err, r
    # The older package is gone too: a build never finds one that does not match its inputs.
    assert_no_output(out)


def test_raw_ltoir_and_usage(work):
    kernel = os.path.join(work, "k", "caller.ltoir")
    ok("compile", write(os.path.join(work, "k", "caller.cu"), CALLER), "--arch", "80-virtual", "-o", kernel)
    out = os.path.join(work, "pkg.fatbin")
    ok("pack", compile_cuda(work, archs="80;90"), kernel, "--arch", "80;90", "-o", out)
    entries = packages(inspect(out))
    # A raw .ltoir: a group of its own, no producer, the lowest architecture asked for.
    assert entries[-1][0] == "compute_80" and entries[-1][1]["group"] == "1" and "producer" not in entries[-1][1]
    assert b"1:caller.ltoir\nudfkit-package 1\0" in open(out, "rb").read()
    help_text = ok("help", "pack").out
    for option in ("--arch", "--output", "--embed", "--symbol"):
        assert option in help_text, option
    assert udfkit("pack", kernel).rc == 2
    assert udfkit("pack", kernel, "-o", out, "--embed", os.path.join(work, "x.c")).rc == 2


def test_embed_compiles_and_a_failed_embed_leaves_nothing(work):
    """An engine library's kernels (a compile manifest without functions) and the UDFs they
    call, packed and embedded in C."""
    manifest = compile_cuda(work)
    kernels = os.path.join(work, "k", "kernels.json")
    ok("compile", write(os.path.join(work, "k", "caller.cu"), CALLER), "--arch", "75;90", "-o", kernels)
    out = os.path.join(work, "out", "pkg.fatbin")
    c = os.path.join(work, "out", "pkg_fatbin.c")
    ok("pack", kernels, manifest, "-o", out, "--embed", c, "--symbol", "pkg_fatbin")
    entries = packages(inspect(out))
    assert [(a, p["group"], p["file"]) for a, p in entries[:2]] == [
        ("compute_75", "0", "kernels.caller.compute_75.ltoir"), ("compute_90", "0", "kernels.caller.compute_90.ltoir")]
    assert [f["c_name"] for f in entries[0][1]["functions"]] == ["clamp_i32", "scale", "mix64"]
    assert {p["group"] for _, p in entries[2:]} == {"1"}
    text = open(c).read()
    assert "pkg_fatbin" in text and os.path.exists(out + ".json")
    run(["gcc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-c", c, "-o", os.path.join(work, "pkg_fatbin.o")])
    for path in (out, out + ".json", c):
        os.remove(path)
    r = udfkit("pack", manifest, "-o", out, "--embed", c, "--symbol", "1bad")
    assert r.rc == 2 and "not a C identifier" in r.err, r
    assert_no_output(out)
    assert not os.path.exists(c)


def test_packed_ltoir_links(work):
    """nvJitLink takes the pack's LTO-IR for the architecture it links: a kernel calling a
    packed function links from it."""
    out = os.path.join(work, "pkg.fatbin")
    ok("pack", compile_cuda(work), "-o", out)
    kernel = os.path.join(work, "k", "caller.ltoir")
    ok("compile", write(os.path.join(work, "k", "caller.cu"), CALLER), "--arch", "80-virtual", "-o", kernel)
    r = udfkit("link", kernel, "--arch", "80-real", "--emit", "cubin", "-o", os.path.join(work, "alone.cubin"))
    assert r.rc == 1 and "unresolved symbols: scale" in r.err, r
    cubin = os.path.join(work, "x.cubin")
    ok("link", out, kernel, "--arch", "80-real", "--emit", "cubin", "-o", cubin)
    assert "call_scale" in inspect(cubin)["kernels"]


def test_sass_of_kernels_that_call_no_slot(work):
    """--sass: of a SLOTS library's code, for each real architecture of the list, the kernels
    that call no slot linked to SASS, its entry naming the kernels that do (a bind links
    those); the LTO-IR stays; virtual architectures get none."""
    udfs = compile_cuda(work, archs="80")
    out = os.path.join(work, "gen")
    r = udfkit("kernels", udfs, "--slot", "price:float32(float32, float32)", "--kernel", "map(price)",
               "--kernel", "reduce(scale)", "--kernel", "map(scale)", "--name", "eng",
               "--cuda", os.path.join(out, "eng_kernels.cu"), "--c", os.path.join(out, "eng.c"),
               "--header", os.path.join(out, "eng.h"), cwd=work)
    assert r.rc == 0, r
    source = open(os.path.join(out, "eng_kernels.cu")).read()
    kernels = set(re.findall(r'extern "C" __global__ void (?:__launch_bounds__\((?:[^()]|\([^()]*\))*\)\s*)?(\w+)\(', source))
    calling = {k for k in kernels if k.startswith("udfkit_eng_map_price")}
    assert calling and kernels - calling, kernels
    compiled = os.path.join(work, "k.json")
    ok("compile", os.path.join(out, "eng_kernels.cu"), "--arch", "80", "-o", compiled)
    fatbin = os.path.join(work, "eng.fatbin")
    ok("pack", compiled, udfs, "--arch", "80", "--sass", "80-real;90-virtual", "-o", fatbin)
    desc = inspect(fatbin)
    sass = [e for e in desc["entries"] if e["kind"] == "sass"]
    assert [e["arch"] for e in sass] == ["sm_80"], desc
    # Besides the generated kernels (udfkit_dependent_launch is in compute_90 code only), the
    # kernels the UDFs' own source defines.
    own = set(re.findall(r'__global__ void (\w+)\(', open(data("udfs.cu")).read()))
    assert own, "udfs.cu defines a kernel"
    expected = (kernels - calling - {"udfkit_dependent_launch"}) | own
    assert set(sass[0]["kernels"]) == expected, (sass[0]["kernels"], expected)
    assert set(sass[0]["package"]["bound_kernels"]) == calling, sass[0]["package"]
    # Which slots each of them reaches: what a bind leaving an optional slot unbound reads.
    assert sass[0]["package"]["kernel_calls"] == {k: ["price"] for k in calling}, sass[0]["package"]
    assert sass[0]["package"]["group"] == "sass"
    assert len([e for e in desc["entries"] if e["kind"] == "ltoir"]) == 2, desc
    text = ok("inspect", fatbin).out
    assert "kernels that call slots, linked at bind time: " + ", ".join(sorted(calling)) in text or \
        all(k in text for k in calling), text
    assert all(f"kernel {k} calls price" in text for k in calling), text
    # Only virtual architectures: no SASS.
    ok("pack", compiled, udfs, "--arch", "80", "--sass", "80-virtual", "-o", fatbin)
    assert [e["kind"] for e in inspect(fatbin)["entries"]] == ["ltoir", "ltoir"]


if __name__ == "__main__":
    main([test_entries_groups_and_identifiers, test_arch_picks_per_group,
          test_python_function_without_code_for_an_architecture, test_duplicate_c_name_names_both_inputs,
          test_ptx_artifact_is_refused, test_corrupt_artifact_leaves_no_output, test_raw_ltoir_and_usage,
          test_embed_compiles_and_a_failed_embed_leaves_nothing, test_packed_ltoir_links,
          test_sass_of_kernels_that_call_no_slot])
