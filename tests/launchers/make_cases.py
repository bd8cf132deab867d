#!/usr/bin/env python3
"""Writes the launchers of generated libraries as data for launcher_checks.c.

usage: make_cases.py OUT.c NAME=HEADER...

For each launcher a header declares (udfkit_status <name>_<template>_...(udfkit_stream s,
size_t n, ...)): its parameters, each with the rule docs/security.md ("Column data: launcher arguments")
gives it, written here from that document rather than from the generator's table, so that
the test holds the generated checks to the documented rules; and a function calling it
with the arguments of an lc_args (values passed as 0).
"""
import re
import sys

TEMPLATES = sorted(["map", "filter", "reduce", "nullable_map", "nullable_filter", "nullable_reduce", "inclusive_scan",
                    "exclusive_scan", "reduce_by_key", "transform_reduce", "segmented_reduce", "sort"],
                   key=len, reverse=True)
MAX_ROWS = 1 << 56


def rule(template, name, has_strings):
    """(role, extent) of a pointer parameter, as docs/security.md states them."""
    if template in ("reduce", "nullable_reduce", "transform_reduce") and name == "out":
        return "LC_ALWAYS", "LC_ONE"
    if template == "sort" and name == "order" and not has_strings:
        return "LC_OPTIONAL", "LC_N"
    if template == "segmented_reduce" and name == "offsets":
        return "LC_ROWS", "LC_N_PLUS_1"
    if template == "segmented_reduce" and name == "in":
        return "LC_ALIGNED", "LC_UNKNOWN"
    if name in ("count", "runs"):
        return "LC_ALWAYS", "LC_ONE"
    if name == "null_count":
        return "LC_OPTIONAL", "LC_OUTPUTS"
    if name == "valid_count":
        return "LC_OPTIONAL", "LC_ONE"
    if name.endswith("_offsets"):
        return "LC_ALWAYS", "LC_N_PLUS_1"
    if name.endswith("_chars"):
        return "LC_UNCHECKED", "LC_UNKNOWN"
    if name.endswith("_bits"):
        return "LC_ROWS", "LC_BITS"
    return "LC_ROWS", "LC_N"


def parse_param(text):
    text = text.strip()
    m = re.fullmatch(r"(.*?)(\**)(\w+)", text)
    if not m:
        sys.exit(f"make_cases.py: cannot read the parameter '{text}'")
    ctype, stars, name = m.group(1).strip(), m.group(2), m.group(3)
    if ctype.endswith("*"):
        stars = "*" + stars
        ctype = ctype[:-1].strip()
    return ctype, bool(stars), name


def main():
    out, libs = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    decl = re.compile(r"^udfkit_status (\w+)\((.*)\);$")
    launchers = []
    for lib, header in libs:
        for line in open(header):
            m = decl.match(line.strip())
            if not m:
                continue
            name, params = m.group(1), [parse_param(p) for p in m.group(2).split(",")]
            slotted = params[0][2] == "inst"
            rest = params[1:] if slotted else params
            if len(rest) < 2 or rest[0][2] != "s" or rest[1][0] != "size_t":
                continue  # <name>_udf_error, <name>_bind
            tail = name[len(lib) + 1:]
            template = next(t for t in TEMPLATES if tail.startswith(t + "_"))
            launchers.append((lib, name, template, slotted, rest[1][2], rest[2:]))
    with open(out, "w") as f:
        f.write("/* Written by tests/launchers/make_cases.py; do not edit. */\n")
        f.write('#include "launcher_checks.h"\n\n#include <stdbool.h>\n')
        for lib, header in libs:
            f.write(f'#include "{header}"\n')
        for lib, _ in libs:
            if not any(l[0] == lib and l[3] for l in launchers):
                f.write(f"\nstatic udfkit_status lc_{lib}_udf_error(udfkit_stream s)\n{{\n"
                        f"    return {lib}_udf_error(s, NULL, NULL);\n}}\n")
        for i, (lib, name, template, slotted, count, params) in enumerate(launchers):
            args = ["a->s", "a->n"]
            for j, (ctype, pointer, pname) in enumerate(params):
                if ctype == "udfkit_mask":
                    args.append(f"a->m[{j}]")
                elif ctype == "udfkit_strings":
                    args.append(f"a->str[{j}]")
                elif pointer:
                    args.append(f"({ctype} *)a->p[{j}]")
                else:
                    args.append(f"({ctype}){{0}}")
            if slotted:
                args.insert(0, "NULL")
            f.write(f"\nstatic udfkit_status lc_call_{i}(const lc_args *a)\n{{\n    return {name}({', '.join(args)});\n}}\n")
        f.write("\nconst lc_launcher lc_launchers[] = {\n")
        for i, (lib, name, template, slotted, count, params) in enumerate(launchers):
            has_strings = any(p[0] == "udfkit_strings" for p in params)
            descs = []
            for ctype, pointer, pname in params:
                if ctype == "udfkit_mask":
                    descs.append(f'{{"{pname}", LC_MASK, LC_ROWS, LC_N, 0, 0}}')
                elif ctype == "udfkit_strings":
                    descs.append(f'{{"{pname}", LC_STRINGS, LC_ROWS, LC_N, 0, 0}}')
                elif pointer:
                    role, extent = rule(template, pname, has_strings)
                    element = ctype.replace("const ", "")
                    written = int(not ctype.startswith("const "))
                    descs.append(f'{{"{pname}", LC_POINTER, {role}, {extent}, sizeof({element}), {written}}}')
                else:
                    descs.append(f'{{"{pname}", LC_VALUE, LC_ROWS, LC_N, 0, 0}}')
            most = (1 << 32) if "_indices32" in name else MAX_ROWS
            error = "NULL" if slotted else f"lc_{lib}_udf_error"
            f.write(f'    {{"{name}", "{lib}", "{count}", {int(slotted)}, {most}ull, {len(params)},\n'
                    f'     {{{", ".join(descs)}}},\n     lc_call_{i}, {error}}},\n')
        f.write(f"}};\nconst size_t lc_launcher_count = {len(launchers)};\n")


if __name__ == "__main__":
    main()
