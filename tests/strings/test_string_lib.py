#!/usr/bin/env python3
"""strings-lib: every function of <udfkit/string.cuh> against CPython, on the host.

Builds a corpus (fixed strings of many scripts and cases, random ones from all planes, random
bytes, numbers), writes the cases, runs string_lib_check (compiled here with g++ -Werror from
tests/strings/string_lib_check.cpp) and compares each result with what CPython gives for
the same operation on bytes.decode('utf-8', 'replace'), bit for bit: views by their bytes,
written text by its UTF-8, doubles by their bits, hashes with libxxhash's XXH64. Prints the
number of cases per function.

Environment: UDFKIT_SOURCE_DIR (the checkout), CXX (default g++), UDFKIT_TEST_SANITIZE
(sanitizers to build the check with, comma-separated), UDFKIT_TEST_WORK (a directory to keep
the cases and results in; by default a temporary one)."""
import collections
import ctypes
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

NPOS = 2**63 - 1
SOURCE = os.environ.get("UDFKIT_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(SOURCE, "src", "tools"))
import gen_string_tables  # noqa: E402  (is_cased, is_case_ignorable: the probes the tables use)


def xxh64():
    lib = ctypes.CDLL("libxxhash.so.0")
    lib.XXH64.restype = ctypes.c_uint64
    lib.XXH64.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]
    return lambda b, seed: lib.XXH64(b, len(b), seed)


def step_length(b, i):
    """The bytes CPython's decoder with errors='replace' takes for one code point (or U+FFFD)
    at b[i]: the maximal subpart rule, checked against CPython by steps()."""
    b0 = b[i]
    if b0 < 0xC2 or b0 > 0xF4:
        return 1
    need = 2 if b0 < 0xE0 else 3 if b0 < 0xF0 else 4
    lo = 0xA0 if b0 == 0xE0 else 0x90 if b0 == 0xF0 else 0x80
    hi = 0x9F if b0 == 0xED else 0x8F if b0 == 0xF4 else 0xBF
    n = 1
    while n < need and i + n < len(b):
        ok = lo <= b[i + n] <= hi if n == 1 else 0x80 <= b[i + n] <= 0xBF
        if not ok:
            break
        n += 1
    return n


def steps(b):
    """The byte offset of each code point of b.decode('utf-8', 'replace'), and the end."""
    bounds, i = [0], 0
    while i < len(b):
        i += step_length(b, i)
        bounds.append(i)
    t = b.decode("utf-8", "replace")
    assert len(bounds) - 1 == len(t), b
    for k in range(len(t)):
        assert b[bounds[k]:bounds[k + 1]].decode("utf-8", "replace") == t[k], (b, k)
    return bounds


FIXED = [
    "", " ", "a", "A", "abc", "ABC", "Hello, World!", "hello world", "HELLO WORLD", "Hello World", "hELLO wORLD",
    "they're bill's friends from the UK", "123aBc", "123@.!", "rapids ai", "1.234", ".123a", "20010101",
    "  padded  ", "\t\n\x0b\x0c\r \x1c\x1d\x1e\x1f", "\x85\xa0\u1680\u2000\u2001\u200a\u2028\u2029\u202f\u205f\u3000",
    " \u3000x\u2003y\x85", "a b  c   d", "  a  b  c ", "a,b,,c,", ",", ",,", "aaa", "aaaa", "abab", "a\x00b",
    "café", "naïve", "ÀÉÎÕÜ", "ÿ", "Ÿ", "µ", "ª", "º", "ŉ", "ǰ", "ΐ", "ΰ", "ẞ", "ß", "Straße", "STRASSE", "ﬁ", "ﬂ", "ﬀ", "ﬃ", "ﬄ",
    "ﬅ", "ﬆ", "ﬁnance", "ΣΑΣ", "ΌΣΟΣ", "Σ", "σ", "ς", "aΣ", "Σa", "a.Σ", "aΣ.b", "ΑΣ'Σ", "σς", "ὈΔΥΣΣΕΎΣ",
    "Σ\u0301", "A\u0301Σ", "AΣ\u0301", "AΣ\u0301b", "1Σ", "ʰΣ", "ʰΣa", "ΣΣ", "ΣΣΣ", "a ΣΣ b", "Ἀθῆναι", "ᾼ", "ᾳ",
    "Привет мир", "ЁЖИК", "ёжик", "İstanbul", "ıi", "İ", "I", "ı", "i̇", "İİ", "Iı", "漢字", "日本語テキスト", "한국어",
    "中文 English 混合", "😀", "👨\u200d👩\u200d👧\u200d👦", "👍🏽", "🏳️\u200d🌈", "😀😃😄", "a😀b", "e\u0301", "a\u0308\u0304",
    "\u0301", "\u0345", "ǅ", "ǆ", "Ǆ", "ǈ", "ǋ", "ǲ", "ǅungla", "ǄUNGLA", "ǆungla", "Ǳ", "ǳ", "ᾈ", "ᾀ",
    "²", "³", "½", "¼", "⅓", "Ⅻ", "ⅻ", "①", "⑽", "١٢٣", "߀", "𝟘𝟙", "〇", "零", "٣.٥", "１２３", "᠐", "𑁦",
    "123", "-45", "+6", " 7 ", "1_000", "1__0", "_1", "1_", "0x1f", "0X1F", "0b101", "0o17", "0_7", "00", "0_0",
    "1e10", "1.5", "-.5e-3", "inf", "-Infinity", "nAn", "-nan", "+inf", "infinit", "1_0.5", "1._5", "1e_5", "1e5_",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551616", " \u3000 42 \u2003", "\x1c5", "\x855", "4\u00a0", "5\x00", "٣٤", "1e400", "-1e-400",
    "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9e-324", "2.4703282292062327e-324",
    "2.4703282292062328e-324", "1.7976931348623157e308", "1.7976931348623159e308", "0.1", "1.", ".5", ".",
    "e5", "1e", "1e+", "- 1", "1 2", "_x", "x1", "1x", "αβ", "a-b", "a\u0301", "if", "None", "__init__", "℘",
    "\u2118x", "x\u00b7", "·x", "ⅰ", "ª", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "\U000e0001\U000e0041", "\U000f0000", "\U0010ffff",
    "\ufffd", "a\ufffdb", "\ufeff", "\u200b", "\u00ad", "ǈUNGLA", "Ὀδυσσεύς", "ΆΈΉ", "ΰΐ",
]
INVALID = [
    b"\xff", b"\xfe", b"\x80", b"\xbf", b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xe0\x9f\xbf", b"\xed\xa0\x80",
    b"\xed\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf0\x80\x80\x80", b"\xf0\x90\x80", b"\xe2\x82",
    b"\xe2\x82\xac", b"\xe2\x82a", b"a\x80b", b"\xc3", b"\xc3(", b"\xf8\x88\x80\x80\x80", b"\xfc\x84\x80\x80\x80\x80",
    b"\xf0\x9f\x98", b"\xf0\x9f\x98\x80\x80", b"\xef\xbf\xbd", b"\xef\xbf", b"\xe2\x82\xe2\x82\xac", b"Stra\xdfe",
    b"\xce\xa3\xff", b"A\xce\xa3\xff", b"A\xce\xa3\xce", b"\xff\xce\xa3", b"1\xff", b"\xff1", b"  \xff  ", b"\xa0",
    b"\x80\x80\x80\x80", b"\xf4\x8f\xbf\xbf", b"\xf4\x8f\xbf", b"\xed\x9f\xbf", b"\xef\xbf\xbf", b"a\xe0\xa0b",
    b"\xc2\x85x\xc2\x85", b"\xcf\x82\xff\xce\xa3",
]


def random_code_point(rng):
    """From all planes, more often from the busy blocks."""
    ranges = [(0x20, 0x7F), (0x80, 0x250), (0x370, 0x530), (0x1E00, 0x2000), (0x2000, 0x2100), (0x3000, 0x3100),
              (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0xE000, 0xF900), (0xFB00, 0xFFFF), (0x10000, 0x1FFFF),
              (0x1F300, 0x1FAFF), (0x20000, 0x3134F), (0x31350, 0xDFFFF), (0xE0000, 0xE01F0), (0xF0000, 0x10FFFF),
              (0x0, 0x110000)]
    while True:
        lo, hi = rng.choice(ranges)
        c = rng.randrange(lo, hi)
        if not 0xD800 <= c <= 0xDFFF:
            return c


def random_strings(rng):
    out = []
    alphabets = ["abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,_-",
                 "aAbBσΣςßẞﬁİıiIǅǆǄ\u0301 .'", " \t\u3000\u2003x", "ab", "a", "Σ σ.Α'", "0123456789_+-. eE",
                 "日本語😀👍🏽\u200d ", "ЁЖИКёжик ", "١٢٣٤٥ 0123"]
    for n in range(2500):
        kind = n % 5
        length = rng.choice([1, 2, 3, 5, 8, 13, 30, 100, 700, 3000, 10000]) if n % 13 else rng.randrange(1, 40)
        if kind == 0:
            t = "".join(rng.choice(alphabets[n % len(alphabets)]) for _ in range(length))
            out.append(t.encode())
        elif kind == 1:
            out.append("".join(chr(random_code_point(rng)) for _ in range(max(1, length // 3))).encode())
        elif kind == 2:
            out.append(bytes(rng.randrange(256) for _ in range(length)))
        elif kind == 3:
            b = bytearray("".join(chr(random_code_point(rng)) for _ in range(max(1, length // 3))).encode())
            for _ in range(rng.randrange(1, 4)):
                b.insert(rng.randrange(len(b) + 1), rng.choice([0x80, 0xBF, 0xC3, 0xE2, 0xF0, 0xFF, 0xED]))
            out.append(bytes(b[:10240]))
        else:
            t = "".join(rng.choice("ΣσςΑα.'\u0301 ʰ1") for _ in range(length))
            out.append(t.encode())
    return out


def word_edges():
    """Ill-formed and edge sequences (the second-byte ranges of E0, ED, F0 and F4, C0, C1, F5
    to FF, stray and missing continuation bytes, 4-byte code points) at each offset 0 to 7 in
    ASCII text of 24 and 40 bytes: the library reads text a word of 4 bytes at a time and looks
    at a word's bytes together with the 3 before it."""
    pieces = [b"\xe0\x80\x80", b"\xe0\xa0\x80", b"\xed\xa0\x80", b"\xed\x9f\xbf", b"\xf0\x80\x80\x80",
              b"\xf0\x90\x80\x80", b"\xf4\x90\x80\x80", b"\xf4\x8f\xbf\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xf5\x80\x80\x80",
              b"\xff\x80", b"\x80", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xf0\x9f\x98\x80", b"\xc3\xa9\x80"]
    out = []
    for piece in pieces:
        for offset in range(8):
            for size in (24, 40):
                out.append((b"needle the "[:offset] + piece).ljust(size, b"e"))
    return out


def corpus(rng):
    strings = [s.encode() for s in FIXED] + list(INVALID) + word_edges()
    strings += [s.encode("utf-8", "surrogatepass") for s in ("\ud800", "a\udfffb", "\udbff\udfff")]
    strings += random_strings(rng)
    return strings


class Cases:
    """The case file (strings once, cases naming them) and the expected results."""

    def __init__(self):
        self.strings, self.index, self.lines, self.expected, self.ops = [], {}, [], [], []

    def s(self, b):
        if b not in self.index:
            self.index[b] = len(self.strings)
            self.strings.append(b)
        return f"s{self.index[b]}"

    def add(self, op, args, expected):
        self.lines.append("C " + op + " " + " ".join(str(a) for a in args))
        self.expected.append(expected)
        self.ops.append(op)

    def write(self, path):
        with open(path, "w") as f:
            for b in self.strings:
                f.write("S " + b.hex() + "\n")
            for line in self.lines:
                f.write(line.rstrip() + "\n")


def view(bounds, i, j):
    return "V0,0" if j <= i else f"V{bounds[i]},{bounds[j] - bounds[i]}"


def text(t):
    """Written text as string_lib_check prints it: short text whole, longer text by its size,
    its first 48 bytes and its FNV-1a hash."""
    b = t.encode("utf-8")
    if len(b) <= 48:
        return "B" + b.hex()
    h = 0xCBF29CE484222325
    for byte in b:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"B{len(b)}:{b[:48].hex()}:{h:016x}"


def T(b):
    return "T" if b else "F"


def predicates(c, b, t):
    for op, f in (("is_alnum", str.isalnum), ("is_alpha", str.isalpha), ("is_ascii", str.isascii),
                  ("is_decimal", str.isdecimal), ("is_digit", str.isdigit), ("is_identifier", str.isidentifier),
                  ("is_lower", str.islower), ("is_numeric", str.isnumeric), ("is_printable", str.isprintable),
                  ("is_space", str.isspace), ("is_title", str.istitle), ("is_upper", str.isupper)):
        c.add(op, [c.s(b)], T(f(t)))
    try:
        b.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        valid = False
    c.add("valid", [c.s(b)], T(valid))
    c.add("length", [c.s(b)], f"I{len(t)}")


def mappings(c, b, t, rng):
    for op, f in (("to_upper", str.upper), ("to_lower", str.lower), ("capitalize", str.capitalize),
                  ("title", str.title), ("swapcase", str.swapcase), ("casefold", str.casefold)):
        c.add(op, [c.s(b)], text(f(t)))
    c.add("append", [c.s(b)], text(t))
    c.add("append_repeated", [c.s(b), 3], text(t * 3))
    for w in (0, len(t) + 3, rng.randrange(-2, len(t) + 10)):
        c.add("zfill", [c.s(b), w], text(t.zfill(w)))
    fill = rng.choice([ord(" "), ord("*"), 0x3A3, 0x1F600])
    for op, f in (("ljust", str.ljust), ("rjust", str.rjust), ("center", str.center)):
        for w in (len(t) + 1, len(t) + 4, rng.randrange(0, len(t) + 9)):
            c.add(op, [c.s(b), w, fill], text(f(t, w, chr(fill))))


def strips(c, b, t, bounds, rng):
    n = len(t)
    left, right = n - len(t.lstrip()), len(t.rstrip())
    c.add("strip", [c.s(b)], view(bounds, left, right))
    c.add("lstrip", [c.s(b)], view(bounds, left, n))
    c.add("rstrip", [c.s(b)], view(bounds, 0, right))
    sets = [b" ", b"ab", "Σσ.".encode(), b"\xff", "\ufffd".encode(), b""]
    if t:
        sets.append(t[0].encode() + t[-1].encode())
        sets.append(b[: rng.randrange(1, len(b) + 1)])
    for chars in sets:
        tc = chars.decode("utf-8", "replace")
        left, right = n - len(t.lstrip(tc)), len(t.rstrip(tc))
        c.add("strip_chars", [c.s(b), c.s(chars)], view(bounds, left, right))
        c.add("lstrip_chars", [c.s(b), c.s(chars)], view(bounds, left, n))
        c.add("rstrip_chars", [c.s(b), c.s(chars)], view(bounds, 0, right))


def needles(b, t, rng):
    found = [b"", b"a", b" ", "Σ".encode(), "\ufffd".encode(), b"\xff", b"\x82", b"ab", "ß".encode()]
    if len(b) > 300:
        found = rng.sample(found, 2)
    if t:
        for _ in range(3):
            i = rng.randrange(len(t))
            j = rng.randrange(i, min(len(t), i + 6) + 1)
            found.append(t[i:j].encode())
        i = rng.randrange(len(b))
        found.append(b[i:i + rng.randrange(1, 5)])
    return found


def indices(n, rng, heavy):
    picks = [(0, NPOS), (1, NPOS), (-2, NPOS), (0, -1), (n, n), (n + 1, NPOS), (-NPOS - 1, NPOS), (2, 1)]
    random_pair = (rng.randrange(-n - 3, n + 4), rng.randrange(-n - 3, n + 4))
    return [(0, NPOS), random_pair] if heavy else rng.sample(picks, 4) + [random_pair]


def searches(c, b, t, bounds, rng):
    for nb in needles(b, t, rng):
        nt = nb.decode("utf-8", "replace")
        c.add("contains", [c.s(b), c.s(nb)], T(nt in t))
        for start, end in indices(len(t), rng, len(b) > 300):
            args = [c.s(b), c.s(nb), start, end]
            c.add("find", args, f"I{t.find(nt, start, end)}")
            c.add("rfind", args, f"I{t.rfind(nt, start, end)}")
            c.add("count", args, f"I{t.count(nt, start, end)}")
            c.add("starts_with", args, T(t.startswith(nt, start, end)))
            c.add("ends_with", args, T(t.endswith(nt, start, end)))
        pre = view(bounds, len(nt), len(t)) if nt and t.startswith(nt) else view(bounds, 0, len(t))
        c.add("remove_prefix", [c.s(b), c.s(nb)], pre)
        suf = view(bounds, 0, len(t) - len(nt)) if nt and t.endswith(nt) else view(bounds, 0, len(t))
        c.add("remove_suffix", [c.s(b), c.s(nb)], suf)
        combos = [(b"-", -1), (b"", -1), ("ΣΣ".encode(), 1), (b"\xff", 2), (b"-", 0)]
        for new, count in combos if len(b) <= 300 else rng.sample(combos, 2):
            c.add("replace", [c.s(b), c.s(nb), c.s(new), count],
                  text(t.replace(nt, new.decode("utf-8", "replace"), count)))


def split_positions(t, sep, maxsplit, reverse):
    """Where each part of t.split(sep, maxsplit) (or rsplit) lies, as code point ranges."""
    parts, most = [], maxsplit if maxsplit >= 0 else len(t) + 1
    if not reverse:
        i = 0
        while len(parts) < most:
            p = t.find(sep, i)
            if p < 0:
                break
            parts.append((i, p))
            i = p + len(sep)
        parts.append((i, len(t)))
        assert [t[a:z] for a, z in parts] == t.split(sep, maxsplit)
    else:
        j = len(t)
        while len(parts) < most:
            p = t.rfind(sep, 0, j)
            if p < 0:
                break
            parts.append((p + len(sep), j))
            j = p
        parts.append((0, j))
        parts.reverse()
        assert [t[a:z] for a, z in parts] == t.rsplit(sep, maxsplit)
    return parts


def whitespace_positions(t, maxsplit, reverse):
    words, i = [], 0
    while i < len(t):
        while i < len(t) and t[i].isspace():
            i += 1
        if i == len(t):
            break
        j = i
        while j < len(t) and not t[j].isspace():
            j += 1
        words.append((i, j))
        i = j
    if 0 <= maxsplit < len(words):
        # The rest runs to the end (or from the start) of t, whitespace included.
        if not reverse:
            words = words[:maxsplit] + [(words[maxsplit][0], len(t))]
        else:
            words = [(0, words[len(words) - maxsplit - 1][1])] + words[len(words) - maxsplit:]
    expected = t.rsplit(None, maxsplit) if reverse else t.split(None, maxsplit)
    assert [t[a:z] for a, z in words] == expected, (t, maxsplit, reverse)
    return words


def splits(c, b, t, bounds, rng):
    heavy = len(b) > 300
    seps = [b",", b" ", b"a", b"aa", "Σ".encode(), b"\xff", b""]
    if t:
        i = rng.randrange(len(t))
        seps.append(t[i:i + rng.randrange(1, 3)].encode())
    for sep in rng.sample(seps, 3) if heavy else seps:
        st = sep.decode("utf-8", "replace")
        for maxsplit in (-1,) if heavy else (-1, 0, 2):
            c.add("split_count", [c.s(b), c.s(sep), maxsplit], f"I{len(t.split(st, maxsplit)) if st else 0}")
            for op, reverse in (("split_part", False), ("rsplit_part", True)):
                parts = split_positions(t, st, maxsplit, reverse) if st else []
                for k in (0, 1, -1, 5):
                    ok = st and -len(parts) <= k < len(parts)
                    c.add(op, [c.s(b), c.s(sep), k, maxsplit], view(bounds, *parts[k]) if ok else "E")
    for maxsplit in (-1, 1) if heavy else (-1, 0, 1, 2):
        c.add("split_count_ws", [c.s(b), maxsplit], f"I{len(t.split(None, maxsplit))}")
        for op, reverse in (("split_ws", False), ("rsplit_ws", True)):
            parts = whitespace_positions(t, maxsplit, reverse)
            for k in (0, 1, 2, -1, -2, 4):
                ok = -len(parts) <= k < len(parts)
                c.add(op, [c.s(b), k, maxsplit], view(bounds, *parts[k]) if ok else "E")


def slices(c, b, t, bounds, rng):
    n = len(t)
    picks = [0, 1, -1, 2, -2, n, -n, n + 1, -n - 1, NPOS, -NPOS - 1] + [rng.randrange(-n - 2, n + 3) for _ in range(3)]
    for i in picks[:11]:
        ok = -n <= i < n
        k = i % n if ok else 0
        c.add("at", [c.s(b), i], view(bounds, k, k + 1) if ok else "E")
        c.add("code_point_at", [c.s(b), i], f"I{ord(t[i])}" if ok else "E")
    for _ in range(2 if len(b) > 300 else 4):
        start, stop = rng.choice(picks), rng.choice(picks)
        a, z, _ = slice(start, stop).indices(n)
        c.add("slice", [c.s(b), start, stop], view(bounds, a, max(a, z)))
        pos, count = rng.choice(picks), rng.choice(picks)
        p = max(0, pos + n) if pos < 0 else pos
        p = min(p, n)
        c.add("substr", [c.s(b), pos, count], view(bounds, p, min(n, p + max(0, count))))
        steps_ = (1, 2, 3, -1, -2, 7, -5, 0, NPOS, -NPOS - 1)
        for step in rng.sample(steps_, 4) if len(b) > 300 else steps_:
            c.add("slice_step", [c.s(b), start, stop, step], "E" if step == 0 else text(t[start:stop:step]))
    c.add("slice_step", [c.s(b), NPOS, -NPOS - 1, -1], text(t[::-1]))


def decoding(c, b, bounds):
    t = b.decode("utf-8", "replace")
    c.add("decode", [c.s(b)], "D" + "".join(f"{ord(t[k])}:{bounds[k + 1] - bounds[k]}," for k in range(len(t))))


def to_int_expected(t, base):
    try:
        v = int(t, base)
    except ValueError:
        return "P1"
    return f"P0:{v}" if -2**63 <= v < 2**63 else "P2"


def to_double_expected(t):
    try:
        v = float(t)
    except ValueError:
        return "P1"
    return "P0:" + struct.pack(">d", v).hex()


def numbers_of(c, b, t, hash_of, rng):
    for base in (10, 0, 16, rng.randrange(2, 37)):
        c.add("to_int", [c.s(b), base], to_int_expected(t, base))
    c.add("to_double", [c.s(b)], to_double_expected(t))
    for seed in (0, rng.getrandbits(64)):
        c.add("hash", [c.s(b), seed], f"{hash_of(b, seed):016x}")


def compares(c, strings, rng):
    pairs = list(zip(strings, strings[1:]))
    for b in strings:
        pairs += [(b, b), (b, b + b"x"), (b, b[:-1]), (b, bytes(reversed(b)))]
        if b:
            i = rng.randrange(len(b))
            pairs.append((b, b[:i] + bytes([rng.randrange(256)]) + b[i + 1:]))
    pairs += [(b"\xff", b"\xfe"), (b"\xff", "\ufffd".encode()), (b"\xe2\x82", b"\xe2\x82\xac"), (b"\xe2\x82", b"\xff\xff"),
              (b"a\xffb", b"a\xfeb"), (b"\xc3", b"\xc3\xa9"), (b"\xf0\x9f\x98", "\ufffd".encode()),
              (b"\x7f", b"\xc2\x80"), ("\uffff".encode(), "\U00010000".encode())]
    for x, y in pairs:
        tx, ty = x.decode("utf-8", "replace"), y.decode("utf-8", "replace")
        c.add("compare", [c.s(x), c.s(y)], f"I{(tx > ty) - (tx < ty)}")


def char_expected(c):
    ch = chr(c)
    bits = [ch.isalpha(), ch.isdecimal(), ch.isdigit(), ch.isnumeric(), ch.isalnum(), ch.islower(), ch.isupper(),
            ch.istitle() and not ch.isupper(), ch.isspace(), ch.isprintable(), gen_string_tables.is_cased(ch),
            gen_string_tables.is_case_ignorable(ch), ch.isidentifier(), ("a" + ch).isidentifier()]
    line = "".join("1" if x else "0" for x in bits) + f":{int(ch) if ch.isdecimal() else -1}"
    for mapped in (ch.upper(), ch.lower(), ch.title(), ch.casefold()):
        line += ":" + ".".join(f"{ord(m):x}" for m in mapped)
    return line


def code_points(c):
    """Every code point's properties and mappings, 4096 to a case; encoding and appending."""
    for lo in range(0, 0x110000, 0x1000):
        c.add("chars", [lo, lo + 0x1000], "".join(char_expected(cp) + ";" for cp in range(lo, lo + 0x1000)))
    c.add("ascii_flags", [], "I-1")
    for cp in list(range(0, 0x800, 7)) + [0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFFFD, 0xFFFF,
                                          0x10000, 0x10FFFF, 0x110000, 0xFFFFFFFF] + list(range(0x800, 0x110000, 997)):
        t = "\ufffd" if 0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF else chr(cp)
        c.add("encode", [cp], text(t))
        c.add("append_code_point", [cp], text(t))


def int_strings(rng):
    out = []
    digits = {"arabic": "٠١٢٣٤٥٦٧٨٩", "devanagari": "०१२३४५६७८९", "fullwidth": "０１２３４５６７８９"}
    for _ in range(1500):
        v = rng.choice([rng.randrange(-10, 10), rng.randrange(-2**31, 2**31), rng.randrange(-2**63, 2**63),
                        rng.randrange(2**63 - 5, 2**63 + 5) * rng.choice([1, -1]), rng.randrange(-2**70, 2**70)])
        s = str(v)
        r = rng.random()
        if r < 0.2:
            s = "_".join(s[i:i + rng.randrange(1, 4)] for i in range(0, len(s), 3)).replace("-_", "-")
        elif r < 0.3:
            s = rng.choice([" ", "\t", "\u3000", "\x85", "\x1c", "\xa0", ""]) + s + rng.choice([" ", "\n", "\u2003", ""])
        elif r < 0.4:
            table = digits[rng.choice(list(digits))]
            s = "".join(table[int(ch)] if ch.isdigit() else ch for ch in s)
        elif r < 0.5:
            s = rng.choice(["+", "-", "--", "+-", " -"]) + s.lstrip("-")
        elif r < 0.55:
            s = s.replace(rng.choice("0123456789"), rng.choice("x_ .e"), 1)
        out.append(s)
    for base, prefix in ((16, "0x"), (8, "0o"), (2, "0b"), (16, "0X"), (2, "0B")):
        for _ in range(60):
            v = rng.randrange(0, 2**rng.choice([4, 20, 63, 64, 70]))
            body = format(v, {16: "x", 8: "o", 2: "b"}[base])
            out.append(rng.choice(["", "-", "+"]) + rng.choice([prefix, prefix + "_", ""]) + body)
    out += ["0" * 4300, "0" * 4301, "1" * 4300, "1" * 4301, "0x" + "f" * 5000, "0b" + "1" * 64, "0" + "_0" * 10,
            "0_7", "07", "00", "0x", "0b2", "0o8", "1_", "_1", "1__2", "1_2", " 1_2 ", "z", "Z", "zz", "0z"]
    return out


def float_strings(rng):
    out = []
    for _ in range(3000):
        bits = rng.getrandbits(64) if rng.random() < 0.5 else struct.unpack("<Q", struct.pack("<d", rng.uniform(-1e6, 1e6)))[0]
        d = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if math.isnan(d):
            continue
        out.append(rng.choice([repr(d), f"{d:.17g}", f"{d:.20e}", f"{d:.3e}", f"{d:.40g}", f"{d:.25f}"]))
    for _ in range(3000):
        n = rng.choice([1, 5, 15, 17, 19, 20, 25, 40, 800])
        mant = "".join(rng.choice("0123456789") for _ in range(n))
        point = rng.randrange(0, n + 1)
        s = mant[:point] + ("." if rng.random() < 0.7 else "") + mant[point:]
        if rng.random() < 0.7:
            s += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randrange(0, 400))
        out.append(rng.choice(["", "-", "+"]) + s)
    out += halfway_strings(rng)
    out += ["1_0.5", "1.0_5", "1e1_0", "1_e5", "1._5", "_1.5", "1.5_", "1__0", "infinity", "INFINITY", "iNfInItY", "+nan",
            "-NaN", "nan ", " inf", "in", "infinit", "infinityy", "nann", "0x10", "1e", "1e+", "1e-", "e1", "-", "+", "",
            "1.2.3", "1e5.5", "١.٥e١", "０.５", "1e99999999999", "1e-99999999999", "0e99999999999", "-0", "-0.0e-5",
            "0." + "0" * 400 + "1", "1" + "0" * 400, "." + "0" * 1000 + "1e1000", "4.9406564584124654e-324",
            "2.4703282292062327208828439643411068618252990130716238221279284125033775364e-324",
            "2.4703282292062327208828439643411068618252990130716238221279284125033775363e-324",
            "1.7976931348623158079372897140530341507993413271003782693617377898044496829276e308",
            "1.7976931348623158079372897140530341507993413271003782693617377898044496829275e308",
            "9007199254740993", "9007199254740992.5", "9007199254740993.0000000000000001", "0.1" + "0" * 30 + "1"]
    return out


def halfway_strings(rng):
    """Decimals exactly halfway between two doubles, and just off, the cases that need the
    exact comparison."""
    from fractions import Fraction
    out = []
    for _ in range(1500):
        e = rng.choice([rng.randrange(1, 2046), rng.randrange(1, 60), rng.randrange(1990, 2046), 0])
        bits = e << 52 | rng.getrandbits(52)
        x = struct.unpack("<d", struct.pack("<Q", bits))[0]
        y = math.nextafter(x, math.inf)
        if math.isinf(y) or x == 0 and y == 0:
            continue
        mid = (Fraction(x) + Fraction(y)) / 2
        k = 0
        while mid.denominator != 1:
            mid *= 10
            k += 1
        digits = str(mid.numerator)
        out.append(f"{digits}e-{k}")
        out.append(f"{digits}000000001e-{k + 9}")
        out.append(f"{int(digits) - 1}9999999999e-{k + 10}")
        cut = rng.randrange(1, len(digits) + 1)
        out.append(f"{digits[:cut]}e-{k - (len(digits) - cut)}")
    return out


def numbers(c, rng):
    for s in int_strings(rng):
        b = s.encode()
        for base in (10, 0, 16, 2, 8, 36):
            c.add("to_int", [c.s(b), base], to_int_expected(s, base))
    for s in float_strings(rng):
        c.add("to_double", [c.s(s.encode())], to_double_expected(s))
    doubles = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
               1e16, 1e15, 1e17, 1e22, 1e23, 0.1, 0.2, 0.3, 1 / 3, 1e-4, 1e-5, 123456789012345678.0, 9007199254740993.0,
               2.0**63, 1.5, 100.0]
    doubles += [10.0**p for p in range(-325, 309)] + [2.0**p for p in range(-1074, 1024, 7)] + [float(i) for i in range(-50, 1000, 7)]
    for _ in range(30000):
        bits = rng.getrandbits(64)
        doubles.append(struct.unpack("<d", struct.pack("<Q", bits))[0])
    for d in doubles:
        bits = struct.unpack("<Q", struct.pack("<d", d))[0]
        c.add("append_double", [bits], text(repr(d)))
    for v in [0, 1, -1, 2**63 - 1, -2**63, 10**18, -10**18] + [rng.randrange(-2**63, 2**63) for _ in range(500)]:
        c.add("append_int", [v], text(str(v)))
    for v in [0, 2**64 - 1, 2**63] + [rng.randrange(0, 2**64) for _ in range(200)]:
        c.add("append_uint", [v], text(str(v)))
    c.add("roundtrip", [88172645463325252, 2000000], "I0")


def build_check(work):
    exe = os.path.join(work, "string_lib_check")
    cmd = [os.environ.get("CXX") or "g++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-Wshadow", "-Werror",
           "-I", os.path.join(SOURCE, "src", "runtime", "include"),
           os.path.join(SOURCE, "tests", "strings", "string_lib_check.cpp"), "-o", exe]
    sanitize = os.environ.get("UDFKIT_TEST_SANITIZE")
    if sanitize:
        cmd[1:1] = [f"-fsanitize={sanitize}", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
    subprocess.run(cmd, check=True)
    return exe


def shown(c, line):
    words = line.split()[1:]
    out = []
    for w in words[1:]:
        if w.startswith("s") and w[1:].isdigit():
            b = c.strings[int(w[1:])]
            out.append(repr(b[:60]) + ("..." if len(b) > 60 else ""))
        else:
            out.append(w)
    return words[0] + "(" + ", ".join(out) + ")"


def main():
    keep = os.environ.get("UDFKIT_TEST_WORK")
    if keep:
        os.makedirs(keep, exist_ok=True)
        return check(keep)
    with tempfile.TemporaryDirectory(prefix="udfkit-strings-") as work:
        return check(work)


def check(work):
    rng = random.Random(20240517)
    exe = build_check(work)
    hash_of = xxh64()
    c = Cases()
    strings = corpus(rng)
    for b in strings:
        t = b.decode("utf-8", "replace")
        bounds = steps(b)
        predicates(c, b, t)
        mappings(c, b, t, rng)
        strips(c, b, t, bounds, rng)
        searches(c, b, t, bounds, rng)
        splits(c, b, t, bounds, rng)
        slices(c, b, t, bounds, rng)
        decoding(c, b, bounds)
        numbers_of(c, b, t, hash_of, rng)
    compares(c, strings, rng)
    numbers(c, rng)
    code_points(c)
    cases, results = os.path.join(work, "cases.txt"), os.path.join(work, "results.txt")
    c.write(cases)
    subprocess.run([exe, cases, results], check=True, timeout=1800)
    with open(results) as f:
        got = f.read().split("\n")[:-1]
    assert len(got) == len(c.expected), f"{len(got)} results for {len(c.expected)} cases"
    counts, wrong = collections.Counter(c.ops), []
    for line, want, have in zip(c.lines, c.expected, got):
        if want != have:
            wrong.append((line, want, have))
    print(f"{len(strings)} corpus strings ({sum(len(b) for b in strings)} bytes, the longest {max(map(len, strings))});"
          f" {len(c.strings)} strings in all")
    for op in sorted(counts):
        print(f"  {op:18} {counts[op]:7} cases")
    for line, want, have in wrong[:30]:
        print(f"MISMATCH {shown(c, line)}:\n  CPython: {want[:300]}\n  udfkit:  {have[:300]}")
    print(f"{len(c.expected)} cases, {len(wrong)} differ from CPython")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
