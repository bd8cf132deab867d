"""The C ABI string functions Python UDFs call (udfkit_strings.SHIM_SOURCE), compiled for the
host by g++ (-Wall -Wextra -Werror) and called through ctypes as the numba lowering calls
them, against CPython over the gpu-python-strings corpus: every operation's bytes, its
row error where CPython raises, strings kept inline, in the row's arena and on the heap
(counted: every block the functions allocate is freed when the row ends, strings made from
numbers and literals alone included). Used by test_string_python.py (strings-python)."""
import ctypes
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src", "frontend"))
sys.path.insert(0, os.path.join(HERE, "..", "gpu"))
import build_python_strings  # noqa: E402
import udfkit_strings  # noqa: E402

HOST_PRELUDE = """#define __device__
#define __forceinline__ inline
#include <stdlib.h>
extern "C" {
long long udfkit_host_blocks;
int udfkit_host_error;
void udfkit_row_error(int code) { udfkit_host_error = code; }
}
static void *udfkit_host_malloc(size_t n) { udfkit_host_blocks++; return malloc(n); }
static void udfkit_host_free(void *p) { if (p) udfkit_host_blocks--; free(p); }
#define malloc udfkit_host_malloc
#define free udfkit_host_free
"""
NPOS = (1 << 63) - 1


class Str(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p), ("size", ctypes.c_longlong), ("ctx", ctypes.c_void_p),
                ("inl", ctypes.c_char * udfkit_strings.INLINE)]


class Out(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_longlong), ("capacity", ctypes.c_longlong),
                ("overflowed", ctypes.c_int)]


def build(work, include, cxx):
    source = os.path.join(work, "shims.cpp")
    with open(source, "w") as f:
        f.write(HOST_PRELUDE + udfkit_strings.SHIM_SOURCE)
    lib = os.path.join(work, "shims.so")
    proc = subprocess.run([cxx, "-std=c++17", "-O1", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror",
                           "-Wno-unused-function", "-I", include, source, "-o", lib], capture_output=True, text=True)
    assert proc.returncode == 0, f"{cxx} failed on the string functions:\n{proc.stderr}"
    return ctypes.CDLL(lib)


def arg(a):
    """A shim's argument: a string by address, an int as long long."""
    if isinstance(a, Str):
        return ctypes.byref(a)
    return a if a is None or isinstance(a, ctypes._SimpleCData) else ctypes.c_longlong(a)


class Row:
    """One row: its arena (as the wrapper makes it) and the strings made in it."""

    def __init__(self, lib):
        self.lib = lib
        self.ctx = (ctypes.c_longlong * 7)()
        self.arena = ctypes.create_string_buffer(udfkit_strings.ARENA)
        self.keep = []
        lib.udfkit_pystr_ctx_init(self.ctx, self.arena)

    def param(self, data):
        buf = ctypes.create_string_buffer(data, len(data) or 1)
        self.keep.append(buf)
        s = Str()
        self.lib.udfkit_pystr_param(ctypes.byref(s), buf, ctypes.c_longlong(len(data)), self.ctx)
        return s

    def literal(self, text):
        data = text.encode()
        buf = ctypes.create_string_buffer(data, len(data) or 1)
        self.keep.append(buf)
        s = Str()
        s.ptr, s.size = ctypes.cast(buf, ctypes.c_void_p), len(data)
        return s

    def call(self, name, *args):
        """A shim making a string: its result."""
        out = Str()
        conv = [arg(a) for a in args]
        getattr(self.lib, f"udfkit_pystr_{name}")(ctypes.byref(out), *conv)
        return out

    def value(self, name, *args, restype=ctypes.c_longlong):
        fn = getattr(self.lib, f"udfkit_pystr_{name}")
        fn.restype = restype
        conv = [arg(a) for a in args]
        return fn(*conv)

    def text(self, s):
        """The result as the wrapper appends it (measured, then written)."""
        m = Out(None, 0, 0, 0)
        self.lib.udfkit_pystr_emit(ctypes.byref(m), ctypes.byref(s))
        buf = ctypes.create_string_buffer(m.size or 1)
        w = Out(ctypes.cast(buf, ctypes.c_void_p), 0, m.size, 0)
        self.lib.udfkit_pystr_emit(ctypes.byref(w), ctypes.byref(s))
        assert w.size == m.size and not w.overflowed
        return buf.raw[:m.size]

    def end(self, result=None):
        self.lib.udfkit_pystr_release(self.ctx, ctypes.byref(result) if result is not None else None)


def python(fn, *args):
    """CPython's result, or "raise"."""
    try:
        return fn(*args)
    except (ValueError, IndexError):
        return "raise"


def check(include, cxx, work):
    lib = build(work, include, cxx)
    error = ctypes.c_int.in_dll(lib, "udfkit_host_error")
    blocks = ctypes.c_longlong.in_dll(lib, "udfkit_host_blocks")
    rows = build_python_strings.corpus()
    others = build_python_strings.second_column(rows)
    cases = 0
    failures = []

    def same(what, got, want, data):
        nonlocal cases
        cases += 1
        if got != want and len(failures) < 20:
            failures.append(f"{what} of {data[:60]!r}: got {got!r}, CPython {want!r}")

    def text_op(row, name, s, py, *args):
        error.value = 0
        r = row.call(name, s, *args)
        got = "raise" if error.value == -1 else row.text(r)
        want = py if py == "raise" else py.encode()
        return got, want

    ops = [
        ("upper", lambda x: x.upper(), ()), ("lower", lambda x: x.lower(), ()), ("title", lambda x: x.title(), ()),
        ("capitalize", lambda x: x.capitalize(), ()), ("swapcase", lambda x: x.swapcase(), ()),
        ("casefold", lambda x: x.casefold(), ()), ("strip", lambda x: x.strip(), ()),
        ("lstrip", lambda x: x.lstrip(), ()), ("rstrip", lambda x: x.rstrip(), ()),
        ("zfill", lambda x: x.zfill(12), (12,)), ("at", lambda x: x[0], (0,)), ("at", lambda x: x[-1], (-1,)),
        ("at", lambda x: x[7], (7,)), ("slice", lambda x: x[1:4], (1, 4, 1)),
        ("slice", lambda x: x[::-1], (NPOS, -NPOS - 1, -1)), ("slice", lambda x: x[5:1:-2], (5, 1, -2)),
        ("slice", lambda x: x[::3], (0, NPOS, 3)), ("slice", lambda x: x[-3:], (-3, NPOS, 1)),
        ("repeat", lambda x: x * 3, (3,)),
    ]
    for i, data in enumerate(rows):
        x = data.decode("utf-8", "replace")
        tdata = others[i]
        t = tdata.decode("utf-8", "replace")
        for name, py, args in ops:
            row = Row(lib)
            got, want = text_op(row, name, row.param(data), python(py, x), *args)
            row.end()
            same(f"{name}{args}", got, want, data)
        row = Row(lib)
        s, u = row.param(data), row.param(tdata)
        same("concat", row.text(row.call("concat", s, u)), (x + t).encode(), data)
        many = row.call("concat", row.call("concat", row.literal("<"), s), row.call("concat", row.literal("|"), u))
        many = row.call("concat", many, row.call("upper", s))
        same("concat of several", row.text(many), ("<" + x + "|" + t + x.upper()).encode(), data)
        same("replace", row.text(row.call("replace", s, row.literal("a"), row.literal("ÄÄ"), -1)),
             x.replace("a", "ÄÄ").encode(), data)
        same("replace cols", row.text(row.call("replace", s, u, row.literal("-"), 2)), x.replace(t, "-", 2).encode(),
             data)
        same("strip chars", row.text(row.call("strip_chars", s, row.literal("xé"))), x.strip("xé").encode(), data)
        same("len", row.value("len", s), len(x), data)
        same("find", row.value("find", s, u, 0, NPOS), x.find(t), data)
        same("rfind", row.value("rfind", s, row.literal(" "), 0, 5), x.rfind(" ", 0, 5), data)
        same("count", row.value("count", s, row.literal("a"), 0, NPOS), x.count("a"), data)
        same("in", row.value("contains", s, u, restype=ctypes.c_int) != 0, t in x, data)
        same("==", row.value("eq", s, u, restype=ctypes.c_int) != 0, x == t, data)
        cmp = row.value("cmp", s, u, restype=ctypes.c_int)
        same("<", cmp < 0, x < t, data)
        same("isalpha", row.value("isalpha", s, restype=ctypes.c_int) != 0, x.isalpha(), data)
        same("istitle", row.value("istitle", s, restype=ctypes.c_int) != 0, x.istitle(), data)
        for k in (1, -1):
            error.value = 0
            part = row.call("split_part", s, row.literal(","), k, -1, ctypes.c_int(0))
            got = "raise" if error.value == -1 else row.text(part)
            want = python(lambda: x.split(",")[k])
            same(f"split(',')[{k}]", got, want if want == "raise" else want.encode(), data)
        error.value = 0
        part = row.call("split_part", s, None, -1, -1, ctypes.c_int(0))
        got = "raise" if error.value == -1 else row.text(part)
        want = python(lambda: x.split()[-1])
        same("split()[-1]", got, want if want == "raise" else want.encode(), data)
        same("len(split)", row.value("split_count", s, row.literal(","), -1), len(x.split(",")), data)
        error.value = 0
        v = row.value("to_int", s, 10)
        want = python(int, x)
        if want != "raise" and not -(1 << 63) <= want < (1 << 63):
            want = "raise"
        same("int()", "raise" if error.value == -1 else v, want, data)
        error.value = 0
        fv = row.value("to_double", s, restype=ctypes.c_double)
        want = python(float, x)
        same("float()", "raise" if error.value == -1 else repr(fv), want if want == "raise" else repr(want), data)
        row.end()
        # Strings made from a number and literals alone: their own heap arena, freed with the
        # result, or adopted by the row's when they meet its strings.
        n = len(data) * 1000003 - 7
        row = Row(lib)
        num = row.call("from_int", n)
        long = row.call("concat", row.literal("a prefix longer than the inline bytes: "), num)
        same("str(int)", row.text(long), f"a prefix longer than the inline bytes: {n}".encode(), data)
        row.end(long)
        row = Row(lib)
        long = row.call("concat", row.call("from_int", n), row.literal(" and a suffix longer than the inline bytes"))
        same("startswith", row.value("startswith", row.param(data), long, 0, NPOS) != 0,
             x.startswith(f"{n} and a suffix longer than the inline bytes"), data)
        row.end()
        if blocks.value and len(failures) < 20:
            failures.append(f"{blocks.value} heap blocks left after the rows of {data[:60]!r}")
            blocks.value = 0
    # str() of the numbers at the edges (int64's ends, the float of int64's ends halved as
    # int64 * 0.5 makes it, zeros, infinities, NaN, where repr turns scientific, subnormals).
    edges = [0, -1, 7, -(1 << 63), (1 << 63) - 1, 10**18, -(10**18)]
    floats = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e16, 1e-5, 1e-4, 1e15, 123456789012345680.0,
              5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308,
              float(-(1 << 63)), float((1 << 63) - 1), -(1 << 63) * 0.5, ((1 << 63) - 1) * 0.5, 0.1, 1 / 3,
              float(1 << 53), float((1 << 53) + 1), 9007199254740993.0, 2.0**-1074 * 3]
    for v in edges:
        row = Row(lib)
        same("str(int)", row.text(row.call("from_int", ctypes.c_longlong(v))), str(v).encode(), str(v).encode())
        row.end()
    for v in floats:
        row = Row(lib)
        same("str(float)", row.text(row.call("from_double", ctypes.c_double(v))), str(v).encode(),
             repr(v).encode())
        row.end()
    for v in ((1 << 64) - 1, 1 << 63, 0):
        row = Row(lib)
        same("str(uint64)", row.text(row.call("from_uint", ctypes.c_ulonglong(v))), str(v).encode(), str(v).encode())
        row.end()
    assert not failures, "\n".join(failures)
    return cases
