"""Builds the Python-strings GPU test (gpu-python-strings): every UDF of
tests/data/strings/py_strings.py compiled by udfkit (numba-cuda) into library ps (map of each,
nullable_map of the nullable ones), a corpus of text, and CPython's own results of each UDF
over it, computed here by running the same Python functions.

The corpus: fixed strings (empty, whitespace of several kinds, ASCII, Latin with ß, Greek
with final sigma, Turkish I, ligatures, titlecase digraphs, Cyrillic, CJK, emoji with
modifiers, numbers in every form int() and float() take and some they refuse, separators,
ill-formed UTF-8) and random ones of 1 byte to 10 KB drawn from the same alphabets; a second
column whose rows are often a part of the first's (for `t in s`, find, replace); int64s for
str(). Rows are bytes: CPython reads them as bytes.decode('utf-8', 'replace').

Writes into OUT: ps_launchers.c, ps.h, ps_fatbin.c (the library), ps_dispatch.c (one entry per
UDF: its launchers behind uniform signatures), s.off/s.chars, t.off/t.chars (int64 offsets
and bytes), x.bin (int64), valid.bin (a byte per row: the nullable column's validity), and for
each UDF <name>.err (a byte per row: 1 where CPython raised) and <name>.out (int64, a byte for
bool, float64) or <name>.off/<name>.chars (a string result).

usage: build_python_strings.py UDFKIT DATA_DIR OUT ARCHS
"""
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "strings"))
import py_strings  # noqa: E402

UDFKIT = DATA = OUT = ARCHS = None  # main's arguments

FIXED = [
    "", " ", "  \t\n ", "\u3000\u2003", "a", "abc", "ABC", "Abc Def", "hello, world", "Hello World", "x", "xyz",
    "ab", "abz", "aab", "a,b", ",", ",,", "a,b,c,d", "x,y", " a b  c ", "ß", "straße", "STRASSE", "Maße und Gewichte",
    "ΣΑΣ", "ὈΔΥΣΣΕΎΣ", "σς", "ΑΣ ΣΑ", "İstanbul", "ıiIİ", "ﬁnance", "ǅemal", "ǈ", "ŉ", "Привет, мир", "ЁЖИК",
    "中文字符", "日本語,テキスト", "한국어", "😀😃, 👍🏽", "👨‍👩‍👧", "é", "e\u0301", "café", "naïve résumé",
    "0", "7", "-42", " 7 ", "+13\n", "1_000", "1__0", "٣٤", "０１２", "12a", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "0x1f", "3.14", "-1e10", "1e400", "inf", "-Infinity", "nan",
    "1.5e-7", ".5", "5.", "1_0.2_5", "e5", "--1", "\u00b2", "½", "Ⅻ", "a\u00a0b", "tab\tsep", "x" * 300,
    "é" * 200, "ab" * 600, "a_b", "_x1", "1x", "Title Case Words", "UPPER lower", "MiXeD cAsE 123",
    "zzz", "abcz", "abababab", "ÄÄa", "éxéxé", "  xé  ", "aaa ", "a" * 40 + " tail",
]
# Ill-formed UTF-8 (each ill-formed subsequence one U+FFFD, as CPython decodes with 'replace').
INVALID = [b"\xff", b"a\xc3", b"\xe2\x82\xac\xe2\x82", b"\xc0\xaf", b"ab\xed\xa0\x80cd", b"\xf0\x9f\x98",
           b"x\x80y", b"\xfe\xfe,\xff"]

ALPHABETS = {
    "ascii": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,.-_",
    "latin": "àáâäçèéêëìíîïñòóôöùúûüÿßÀÉÎÖÜŒœ ,",
    "greek": "αβγδεζηθικλμνξοπρσςτυφχψωΑΒΓΔΣΩάέήίόύώ ",
    "cyrillic": "абвгдежзийклмнопрстуфхцчшщъыьэюяАБВГДЁЖЗ ",
    "cjk": "中文字符日本語漢字한국어テキストの",
    "emoji": "😀😃👍🏽🎉🚀❤️✨",
    "space": " \t\n\r\x0b\x0c\u00a0\u2003\u3000",
    "digits": "0123456789",
}


def corpus():
    rng = random.Random(20261126)
    rows = [s.encode() for s in FIXED] + INVALID
    kinds = list(ALPHABETS)
    while len(rows) < 3500:
        if rng.random() < 0.1:  # numbers, as int() and float() read them
            v = rng.choice([rng.randint(-10**18, 10**18), rng.randint(-999, 999), rng.uniform(-1e6, 1e6),
                            rng.expovariate(1e-3) * 10 ** rng.randint(-300, 300)])
            text = repr(v) if rng.random() < 0.7 else f" {v} "
            rows.append(text.encode())
            continue
        r = rng.random()
        size = rng.randint(1, 12) if r < 0.55 else rng.randint(13, 120) if r < 0.97 else rng.randint(121, 10240)
        mix = rng.sample(kinds, rng.randint(1, 3))
        text = "".join(rng.choice(ALPHABETS[rng.choice(mix)]) for _ in range(size))
        data = text.encode()
        if len(data) > 10240:
            data = data[:10240].decode("utf-8", "ignore").encode()
        if not data:
            data = b"a"
        if rng.random() < 0.02:
            at = rng.randrange(len(data) + 1)
            data = data[:at] + rng.choice(INVALID) + data[at:]
        rows.append(data)
    return rows


def second_column(rows):
    """Row i: a part of row i (a third of the rows), another row, or an affix."""
    rng = random.Random(7)
    out = []
    for i, data in enumerate(rows):
        s = data.decode("utf-8", "replace")
        k = i % 3
        if k == 0 and s:
            a = rng.randrange(len(s))
            out.append(s[a:a + rng.randint(0, 4)].encode())
        elif k == 1:
            out.append(rows[(i * 7 + 1) % len(rows)])
        else:
            out.append(rng.choice([b"", b"a", b",", b" ", "é".encode(), b"ab", s[-2:].encode()]))
    return out


def run(*cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")


def write_strings(path, values):
    offsets, at = [0], 0
    for v in values:
        at += len(v)
        offsets.append(at)
    with open(path + ".off", "wb") as f:
        f.write(struct.pack(f"<{len(offsets)}q", *offsets))
    with open(path + ".chars", "wb") as f:
        f.write(b"".join(values))


def parse(spec):
    ret, params = spec.split("(", 1)
    return ret, [p.strip() for p in params[:-1].split(",")]


INT64 = (-(1 << 63), (1 << 63) - 1)


def expected(name, spec, s_rows, t_rows, x_rows, valid):
    """CPython's results: (errors, values)."""
    fn = getattr(py_strings, name)
    ret, params = parse(spec)
    errs, values = [], []
    for i in range(len(s_rows)):
        args = []
        for k, p in enumerate(params):
            if p == "int64":
                args.append(x_rows[i])
            else:
                text = (s_rows if k == 0 else t_rows)[i].decode("utf-8", "replace")
                args.append(None if p.endswith("?") and not valid[i] else text)
        try:
            r = fn(*args)
            if ret == "int64" and not INT64[0] <= r <= INT64[1]:
                raise OverflowError(r)  # int() of a number past int64: udfkit fails the row
            errs.append(0)
        except (ValueError, IndexError, OverflowError):
            errs.append(1)
            r = None
        values.append(r)
    return errs, values


def dispatch(name, spec):
    """C wrappers of one UDF's launchers behind the test's uniform signatures."""
    ret, params = parse(spec)
    nullable = "?" in spec
    kernel = f"ps_{'nullable_' if nullable else ''}map_{name}"
    ins = []
    for k, p in enumerate(params):
        ins.append("(const int64_t *)in->x" if p == "int64" else f"in->col[{k}]")
        if p.endswith("?"):
            ins.append("in->mask")
    ins = ", ".join(ins)
    lines = []
    if ret.startswith("string"):
        extra = ", out_bits, NULL" if nullable else ""
        lines.append(f"static udfkit_status {name}_sizes(const inputs *in, size_t n, void *off)\n"
                     f"{{ return {kernel}_sizes(NULL, n, {ins}, off); }}")
        lines.append(f"static udfkit_status {name}_sizes32(const inputs *in, size_t n, void *off)\n"
                     f"{{ return {kernel}_sizes32(NULL, n, {ins}, off); }}")
        lines.append(f"static udfkit_status {name}_write(const inputs *in, size_t n, const void *off, char *chars, "
                     f"uint8_t *out_bits)\n{{ {'(void)out_bits; ' if not nullable else ''}return {kernel}(NULL, n, "
                     f"{ins}, off, chars{extra}); }}")
        lines.append(f"static udfkit_status {name}_write32(const inputs *in, size_t n, const void *off, char *chars, "
                     f"uint8_t *out_bits)\n{{ {'(void)out_bits; ' if not nullable else ''}return {kernel}32(NULL, n, "
                     f"{ins}, off, chars{extra}); }}")
        entry = (f'{{"{name}", \'s\', {int(nullable)}, NULL, {name}_sizes, {name}_sizes32, {name}_write, '
                 f"{name}_write32}}")
    else:
        extra = ", out_bits, NULL" if nullable else ""
        lines.append(f"static udfkit_status {name}_map(const inputs *in, size_t n, void *out, uint8_t *out_bits)\n"
                     f"{{ {'(void)out_bits; ' if not nullable else ''}return {kernel}(NULL, n, {ins}, out{extra}); }}")
        kind = {"int64": "i", "bool": "b", "float64": "f"}[ret.rstrip("?")]
        entry = f'{{"{name}", \'{kind}\', {int(nullable)}, {name}_map, NULL, NULL, NULL, NULL}}'
    return "\n".join(lines) + "\n", entry


def main():
    global UDFKIT, DATA, OUT, ARCHS
    UDFKIT, DATA, OUT, ARCHS = sys.argv[1:5]
    os.makedirs(OUT, exist_ok=True)
    specs = py_strings.SPECS
    source = os.path.join(DATA, "strings", "py_strings.py")
    functions = [f"{n}:{s}" for n, s in specs.items()]
    run(UDFKIT, "compile", source, "--function", *functions, "--arch", ARCHS, "--python-frontend", "numba-cuda",
        "-o", f"{OUT}/ps_udfs.json")
    kernels = []
    for n, s in specs.items():
        kernels += ["--kernel", f"{'nullable_map' if '?' in s else 'map'}({n})"]
    run(UDFKIT, "kernels", f"{OUT}/ps_udfs.json", *kernels, "--name", "ps", "--cuda", f"{OUT}/ps_kernels.cu", "--c",
        f"{OUT}/ps_launchers.c", "--header", f"{OUT}/ps.h", "--units", f"{OUT}/ps_units.json")
    run(UDFKIT, "compile", f"{OUT}/ps_kernels.cu", "--arch", ARCHS, "-o", f"{OUT}/ps_kernels.json")
    # By link units, as add_jit_library links (docs/build-speed.md).
    run(UDFKIT, "link", f"{OUT}/ps_kernels.json", f"{OUT}/ps_udfs.json", "--arch", ARCHS, "--units",
        f"{OUT}/ps_units.json", "-o", f"{OUT}/ps.fatbin")
    run(UDFKIT, "embed", f"{OUT}/ps.fatbin", "--symbol", "ps_fatbin", "-o", f"{OUT}/ps_fatbin.c")

    s_rows = corpus()
    t_rows = second_column(s_rows)
    rng = random.Random(11)
    x_rows = [rng.choice([0, -1, 7, INT64[0], INT64[1], rng.randint(-10**6, 10**6), rng.randint(*INT64)])
              for _ in s_rows]
    valid = [0 if i % 5 == 2 else 1 for i in range(len(s_rows))]
    write_strings(f"{OUT}/s", s_rows)
    write_strings(f"{OUT}/t", t_rows)
    with open(f"{OUT}/x.bin", "wb") as f:
        f.write(struct.pack(f"<{len(x_rows)}q", *x_rows))
    with open(f"{OUT}/valid.bin", "wb") as f:
        f.write(bytes(valid))
    wrappers, entries = [], []
    for name, spec in specs.items():
        errs, values = expected(name, spec, s_rows, t_rows, x_rows, valid)
        with open(f"{OUT}/{name}.err", "wb") as f:
            f.write(bytes(errs))
        ret = parse(spec)[0].rstrip("?")
        if ret == "string":
            # A null (None) or failed row's expected text is empty; the test skips failed rows.
            write_strings(f"{OUT}/{name}", [v.encode() if isinstance(v, str) else b"" for v in values])
            with open(f"{OUT}/{name}.null", "wb") as f:
                f.write(bytes(1 if v is None and not e else 0 for v, e in zip(values, errs)))
        else:
            fmt = {"int64": "q", "bool": "B", "float64": "d"}[ret]
            with open(f"{OUT}/{name}.out", "wb") as f:
                f.write(b"".join(struct.pack("<" + fmt, 0 if v is None else v) for v in values))
            with open(f"{OUT}/{name}.null", "wb") as f:
                f.write(bytes(1 if v is None and not e else 0 for v, e in zip(values, errs)))
        w, e = dispatch(name, spec)
        wrappers.append(w)
        entries.append(e)
    with open(f"{OUT}/ps_dispatch.c", "w") as f:
        f.write("/* Generated by tests/gpu/build_python_strings.py: library ps's launchers by UDF. */\n")
        f.writelines(wrappers)
        f.write("static const ps_case ps_cases[] = {\n    " + ",\n    ".join(entries) + "};\n")
        f.write(f"#define PS_ROWS {len(s_rows)}\n")


if __name__ == "__main__":
    main()
