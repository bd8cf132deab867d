"""Cost of a store into the local cache: 10,000 stores from 8 processes at once (1,250 each,
4 KiB results) into one cache directory, in stores per second, for two versions of
src/cache/cache.c: the one in the working tree ("after") and the one of a given revision
("before", default 1c1ed3c, the cache before its size count was kept under one lock with
the renames). Both are built the same way here, from tests/cli/cache_store_tool.c and that
cache.c, linked with the rest of udfkit from build/default (cmake --preset default &&
cmake --build --preset default first), so the two differ in cache.c alone.

Three limits (UDFKIT_CACHE_SIZE): 2G, where no store evicts (a store's own cost); 1M, where
a store in about 25 lists the ~250 entries and evicts a tenth; 20K, where nearly every
store lists and evicts (the issue's setting). Each cell is the median of 7 runs, before and
after alternating, each in a fresh cache directory under build/bench-cache-store (or
--dir: /dev/shm leaves out the disk's writeback, which on a small shared machine makes runs
vary by 5x). Process start-up is inside the time (8 starts against 10,000 stores). After
each run the count in `size` is compared with the entry files: "drift" says in how many of
the runs it was wrong. The CPU time the 8 processes took (user + system, per store) is given
beside: it moves less than the wall time where other work shares the machine.

usage: python bench/cache_store/run.py [--before REV] [--dir DIR]
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build", "default")
WORK = os.path.join(ROOT, "build", "bench-cache-store")
PROCESSES, STORES, PAYLOAD, RUNS = 8, 10000, 4096, 7
LIMITS = ("2G", "1M", "20K")
LIBS = ["-ljansson", "-lxxhash", "-ldl", "-lhiredis", "-lcurl", "-lpthread"]


def build(name, cache_c):
    """cache_store_tool with this cache.c, flags as the default preset's (RelWithDebInfo)."""
    exe = os.path.join(WORK, name)
    subprocess.run(["cc", "-std=c17", "-O2", "-g", "-DNDEBUG", "-D_XOPEN_SOURCE=700",
                    '-DUDFKIT_VERSION_STRING="bench"', "-Wall", "-Wextra", "-I", os.path.join(ROOT, "src"),
                    os.path.join(ROOT, "tests", "cli", "cache_store_tool.c"), cache_c,
                    os.path.join(BUILD, "src", "libudfkit_core.a"), *LIBS, "-o", exe], check=True)
    return exe


def listed(cache):
    root, total = os.path.join(cache, "entries"), 0
    for sub in os.listdir(root):
        for name in os.listdir(os.path.join(root, sub)):
            if not name.startswith("."):
                total += os.path.getsize(os.path.join(root, sub, name))
    return total


def one_run(tool, limit, run, where):
    cache = os.path.join(where, f"udfkit-bench-cache-{run}")
    shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, UDFKIT_CACHE_DIR=cache, UDFKIT_CACHE_SIZE=limit)
    env.pop("UDFKIT_CACHE", None)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    procs = [subprocess.Popen([tool, "put", str(run * 100 + i), str(STORES // PROCESSES), str(PAYLOAD)], env=env)
             for i in range(PROCESSES)]
    codes = [p.wait() for p in procs]
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime
    assert codes == [0] * PROCESSES, codes
    text = open(os.path.join(cache, "size")).read()
    drift = text != f"{listed(cache)}\n"
    shutil.rmtree(cache)
    return STORES / seconds, cpu / STORES * 1e6, drift


def main():
    args = argparse.ArgumentParser()
    args.add_argument("--before", default="1c1ed3c")
    args.add_argument("--dir", default=WORK)
    args = args.parse_args()
    os.makedirs(WORK, exist_ok=True)
    old_c = os.path.join(WORK, "cache_before.c")
    with open(old_c, "w") as out:
        out.write(subprocess.run(["git", "-C", ROOT, "show", f"{args.before}:src/cache/cache.c"], check=True,
                                 capture_output=True, text=True).stdout)
    tools = {"before": build("store_before", old_c),
             "after": build("store_after", os.path.join(ROOT, "src", "cache", "cache.c"))}
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "diff", "--quiet", "src/cache/cache.c"]).returncode != 0
    built = (f"before: cache.c of {args.before}; after: cache.c of the working tree "
             f"(HEAD {head}{', changed' if dirty else ''})")
    print(f"bench/cache_store: {STORES:,} stores from {PROCESSES} processes ({STORES // PROCESSES:,} each, "
          f"{PAYLOAD // 1024} KiB results), median of {RUNS} runs; {os.cpu_count()} cores; caches in {args.dir}")
    print(built)
    print(f"{'limit':<8}{'before':>14}{'after':>14}{'after/before':>14}{'CPU us/store':>16}"
          f"{'after/before':>14}   drift (before, after)")
    for limit in LIMITS:
        rates, cpus = {"before": [], "after": []}, {"before": [], "after": []}
        drifts = {"before": 0, "after": 0}
        for run in range(RUNS):
            for which in ("before", "after") if run % 2 == 0 else ("after", "before"):
                rate, cpu, drift = one_run(tools[which], limit, run, args.dir)
                rates[which].append(rate)
                cpus[which].append(cpu)
                drifts[which] += drift
        rate = {which: statistics.median(values) for which, values in rates.items()}
        cpu = {which: statistics.median(values) for which, values in cpus.items()}
        print(f"{limit:<8}{rate['before']:>10,.0f} /s{rate['after']:>10,.0f} /s"
              f"{rate['after'] / rate['before']:>14.3f}{cpu['before']:>8.1f} {cpu['after']:>7.1f}"
              f"{cpu['after'] / cpu['before']:>14.3f}   {drifts['before']} of {RUNS}, {drifts['after']} of {RUNS}")
        print(f"{'':<8}  stores/s of each run, before: {', '.join(f'{r:,.0f}' for r in rates['before'])}; "
              f"after: {', '.join(f'{r:,.0f}' for r in rates['after'])}")


if __name__ == "__main__":
    main()
