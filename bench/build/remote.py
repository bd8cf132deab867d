"""Build-speed benchmark of the remote cache (UDFKIT_REMOTE_CACHE) against the cold build and
the warm local cache, with real servers on 127.0.0.1 (Debian's redis-server, nginx's WebDAV
store), started here on free ports and stopped after.

1. The project of bench/build/run.py (64 CUDA C and 16 Python UDFs in 4 libraries with map
   kernels, for 75-real;80-real;90; CMake + Ninja -j2), each build in a fresh build directory:
     cold            empty local cache, no remote, no Python frontend server running
     cold + stores   the same, storing every result to Redis and nginx (fills them)
     warm local      local cache warm, no remote
     warm Redis      empty local cache, Redis warm
     warm nginx      empty local cache, nginx warm (layout subdirs)
   Warm builds: median of 3. Goals: warm remote <= 0.15 of cold, <= 1.5x warm local.
2. Libraries of 1,000 and 10,000 small CUDA C UDFs (generated, 10 per file, one
   `udfkit compile` per file for sm_80 under Ninja -j2): cold, warm remote (Redis, nginx),
   warm local (median of 3, interleaved); the cost per UDF shows whether it grows linearly.

usage: python bench/build/remote.py [udfkit install prefix] (default: build/install)
       UDFKIT_BENCH_SIZES=1000,10000 (the default) chooses the libraries of part 2.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The installed udfkit takes its Python frontend and CUDA wheels from UDFKIT_PYTHON's environment.
os.environ.setdefault("UDFKIT_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))
sys.path[:0] = [HERE, os.path.join(ROOT, "tests", "cli")]
import run as project  # noqa: E402  (bench/build/run.py: the same project)
import servers  # noqa: E402  (tests/cli/servers.py: the servers the tests start)

PREFIX = project.PREFIX
UDFKIT = os.path.join(PREFIX, "bin", "udfkit")


def timed(cmd, env):
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    if "warning" in proc.stdout + proc.stderr:
        sys.exit(f"{' '.join(cmd)} warned:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return elapsed


class Bench:
    def __init__(self, work):
        self.work = work
        self.count = 0

    def env(self, remote=None, local=None):
        """A fresh local cache unless one is named, and a private runtime directory: no
        Python frontend server from an earlier build answers."""
        self.count += 1
        env = dict(os.environ, UDFKIT_CACHE_DIR=local or os.path.join(self.work, f"cache{self.count}"),
                   XDG_RUNTIME_DIR=os.path.join(self.work, f"run{self.count}"))
        os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700)
        env.pop("UDFKIT_REMOTE_CACHE", None)
        if remote:
            env["UDFKIT_REMOTE_CACHE"] = remote
        return env


def project_build(bench, src, env):
    """Configure (untimed) and build a fresh build directory; the build's seconds."""
    bdir = os.path.join(bench.work, f"build{bench.count}")
    timed(["cmake", "-S", src, "-B", bdir, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={PREFIX}"], env)
    return timed(["ninja", "-C", bdir, "-j2"], env)


def part_project(bench, redis, nginx):
    src = os.path.join(bench.work, "project")
    project.udfkit_project(src, project.generate(src))
    both = f"{redis.url()} {nginx.url('project')}"
    r = {"cold": project_build(bench, src, bench.env())}
    r["cold + stores"] = project_build(bench, src, bench.env(both))
    local = bench.env()["UDFKIT_CACHE_DIR"]
    project_build(bench, src, bench.env(local=local))  # fills `local`
    for label, remote in (("warm local", None), ("warm Redis", redis.url()), ("warm nginx", nginx.url("project"))):
        runs = [project_build(bench, src, bench.env(remote, local if remote is None else None)) for _ in range(3)]
        r[label] = statistics.median(runs)
    print(f"1. bench/build's project ({project.GROUPS * project.CUDA_FILES_PER_GROUP * project.UDFS_PER_CUDA_FILE} "
          f"CUDA C + {project.GROUPS * project.PY_UDFS_PER_GROUP} Python UDFs, {project.GROUPS} libraries with map "
          f"kernels, {project.ARCHS}; Ninja -j2; fresh build directory each; warm: median of 3)")
    for label, seconds in r.items():
        print(f"   {label:16s} {seconds:7.2f} s  {seconds / r['cold']:6.3f} of cold  "
              f"{seconds / r['warm local']:6.2f}x warm local")
    for label in ("warm Redis", "warm nginx"):
        of_cold, of_local = r[label] / r["cold"], r[label] / r["warm local"]
        print(f"   {label}: {of_cold:.3f} of the cold build (goal <= 0.15: {'met' if of_cold <= 0.15 else 'NOT met'}), "
              f"{of_local:.2f}x the warm local cache (goal <= 1.5: {'met' if of_local <= 1.5 else 'NOT met'})")


def library(work, n):
    """n small CUDA C UDFs, 10 per file, and a build.ninja compiling each file."""
    d = os.path.join(work, f"lib{n}")
    os.makedirs(d)
    lines = ["rule compile", f"  command = {UDFKIT} compile $in --function $specs --arch 80 -o $out", ""]
    for f in range(n // 10):
        names = [f"u{f}_{k}" for k in range(10)]
        with open(os.path.join(d, f"f{f}.cu"), "w") as out:
            for k, name in enumerate(names):
                out.write(f"__device__ float {name}(float x)\n{{\n    return x * {k}.5f + {f % 97}.25f;\n}}\n")
        specs = " ".join(f"'{name}:float32(float32)'" for name in names)
        lines += [f"build out/f{f}.json: compile f{f}.cu", f"  specs = {specs}"]
    with open(os.path.join(d, "build.ninja"), "w") as out:
        out.write("\n".join(lines) + "\n")
    return d


def library_build(d, env):
    shutil.rmtree(os.path.join(d, "out"), ignore_errors=True)
    for f in (".ninja_log", ".ninja_deps"):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    return timed(["ninja", "-C", d, "-j2"], env)


def part_libraries(bench, redis, nginx, sizes):
    print("2. libraries of small CUDA C UDFs (10 per file, one udfkit compile per file, sm_80; Ninja -j2; "
          "warm: median of 3)")
    print(f"   {'UDFs':>6s} {'cold':>9s} {'warm Redis':>11s} {'warm nginx':>11s} {'warm local':>11s}   per UDF "
          "(cold / Redis / nginx / local)")
    for n in sizes:
        d = library(bench.work, n)
        redis_url, nginx_url = f"{redis.url(db=1)}", nginx.url(f"lib{n}")
        r = {"cold": library_build(d, bench.env())}
        library_build(d, bench.env(f"{redis_url} {nginx_url}"))  # fills both remotes
        local = bench.env()["UDFKIT_CACHE_DIR"]
        library_build(d, bench.env(local=local))
        for _ in range(3):  # interleaved, medians below
            for label, remote in (("redis", redis_url), ("nginx", nginx_url), ("local", None)):
                r.setdefault(label + "_all", []).append(library_build(d, bench.env(remote, local if not remote else None)))
        for label in ("redis", "nginx", "local"):
            r[label] = statistics.median(r[label + "_all"])
        per = " / ".join(f"{r[k] / n * 1e3:.2f}" for k in ("cold", "redis", "nginx", "local"))
        print(f"   {n:6d} {r['cold']:8.2f}s {r['redis']:10.2f}s {r['nginx']:10.2f}s {r['local']:10.2f}s   {per} ms")


def main():
    for needed in ("redis-server", "nginx"):
        why = servers.missing(needed)
        if why:
            sys.exit(f"bench/build/remote.py: {why}")
    if not os.access(UDFKIT, os.X_OK):
        sys.exit(f"bench/build/remote.py: no udfkit in {PREFIX} (bash scripts/run-example installs it)")
    sizes = [int(s) for s in os.environ.get("UDFKIT_BENCH_SIZES", "1000,10000").split(",") if s]
    work = tempfile.mkdtemp(prefix="udfkit-bench-remote-")
    redis = servers.Redis(work)
    nginx = servers.Nginx(work)
    try:
        bench = Bench(work)
        print(f"bench/build/remote.py: udfkit from {PREFIX}; redis-server on 127.0.0.1:{redis.port}, nginx (WebDAV) on "
              f"127.0.0.1:{nginx.port}; {os.cpu_count()} cores")
        part_project(bench, redis, nginx)
        part_libraries(bench, redis, nginx, sizes)
    finally:
        redis.stop()
        nginx.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
