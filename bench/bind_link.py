"""What a bind links, measured without a GPU (nvJitLink runs on the CPU): an engine with the
kernel mix of issue 20's (map, three filters, transform_reduce, reduce, a scan,
nullable_map/filter/reduce, two sorts, 10 SOURCES kernels, two slots) is built with udfkit
(`udfkit pack --sass`, as add_jit_library builds a SLOTS library), then linked with a user
package for one architecture as binds link it:

- whole, as a bind linked every engine before (-arch -lto, nothing else);
- whole, with the options a bind now gives (-optimize-unused-variables, the UDF error record
  kept, -split-compile): what a device without the engine's SASS still pays at bind;
- each kernel that calls a slot alone (-kernels-used), as a bind of an engine with SASS
  for the device links it on the kernel's first launch; the kernels that call no slot are
  SASS already (loaded at bind, no link).

Each link is timed REPEATS times (median); nvJitLink's own cache is off (-no-cache). The
GPU figures (bind, first launch, cached bind in a new process) are bench/gpu's.

usage: python bench/bind_link.py [path/to/udfkit] [sm] [repeats]
"""
import ctypes
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UDFKIT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "build", "default", "src", "udfkit")
SM = sys.argv[2] if len(sys.argv) > 2 else "90"
REPEATS = int(sys.argv[3]) if len(sys.argv) > 3 else 3

SLOTS = ["price:float32(float32, float32)", "keep:bool(float32)"]
OPS = ["add:float32(float32, float32)", "before:bool(float32, float32)", "after:bool(float32, float32)"]
KERNELS = ["map(price)", "filter(keep)", "filter(keep, indices32)", "filter(keep, values)",
           "transform_reduce(price, add)", "reduce(add)", "inclusive_scan(add)", "nullable_map(price)",
           "nullable_filter(keep)", "nullable_reduce(add)", "sort(before)", "sort(after)"]

OPS_CU = """
__device__ float add(float a, float b) { return a + b; }
__device__ bool before(float a, float b) { return a < b; }
__device__ bool after(float a, float b) { return a > b; }
"""

PACKAGE_CU = """
__device__ float price(float list, float rate) { return list * (1.0f - rate); }
__device__ bool keep(float p) { return p > 10.0f; }
"""


def sources_cu():
    """10 kernels of SOURCES: five call a slot, five do not."""
    lines = ['#include "engine_slots.h"', ""]
    for k in range(5):
        lines.append(f'extern "C" __global__ void src_slot{k}(unsigned long long n, const float *a, float *out)\n'
                     "{\n    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n"
                     f"    if (i < n)\n        out[i] = keep(a[i]) ? price(a[i], {k + 1}.0f / 16) : 0.0f;\n}}\n")
    for k in range(5):
        lines.append(f'extern "C" __global__ void src_plain{k}(unsigned long long n, const float *a, float *out)\n'
                     "{\n    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n"
                     f"    if (i < n)\n        out[i] = a[i] * {k + 2}.0f + sqrtf(a[i] > 0 ? a[i] : 0);\n}}\n")
    return "\n".join(lines)


def udfkit(*args, cwd):
    r = subprocess.run([UDFKIT, *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"udfkit {' '.join(args)} failed:\n{r.stderr}")
    return r


def ltoir(manifest):
    m = json.load(open(manifest))
    base = os.path.dirname(manifest)
    return [open(os.path.join(base, a["path"]), "rb").read() for a in m["artifacts"] if a["kind"] == "ltoir"]


class JitLink:
    def __init__(self):
        lib = ctypes.CDLL("libnvJitLink.so.13")
        self.fn = {n: getattr(lib, f"__nvJitLink{n}_13_0") for n in
                   ("Create", "AddData", "Complete", "GetLinkedCubinSize", "GetErrorLogSize", "GetErrorLog",
                    "Destroy")}

    def link(self, options, parts):
        h = ctypes.c_void_p()
        opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
        if self.fn["Create"](ctypes.byref(h), len(options), opts):
            sys.exit(f"nvJitLinkCreate failed: {options}")
        for i, data in enumerate(parts):
            if self.fn["AddData"](h, 3, data, ctypes.c_size_t(len(data)), f"part{i}".encode()):
                sys.exit("nvJitLinkAddData failed")
        start = time.perf_counter()
        r = self.fn["Complete"](h)
        took = time.perf_counter() - start
        size = ctypes.c_size_t()
        if r == 0:
            self.fn["GetLinkedCubinSize"](h, ctypes.byref(size))
        else:
            n = ctypes.c_size_t()
            self.fn["GetErrorLogSize"](h, ctypes.byref(n))
            log = ctypes.create_string_buffer(n.value)
            self.fn["GetErrorLog"](h, log)
            sys.exit(f"link failed ({options}): {log.value.decode(errors='replace')}")
        self.fn["Destroy"](ctypes.byref(h))
        return took, size.value


def timed(jl, options, parts):
    runs = [jl.link(options, parts) for _ in range(REPEATS)]
    return statistics.median(t for t, _ in runs), runs[0][1]


def main():
    work = tempfile.mkdtemp(prefix="udfkit-bench-bind-link-")
    env_cache = os.path.join(work, "cache")
    os.environ["UDFKIT_CACHE_DIR"] = env_cache
    for name, text in (("ops.cu", OPS_CU), ("package.cu", PACKAGE_CU), ("sources.cu", sources_cu())):
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    arch = SM
    udfkit("compile", "ops.cu", "--function", *OPS, "--arch", arch, "-o", "ops.json", cwd=work)
    udfkit("kernels", "ops.json", *[a for s in SLOTS for a in ("--slot", s)],
           *[a for k in KERNELS for a in ("--kernel", k)], "--name", "engine", "--cuda", "engine_kernels.cu",
           "--c", "engine.c", "--header", "engine.h", cwd=work)
    udfkit("header", "--function", *SLOTS, "-o", "engine_slots.h", "--name", "engine_slots", cwd=work)
    udfkit("compile", "engine_kernels.cu", "--arch", arch, "-o", "kernels.json", cwd=work)
    udfkit("compile", "sources.cu", "-I", ".", "--arch", arch, "-o", "sources.json", cwd=work)
    start = time.perf_counter()
    udfkit("pack", "kernels.json", "sources.json", "ops.json", "--arch", arch, "--sass", f"{arch}-real",
           "-o", "engine.fatbin", cwd=work)
    pack_s = time.perf_counter() - start
    udfkit("compile", "package.cu", "--function", *SLOTS, "--arch", arch, "-o", "package.json", cwd=work)
    desc = json.loads(udfkit("inspect", "--json", "engine.fatbin", cwd=work).stdout)
    sass = [e for e in desc["entries"] if e["kind"] == "sass"][0]
    bound = sass["package"]["bound_kernels"]
    parts = [p for m in ("kernels.json", "sources.json", "ops.json", "package.json")
             for p in ltoir(os.path.join(work, m))]
    jl = JitLink()
    base = [f"-arch=sm_{SM}", "-lto", "-no-cache"]
    now = base + ["-optimize-unused-variables", "-variables-used=udfkit_udf_error_record", "-split-compile=0"]
    print(f"engine: {len(sass['kernels']) + len(bound)} kernels ({len(KERNELS)} KERNELS entries, 10 of SOURCES), "
          f"2 slots; {len(bound)} call a slot, {len(sass['kernels'])} as SASS ({sass['size']} bytes) for sm_{SM}")
    print(f"machine: {os.cpu_count()} processors seen; nvJitLink on the CPU; median of {REPEATS}")
    print(f"pack_with_sass: {pack_s:.2f} s (build time: the analysis link and the SASS link)")
    t, size = timed(jl, base, parts)
    print(f"whole_link_before: {t * 1e3:.0f} ms ({size} bytes; every kernel, -lto only: the bind before)")
    t2, size = timed(jl, now, parts)
    print(f"whole_link_now: {t2 * 1e3:.0f} ms ({size} bytes; unused variables dropped, split compile: "
          "a device without the engine's SASS)")
    per = {}
    for k in bound:
        per[k] = timed(jl, now + [f"-kernels-used={k}"], parts)[0]
    for k, v in sorted(per.items(), key=lambda kv: -kv[1]):
        print(f"first_use_link {k}: {v * 1e3:.0f} ms")
    print(f"first_use_links_sum: {sum(per.values()) * 1e3:.0f} ms (every kernel that calls a slot, each on its "
          f"first launch)")
    print(f"first_use_link_max: {max(per.values()) * 1e3:.0f} ms")
    print(f"bind_link_now: 0 ms (a device with the engine's SASS: the bind loads it; nothing is linked)")
    print(f"whole_before_vs_now: {t / t2:.2f} ratio")


if __name__ == "__main__":
    main()
