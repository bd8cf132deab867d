"""udfkit link --units (docs/build-speed.md): the units `udfkit kernels --units` writes, a link
by units giving the same kernels as a link of the whole library, an edited UDF source relinking
only the units that call its UDFs (the others from the cache), a warm cache linking nothing, a
call into another input's code falling back to one link of the whole library, and bad units
files refused with no output left."""
import json
import os
import re
import struct

from harness import files_under, main, udfkit

ARCHS = "80-real;90"
A_UDFS = ["twice:int32(int32)", "is_pos:bool(int32)", "add_i:int32(int32, int32)"]
B_UDFS = ["third:int32(int32)", "is_small:bool(int32)"]
ENTRIES = ["map(twice)", "filter(is_pos)", "reduce(add_i)", "map(third)", "filter(is_small, values)",
           "transform_reduce(third, add_i)"]

A_SOURCE = """
__device__ int twice(int x) { return 2 * x; }
__device__ bool is_pos(int x) { return x > 0; }
__device__ int add_i(int a, int b) { return a + b; }
"""
B_SOURCE = """
__device__ int third(int x) { return x / %d; }
__device__ bool is_small(int x) { return x < 10; }
"""


def env_for(work):
    env = dict(os.environ)
    env["UDFKIT_CACHE_DIR"] = os.path.join(work, "cache")
    env["UDFKIT_PROGRESS_SECONDS"] = "1000"  # no progress lines among the ones asserted
    return env


def ok_in(work, *args):
    r = udfkit(*args, env=env_for(work))
    assert r.rc == 0, f"udfkit {' '.join(args)} failed: {r!r}"
    return r


def build_inputs(work, divisor=3, entries=ENTRIES, b_source=B_SOURCE, b_udfs=B_UDFS):
    """The two UDF sources compiled, the kernels generated with their units and compiled."""
    os.makedirs(os.path.join(work, "src"), exist_ok=True)
    a, b = os.path.join(work, "src", "a.cu"), os.path.join(work, "src", "b.cu")
    open(a, "w").write(A_SOURCE)
    open(b, "w").write(b_source % divisor if "%d" in b_source else b_source)
    out = os.path.join(work, "out")
    ok_in(work, "compile", a, "--function", *A_UDFS, "--arch", ARCHS, "-o", os.path.join(out, "a.json"))
    ok_in(work, "compile", b, "--function", *b_udfs, "--arch", ARCHS, "-o", os.path.join(out, "b.json"))
    manifests = [os.path.join(out, "a.json"), os.path.join(out, "b.json")]
    args = ["kernels", *manifests, "--name", "lib", "--cuda", os.path.join(out, "lib_kernels.cu"),
            "--c", os.path.join(out, "lib.c"), "--header", os.path.join(out, "lib.h"),
            "--units", os.path.join(out, "units.json")]
    for e in entries:
        args += ["--kernel", e]
    ok_in(work, *args)
    ok_in(work, "compile", os.path.join(out, "lib_kernels.cu"), "--arch", ARCHS, "-o", os.path.join(out, "k.json"))
    return out, [os.path.join(out, "k.json"), *manifests]


def linked(r):
    """{arch: (units, linked)} from -v's lines, or "cache" where the library came from it."""
    found = {}
    for arch, rest in re.findall(r"nvjitlink (sm_\d+): .*?: ([^:\n]*)$", r.err, re.M):
        m = re.match(r"(\d+) units, (\d+) linked", rest)
        found[arch] = (int(m.group(1)), int(m.group(2))) if m else rest
    return found


def symbol_binding(elf, name):
    """The bindings (GLOBAL, WEAK, LOCAL) of the symbols of that name in an ELF file's symbol
    table, read as the ELF64 format lays it out."""
    data = open(elf, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3a)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    found = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for at in range(offset, offset + size, entsize):
            st_name, st_info = struct.unpack_from("<IB", data, at)
            end = data.index(b"\0", strings + st_name)
            if data[strings + st_name:end].decode() == name:
                found.append({0: "LOCAL", 1: "GLOBAL", 2: "WEAK"}.get(st_info >> 4, str(st_info >> 4)))
    return found


def kernels_of(work, fatbin):
    return set(json.loads(ok_in(work, "inspect", fatbin, "--json").out)["kernels"])


def test_units_file(work):
    out, _ = build_inputs(work)
    plan = json.load(open(os.path.join(out, "units.json")))
    assert plan["udfkit_units"] == 1
    by_entry = {u["entry"]: u for u in plan["units"]}
    assert set(by_entry) == set(ENTRIES) | {"(shared)"}, by_entry.keys()
    assert by_entry["map(twice)"]["kernels"] == ["udfkit_lib_map_twice"]
    assert by_entry["map(twice)"]["calls"] == ["twice"]
    assert by_entry["reduce(add_i)"]["kernels"] == ["udfkit_lib_reduce_add_i_partials", "udfkit_lib_reduce_add_i_final"]
    assert by_entry["transform_reduce(third, add_i)"]["calls"] == ["third", "add_i"]
    assert by_entry["(shared)"]["calls"] == []
    # Every kernel the generated source defines is in exactly one unit.
    source = open(os.path.join(out, "lib_kernels.cu")).read()
    defined = re.findall(r'__global__ void(?: __launch_bounds__\([^)]*(?:\([^)]*\)[^)]*)*\))?\s+(\w+)\(', source)
    listed = [k for u in plan["units"] for k in u["kernels"]]
    assert sorted(listed) == sorted(set(defined)), (listed, defined)


def test_units_link_as_the_whole_library(work):
    out, inputs = build_inputs(work)
    whole, units = os.path.join(out, "whole.fatbin"), os.path.join(out, "units.fatbin")
    ok_in(work, "link", *inputs, "--arch", ARCHS, "-o", whole)
    r = ok_in(work, "-v", "link", *inputs, "--arch", ARCHS, "--units", os.path.join(out, "units.json"), "-o", units)
    # a.cu's entries form one unit, b.cu's another, transform_reduce (both) a third, the
    # shared kernels a fourth; each linked for both real architectures.
    assert linked(r) == {"sm_80": (4, 4), "sm_90": (4, 4)}, r.err
    assert kernels_of(work, units) == kernels_of(work, whole)
    desc = json.loads(ok_in(work, "inspect", units, "--json").out)
    assert {(e["kind"], e["arch"]) for e in desc["entries"]} == {("sass", "sm_80"), ("sass", "sm_90"),
                                                                 ("ptx", "compute_90")}
    # Each cubin alone, too.
    cubin = os.path.join(out, "units.cubin")
    ok_in(work, "link", *inputs, "--arch", "90-real", "--emit", "cubin", "--units", os.path.join(out, "units.json"),
          "-o", cubin)
    assert kernels_of(work, cubin) == kernels_of(work, whole)
    # The record of UDF errors, which every unit defines (weak there), is one global symbol in
    # the cubin, as in a whole link: the runtime finds it by name.
    assert symbol_binding(cubin, "udfkit_udf_error_record") == ["GLOBAL"]


def test_edit_relinks_only_its_units(work):
    out, inputs = build_inputs(work, divisor=3)
    units = os.path.join(out, "units.json")
    fatbin = os.path.join(out, "lib.fatbin")
    first = ok_in(work, "-v", "link", *inputs, "--arch", ARCHS, "--units", units, "-o", fatbin)
    assert linked(first) == {"sm_80": (4, 4), "sm_90": (4, 4)}, first.err
    before = open(fatbin, "rb").read()
    # The same link again: the library's cubins come from the cache whole.
    again = ok_in(work, "-v", "link", *inputs, "--arch", ARCHS, "--units", units, "-o", fatbin)
    assert linked(again) == {"sm_80": "from the cache", "sm_90": "from the cache"}, again.err
    assert open(fatbin, "rb").read() == before
    # b.cu edited: its unit and transform_reduce's (which calls third) link again; a.cu's and
    # the shared kernels come from the cache.
    out, inputs = build_inputs(work, divisor=5)
    edited = ok_in(work, "-v", "link", *inputs, "--arch", ARCHS, "--units", units, "-o", fatbin)
    assert linked(edited) == {"sm_80": (4, 2), "sm_90": (4, 2)}, edited.err
    assert open(fatbin, "rb").read() != before
    # And the result is what a link of the whole library gives: the same kernels, and the
    # same bytes as a link by units from an empty cache.
    whole = os.path.join(out, "whole.fatbin")
    ok_in(work, "link", *inputs, "--arch", ARCHS, "-o", whole)
    assert kernels_of(work, fatbin) == kernels_of(work, whole)
    edited_bytes = open(fatbin, "rb").read()
    env_cache = os.path.join(work, "cache")
    os.rename(env_cache, env_cache + ".old")
    cold = ok_in(work, "-v", "link", *inputs, "--arch", ARCHS, "--units", units, "-o", fatbin)
    assert linked(cold) == {"sm_80": (4, 4), "sm_90": (4, 4)}, cold.err
    assert open(fatbin, "rb").read() == edited_bytes


def test_call_into_another_input_links_whole(work):
    # b.cu's third calls a function a.cu defines: its unit (b.cu's code only) would leave the
    # call open, so the library links as one, with a note saying why.
    b_source = "extern __device__ int twice(int x);\n__device__ int third(int x) { return twice(x) / 3; }\n" \
               "__device__ bool is_small(int x) { return x < 10; }\n"
    out, inputs = build_inputs(work, b_source=b_source)
    fatbin = os.path.join(out, "lib.fatbin")
    r = ok_in(work, "-v", "link", *inputs, "--arch", "90-real", "--units", os.path.join(out, "units.json"), "-o", fatbin)
    assert re.search(r"link units for -arch=sm_90: unit \d+ \(udfkit_lib_\w+\.\.\. of 2 inputs\) did not link: its code calls "
                     r"'_Z5twicei', which its inputs do not define; linking the whole library as one", r.err), r.err
    assert re.search(r"nvjitlink sm_90: -arch=sm_90 -lto .*: \d+\.\d+ s$", r.err, re.M), r.err
    whole = os.path.join(out, "whole.fatbin")
    ok_in(work, "link", *inputs, "--arch", "90-real", "-o", whole)
    assert kernels_of(work, fatbin) == kernels_of(work, whole)


def test_names_within_names_link_whole(work):
    # nvJitLink keeps every kernel whose name has the one asked for in it: map(twice)'s unit
    # would keep map(twice2)'s kernel, whose UDF is b.cu's, so the library links as one.
    b_source = "__device__ int twice2(int x) { return 4 * x; }\n__device__ int third(int x) { return x / 3; }\n" \
               "__device__ bool is_small(int x) { return x < 10; }\n"
    out, inputs = build_inputs(work, b_source=b_source, b_udfs=[*B_UDFS, "twice2:int32(int32)"],
                               entries=["map(twice)", "map(twice2)", "map(third)"])
    fatbin = os.path.join(out, "lib.fatbin")
    r = ok_in(work, "-v", "link", *inputs, "--arch", "90-real", "--units", os.path.join(out, "units.json"), "-o", fatbin)
    assert "link units for -arch=sm_90: a kernel's name is in the name of a kernel of other UDF sources (as s1 is " \
           "in s10), and nvJitLink keeps both where one is asked for; linking the whole library as one" in r.err, r.err
    assert {"udfkit_lib_map_twice", "udfkit_lib_map_twice2", "udfkit_lib_map_third"} <= kernels_of(work, fatbin)


def test_other_kernels_link_whole(work):
    # An input with kernels of its own (add_jit_library's SOURCES), which no unit names: the
    # library links as one, and its kernel is in the library.
    out, inputs = build_inputs(work, entries=["map(twice)"])
    extra = os.path.join(work, "src", "extra.cu")
    open(extra, "w").write('extern "C" __global__ void fill_ones(int *out) { out[threadIdx.x] = 1; }\n')
    ok_in(work, "compile", extra, "--arch", ARCHS, "-o", os.path.join(out, "extra.json"))
    fatbin = os.path.join(out, "lib.fatbin")
    r = ok_in(work, "-v", "link", *inputs, os.path.join(out, "extra.json"), "--arch", "90-real", "--units",
              os.path.join(out, "units.json"), "-o", fatbin)
    assert "extra.compute_80.ltoir is neither the kernels' code nor a UDF's (kernels of its own would be in no " \
           "unit); linking the whole library as one" in r.err, r.err
    assert {"fill_ones", "udfkit_lib_map_twice"} <= kernels_of(work, fatbin)


def test_bad_units_files(work):
    out, inputs = build_inputs(work, entries=["map(twice)"])
    cases = [
        ("not-json.json", '{"udfkit_units": 1,\n "units": [\n', r"not-json\.json:3: error: not a units file: "),
        ("other-version.json", '{"udfkit_units": 2, "units": []}',
         r"other-version\.json: error: not a units file of this udfkit \(udfkit_units 1: units, each with kernels, "
         r"identifiers, and calls\); write it with 'udfkit kernels --units'$"),
        ("bad-name.json", '{"udfkit_units": 1, "units": [{"kernels": ["a b"], "calls": []}]}',
         r"bad-name\.json: error: not a units file of this udfkit"),
        ("no-kernels.json", '{"udfkit_units": 1, "units": [{"kernels": [], "calls": ["twice"]}]}',
         r"no-kernels\.json: error: not a units file of this udfkit"),
    ]
    for name, text, pattern in cases:
        path = os.path.join(work, name)
        open(path, "w").write(text)
        target = os.path.join(work, "bad", "lib.fatbin")
        r = udfkit("link", *inputs, "--arch", ARCHS, "--units", path, "-o", target, env=env_for(work))
        assert r.rc == 1, (name, r)
        lines = r.err.strip().splitlines()
        assert len(lines) == 1 and re.search(pattern, lines[0]), (name, r.err)
        assert not os.path.exists(os.path.join(work, "bad")) or files_under(os.path.join(work, "bad")) == [], name
    # A units file of other kernels (a stale one): a warning, and the whole library links as
    # one, every kernel in it.
    other = os.path.join(work, "other")
    build_inputs(other, entries=["map(twice)", "map(third)"])
    target = os.path.join(work, "stale.fatbin")
    r = udfkit("link", *inputs, "--arch", "90-real", "--units", os.path.join(other, "out", "units.json"), "-o", target,
               env=env_for(work))
    assert r.rc == 0 and r.err.strip().splitlines() == [
        f"udfkit: warning: {os.path.join(other, 'out', 'units.json')}: no input was compiled from the kernels' source "
        "these units are of (a stale file?); linking the whole library as one"], r
    assert "udfkit_lib_map_twice" in kernels_of(work, target)
    # A units file naming a UDF no input has: the whole library links as one.
    plan = json.load(open(os.path.join(out, "units.json")))
    plan["units"][0]["calls"] = ["gone"]
    gone = os.path.join(work, "gone.json")
    json.dump(plan, open(gone, "w"))
    r = udfkit("-v", "link", *inputs, "--arch", "90-real", "--units", gone, "-o", os.path.join(work, "g.fatbin"),
               env=env_for(work))
    assert r.rc == 0 and "a UDF the units call is not in a manifest's functions; linking the whole library as one" \
        in r.err, r

if __name__ == "__main__":
    main([test_units_file, test_units_link_as_the_whole_library, test_edit_relinks_only_its_units,
          test_call_into_another_input_links_whole, test_names_within_names_link_whole, test_other_kernels_link_whole,
          test_bad_units_files])
