#!/usr/bin/env python3
"""strings-oracle: the host's expectation of written text in the GPU string tests
(gpu_utf8_replaced in tests/gpu/gpu_strings.h, what gpu-strings expects of a result built from
a view) is CPython's bytes.decode('utf-8', 'replace').encode(): every string of one and two
bytes, every three-byte string over the bytes where UTF-8's rules change, and random strings of
the pieces gpu-strings' rows are made of (ASCII, 2- 3- and 4-byte sequences, FF, C0, cut
sequences) and of random bytes. A C program (cc -Wall -Wextra -Werror) over the header itself.

Environment: UDFKIT_SOURCE_DIR, CC."""
import os
import random
import subprocess
import sys
import tempfile

SOURCE = os.environ.get("UDFKIT_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
DRIVER = r"""
#include "gpu_test.h"
#include "gpu_strings.h"

/* Lines of hex in, the replaced text of each as hex out. */
int main(void)
{
    static char line[1 << 16];
    static char bytes[1 << 15];
    while (fgets(line, sizeof line, stdin)) {
        size_t n = 0;
        for (const char *p = line; p[0] && p[1] && p[0] != '\n'; p += 2) {
            unsigned v = 0;
            sscanf(p, "%2x", &v);
            bytes[n++] = (char)v;
        }
        size_t size = 0;
        char *out = gpu_utf8_replaced(bytes, n, &size);
        for (size_t i = 0; i < size; i++)
            printf("%02x", (unsigned char)out[i]);
        printf("\n");
        free(out);
    }
    return 0;
}
"""
# Where the rules of UTF-8 change: the ranges of lead and continuation bytes, and their edges.
EDGES = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
         0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
PIECES = [b"a", b"z", b"\xc3\xa9", b"\xe4\xb8\xad", b"\xf0\x9f\x98\x80", b"\xff", b"\xc0", b"\xe4\xb8", b"\xf0\x9f",
          b"\xf0\x9f\x98", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe0\x80\x80"]


def cases():
    out = [bytes([a]) for a in range(256)]
    out += [bytes([a, b]) for a in range(256) for b in range(256)]
    out += [bytes([a, b, c]) for a in EDGES for b in EDGES for c in EDGES]
    rng = random.Random(20261126)
    for _ in range(20000):
        out.append(b"".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 12))))
        out.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 24))))
    return out


def main():
    cc = os.environ.get("CC") or "cc"
    with tempfile.TemporaryDirectory() as work:
        src, exe = os.path.join(work, "oracle.c"), os.path.join(work, "oracle")
        with open(src, "w") as f:
            f.write(DRIVER)
        cmd = [cc, "-std=c17", "-O1", "-Wall", "-Wextra", "-Wshadow", "-Werror", "-I", os.path.join(SOURCE, "tests", "gpu"),
               "-I", os.path.join(SOURCE, "src", "runtime", "include"), src, "-o", exe]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0 and not proc.stderr, f"{' '.join(cmd)}:\n{proc.stdout}{proc.stderr}"
        inputs = cases()
        proc = subprocess.run([exe], input="".join(b.hex() + "\n" for b in inputs), capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, proc.stderr
        got = proc.stdout.split("\n")[:-1]
        assert len(got) == len(inputs), f"{len(got)} lines for {len(inputs)} strings"
        wrong = 0
        for b, g in zip(inputs, got):
            want = b.decode("utf-8", "replace").encode("utf-8").hex()
            if g != want:
                wrong += 1
                if wrong <= 10:
                    print(f"FAIL {b.hex()}: gpu_utf8_replaced gives {g}, CPython {want}")
    print(f"{len(inputs)} strings, {wrong} differ from CPython")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
