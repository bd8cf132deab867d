#!/usr/bin/env python3
"""The baseline of the launcher_checks benchmark: a generated library's launchers with their
argument checks taken out, renamed so that both link into one program.

usage: strip_checks.py NAME NEW IN.c IN.h OUT.c OUT.h

Removes each launcher's check block (from its comment "The arguments, checked before ..."
through its last refusal) and renames the library's public names NAME_* to NEW_* (its
header, guard and functions; the kernels' names and the fatbin symbol stay NAME's, so the
copy loads the same fatbin). Fails where it finds no block, so that a change of the
generated text cannot leave the baseline with its checks.
"""
import re
import sys

name, new, c_in, h_in, c_out, h_out = sys.argv[1:]
BLOCK = re.compile(r"    /\* The arguments, checked before anything is loaded or queued \(docs/security\.md\)\. \*/\n"
                   r"(?:    (?:if|const char \*refused).*\n(?:        return udfkit_\w+_refuse\(.*\n)?)*")


def rename(text):
    text = re.sub(rf"\b{name}_", f"{new}_", text)
    text = text.replace(f"{new}_fatbin", f"{name}_fatbin")
    text = text.replace(f'"{name}.h"', f'"{new}.h"').replace(f"UDFKIT_LIBRARY_{name}_H", f"UDFKIT_LIBRARY_{new}_H")
    return text


c = open(c_in).read()
c, blocks = BLOCK.subn("", c)
if not blocks or "refused = " in c:
    sys.exit(f"strip_checks.py: {c_in}: found {blocks} check blocks and left {c.count('refused = ')} lines of them")
open(c_out, "w").write(rename(c))
open(h_out, "w").write(rename(open(h_in).read()))
print(f"strip_checks.py: {blocks} launchers' checks taken out into {c_out}")
