"""Bad input: one clear message, the exit status SPEC.md gives, and no output left behind
(an older output of the same name is removed too)."""
import json
import os
import re

from harness import data, files_under, main, ok, udfkit

GOOD = """
__device__ float scale(float x, float k) { return x * k; }
__device__ double retd(float x) { return x; }
__device__ float pint(int x) { return x; }
__device__ float ov(int x) { return x; }
__device__ float ov(double x) { return x; }
namespace ops { template <class T> __device__ T clamp(T x, T lo, T hi) { return x < lo ? lo : x; } }
__device__ float two(float a, float b) { return a + b; }
__device__ long long wide(int x) { return x; }
extern "C" __device__ float taken(float x) { return x; }
"""
OTHER = "__device__ float scale(float x, float k) { return x + k; }\n"
KERNEL = """
extern "C" __device__ float missing_fn(float);
extern "C" __global__ void k(float *x) { x[0] = missing_fn(x[1]); }
"""

# name, files, arguments, exit status, message pattern
CASES = [
    ("spec-no-signature", {}, ["compile", "g.cu", "-f", "scale", "-o", "out/x.ltoir"], 1, r"has no signature"),
    ("spec-unknown-type", {}, ["compile", "g.cu", "-f", "scale:float33(float32)", "-o", "out/x.ltoir"], 1,
     r"unknown type 'float33' \(did you mean float32\?"),
    ("spec-c-type-name", {}, ["compile", "g.cu", "-f", "scale:float(float, float)", "-o", "out/x.ltoir"], 1,
     r"unknown type 'float': write float32"),
    ("spec-needs-c-name", {}, ["compile", "g.cu", "-f", "ops::clamp<int>:int32(int32,int32,int32)", "-o", "out/x.ltoir"], 1,
     r"needs a c_name \(e\.g\. clamp_int="),
    ("spec-reserved-c-name", {}, ["compile", "g.cu", "-f", "sqrtf=scale:float32(float32,float32)", "-o", "out/x.ltoir"], 1,
     r"c_name 'sqrtf' cannot be used: the CUDA headers"),
    ("spec-duplicate-c-name", {}, ["compile", "g.cu", "-f", "f=scale:float32(float32,float32)",
                                   "f=two:float32(float32,float32)", "-o", "out/x.ltoir"], 1, r"c_name 'f' is exported twice"),
    ("spec-empty-param", {}, ["compile", "g.cu", "-f", "scale:float32(float32,)", "-o", "out/x.ltoir"], 1,
     r"empty parameter type"),
    ("function-missing", {}, ["compile", "g.cu", "-f", "nosuch:float32(float32)", "-o", "out/x.ltoir"], 1,
     r"^g\.cu: error: function 'nosuch' is not defined in g\.cu"),
    ("function-in-no-source", {"o.cu": OTHER}, ["compile", "g.cu", "o.cu", "-f", "nosuch:float32(float32)", "-o", "out/x.json"],
     1, r"no source defines 'nosuch' \(searched g\.cu, o\.cu\)"),
    ("function-ambiguous", {"o.cu": OTHER}, ["compile", "g.cu", "o.cu", "-f", "scale:float32(float32,float32)", "-o",
                                             "out/x.json"], 1, r"'scale' is defined in both g\.cu and o\.cu; name one with @file"),
    ("function-at-unknown-file", {}, ["compile", "g.cu", "-f", "scale@zz.cu:float32(float32,float32)", "-o", "out/x.ltoir"],
     1, r"'@zz\.cu' is not one of the sources"),
    ("return-mismatch", {}, ["compile", "g.cu", "-f", "retd:float32(float32)", "-o", "out/x.ltoir"], 1,
     r"^g\.cu:3: error: 'retd' does not match its declared signature float32\(float32\): it returns 'double', declared float32"),
    ("param-mismatch", {}, ["compile", "g.cu", "-f", "pint:float32(float32)", "-o", "out/x.ltoir"], 1,
     r"^g\.cu:4: error: 'pint' does not match .*: parameter 1 is 'int', declared float32"),
    ("int64-is-not-int", {}, ["compile", "g.cu", "-f", "wide:int64(int64)", "-o", "out/x.ltoir"], 1,
     r"'wide' does not match its declared signature int64\(int64\): parameter 1 is 'int', declared int64"),
    ("no-matching-overload", {}, ["compile", "g.cu", "-f", "ov:float32(float32)", "-o", "out/x.ltoir"], 1,
     r"no overload of 'ov' matches its declared signature float32\(float32\); candidates: ov\(double\), ov\(int\)"),
    ("template-without-arguments", {}, ["compile", "g.cu", "-f", "c=ops::clamp:int32(int32,int32,int32)", "-o", "out/x.ltoir"],
     1, r"'ops::clamp' names a function template"),
    ("template-instantiation-mismatch", {}, ["compile", "g.cu", "-f", "c=ops::clamp<int>:float32(float32,float32,float32)",
                                             "-o", "out/x.ltoir"],
     1, r"^g\.cu:\d+: error: 'ops::clamp<int>' does not match its declared signature float32\(float32, float32, "
        r"float32\): its parameter 1 is not of the declared type float32; check the template arguments it names"),
    ("arity-mismatch", {}, ["compile", "g.cu", "-f", "two:float32(float32)", "-o", "out/x.ltoir"], 1,
     r"'two' does not match .*: it takes more parameters"),
    ("c-name-taken-by-c-function", {}, ["compile", "g.cu", "-f", "taken=two:float32(float32,float32)", "-o", "out/x.ltoir"],
     1, r"c_name 'taken' is already defined with C linkage"),
    ("syntax-error", {"s.cu": "__device__ float f(float x)\n{ return x +; }\n"},
     ["compile", "s.cu", "-f", "f:float32(float32)", "-o", "out/x.ltoir"], 1, r"^s\.cu:2: error: expected an expression"),
    ("missing-include", {"i.cu": '#include "nothere.h"\n__device__ float f(float x) { return x; }\n'},
     ["compile", "i.cu", "-f", "f:float32(float32)", "-o", "out/x.ltoir"], 1, r"i\.cu:1: catastrophic error: cannot open source file \"nothere\.h\""),
    ("source-missing", {}, ["compile", "gone.cu", "-f", "f:float32(float32)", "-o", "out/x.ltoir"], 1,
     r"^gone\.cu: error: cannot read"),
    ("source-unknown-kind", {"u.txt": "x"}, ["compile", "u.txt", "-f", "f:float32(float32)", "-o", "out/x.ltoir"], 1,
     r"unknown source kind '\.txt'"),
    ("cuda-needs-return-type", {}, ["compile", "g.cu", "-f", "scale:(float32,float32)", "-o", "out/x.ltoir"], 1,
     r"CUDA C\+\+ functions need a return type"),
    ("arch-unsupported", {}, ["compile", "g.cu", "-f", "scale:float32(float32,float32)", "--arch", "35", "-o", "out/x.ltoir"],
     1, r"architecture '35' is not supported by this toolchain"),
    ("arch-malformed", {}, ["compile", "g.cu", "-f", "scale:float32(float32,float32)", "--arch", "sm_80", "-o", "out/x.ltoir"],
     1, r"architecture 'sm_80' is not of the form"),
    ("arch-native-without-gpu", {}, ["compile", "g.cu", "-f", "scale:float32(float32,float32)", "--arch", "native", "-o",
                                     "out/x.ltoir"], 3, r"architecture 'native' needs a visible GPU"),
    ("emit-unknown", {}, ["compile", "g.cu", "-f", "scale:float32(float32,float32)", "--emit", "sass", "-o", "out/x.ltoir"],
     2, r"--emit takes ltoir, ptx or cubin"),
    ("compile-without-output", {}, ["compile", "g.cu", "-f", "scale:float32(float32,float32)"], 2, r"no output given"),
    ("several-artifacts-need-manifest", {}, ["compile", "g.cu", "-f", "scale:float32(float32,float32)", "--arch", "75;80",
                                             "-o", "out/x.ltoir"], 2, r"2 artifacts .* need a manifest: -o OUT\.json"),
    ("unknown-option", {}, ["compile", "g.cu", "--frobnicate", "-o", "out/x.ltoir"], 2, r"unknown option '--frobnicate'"),
    ("unknown-command", {}, ["frobnicate"], 2, r"unknown command 'frobnicate'; see 'udfkit help'"),
    ("link-unresolved", {"k.cu": KERNEL}, "link-unresolved", 1, r"link for sm_80 failed: unresolved symbols: missing_fn"),
    ("link-ptx-needs-ltoir", {"k.cu": KERNEL}, "link-ptx-needs-ltoir", 1, r"PTX for compute_80 is linked from LTO-IR only"),
    ("link-unknown-input", {"blob.bin": "not device code"}, ["link", "blob.bin", "--arch", "80-real", "-o", "out/x.fatbin"],
     1, r"^blob\.bin: error: unknown input kind"),
    ("link-malformed-manifest", {"m.json": '{"udfkit_manifest": 1, "functions": ['},
     ["link", "m.json", "--arch", "80-real", "-o", "out/x.fatbin"], 1, r"^m\.json:1: error: malformed JSON"),
    ("link-changed-artifact", {}, "link-changed-artifact", 1, r"changed since .*udfs\.json was written"),
    ("link-newer-producer", {}, "link-newer-producer", 3, r"made by NVRTC 13\.9, newer than this nvJitLink 13\.0"),
    ("link-no-usable-artifact", {}, "link-no-usable-artifact", 1, r"no artifact of .* can be used for sm_80"),
    ("link-cubin-one-arch", {}, "link-cubin-one-arch", 2, r"--emit cubin links one architecture"),
    ("link-bad-xnvjitlink", {}, "link-bad-xnvjitlink", 2, r"^udfkit: error: nvJitLink does not recognize the option '-bogus'$"),
    ("header-injected-name", {}, "header-injected-name", 1, r"function c_name 'x\(\); evil' is not a valid exported C name"),
    ("embed-bad-symbol", {"d.bin": "x"}, ["embed", "d.bin", "--symbol", "not valid", "-o", "out/d.c"], 2,
     r"--symbol 'not valid' is not a C identifier"),
    ("link-embed-bad-symbol", {}, "link-embed-bad-symbol", 2, r"--symbol 'not valid' is not a C identifier"),
    ("link-embed-without-symbol", {}, "link-embed-without-symbol", 2, r"--embed and --symbol go together"),
    # An error in a header is located as the user opens the header: by its path from the
    # working directory, not from the include directory that found it.
    ("error-in-header", {"src/u.cu": '#include "h.h"\n__device__ float f(float x) { return h(x); }\n',
                         "src/inc/h.h": "__device__ inline float h(float x) { return x + nothing; }\n"},
     ["compile", "src/u.cu", "-I", "src/inc", "-f", "f:float32(float32)", "--arch", "80", "-o", "out/x.ltoir"], 1,
     r"^src/inc/h\.h:1: error: identifier \"nothing\" is undefined$"),
    ("merge-header-missing-function", {}, "merge-header-missing-function", 1,
     r"^udfkit: error: function spec 'nowhere:int32\(int32\)': no source defines 'nowhere' \(sources: g\.cu\)$"),
    ("merge-near-miss", {}, "merge-near-miss", 1,
     r"^udfkit: error: function spec 'scael:float32\(float32,float32\)': no source defines 'scael' \(sources: g\.cu\); "
     r"did you mean 'scale'\?$"),
    ("merge-file-near-miss", {}, "merge-file-near-miss", 1,
     r"^udfkit: error: function spec 'scale@gg\.cu:float32\(float32,float32\)': '@gg\.cu' is not one of the sources "
     r"\(g\.cu\); did you mean '@g\.cu'\?$"),
    ("inspect-unknown", {"r.bin": "\x01\x02garbage"}, ["inspect", "r.bin"], 1, r"^r\.bin: error: "),
]


def compiled_manifest(work, archs="80"):
    ok("compile", "g.cu", "-f", "scale:float32(float32,float32)", "--arch", archs, "-o", "m/udfs.json", cwd=work)
    return os.path.join(work, "m", "udfs.json")


def scenario(name, work):
    """Arguments for the cases that need a prepared input."""
    if name == "link-unresolved":
        ok("compile", "k.cu", "--arch", "80", "-o", "m/k.ltoir", cwd=work)
        return ["link", "m/k.ltoir", "--arch", "80-real", "-o", "out/x.fatbin"]
    if name == "link-ptx-needs-ltoir":
        ok("compile", "g.cu", "--arch", "80-virtual", "--emit", "ptx", "-o", "m/g.ptx", cwd=work)
        return ["link", "m/g.ptx", "--arch", "80", "-o", "out/x.fatbin"]
    if name == "link-changed-artifact":
        m = compiled_manifest(work)
        art = json.load(open(m))["artifacts"][0]["path"]
        open(os.path.join(work, "m", art), "ab").write(b"\0")
        return ["link", "m/udfs.json", "--arch", "80-real", "-o", "out/x.fatbin"]
    if name == "link-newer-producer":
        m = compiled_manifest(work)
        doc = json.load(open(m))
        doc["producers"]["nvrtc"] = "13.9"
        json.dump(doc, open(m, "w"))
        return ["link", "m/udfs.json", "--arch", "80-real", "-o", "out/x.fatbin"]
    if name == "link-no-usable-artifact":
        compiled_manifest(work, archs="90")
        return ["link", "m/udfs.json", "--arch", "80-real", "-o", "out/x.fatbin"]
    if name == "link-bad-xnvjitlink":
        compiled_manifest(work)
        return ["link", "m/udfs.json", "--arch", "80-real", "-Xnvjitlink", "-lineinfo", "-Xnvjitlink", "-bogus", "-o",
                "out/x.fatbin"]
    if name == "link-cubin-one-arch":
        compiled_manifest(work)
        return ["link", "m/udfs.json", "--arch", "80-real;90-real", "--emit", "cubin", "-o", "out/x.cubin"]
    if name in ("link-embed-bad-symbol", "link-embed-without-symbol"):
        compiled_manifest(work)
        symbol = ["--symbol", "not valid"] if name == "link-embed-bad-symbol" else []
        return ["link", "m/udfs.json", "--arch", "80-real", "-o", "out/x.fatbin", "--embed", "out/x.c", *symbol]
    if name == "merge-header-missing-function":
        compiled_manifest(work)
        return ["merge", "m/udfs.json", "-f", "scale:float32(float32,float32)", "nowhere:int32(int32)",
                "-o", "out/x.json", "--header", "out/x.h"]
    if name in ("merge-near-miss", "merge-file-near-miss"):
        # A compile that found none of the specs in its source, as add_ptx_udf's are.
        ok("compile", "g.cu", "-f", "scael:float32(float32,float32)", "--skip-absent", "--arch", "80",
           "-o", "m/udfs.json", cwd=work)
        spec = "scael:float32(float32,float32)" if name == "merge-near-miss" else "scale@gg.cu:float32(float32,float32)"
        return ["merge", "m/udfs.json", "-f", spec, "-o", "out/x.json"]
    if name == "header-injected-name":
        m = compiled_manifest(work)
        doc = json.load(open(m))
        doc["functions"][0]["c_name"] = "x(); evil"
        json.dump(doc, open(m, "w"))
        return ["header", "m/udfs.json", "-o", "out/x.h"]
    raise AssertionError(name)


def make_case(name, files, args, status, pattern):
    def test(work):
        with open(os.path.join(work, "g.cu"), "w") as f:
            f.write(GOOD)
        for fname, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(work, fname)), exist_ok=True)
            with open(os.path.join(work, fname), "w") as f:
                f.write(text)
        argv = scenario(name, work) if isinstance(args, str) else args
        # An output of an earlier, successful run must not survive a failed one.
        out = os.path.join(work, "out")
        os.makedirs(out)
        stale = argv[argv.index("-o") + 1] if "-o" in argv else None
        if stale and status != 2:  # usage errors stop before any output is named
            open(os.path.join(work, stale), "w").write("stale")
        r = udfkit(*argv, cwd=work)
        assert r.rc == status, f"expected exit {status}: {r!r}"
        assert re.search(pattern, r.err, re.M), f"message does not match {pattern!r}: {r.err!r}"
        assert r.err.count("error:") >= 1 and "Traceback" not in r.err
        assert files_under(out) == [], f"outputs left behind: {files_under(out)}"
    test.__name__ = name.replace("-", "_")
    return test


if __name__ == "__main__":
    assert len(CASES) >= 25
    main([make_case(*case) for case in CASES])
