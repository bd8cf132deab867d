"""The local cache's size count under the load of a CI machine's parallel jobs (issue 26):
16 processes at once store into one cache directory bounded by UDFKIT_CACHE_SIZE=20K,
three rounds per directory (a run), as many runs as fit in UDFKIT_STRESS_SECONDS (default
20). After every round the count in the file `size` must equal the sum of the entry files'
sizes and be within the limit.

Runs are of four kinds, in turn: `stores`, the issue's scenario (each process stores one
new entry of 1,200 bytes); `mixed` (each process makes 8 operations: new entries of 200 to
2,000 bytes, entries replacing one of four that every process writes, lookups, so every
round evicts); `kill`, mixed with two of the 16 processes killed (SIGKILL) at a random
moment of each round, after which the count may be marked stale (never wrong) and one more
store must make it exact; `clear`, mixed with a `cache clear` started during the second
round, after which no store may warn. After its three rounds, `udfkit cache stats --json`
must give the same total and call it exact. The closing lines give how many runs of each
kind ended with a wrong count (UDFKIT_STRESS_SEED repeats a sequence of kill and clear
moments)."""
import json
import os
import random
import re
import signal
import subprocess
import time

from harness import UDFKIT, main

TOOL = os.environ["UDFKIT_CACHE_STORE_TOOL"]
SECONDS = float(os.environ.get("UDFKIT_STRESS_SECONDS", "20"))
LIMIT = 20 * 1024
PROCESSES = 16
OPERATIONS = 8  # per process and round: half of them new entries, so every round evicts
ROUNDS = 3
KINDS = ("stores", "mixed", "kill", "clear")


def listed(cache):
    """The sum of the entry files' sizes (a store's temporary file, `.<key>.XXXXXX`, is none)."""
    root, total = os.path.join(cache, "entries"), 0
    for sub in os.listdir(root) if os.path.isdir(root) else ():
        for name in os.listdir(os.path.join(root, sub)):
            path = os.path.join(root, sub, name)
            if not name.startswith(".") and os.path.isfile(path):
                total += os.path.getsize(path)
    return total


def counted(cache):
    """The count in `size`, or None where it is missing or marked stale."""
    try:
        text = open(os.path.join(cache, "size")).read()
    except FileNotFoundError:
        return None
    return int(text) if re.fullmatch(r"\d+\n", text) else None


def one_round(cache, env, rng, first_seed, kind):
    """Runs the 16 processes (and a clear); returns what went wrong, or None."""
    work = ["put", "1", "1200"] if kind == "stores" else ["mix", str(OPERATIONS)]
    procs = [subprocess.Popen([TOOL, work[0], str(first_seed + i), *work[1:]], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for i in range(PROCESSES)]
    killed = set()
    if kind == "kill":
        time.sleep(rng.uniform(0, 0.03))
        for i in rng.sample(range(PROCESSES), 2):
            procs[i].send_signal(signal.SIGKILL)
            killed.add(i)
    elif kind == "clear":
        time.sleep(rng.uniform(0, 0.03))
        procs.append(subprocess.Popen([TOOL, "clear"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True))
    warnings = []
    for i, p in enumerate(procs):
        _, err = p.communicate()
        if i not in killed and (p.returncode != 0 or err):
            warnings.append(f"process {i} exit {p.returncode}: {err.strip()}")
    if warnings:
        return "; ".join(warnings)
    count, total = counted(cache), listed(cache)
    if count is None and kind == "kill":
        # A store killed between changing the entries and writing the count left it stale:
        # the next store counts the entries.
        subprocess.run([TOOL, "put", str(first_seed + PROCESSES), "1", "100"], env=env, check=True)
        count, total = counted(cache), listed(cache)
    if count != total:
        return f"counted {count} against {total} bytes of entries"
    if count > LIMIT:
        return f"counted {count}, over the limit of {LIMIT}"
    return None


def test_count_exact_under_concurrent_stores(work):
    seed = int(os.environ.get("UDFKIT_STRESS_SEED", str(random.randrange(1 << 30))))
    rng = random.Random(seed)
    runs = {kind: 0 for kind in KINDS}
    wrong = {kind: [] for kind in KINDS}
    deadline = time.monotonic() + SECONDS
    run = 0
    while run < len(KINDS) or time.monotonic() < deadline:
        kind = KINDS[run % len(KINDS)]
        cache = os.path.join(work, f"cache{run}")
        env = dict(os.environ, UDFKIT_CACHE_DIR=cache, UDFKIT_CACHE_SIZE="20K")
        env.pop("UDFKIT_CACHE", None)
        env.pop("UDFKIT_REMOTE_CACHE", None)
        problem = None
        for r in range(ROUNDS):
            round_kind = kind if kind != "clear" or r == 1 else "mixed"
            problem = one_round(cache, env, rng, 1000 * run + 100 * r, round_kind)
            if problem:
                problem = f"round {r + 1}: {problem}"
                break
        if not problem:
            s = subprocess.run([UDFKIT, "cache", "stats", "--json"], env=env, capture_output=True, text=True)
            local = json.loads(s.stdout)["local"]
            if local["bytes"] != listed(cache) or not local["exact"]:
                problem = f"cache stats: {local}"
        runs[kind] += 1
        if problem:
            wrong[kind].append(f"run {run}: {problem}")
        run += 1
        subprocess.run(["rm", "-rf", cache], check=True)
    print(f"seed {seed}: {run} runs of {ROUNDS} rounds of {PROCESSES} processes in {SECONDS:.0f} s")
    for kind in KINDS:
        print(f"  {kind}: {len(wrong[kind])} of {runs[kind]} runs with a wrong count"
              + "".join(f"\n    {w}" for w in wrong[kind][:5]))
    assert not any(wrong.values()), "the count drifted"


if __name__ == "__main__":
    main([test_count_exact_under_concurrent_stores])
