#!/usr/bin/env python3
"""strings-tables: the committed tables of <udfkit/string.cuh> are what
src/tools/gen_string_tables.py writes. string_pow5.cuh is the same everywhere;
string_unicode.cuh only under a CPython of the Unicode version the header names (else
skipped, exit 77, saying why; the powers of five are still checked first)."""
import os
import re
import subprocess
import sys
import tempfile
import unicodedata

SOURCE = os.environ.get("UDFKIT_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
HEADERS = os.path.join(SOURCE, "src", "runtime", "include", "udfkit")


def main():
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, os.path.join(SOURCE, "src", "tools", "gen_string_tables.py"), out], check=True)
        with open(os.path.join(out, "string_pow5.cuh")) as f, open(os.path.join(HEADERS, "string_pow5.cuh")) as g:
            if f.read() != g.read():
                print("string_pow5.cuh differs from what gen_string_tables.py writes")
                return 1
        print("string_pow5.cuh: as generated")
        with open(os.path.join(HEADERS, "string_unicode.cuh")) as g:
            committed = g.read()
        version = re.search(r"\(Unicode ([0-9.]+)\)", committed).group(1)
        if version != unicodedata.unidata_version:
            print(f"string_unicode.cuh: skipped: it holds Unicode {version}, this CPython "
                  f"{sys.version.split()[0]} has Unicode {unicodedata.unidata_version}")
            return 77
        with open(os.path.join(out, "string_unicode.cuh")) as f:
            generated = f.read()
        # The header names the CPython that made it; another patch release of the same
        # Unicode version must give the same tables.
        strip = re.compile(r"CPython [0-9.]+[a-z0-9+]*'s")
        if strip.sub("", generated) != strip.sub("", committed):
            print("string_unicode.cuh differs from what gen_string_tables.py writes")
            return 1
        print(f"string_unicode.cuh: as generated (Unicode {version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
