"""The cache of compile and link results: hits skip the work and give the same bytes;
many processes at once never see partial entries; a corrupt entry is rebuilt with a
warning; a read-only cache directory degrades to no cache; a size limit evicts the least
recently used entries."""
import json
import os
import stat
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from harness import UDFKIT, data, main, ok, udfkit

SPECS = ["clamp_i32=ops::clamp<int>:int32(int32, int32, int32)", "scale:float32(float32, float32)",
         "mix64:int64(int64, int32)"]


def env_for(cache, **extra):
    env = dict(os.environ, UDFKIT_CACHE_DIR=cache)
    env.pop("UDFKIT_CACHE", None)
    env.update(extra)
    return env


def compile_into(out, cache, arch="80", **extra):
    r = subprocess.run([UDFKIT, "compile", data("udfs.cu"), "--function", *SPECS, "--arch", arch, "-o", out],
                       env=env_for(cache, **extra), capture_output=True, text=True, timeout=300)
    return r


def stats(cache):
    r = subprocess.run([UDFKIT, "cache", "stats"], env=env_for(cache), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return {line.split()[0]: line.split()[1] for line in r.stdout.splitlines() if line.strip()}


def read_all(directory):
    return {name: open(os.path.join(directory, name), "rb").read() for name in sorted(os.listdir(directory))}


def test_hit_gives_same_bytes_and_counts(work):
    cache = os.path.join(work, "cache")
    assert compile_into(os.path.join(work, "a", "u.json"), cache).returncode == 0
    s = stats(cache)
    assert s["entries"] == "1" and s["misses"] == "1" and s["hits"] == "0", s
    assert compile_into(os.path.join(work, "b", "u.json"), cache).returncode == 0
    assert stats(cache)["hits"] == "1"
    assert read_all(os.path.join(work, "a")) == read_all(os.path.join(work, "b"))
    # Another architecture, define or source is another entry.
    assert compile_into(os.path.join(work, "c", "u.json"), cache, arch="90").returncode == 0
    assert stats(cache)["entries"] == "2"
    # UDFKIT_CACHE=0: no lookups at all.
    assert compile_into(os.path.join(work, "d", "u.json"), cache, UDFKIT_CACHE="0").returncode == 0
    assert stats(cache)["hits"] == "1"
    r = subprocess.run([UDFKIT, "cache", "clear"], env=env_for(cache), capture_output=True, text=True)
    assert r.returncode == 0 and stats(cache)["entries"] == "0"


def test_link_results_are_cached(work):
    cache = os.path.join(work, "cache")
    assert compile_into(os.path.join(work, "u.json"), cache).returncode == 0
    for name in ("one", "two"):
        r = subprocess.run([UDFKIT, "link", os.path.join(work, "u.json"), "--arch", "80-real;90", "-o",
                            os.path.join(work, name, "x.fatbin")], env=env_for(cache), capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    assert stats(cache)["hits"] == "3"  # sm_80, sm_90 and compute_90 of the second run
    assert read_all(os.path.join(work, "one")) == read_all(os.path.join(work, "two"))


def entry_sizes(cache):
    root = os.path.join(cache, "entries")
    return {os.path.join(d, f): os.path.getsize(os.path.join(root, d, f))
            for d in os.listdir(root) for f in os.listdir(os.path.join(root, d))}


def test_size_limit_evicts_least_recently_used(work):
    cache = os.path.join(work, "cache")
    # One entry's size, from a cache without a limit.
    assert compile_into(os.path.join(work, "probe", "u.json"), cache, arch="80").returncode == 0
    one = max(entry_sizes(cache).values())
    subprocess.run([UDFKIT, "cache", "clear"], env=env_for(cache), check=True)
    limit = one * 3 + one // 2  # room for three entries
    archs = ["75", "80", "86", "89"]
    for k, arch in enumerate(archs):
        r = compile_into(os.path.join(work, arch, "u.json"), cache, arch=arch, UDFKIT_CACHE_SIZE=str(limit))
        assert r.returncode == 0, r.stderr
        if k == 1:  # keep 75 in use: it must outlive 80
            r = compile_into(os.path.join(work, "again", "u.json"), cache, arch="75", UDFKIT_CACHE_SIZE=str(limit))
            assert r.returncode == 0
        time.sleep(0.02)  # distinct use times
    sizes = entry_sizes(cache)
    assert sum(sizes.values()) <= limit and len(sizes) <= 3, sizes
    # The counted total matches what is there once eviction has run.
    assert int(open(os.path.join(cache, "size")).read()) == sum(sizes.values())
    before = int(stats(cache)["hits"])
    for arch, hit in (("89", True), ("75", True), ("80", False)):
        assert compile_into(os.path.join(work, "check" + arch, "u.json"), cache, arch=arch,
                            UDFKIT_CACHE_SIZE=str(limit)).returncode == 0
        after = int(stats(cache)["hits"])
        assert (after == before + 1) == hit, (arch, before, after)
        before = after


STORE_TOOL = os.environ["UDFKIT_CACHE_STORE_TOOL"]
ENTRY_TOOL = os.environ["UDFKIT_CACHE_TOOL"]


def store(cache, *args, **extra):
    """cache_store_tool put SEED COUNT SIZE: entries through the cache's API, without a compile."""
    r = subprocess.run([STORE_TOOL, "put", *map(str, args)], env=env_for(cache, **extra), capture_output=True,
                       text=True)
    assert r.returncode == 0 and not r.stderr, r.stderr


def count_file(cache):
    return open(os.path.join(cache, "size")).read()


def assert_counted(cache):
    total = sum(entry_sizes(cache).values())
    assert count_file(cache) == f"{total}\n", (count_file(cache), total)
    return total


def test_count_follows_replacements_removals_and_clear(work):
    """The count in `size` after each way the entries change: stores, stores replacing an
    entry with a smaller one, a corrupt entry removed, a count left stale by a killed store
    or damaged, cache clear."""
    cache = os.path.join(work, "cache")
    store(cache, 1, 4, 1000)
    assert len(entry_sizes(cache)) == 4
    assert_counted(cache)
    store(cache, 1, 4, 500)  # the same keys: each entry replaced
    assert len(entry_sizes(cache)) == 4
    assert_counted(cache)
    # A corrupt entry (same size, bytes flipped) found by a lookup is removed, and uncounted.
    name = sorted(entry_sizes(cache))[0]
    with open(os.path.join(cache, "entries", name), "r+b") as f:
        f.seek(-8, os.SEEK_END)
        f.write(b"\xff" * 8)
    key = os.path.basename(name)[:-len(".entry")]
    r = subprocess.run([ENTRY_TOOL, "names", key], env=env_for(cache), capture_output=True, text=True)
    assert r.returncode == 1 and "is corrupt; it is removed" in r.stderr, r.stderr
    assert len(entry_sizes(cache)) == 3
    assert_counted(cache)
    # A store killed between its rename and its count leaves the count marked stale (its
    # newline overwritten); a damaged count is no count either: the next store lists.
    for left in ("999999~", "999999", "-5\n", "lost\n", ""):
        open(os.path.join(cache, "size"), "w").write(left)
        store(cache, 2, 1, 300)
        assert_counted(cache)
    # cache clear empties the cache and keeps the file, holding 0.
    assert subprocess.run([UDFKIT, "cache", "clear"], env=env_for(cache)).returncode == 0
    assert count_file(cache) == "0\n" and entry_sizes(cache) == {}
    store(cache, 3, 2, 700)
    assert_counted(cache)
    stats_json = json.loads(subprocess.run([UDFKIT, "cache", "stats", "--json"], env=env_for(cache),
                                           capture_output=True, text=True).stdout)["local"]
    assert stats_json["exact"] is True and stats_json["bytes"] == sum(entry_sizes(cache).values()), stats_json


def test_cache_that_cannot_be_locked(work):
    """Where the count's lock cannot be taken (flock fails on some network file systems;
    here `size` is a directory), every store lists and evicts, the limit holds, and cache
    stats calls its figure an estimate."""
    cache = os.path.join(work, "cache")
    os.makedirs(os.path.join(cache, "size"))
    store(cache, 1, 30, 1000, UDFKIT_CACHE_SIZE="20K")
    sizes = entry_sizes(cache)
    assert 0 < sum(sizes.values()) <= 20 * 1024, sizes
    r = subprocess.run([UDFKIT, "cache", "stats"], env=env_for(cache), capture_output=True, text=True)
    assert r.returncode == 0 and "(an estimate: the cache directory cannot be locked here" in r.stdout, r.stdout
    r = subprocess.run([UDFKIT, "cache", "stats", "--json"], env=env_for(cache), capture_output=True, text=True)
    assert json.loads(r.stdout)["local"]["exact"] is False
    os.rmdir(os.path.join(cache, "size"))
    r = subprocess.run([UDFKIT, "cache", "stats"], env=env_for(cache), capture_output=True, text=True)
    assert "estimate" not in r.stdout, r.stdout


def test_eight_processes_at_once(work):
    """Eight processes building the same entry and eight building different ones, at once:
    every result right, every entry whole."""
    cache = os.path.join(work, "cache")
    reference = os.path.join(work, "reference")
    assert compile_into(os.path.join(reference, "u.json"), os.path.join(work, "cold"), UDFKIT_CACHE="0").returncode == 0
    expected = read_all(reference)
    jobs = [(os.path.join(work, f"same{i}", "u.json"), "80") for i in range(8)]
    jobs += [(os.path.join(work, f"diff{i}", "u.json"), arch) for i, arch in
             enumerate(["75", "80", "86", "87", "89", "90", "100", "120"])]
    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(lambda job: compile_into(job[0], cache, arch=job[1]), jobs))
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results if r.returncode]
    for i in range(8):
        assert read_all(os.path.join(work, f"same{i}")) == expected
    # And once more, all from the cache: the same bytes again.
    with ThreadPoolExecutor(max_workers=16) as pool:
        again = list(pool.map(lambda job: compile_into(job[0].replace("same", "again").replace("diff", "again-d"), cache,
                                                       arch=job[1]), jobs))
    assert all(r.returncode == 0 for r in again)
    for i in range(8):
        assert read_all(os.path.join(work, f"again{i}")) == expected
        assert read_all(os.path.join(work, f"again-d{i}")) == read_all(os.path.join(work, f"diff{i}"))
    s = stats(cache)
    assert s["entries"] == "8" and int(s["hits"]) >= 16, s
    leftovers = [n for root, _, names in os.walk(cache) for n in names if n.startswith(".")]
    assert leftovers == [], leftovers


def test_corrupt_entry_is_rebuilt(work):
    cache = os.path.join(work, "cache")
    assert compile_into(os.path.join(work, "a", "u.json"), cache).returncode == 0
    entries = [os.path.join(root, n) for root, _, names in os.walk(os.path.join(cache, "entries")) for n in names]
    assert len(entries) == 1
    with open(entries[0], "r+b") as f:
        f.seek(-20, os.SEEK_END)
        f.write(b"\xff" * 8)
    r = compile_into(os.path.join(work, "b", "u.json"), cache)
    assert r.returncode == 0 and "is corrupt; it is removed and the result rebuilt" in r.stderr, r.stderr
    assert read_all(os.path.join(work, "a")) == read_all(os.path.join(work, "b"))
    r = compile_into(os.path.join(work, "c", "u.json"), cache)
    assert r.returncode == 0 and "corrupt" not in r.stderr  # rebuilt entry is good


def test_read_only_cache_degrades(work):
    if os.geteuid() == 0:
        # root writes through permissions: make the directory unusable another way
        cache = os.path.join(work, "not-a-dir")
        open(cache, "w").write("a file where the cache directory should be")
    else:
        cache = os.path.join(work, "cache")
        os.makedirs(os.path.join(cache, "entries"))
        os.chmod(os.path.join(cache, "entries"), stat.S_IRUSR | stat.S_IXUSR)
    r = compile_into(os.path.join(work, "a", "u.json"), cache)
    assert r.returncode == 0, r.stderr
    assert "going on without a cache" in r.stderr, r.stderr
    assert os.path.exists(os.path.join(work, "a", "u.json"))


def test_python_cache_follows_imports(work):
    cache = os.path.join(work, "cache")
    src = os.path.join(work, "src")
    os.makedirs(src)
    open(os.path.join(src, "mod.py"), "w").write("from helper import k\n\ndef f(x):\n    return x * k()\n")
    open(os.path.join(src, "helper.py"), "w").write("def k():\n    return 2.0\n")

    def build(name):
        start = time.perf_counter()
        r = subprocess.run([UDFKIT, "compile", os.path.join(src, "mod.py"), "-f", "f:float64(float64)", "-o",
                            os.path.join(work, name, "m.json")], env=env_for(cache), capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return time.perf_counter() - start, read_all(os.path.join(work, name))

    _, first = build("one")
    _, second = build("two")
    assert first == second and stats(cache)["hits"] == "1"
    # An edit to the imported module must not be served from the cache.
    open(os.path.join(src, "helper.py"), "w").write("def k():\n    return 3.0\n")
    _, third = build("three")
    assert third != first
    assert stats(cache)["hits"] == "1"


def test_includes_known_by_stat_and_checked(work):
    """A compile of the same text finds its includes as the last one did, checking each file
    by stat instead of reading it (ccache's direct mode), and is right whenever a header
    changes: edited in place to the same size with its mtime put back, shadowed by a new file
    earlier on the include path, removed. Each result is the one a compile without the cache
    gives."""
    cache = os.path.join(work, "cache")
    src, a, b = (os.path.join(work, d) for d in ("src", "a", "b"))
    for d in (src, a, b):
        os.makedirs(d)
    source = os.path.join(src, "k.cu")
    open(source, "w").write('#include "scale.h"\n#include <cuda/std/optional>\n'
                            "__device__ float k(float x) { return x * SCALE; }\n")
    header = os.path.join(b, "scale.h")
    open(header, "w").write("#define SCALE 2.0f\n")

    def build(name, **extra):
        out = os.path.join(work, name)
        r = subprocess.run([UDFKIT, "-v", "compile", source, "-f", "k:float32(float32)", "--arch", "80", "-I", a, "-I",
                            b, "-o", os.path.join(out, "k.json")],
                           env=env_for(cache, **extra), capture_output=True, text=True, timeout=300)
        known = "as an earlier compile found them, unchanged" in r.stderr
        return r, known, read_all(out) if r.returncode == 0 else None

    def expect(name, known):
        r, was_known, got = build(name)
        assert r.returncode == 0, r.stderr
        assert was_known == known, (name, r.stderr)
        r, _, want = build(name + "-uncached", UDFKIT_CACHE="0")
        assert r.returncode == 0 and got == want, name
        return got

    time.sleep(1.1)  # files changed within the last second are not remembered
    first = expect("first", False)
    assert expect("again", True) == first
    # The same size, the mtime put back: the ctime (and, on most file systems, nothing else) differs.
    before = os.stat(header)
    open(header, "w").write("#define SCALE 3.0f\n")
    os.utime(header, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(header).st_size == before.st_size
    edited = expect("edited", False)
    assert edited != first
    time.sleep(1.1)
    assert expect("edited-stored", False) == edited
    assert expect("edited-known", True) == edited
    # A header of the same name earlier on the include path: found instead.
    open(os.path.join(a, "scale.h"), "w").write("#define SCALE 5.0f\n")
    shadowed = expect("shadowed", False)
    assert shadowed not in (first, edited)
    # Both gone: the compile fails, naming the include.
    os.remove(os.path.join(a, "scale.h"))
    os.remove(header)
    r, known, _ = build("gone")
    assert r.returncode != 0 and "scale.h" in r.stderr and not known, r.stderr


if __name__ == "__main__":
    main([test_hit_gives_same_bytes_and_counts, test_link_results_are_cached, test_size_limit_evicts_least_recently_used,
          test_count_follows_replacements_removals_and_clear, test_cache_that_cannot_be_locked,
          test_eight_processes_at_once,
          test_corrupt_entry_is_rebuilt, test_read_only_cache_degrades, test_python_cache_follows_imports,
          test_includes_known_by_stat_and_checked])
