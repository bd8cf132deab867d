"""The remote cache (UDFKIT_REMOTE_CACHE) against real servers on 127.0.0.1: redis-server and
nginx's WebDAV store started here on free ports and stopped after, plus a server that never
answers and one that answers garbage. Two local cache directories stand for two machines.
A remote never changes outputs or exit status: every case checks the bytes built against a
build without any cache."""
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import servers
from harness import UDFKIT, data, main

SPECS = ["clamp_i32=ops::clamp<int>:int32(int32, int32, int32)", "scale:float32(float32, float32)",
         "mix64:int64(int64, int32)"]
PY = os.path.join(data("py"), "udfs.py")
PASSWORD = "s3cret-pw"

for needed in ("redis-server", "nginx"):
    why = servers.missing(needed)
    if why:
        # Skipped with the reason, as CTest shows it (SKIP_RETURN_CODE 77).
        print(f"skipped: {why}")
        sys.exit(77)


def env_for(cache, remote=None, **extra):
    env = dict(os.environ, UDFKIT_CACHE_DIR=cache)
    for name in ("UDFKIT_CACHE", "UDFKIT_REMOTE_CACHE"):
        env.pop(name, None)
    if remote:
        env["UDFKIT_REMOTE_CACHE"] = remote
    env.update(extra)
    return env


def run(args, env, timeout=300):
    return subprocess.run([UDFKIT, *args], env=env, capture_output=True, text=True, timeout=timeout)


def build(out, cache, remote=None, verbose=False, **extra):
    """One machine's build: CUDA C UDFs for two architectures, a Python UDF, a link to a
    fatbin (compile and link results: 6 cache entries). Returns the steps' results."""
    env = env_for(cache, remote, **extra)
    v = ["-v"] if verbose else []
    steps = [run(v + ["compile", data("udfs.cu"), "--function", *SPECS, "--arch", "80-real;90", "-o",
                      os.path.join(out, "u.json")], env),
             run(v + ["compile", PY, "-f", "scaled_area:float32(float32, float32)", "--arch", "80", "-o",
                      os.path.join(out, "py.json")], env)]
    if steps[0].returncode == 0:
        steps.append(run(v + ["link", os.path.join(out, "u.json"), "--arch", "80-real;90", "-o",
                              os.path.join(out, "x.fatbin")], env))
    return steps


def assert_built(steps):
    for s in steps:
        assert s.returncode == 0, f"exit {s.returncode}\n{s.stderr}"


def stderr_of(steps):
    return "".join(s.stderr for s in steps)


def outputs(out):
    """The bytes built, without the depfiles and manifests' absolute paths differing by
    directory: every file, read."""
    found = {}
    for d, _, names in os.walk(out):
        for n in names:
            path = os.path.join(d, n)
            found[os.path.relpath(path, out)] = open(path, "rb").read().replace(out.encode(), b"<out>")
    return found


REFERENCE = {}


def reference(work):
    """The build without any cache (made once for all the tests)."""
    if not REFERENCE:
        ref = os.path.join(work, "reference")
        assert_built(build(ref, os.path.join(work, "no-cache"), UDFKIT_CACHE="0"))
        REFERENCE.update(outputs(ref))
    return REFERENCE


def stats(cache, remote=None):
    r = run(["cache", "stats", "--json"], env_for(cache, remote))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def remote_counts(cache, remote=None):
    s = stats(cache, remote)
    assert len(s["remotes"]) == 1, s
    return s["remotes"][0]


def with_servers(test):
    """Runs test(work, started) and stops every server it started, whatever happens."""
    def wrapper(work):
        started = []
        try:
            test(work, started)
        finally:
            for s in started:
                s.stop()
    wrapper.__name__ = test.__name__
    return wrapper


def entries_of(local):
    root = os.path.join(local, "entries")
    return sorted(n for _, _, names in os.walk(root) for n in names if not n.startswith("."))


@with_servers
def test_second_machine_gets_remote_hits_only_redis(work, started):
    redis = servers.Redis(work, password=PASSWORD)
    started.append(redis)
    remote = redis.url(db=3)
    a, b = os.path.join(work, "machine-a"), os.path.join(work, "machine-b")
    steps = build(os.path.join(work, "out-a"), a, remote)
    assert_built(steps)
    assert "warning" not in stderr_of(steps), stderr_of(steps)
    first = remote_counts(a, remote)
    assert first["misses"] == 6 and first["stores"] == 6 and first["hits"] == 0 and first["errors"] == 0, first
    assert len(redis.keys(db=3)) == 6 and redis.keys(db=0) == []
    steps = build(os.path.join(work, "out-b"), b, remote, verbose=True)
    assert_built(steps)
    second = remote_counts(b, remote)
    assert second["hits"] == 6 and second["misses"] == 0 and second["stores"] == 0, second
    assert second["bytes_read"] == first["bytes_written"] > 0
    local = stats(b, remote)["local"]
    assert local["hits"] == 0 and local["entries"] == 6, local  # the remote hits filled the local cache
    assert outputs(os.path.join(work, "out-a")) == outputs(os.path.join(work, "out-b")) == reference(work)
    # -v tells each request with its time, and never the password.
    log = stderr_of(steps)
    assert len(re.findall(r"GET [0-9a-f]{32}: hit, \d+ bytes \(\d+\.\d ms\)", log)) == 6, log
    assert PASSWORD not in log and "redis://:***@127.0.0.1" in log
    # A third run on machine b: all local now, the remote is not asked.
    steps = build(os.path.join(work, "out-b2"), b, remote, verbose=True)
    assert_built(steps)
    assert "GET" not in stderr_of(steps) and stats(b, remote)["local"]["hits"] == 6


@with_servers
def test_second_machine_gets_remote_hits_only_http_layouts(work, started):
    nginx = servers.Nginx(work)
    started.append(nginx)
    expected = {"subdirs": r"subdirs/[0-9a-f]{2}/[0-9a-f]{30}", "flat": r"flat/[0-9a-f]{32}",
                "bazel": r"bazel/ac/[0-9a-f]{64}"}
    for layout, pattern in expected.items():
        remote = f"{nginx.url(layout)}|layout={layout}"
        # Outputs one level below `work`, as the reference's: manifests name sources relative to them.
        a, b = os.path.join(work, layout, "a"), os.path.join(work, layout, "b")
        assert_built(build(os.path.join(work, layout + "-out-a"), a, remote))
        stored = [f for f in nginx.files() if f.startswith(layout + "/")]
        assert len(stored) == 6 and all(re.fullmatch(pattern, f) for f in stored), stored
        steps = build(os.path.join(work, layout + "-out-b"), b, remote)
        assert_built(steps)
        assert "warning" not in stderr_of(steps), stderr_of(steps)
        counts = remote_counts(b, remote)
        assert counts["hits"] == 6 and counts["misses"] == 0, (layout, counts)
        assert outputs(os.path.join(work, layout + "-out-b")) == reference(work)


@with_servers
def test_read_only_remote_is_read_never_written(work, started):
    redis = servers.Redis(work)
    started.append(redis)
    reader = f"{redis.url()}|read-only"
    assert_built(build(os.path.join(work, "out-r1"), os.path.join(work, "r1"), reader))
    assert redis.keys() == []
    counts = remote_counts(os.path.join(work, "r1"), reader)
    assert counts["misses"] == 6 and counts["stores"] == 0 and counts["read_only"], counts
    # CI writes, developers read.
    assert_built(build(os.path.join(work, "out-ci"), os.path.join(work, "ci"), redis.url()))
    assert len(redis.keys()) == 6
    assert_built(build(os.path.join(work, "out-r2"), os.path.join(work, "r2"), reader))
    assert remote_counts(os.path.join(work, "r2"), reader)["hits"] == 6
    assert outputs(os.path.join(work, "out-r2")) == reference(work)


@with_servers
def test_ci_writes_developers_read_as_the_readme_sets_up(work, started):
    """README.md's set-ups: nginx where anyone reads and only CI writes, and a Redis with an
    ACL user that may only read."""
    nginx = servers.Nginx(work)
    redis = servers.Redis(work, password=PASSWORD)
    started += [nginx, redis]
    redis.command("ACL", "SETUSER", "dev", "on", ">devpw", "~udfkit:*", "+get", "+ping", "+select")
    quoted = nginx.basic_password.replace(":", "%3A")
    setups = [(f"http://{nginx.basic_user}:{quoted}@127.0.0.1:{nginx.port}/team/udfkit",
               f"http://127.0.0.1:{nginx.port}/team/udfkit", "PUT answered HTTP 401 (are the credentials right?)"),
              (redis.url(), f"redis://dev:devpw@127.0.0.1:{redis.port}/0", "NOPERM")]
    for i, (ci, developer, refusal) in enumerate(setups):
        assert_built(build(os.path.join(work, f"ci{i}-out"), os.path.join(work, f"ci{i}"), ci))
        assert remote_counts(os.path.join(work, f"ci{i}"), ci)["stores"] == 6
        dev = f"{developer}|read-only"
        steps = build(os.path.join(work, f"dev{i}-out"), os.path.join(work, f"dev{i}"), dev)
        assert_built(steps)
        assert "warning" not in stderr_of(steps), stderr_of(steps)
        assert remote_counts(os.path.join(work, f"dev{i}"), dev)["hits"] == 6
        assert outputs(os.path.join(work, f"dev{i}-out")) == reference(work)
        # A developer who forgets read-only builds something new: the server refuses the store,
        # one warning, the same bytes as without a cache.
        args = ["compile", data("udfs.cu"), "--function", *SPECS, "--arch", "86"]
        r = run(args + ["-o", os.path.join(work, f"forgot{i}", "u.json")], env_for(os.path.join(work, f"f{i}"), developer))
        plain = run(args + ["-o", os.path.join(work, f"plain{i}", "u.json")], env_for(work, UDFKIT_CACHE="0"))
        assert r.returncode == 0 and plain.returncode == 0, r.stderr + plain.stderr
        assert r.stderr.count("warning") == 1 and refusal in r.stderr, r.stderr
        assert outputs(os.path.join(work, f"forgot{i}")) == outputs(os.path.join(work, f"plain{i}"))


def many_sources(work, count=16):
    """Small CUDA C files, each its own compile job per architecture."""
    d = os.path.join(work, "src")
    os.makedirs(d, exist_ok=True)
    paths = []
    for i in range(count):
        path = os.path.join(d, f"u{i}.cu")
        with open(path, "w") as f:
            f.write(f"__device__ float f{i}(float x)\n{{\n    return x * {i + 1}.5f + {i}.0f;\n}}\n")
        paths.append(path)
    return paths


def compile_many(paths, out, env, archs="75-real;80-real;86-real;90"):
    specs = [f"f{i}:float32(float32)" for i in range(len(paths))]
    return subprocess.Popen([UDFKIT, "compile", *paths, "--function", *specs, "--arch", archs, "-o",
                             os.path.join(out, "many.json")], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@with_servers
def test_server_killed_in_the_middle_of_a_build(work, started):
    redis = servers.Redis(work)
    started.append(redis)
    paths = many_sources(work)
    ref = os.path.join(work, "ref")
    proc = compile_many(paths, ref, env_for(os.path.join(work, "nocache"), UDFKIT_CACHE="0"))
    assert proc.wait(timeout=600) == 0, proc.stderr.read()
    proc = compile_many(paths, os.path.join(work, "out"), env_for(os.path.join(work, "local"), redis.url()))
    # Kill the server once the build has stored its first entries and is still running.
    while proc.poll() is None and len(redis.keys()) < 2:
        time.sleep(0.01)
    still_running = proc.poll() is None
    redis.kill()
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert still_running, "the build ended before the server could be killed; give it more work"
    assert err.count("warning") == 1 and "it is not used for the rest of this run" in err, err
    assert outputs(os.path.join(work, "out")) == outputs(ref)
    counts = remote_counts(os.path.join(work, "local"), redis.url())
    assert counts["errors"] == 1 and 2 <= counts["stores"] < 64, counts


@with_servers
def test_server_that_never_answers_costs_its_timeout_once(work, started):
    for kind in ("redis", "http"):
        silent = servers.Hostile(answer=None)
        started.append(silent)
        url = f"redis://127.0.0.1:{silent.port}" if kind == "redis" else f"http://127.0.0.1:{silent.port}/c"
        remote = f"{url}|operation-timeout=400"
        start = time.time()
        steps = build(os.path.join(work, kind + "-out"), os.path.join(work, kind, "local"), remote)
        took = time.time() - start
        assert_built(steps)
        # One warning per process that met it (compile, compile, link), naming the timeout.
        warnings = [line for line in stderr_of(steps).splitlines() if "warning" in line]
        assert len(warnings) == 3 and all("no answer within 400 ms" in w for w in warnings), warnings
        assert silent.connections <= 3, silent.connections
        assert outputs(os.path.join(work, kind + "-out")) == reference(work)
        # The same build without a remote, for the time it costs: at most one timeout a process.
        start = time.time()
        assert_built(build(os.path.join(work, kind + "-out2"), os.path.join(work, kind, "local2")))
        assert took - (time.time() - start) < 3 * 0.4 + 2.5, (took, time.time() - start)


@with_servers
def test_garbage_answers_and_refusals_are_one_warning(work, started):
    garbage = servers.Hostile(answer=b"SSH-2.0-OpenSSH_9.2\r\nnot a cache\r\n")
    started.append(garbage)
    closed = servers.free_port()
    cases = {f"redis://127.0.0.1:{garbage.port}": "", f"http://127.0.0.1:{garbage.port}/c": "",
             f"redis://127.0.0.1:{closed}": "Connection refused", f"http://127.0.0.1:{closed}/c": ""}
    for i, (remote, words) in enumerate(cases.items()):
        steps = build(os.path.join(work, f"out{i}"), os.path.join(work, f"local{i}"), remote)
        assert_built(steps)
        err = stderr_of(steps)
        assert err.count("warning") == 3 and words in err, (remote, err)  # one per process
        assert outputs(os.path.join(work, f"out{i}")) == reference(work)


def corrupt_redis_entry(redis, key, how, other):
    value = redis.get(key)
    if how == "flipped":
        middle = len(value) // 2
        value = value[:middle] + bytes(b ^ 0xFF for b in value[middle:middle + 8]) + value[middle + 8:]
    elif how == "truncated":
        value = value[:len(value) * 2 // 3]
    else:  # another key's entry under this key
        value = redis.get(other)
    redis.set(key, value)


@with_servers
def test_corrupt_entries_on_the_server_are_misses_and_repaired(work, started):
    redis = servers.Redis(work)
    started.append(redis)
    assert_built(build(os.path.join(work, "out-a"), os.path.join(work, "a"), redis.url()))
    keys = redis.keys()
    assert len(keys) == 6
    assert all(redis.get(k).startswith(b"UDFKITR1") for k in keys)
    for i, how in enumerate(("flipped", "truncated", "foreign")):
        target = keys[i]
        corrupt_redis_entry(redis, target, how, keys[(i + 1) % len(keys)])
        machine = os.path.join(work, f"m-{how}")
        steps = build(os.path.join(work, f"out-{how}"), machine, redis.url())
        assert_built(steps)
        err = stderr_of(steps)
        word = {"flipped": "corrupt", "truncated": "truncated", "foreign": "another key's entry"}[how]
        assert err.count("warning") == 1 and word in err and target.split(":")[1] in err, err
        assert outputs(os.path.join(work, f"out-{how}")) == reference(work)
        counts = remote_counts(machine, redis.url())
        assert counts["hits"] == 5 and counts["misses"] == 1 and counts["errors"] == 1 and counts["stores"] == 1, counts
    # Each spoiled entry was stored again: a new machine gets six verified hits.
    steps = build(os.path.join(work, "out-z"), os.path.join(work, "z"), redis.url())
    assert_built(steps)
    assert "warning" not in stderr_of(steps) and remote_counts(os.path.join(work, "z"), redis.url())["hits"] == 6


@with_servers
def test_corrupt_file_on_the_http_store(work, started):
    nginx = servers.Nginx(work)
    started.append(nginx)
    remote = nginx.url("c")
    assert_built(build(os.path.join(work, "out-a"), os.path.join(work, "a"), remote))
    victim = os.path.join(nginx.store, nginx.files()[0])
    with open(victim, "r+b") as f:
        f.truncate(100)
    steps = build(os.path.join(work, "out-b"), os.path.join(work, "b"), remote)
    assert_built(steps)
    assert stderr_of(steps).count("truncated") == 1
    assert outputs(os.path.join(work, "out-b")) == reference(work)
    assert os.path.getsize(victim) > 100  # stored again whole


@with_servers
def test_credentials_wrong_or_right_never_shown(work, started):
    redis = servers.Redis(work, password=PASSWORD)
    nginx = servers.Nginx(work)
    started += [redis, nginx]
    wrong = {redis.url(password="not-the-pw"): "WRONGPASS",
             f"http://{nginx.basic_user}:wrong-pw@127.0.0.1:{nginx.port}/basic/w": "HTTP 401",
             f"{nginx.url('bearer/w')}|bearer-token=wrong-token": "HTTP 401"}
    for i, (remote, words) in enumerate(wrong.items()):
        steps = build(os.path.join(work, f"out{i}"), os.path.join(work, f"w{i}"), remote, verbose=True)
        assert_built(steps)
        err = stderr_of(steps)
        assert words in err and err.count("warning") == 3, err
        for secret in ("not-the-pw", "wrong-pw", "wrong-token"):
            assert secret not in err
        assert outputs(os.path.join(work, f"out{i}")) == reference(work)
    quoted = nginx.basic_password.replace(":", "%3A")
    right = {redis.url(): PASSWORD,
             f"http://{nginx.basic_user}:{quoted}@127.0.0.1:{nginx.port}/basic/r": nginx.basic_password,
             f"{nginx.url('bearer/r1')}|bearer-token={nginx.token}": nginx.token,
             f"{nginx.url('bearer/r2')}|bearer-token-env=CACHE_TOKEN": nginx.token,
             f"redis://127.0.0.1:{redis.port}/1|password-env=CACHE_PW": PASSWORD}
    for i, (remote, secret) in enumerate(right.items()):
        env = {"CACHE_TOKEN": nginx.token, "CACHE_PW": PASSWORD}
        local = os.path.join(work, f"r{i}")
        out = os.path.join(work, f"right{i}")
        steps = build(out, local, remote, verbose=True, **env)
        assert_built(steps)
        err = stderr_of(steps)
        assert "warning" not in err and remote_counts(local, remote)["stores"] == 6, err
        shown = [run(["cache", "stats"], env_for(local, remote)).stdout,
                 run(["cache", "stats", "--json"], env_for(local, remote)).stdout,
                 run(["--version"], env_for(local, remote, **env)).stdout, err]
        shown += [open(os.path.join(out, f), errors="replace").read() for f in os.listdir(out)]
        shown += [open(os.path.join(d, n), errors="replace").read() for d, _, names in os.walk(local) for n in names]
        assert not any(secret in text for text in shown), (remote, [t for t in shown if secret in t][:1])
    assert nginx.basic_password not in open(os.path.join(nginx.root, "access.log")).read()


@with_servers
def test_eight_concurrent_builds_against_one_server(work, started):
    redis = servers.Redis(work)
    nginx = servers.Nginx(work)
    started += [redis, nginx]
    for remote in (redis.url(), nginx.url("c8")):
        def one(i):
            return build(os.path.join(work, f"out{i}"), os.path.join(work, f"m{i}"), remote)
        tag = "redis" if remote.startswith("redis") else "http"
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(lambda i: one(f"{tag}{i}"), range(8)))
        for steps in results:
            assert_built(steps)
            assert "warning" not in stderr_of(steps), stderr_of(steps)
        for i in range(8):
            assert outputs(os.path.join(work, f"out{tag}{i}")) == reference(work)
        # Every entry there is whole: a ninth machine gets six verified hits.
        steps = build(os.path.join(work, f"out{tag}9"), os.path.join(work, f"m{tag}9"), remote)
        assert_built(steps)
        assert "warning" not in stderr_of(steps)
        assert remote_counts(os.path.join(work, f"m{tag}9"), remote)["hits"] == 6


@with_servers
def test_unix_socket_and_size_limit(work, started):
    redis = servers.Redis(work, unix=True)
    started.append(redis)
    small = f"redis+unix:{redis.socket}|max-entry-size=1K"
    assert_built(build(os.path.join(work, "out-s"), os.path.join(work, "s"), small))
    assert redis.keys() == []  # every entry is over 1 KiB: none stored
    assert remote_counts(os.path.join(work, "s"), small)["stores"] == 0
    remote = f"redis+unix:{redis.socket}"
    assert_built(build(os.path.join(work, "out-a"), os.path.join(work, "a"), remote))
    assert len(redis.keys()) == 6
    assert_built(build(os.path.join(work, "out-b"), os.path.join(work, "b"), remote))
    assert remote_counts(os.path.join(work, "b"), remote)["hits"] == 6
    assert outputs(os.path.join(work, "out-b")) == reference(work)


@with_servers
def test_bad_remote_settings_are_warnings(work, started):
    redis = servers.Redis(work)
    started.append(redis)
    cases = {"ftp://host/x": "the schemes are", "redis://127.0.0.1:99999": "port",
             "redis://h/notadb": "database number", f"{redis.url()}|layout=flat": "layout= and bearer",
             "http://127.0.0.1/c|layout=deep": "layouts are subdirs", "http://127.0.0.1/c|colour=blue": "unknown attribute",
             "http://127.0.0.1/c|operation-timeout=soon": "give milliseconds",
             "http://127.0.0.1/c|bearer-token-env=UDFKIT_NO_SUCH_VAR": "UDFKIT_NO_SUCH_VAR is not set"}
    for i, (remote, words) in enumerate(cases.items()):
        steps = build(os.path.join(work, f"out{i}"), os.path.join(work, f"l{i}"), f"{remote} {redis.url()}")
        assert_built(steps)
        err = stderr_of(steps)
        assert err.count("warning") == 3 and words in err and "URL 1" in err, (remote, err)
        assert outputs(os.path.join(work, f"out{i}")) == reference(work)
    assert len(redis.keys()) == 6  # the good URL after each bad one was used


@with_servers
def test_full_local_disk_with_a_working_remote(work, started):
    redis = servers.Redis(work)
    started.append(redis)
    assert_built(build(os.path.join(work, "out-a"), os.path.join(work, "a"), redis.url()))
    disk = os.path.join(work, "small-disk")
    os.makedirs(disk)
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", disk], capture_output=True, text=True)
    if mount.returncode != 0:
        print(f"skipped the full-disk case: a tmpfs cannot be mounted here ({mount.stderr.strip()})")
        return
    try:
        local = os.path.join(disk, "cache")
        os.makedirs(os.path.join(local, "entries"))
        fd = os.open(os.path.join(disk, "filler"), os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass  # full
        os.close(fd)
        steps = build(os.path.join(work, "out-b"), local, redis.url(), verbose=True)
        assert_built(steps)
        assert outputs(os.path.join(work, "out-b")) == reference(work)
        err = stderr_of(steps)
        warnings = [line for line in err.splitlines() if "warning" in line]
        assert warnings and all("cannot be written (No space left on device); going on without a local cache" in w
                                for w in warnings), warnings
        # Every result came from the remote, nothing was rebuilt, and nothing could be kept here.
        assert len(re.findall(r"GET [0-9a-f]{32}: hit", err)) == 6 and "miss (" not in err, err
        assert entries_of(local) == []
    finally:
        subprocess.run(["umount", disk], check=False)


if __name__ == "__main__":
    main([test_second_machine_gets_remote_hits_only_redis, test_second_machine_gets_remote_hits_only_http_layouts,
          test_read_only_remote_is_read_never_written, test_ci_writes_developers_read_as_the_readme_sets_up,
          test_server_killed_in_the_middle_of_a_build,
          test_server_that_never_answers_costs_its_timeout_once, test_garbage_answers_and_refusals_are_one_warning,
          test_corrupt_entries_on_the_server_are_misses_and_repaired, test_corrupt_file_on_the_http_store,
          test_credentials_wrong_or_right_never_shown, test_eight_concurrent_builds_against_one_server,
          test_unix_socket_and_size_limit, test_bad_remote_settings_are_warnings,
          test_full_local_disk_with_a_working_remote])
