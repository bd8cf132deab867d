#!/usr/bin/env python3
"""Checks the shape of src/ that README's Layout section describes:

- every quoted include names a file under src/ by its path ("base/buf.h"), or one of the
  including file's own folder;
- a stage includes only from its own stage or those before it in STAGES (no upward include);
- no include cycle between units (a unit is a .c file and its .h);
- no function longer than MAX_LINES lines, C or Python.

Prints each violation as file:line: error: ... and exits 1 if there is any."""
import ast
import os
import re
import sys

# In the order a UDF passes through them; each may include from those before it.
STAGES = ["base", "cache", "nvidia", "artifact", "frontend", "codegen", "link"]
# Components on top: what each may include from src/ besides its own folder.
TOP = {
    "cli": set(STAGES),
    "runtime": {"base", "cache", "nvidia", "artifact", "frontend"},
    "tools": {"base", "nvidia"},  # build-time helpers, and udfkit-sandbox (NVRTC and nvJitLink, confined)
}
MAX_LINES = 120
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def c_functions(text):
    """(name, first line, length) of each function definition in udfkit's style: the
    declaration starts at column 0 and the body's braces stand alone at column 0."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            start = i - 1
            while start > 0 and lines[start - 1].strip() and not lines[start - 1].rstrip().endswith((";", "}", "*/")) \
                    and not lines[start - 1].startswith("#"):
                start -= 1
            m = re.search(r"([A-Za-z_]\w*)\s*\(", " ".join(lines[start:i]))
            end = i + 1
            while end < len(lines) and lines[end] != "}":
                end += 1
            yield (m.group(1) if m else "?"), start + 1, end - start + 1
            i = end
        i += 1


def python_functions(text):
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1


def main(src):
    errors = []
    files = {}
    for dirpath, _, names in os.walk(src):
        for name in names:
            path = os.path.join(dirpath, name)
            files[os.path.relpath(path, src)] = path
    units = {}
    for rel, path in sorted(files.items()):
        folder = rel.split(os.sep)[0] if os.sep in rel else ""
        text = open(path, encoding="utf-8").read()
        if rel.endswith(".py"):
            funcs = python_functions(text)
        elif rel.endswith(".c"):
            funcs = c_functions(text)
        else:
            funcs = ()
        for name, line, length in funcs:
            if length > MAX_LINES:
                errors.append(f"{rel}:{line}: error: function '{name}' has {length} lines (at most {MAX_LINES})")
        if not rel.endswith((".c", ".h", ".inc")):
            continue
        unit = os.path.splitext(rel)[0]
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            own = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
            if "/" in inc and inc in files:
                target = inc
            elif "/" not in inc and own in files:
                target = own
            else:
                continue  # generated at build time or a system-style header found elsewhere
            to = target.split("/")[0]
            if folder in STAGES:
                allowed = set(STAGES[: STAGES.index(folder) + 1])
            else:
                allowed = TOP.get(folder, set()) | {folder}
            if to not in allowed:
                errors.append(f"{rel}:{line}: error: '{folder}' includes '{target}' from a later stage")
            dep = os.path.splitext(target)[0]
            if dep != unit:
                units.setdefault(unit, set()).add(dep)
    # Cycles between units, by depth-first search with colours.
    state = {}

    def visit(u, stack):
        state[u] = 1
        stack.append(u)
        for v in sorted(units.get(u, ())):
            if state.get(v) == 1:
                cycle = stack[stack.index(v):] + [v]
                errors.append(f"{u}: error: include cycle: {' -> '.join(cycle)}")
            elif v not in state:
                visit(v, stack)
        stack.pop()
        state[u] = 2

    for u in sorted(units):
        if u not in state:
            visit(u, [])
    for e in errors:
        print(e)
    print(f"{len(files)} files checked, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "src")))
