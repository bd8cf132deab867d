#!/usr/bin/env python3
"""The README's Quick start, as a new user meets it.

    check_quickstart.py static <source dir>
        The Quick start's code block holds exactly two commands, each `bash <script>` of a
        script in the repository, the first running the main job and the second the tests;
        .ci/run calls both, the main job first; every folder under examples/ is built by the
        main job's script.
    check_quickstart.py clone <source dir> <work dir>
        Clones the repository's committed HEAD into <work dir>/clone (a fresh clone: nothing
        built, no ignored file) and runs the Quick start's first command there; it must end
        with status 0 and run every example. Uncommitted changes are not in the clone (said
        on stdout): commit first to check them.
"""
import os
import re
import shutil
import subprocess
import sys
import time


def quickstart_commands(readme):
    """The commands of the first indented code block under '## Quick start'."""
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"^## Quick start\n(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        sys.exit(f"{readme}: error: no '## Quick start' section")
    block, started = [], False
    for line in m.group(1).splitlines():
        if line.startswith("    "):
            started = True
            block.append(line.strip())
        elif started and line.strip():
            break
    commands = [re.sub(r"\s+#.*$", "", line) for line in block if line and not line.startswith("#")]
    return [c for c in commands if c]


def check_static(src):
    failures = []
    commands = quickstart_commands(os.path.join(src, "README.md"))
    if len(commands) != 2:
        failures.append(f"README.md: error: the Quick start has {len(commands)} commands, not 2: {commands}")
    scripts = []
    for c in commands:
        words = c.split()
        if len(words) != 2 or words[0] != "bash":
            failures.append(f"README.md: error: Quick start command '{c}' is not 'bash <script>'")
            continue
        if not os.path.isfile(os.path.join(src, words[1])):
            failures.append(f"README.md: error: Quick start command '{c}': {words[1]} is not in the repository")
        tracked = subprocess.run(["git", "-C", src, "ls-files", "--error-unmatch", words[1]],
                                 capture_output=True).returncode == 0
        if not tracked:
            failures.append(f"README.md: error: Quick start command '{c}': {words[1]} is not committed")
        scripts.append(words[1])
    # .ci/run: both commands, the main job first, each as a command of its own line.
    ci = os.path.join(src, ".ci", "run")
    ci_lines = [l.split("#")[0].strip() for l in open(ci, encoding="utf-8")]
    where = []
    for c in commands:
        found = [i for i, l in enumerate(ci_lines) if l == c]
        if not found:
            failures.append(f".ci/run: error: does not run the Quick start command '{c}'")
        where.append(found[0] if found else -1)
    if len(where) == 2 and min(where) >= 0 and where[0] > where[1]:
        failures.append(".ci/run: error: runs the tests before the main job")
    # Every example is run by the main job.
    if scripts:
        main = open(os.path.join(src, scripts[0]), encoding="utf-8").read()
        for name in sorted(os.listdir(os.path.join(src, "examples"))):
            if os.path.isdir(os.path.join(src, "examples", name)) and f"examples/{name}" not in main:
                failures.append(f"{scripts[0]}: error: does not build examples/{name}")
    for f in failures:
        print(f)
    if not failures:
        print(f"Quick start: {commands}; .ci/run runs both, the main job first; every example is in {scripts[0]}")
    return 1 if failures else 0


def check_clone(src, work):
    clone = os.path.join(work, "clone")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    head = subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--untracked-files=normal"],
                           capture_output=True, text=True, check=True).stdout
    if dirty:
        print(f"note: the work tree has changes that are not committed; the clone holds {head} without them")
    subprocess.run(["git", "clone", "-q", src, clone], check=True)
    main = quickstart_commands(os.path.join(clone, "README.md"))[0]
    print(f"fresh clone of {head} in {clone}: {main}", flush=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("UDFKIT_") and k not in ("CMAKE_PREFIX_PATH",)}
    t0 = time.monotonic()
    log_path = os.path.join(work, "main.log")
    with open(log_path, "w") as log:
        rc = subprocess.run(main.split(), cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT).returncode
    seconds = time.monotonic() - t0
    log_text = open(log_path, encoding="utf-8", errors="replace").read()
    failures = []
    if rc != 0:
        failures.append(f"'{main}' ended with status {rc} after {seconds:.0f} s")
    for example in ("== examples/quickstart", "== examples/cuda-udfs", "== examples/late-bound"):
        if example not in log_text:
            failures.append(f"'{main}' did not reach '{example}'")
    if failures:
        print(log_text[-6000:])
        for f in failures:
            print(f"error: {f} (the whole log: {log_path})")
        return 1
    print(f"'{main}' in a fresh clone: status 0 in {seconds:.0f} s, every example built and run")
    shutil.rmtree(work, ignore_errors=True)
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "static":
        return check_static(sys.argv[2])
    if len(sys.argv) == 4 and sys.argv[1] == "clone":
        return check_clone(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
