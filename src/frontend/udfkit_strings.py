"""udfkit's Python strings (docs/strings.md, "Python UDFs"): a `str` parameter or result of a
Python UDF compiled by numba-cuda.

A string value is the numba type `str` of this module: the C ABI's bytes and size (UTF-8),
the row's arena the strings the UDF makes are kept in, and 24 bytes of its own for short
strings (str(int), one character, ...). Its methods and operators lower to calls of C ABI
device functions (SHIM_SOURCE, over <udfkit/string.cuh>, CPython's semantics), compiled once
per request by NVRTC and linked with the UDFs. A UDF with string parameters or results is
compiled through a wrapper of udfkit's C ABI (`const char *aN, int64_t aN_size`; a string
result through a leading `udfkit_string_out *`): the wrapper makes the row's arena (in
local memory, growing on the device heap), calls the UDF, appends its result to the
builder and frees what the arena took.

Errors Python raises (IndexError, ValueError of int(), float(), a zero slice step, ...)
fail the row as `raise` does (udfkit.ROW_ERROR_RAISED); a device heap too small for a
row's strings fails it with UDFKIT_ROW_ERROR_STRING_MEMORY. What numba cannot lower is a
typing error at the operation's line, naming it.

Loaded by udfkit_worker.py from the copy udfkit writes beside each request (embedded in the
tool when it is built: src/CMakeLists.txt).
"""

INLINE = 24  # bytes a string holds itself
ARENA = 512  # bytes of a row's arena in local memory

# The device functions the operations call (C ABI). A string is passed by address.
SHIM_SOURCE = r"""
#include <udfkit/string.cuh>

#define UDFKIT_PYSTR_INLINE 24 /* INLINE and ARENA above */
#define UDFKIT_PYSTR_ARENA 512
#define UDFKIT_PYSTR_RAISED (-1)
#define UDFKIT_PYSTR_MEMORY (-2147483632)

extern "C" __device__ void udfkit_row_error(int code);

typedef struct udfkit_pystr_block {
    struct udfkit_pystr_block *next;
} udfkit_pystr_block;

/* A row's arena: bump allocation in `base` (the wrapper's local memory), then blocks of
 * the device heap, freed by udfkit_pystr_release. `owned` 1: an arena on the heap itself, of
 * strings made from literals and numbers alone; 2: one the row's arena has adopted (on its
 * `adopted` list, through `next`), freed with it. */
typedef struct udfkit_pystr_ctx {
    char *base;
    long long used, cap;
    udfkit_pystr_block *blocks;
    long long owned;
    struct udfkit_pystr_ctx *adopted, *next;
} udfkit_pystr_ctx;

typedef struct udfkit_pystr {
    const char *ptr; /* NULL: the bytes are in inl */
    long long size;
    udfkit_pystr_ctx *ctx;
    char inl[UDFKIT_PYSTR_INLINE];
} udfkit_pystr;

using udfkit::string_view;

static __device__ __forceinline__ string_view V(const udfkit_pystr *s)
{
    return string_view(s->ptr ? s->ptr : s->inl, s->size);
}

static __device__ void take(udfkit_pystr_ctx *row, udfkit_pystr_ctx *o)
{
    if (o && o->owned == 1) {
        o->owned = 2;
        o->next = row->adopted;
        row->adopted = o;
    }
}

/* Where a string with an arena of its own meets one of the row's, the row adopts it: it is
 * freed when the row ends, whatever becomes of the string. */
static __device__ __forceinline__ void adopt(const udfkit_pystr *a, const udfkit_pystr *b)
{
    udfkit_pystr_ctx *row = a->ctx && !a->ctx->owned ? a->ctx : b->ctx && !b->ctx->owned ? b->ctx : nullptr;
    if (row && (a->ctx != b->ctx)) {
        take(row, a->ctx);
        take(row, b->ctx);
    }
}

static __device__ __forceinline__ udfkit_pystr_ctx *pick(const udfkit_pystr *a, const udfkit_pystr *b)
{
    if (a && b)
        adopt(a, b);
    if (a && a->ctx && !a->ctx->owned)
        return a->ctx;
    if (b && b->ctx && !b->ctx->owned)
        return b->ctx;
    return a && a->ctx ? a->ctx : b ? b->ctx : nullptr;
}

static __device__ void *heap(udfkit_pystr_ctx *ctx, long long n)
{
    udfkit_pystr_block *b = (udfkit_pystr_block *)malloc(sizeof(udfkit_pystr_block) + (size_t)n);
    if (!b)
        return nullptr;
    b->next = ctx->blocks;
    ctx->blocks = b;
    return b + 1;
}

/* Room for n bytes of a new string `out` of a row whose arena is ctx (NULL: none yet). */
static __device__ char *room(udfkit_pystr *out, udfkit_pystr_ctx *ctx, long long n)
{
    out->size = n;
    out->ctx = ctx;
    out->ptr = nullptr;
    if (n <= UDFKIT_PYSTR_INLINE)
        return out->inl;
    char *p = nullptr;
    if (!ctx) {
        ctx = (udfkit_pystr_ctx *)malloc(sizeof(udfkit_pystr_ctx));
        if (ctx) {
            ctx->base = nullptr;
            ctx->used = ctx->cap = 0;
            ctx->blocks = nullptr;
            ctx->owned = 1;
            ctx->adopted = ctx->next = nullptr;
            out->ctx = ctx;
        }
    }
    if (ctx && ctx->cap - ctx->used >= n) {
        p = ctx->base + ctx->used;
        ctx->used += n;
    } else if (ctx) {
        p = (char *)heap(ctx, n);
    }
    if (!p) {
        udfkit_row_error(UDFKIT_PYSTR_MEMORY);
        out->size = 0;
        return out->inl;
    }
    out->ptr = p;
    return p;
}

/* A view of s's bytes as a new string: s's own bytes are only kept where s is not inline. */
static __device__ void view(udfkit_pystr *out, const udfkit_pystr *s, string_view v)
{
    out->ctx = s->ctx;
    out->size = v.size();
    if (s->ptr) {
        out->ptr = v.data();
    } else {
        out->ptr = nullptr;
        for (long long i = 0; i < v.size(); i++)
            out->inl[i] = v.data()[i];
    }
}

/* The result of a builder-writing function f, measured and then written. */
template <typename F> static __device__ void build(udfkit_pystr *out, udfkit_pystr_ctx *ctx, F f)
{
    udfkit_string_out m = {nullptr, 0, 0, 0};
    f(m);
    char *p = room(out, ctx, m.size);
    if (out->size != m.size)
        return;
    udfkit_string_out w = {p, 0, m.size, 0};
    f(w);
}

/* Link-once: UDFs compiled apart each bring these, and link together. */
#define P extern "C" __device__ inline __attribute__((used))

P void udfkit_pystr_ctx_init(udfkit_pystr_ctx *ctx, char *base)
{
    ctx->base = base;
    ctx->used = 0;
    ctx->cap = UDFKIT_PYSTR_ARENA;
    ctx->blocks = nullptr;
    ctx->owned = 0;
    ctx->adopted = ctx->next = nullptr;
}

static __device__ void free_blocks(udfkit_pystr_ctx *ctx)
{
    for (udfkit_pystr_block *b = ctx->blocks; b;) {
        udfkit_pystr_block *next = b->next;
        free(b);
        b = next;
    }
    ctx->blocks = nullptr;
}

/* An arena's blocks, and the arenas it adopted with theirs. Not recursive: only a row's arena
 * (owned 0) adopts, and only arenas of their own (owned 1), which adopt nothing; so that no
 * function here recurses and the kernels' stack size is known when they are linked (CUDA
 * gives a kernel whose stack it cannot size the default 1 KiB a thread, which the row's arena
 * and float() overflow). */
static __device__ void release(udfkit_pystr_ctx *ctx)
{
    free_blocks(ctx);
    for (udfkit_pystr_ctx *o = ctx->adopted; o;) {
        udfkit_pystr_ctx *next = o->next;
        free_blocks(o);
        free(o);
        o = next;
    }
    ctx->adopted = nullptr;
}

/* The end of a row: its arena's heap blocks, and a result's own arena. */
P void udfkit_pystr_release(udfkit_pystr_ctx *ctx, const udfkit_pystr *result)
{
    if (result && result->ctx && result->ctx->owned == 1) {
        release(result->ctx);
        free(result->ctx);
    }
    if (ctx)
        release(ctx);
}

P void udfkit_pystr_param(udfkit_pystr *out, const char *data, long long size, udfkit_pystr_ctx *ctx)
{
    out->ptr = data;
    out->size = size;
    out->ctx = ctx;
}

P void udfkit_pystr_emit(udfkit_string_out *out, const udfkit_pystr *s) { out->append(V(s)); }

P long long udfkit_pystr_len(const udfkit_pystr *s) { return V(s).length(); }
P int udfkit_pystr_cmp(const udfkit_pystr *a, const udfkit_pystr *b)
{
    adopt(a, b);
    return V(a).compare(V(b));
}
P int udfkit_pystr_eq(const udfkit_pystr *a, const udfkit_pystr *b)
{
    adopt(a, b);
    return V(a) == V(b);
}
P int udfkit_pystr_contains(const udfkit_pystr *a, const udfkit_pystr *sub)
{
    adopt(a, sub);
    return V(a).contains(V(sub));
}

P long long udfkit_pystr_find(const udfkit_pystr *s, const udfkit_pystr *t, long long a, long long b)
{
    adopt(s, t);
    return V(s).find(V(t), a, b);
}
P long long udfkit_pystr_rfind(const udfkit_pystr *s, const udfkit_pystr *t, long long a, long long b)
{
    adopt(s, t);
    return V(s).rfind(V(t), a, b);
}
P long long udfkit_pystr_count(const udfkit_pystr *s, const udfkit_pystr *t, long long a, long long b)
{
    adopt(s, t);
    return V(s).count(V(t), a, b);
}
P long long udfkit_pystr_index(const udfkit_pystr *s, const udfkit_pystr *t, long long a, long long b)
{
    adopt(s, t);
    long long r = V(s).find(V(t), a, b);
    if (r < 0)
        udfkit_row_error(UDFKIT_PYSTR_RAISED);
    return r;
}
P long long udfkit_pystr_rindex(const udfkit_pystr *s, const udfkit_pystr *t, long long a, long long b)
{
    adopt(s, t);
    long long r = V(s).rfind(V(t), a, b);
    if (r < 0)
        udfkit_row_error(UDFKIT_PYSTR_RAISED);
    return r;
}
P long long udfkit_pystr_startswith(const udfkit_pystr *s, const udfkit_pystr *t, long long a, long long b)
{
    adopt(s, t);
    return V(s).starts_with(V(t), a, b);
}
P long long udfkit_pystr_endswith(const udfkit_pystr *s, const udfkit_pystr *t, long long a, long long b)
{
    adopt(s, t);
    return V(s).ends_with(V(t), a, b);
}

#define UDFKIT_PYSTR_PRED(py, cxx) P int udfkit_pystr_##py(const udfkit_pystr *s) { return V(s).cxx(); }
UDFKIT_PYSTR_PRED(isalnum, is_alnum)
UDFKIT_PYSTR_PRED(isalpha, is_alpha)
UDFKIT_PYSTR_PRED(isascii, is_ascii)
UDFKIT_PYSTR_PRED(isdecimal, is_decimal)
UDFKIT_PYSTR_PRED(isdigit, is_digit)
UDFKIT_PYSTR_PRED(isidentifier, is_identifier)
UDFKIT_PYSTR_PRED(islower, is_lower)
UDFKIT_PYSTR_PRED(isnumeric, is_numeric)
UDFKIT_PYSTR_PRED(isprintable, is_printable)
UDFKIT_PYSTR_PRED(isspace, is_space)
UDFKIT_PYSTR_PRED(istitle, is_title)
UDFKIT_PYSTR_PRED(isupper, is_upper)

#define UDFKIT_PYSTR_VIEW(py, expr) \
    P void udfkit_pystr_##py(udfkit_pystr *out, const udfkit_pystr *s) { view(out, s, V(s).expr); }
UDFKIT_PYSTR_VIEW(strip, strip())
UDFKIT_PYSTR_VIEW(lstrip, lstrip())
UDFKIT_PYSTR_VIEW(rstrip, rstrip())

#define UDFKIT_PYSTR_VIEW2(py, cxx) \
    P void udfkit_pystr_##py(udfkit_pystr *out, const udfkit_pystr *s, const udfkit_pystr *t) \
    {                                                                                         \
        adopt(s, t);                                                                          \
        view(out, s, V(s).cxx(V(t)));                                                         \
    }
UDFKIT_PYSTR_VIEW2(strip_chars, strip)
UDFKIT_PYSTR_VIEW2(lstrip_chars, lstrip)
UDFKIT_PYSTR_VIEW2(rstrip_chars, rstrip)
UDFKIT_PYSTR_VIEW2(removeprefix, remove_prefix)
UDFKIT_PYSTR_VIEW2(removesuffix, remove_suffix)

#define UDFKIT_PYSTR_MAP(py, cxx)                                                               \
    P void udfkit_pystr_##py(udfkit_pystr *out, const udfkit_pystr *s)                          \
    {                                                                                           \
        string_view v = V(s);                                                                   \
        build(out, s->ctx, [&](udfkit_string_out &o) { v.cxx(o); });                            \
    }
UDFKIT_PYSTR_MAP(upper, to_upper)
UDFKIT_PYSTR_MAP(lower, to_lower)
UDFKIT_PYSTR_MAP(capitalize, capitalize)
UDFKIT_PYSTR_MAP(title, title)
UDFKIT_PYSTR_MAP(swapcase, swapcase)
UDFKIT_PYSTR_MAP(casefold, casefold)

P void udfkit_pystr_zfill(udfkit_pystr *out, const udfkit_pystr *s, long long w)
{
    string_view v = V(s);
    build(out, s->ctx, [&](udfkit_string_out &o) { v.zfill(o, w); });
}

/* ljust, rjust, center: `fill` one character (a TypeError otherwise, refused when typed). */
static __device__ unsigned fill_char(const udfkit_pystr *f)
{
    unsigned cp = ' ';
    if (f && !V(f).code_point_at(&cp, 0))
        cp = ' ';
    return cp;
}
P void udfkit_pystr_ljust(udfkit_pystr *out, const udfkit_pystr *s, long long w, const udfkit_pystr *f)
{
    string_view v = V(s);
    unsigned c = fill_char(f);
    build(out, s->ctx, [&](udfkit_string_out &o) { v.ljust(o, w, c); });
}
P void udfkit_pystr_rjust(udfkit_pystr *out, const udfkit_pystr *s, long long w, const udfkit_pystr *f)
{
    string_view v = V(s);
    unsigned c = fill_char(f);
    build(out, s->ctx, [&](udfkit_string_out &o) { v.rjust(o, w, c); });
}
P void udfkit_pystr_center(udfkit_pystr *out, const udfkit_pystr *s, long long w, const udfkit_pystr *f)
{
    string_view v = V(s);
    unsigned c = fill_char(f);
    build(out, s->ctx, [&](udfkit_string_out &o) { v.center(o, w, c); });
}

P void udfkit_pystr_replace(udfkit_pystr *out, const udfkit_pystr *s, const udfkit_pystr *a, const udfkit_pystr *b,
                            long long count)
{
    string_view v = V(s), x = V(a), y = V(b);
    adopt(s, a);
    build(out, pick(s, b), [&](udfkit_string_out &o) { v.replace(o, x, y, count); });
}

P void udfkit_pystr_concat(udfkit_pystr *out, const udfkit_pystr *a, const udfkit_pystr *b)
{
    string_view x = V(a), y = V(b);
    build(out, pick(a, b), [&](udfkit_string_out &o) {
        o.append(x);
        o.append(y);
    });
}

P void udfkit_pystr_repeat(udfkit_pystr *out, const udfkit_pystr *a, long long n)
{
    string_view x = V(a);
    build(out, a->ctx, [&](udfkit_string_out &o) { o.append_repeated(x, n); });
}

P void udfkit_pystr_from_int(udfkit_pystr *out, long long v)
{
    build(out, nullptr, [&](udfkit_string_out &o) { o.append_int(v); });
}
P void udfkit_pystr_from_uint(udfkit_pystr *out, unsigned long long v)
{
    build(out, nullptr, [&](udfkit_string_out &o) { o.append_uint(v); });
}
P void udfkit_pystr_from_double(udfkit_pystr *out, double v)
{
    build(out, nullptr, [&](udfkit_string_out &o) { o.append_double(v); });
}

P void udfkit_pystr_at(udfkit_pystr *out, const udfkit_pystr *s, long long i)
{
    string_view ch;
    if (!V(s).at(&ch, i)) {
        udfkit_row_error(UDFKIT_PYSTR_RAISED);
        ch = string_view();
    }
    /* One character of ill-formed text is U+FFFD, as Python's s[i] of the decoded str. */
    if (!ch.is_valid_utf8()) {
        build(out, nullptr, [&](udfkit_string_out &o) { o.append(ch); });
        return;
    }
    view(out, s, ch);
}

P void udfkit_pystr_slice(udfkit_pystr *out, const udfkit_pystr *s, long long a, long long b, long long step)
{
    string_view v = V(s);
    if (step == 1) {
        view(out, s, v.slice(a, b));
        return;
    }
    if (step == 0) {
        udfkit_row_error(UDFKIT_PYSTR_RAISED);
        view(out, s, string_view());
        return;
    }
    build(out, s->ctx, [&](udfkit_string_out &o) { v.slice(o, a, b, step); });
}

/* s.split(sep, maxsplit)[k] (sep NULL: runs of whitespace); IndexError and an empty sep's
 * ValueError fail the row. */
P void udfkit_pystr_split_part(udfkit_pystr *out, const udfkit_pystr *s, const udfkit_pystr *sep, long long k,
                               long long maxsplit, int reverse)
{
    string_view v = V(s), part;
    if (sep)
        adopt(s, sep);
    bool ok = sep ? (reverse ? v.rsplit_part(&part, V(sep), k, maxsplit) : v.split_part(&part, V(sep), k, maxsplit))
                  : (reverse ? v.rsplit_part(&part, k, maxsplit) : v.split_part(&part, k, maxsplit));
    if (!ok) {
        udfkit_row_error(UDFKIT_PYSTR_RAISED);
        part = string_view();
    }
    view(out, s, part);
}
P long long udfkit_pystr_split_count(const udfkit_pystr *s, const udfkit_pystr *sep, long long maxsplit)
{
    if (sep && V(sep).empty()) {
        udfkit_row_error(UDFKIT_PYSTR_RAISED);
        return 0;
    }
    return sep ? V(s).split_count(V(sep), maxsplit) : V(s).split_count(maxsplit);
}

P long long udfkit_pystr_to_int(const udfkit_pystr *s, long long base)
{
    long long v = 0;
    if (V(s).to_int(&v, (int)base) != udfkit::parse_ok) {
        udfkit_row_error(UDFKIT_PYSTR_RAISED);
        return 0;
    }
    return v;
}
P double udfkit_pystr_to_double(const udfkit_pystr *s)
{
    double v = 0;
    if (V(s).to_double(&v) != udfkit::parse_ok) {
        udfkit_row_error(UDFKIT_PYSTR_RAISED);
        return 0;
    }
    return v;
}
P long long udfkit_pystr_ord(const udfkit_pystr *s)
{
    unsigned cp = 0;
    if (V(s).length() != 1 || !V(s).code_point_at(&cp, 0)) {
        udfkit_row_error(UDFKIT_PYSTR_RAISED);
        return 0;
    }
    return cp;
}
P void udfkit_pystr_chr(udfkit_pystr *out, long long cp)
{
    if (cp < 0 || cp > 0x10ffff)
        udfkit_row_error(UDFKIT_PYSTR_RAISED);
    build(out, nullptr, [&](udfkit_string_out &o) { o.append_code_point((unsigned)cp); });
}
"""

# The C ABI shims each method calls: (name, shim, kind). Kinds: "pred" (s) -> bool;
# "search" (s, sub, start=None, end=None) -> int or bool; "view" and "map" (s) -> str;
# "chars" (s, chars=None) -> str.
PREDICATES = ("isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower", "isnumeric",
              "isprintable", "isspace", "istitle", "isupper")
SEARCHES = {"find": "int", "rfind": "int", "count": "int", "index": "int", "rindex": "int", "startswith": "bool",
            "endswith": "bool"}
MAPS = ("upper", "lower", "capitalize", "title", "swapcase", "casefold")
STRIPS = ("strip", "lstrip", "rstrip")
SUPPORTED = sorted(PREDICATES + tuple(SEARCHES) + MAPS + STRIPS + (
    "removeprefix", "removesuffix", "zfill", "ljust", "rjust", "center", "replace", "split", "rsplit"))

NS = None  # what define() made, once per process
LOWERED = [False]  # whether an operation on str was lowered since take_lowered()


def take_lowered():
    """Whether code compiled since the last call calls the string functions (then it links
    them); clears the mark."""
    lowered, LOWERED[0] = LOWERED[0], False
    return lowered


def _define_1(ns):
    """Part 1 of define(): its names come from and go to ns."""
    import operator
    import types as pytypes

    from llvmlite import ir
    from numba.core import types
    from numba.cuda.core.errors import TypingError
    from numba.cuda import cgutils
    from numba.cuda.extending import (intrinsic, models, overload, overload_method, register_model,
                                      infer_getattr)
    from numba.cuda.typing.templates import AttributeTemplate

    class StrType(types.Type):
        """A Python str of a UDF: UTF-8 bytes (docs/strings.md)."""

        def __init__(self):
            super().__init__(name="str")

    str_type = StrType()

    @register_model(StrType)
    class StrModel(models.StructModel):
        def __init__(self, dmm, fe_type):
            members = [("ptr", types.voidptr), ("size", types.int64), ("ctx", types.voidptr),
                       ("inl", types.UniTuple(types.uint8, INLINE))]
            super().__init__(dmm, fe_type, members)

    i8p = ir.IntType(8).as_pointer()
    i64 = ir.IntType(64)
    i32 = ir.IntType(32)

    def shim(builder, name, ret, args):
        LOWERED[0] = True
        fnty = ir.FunctionType(ret, [a.type for a in args])
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, name), args)

    def slot_of(builder, ty):
        """Local memory for a value of LLVM type ty, in the function's entry block (not
        zero-filled, as cgutils.alloca_once would: each use stores it first)."""
        with builder.goto_entry_block():
            return builder.alloca(ty)

    def by_address(context, builder, value):
        """A pointer to a copy of the string value (the shims read it there)."""
        slot = slot_of(builder, context.get_value_type(str_type))
        builder.store(value, slot)
        return builder.bitcast(slot, i8p)

    def new_string(context, builder):
        slot = slot_of(builder, context.get_value_type(str_type))
        builder.store(context.get_constant_null(str_type), slot)
        return slot

    def is_text(ty):
        return isinstance(ty, (StrType, types.StringLiteral)) or (
            isinstance(ty, types.Literal) and isinstance(getattr(ty, "literal_value", None), str))

    def literal_value(context, builder, ty):
        """A StringLiteral as a str value: its UTF-8 bytes in constant memory."""
        text = ty.literal_value
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            raise TypingError(f"the string literal {text!r} is not valid Unicode (a lone surrogate): UTF-8 cannot "
                              f"hold it")
        value = context.get_constant_null(str_type)
        if data:
            const = ir.Constant(ir.ArrayType(ir.IntType(8), len(data)), bytearray(data))
            gv = cgutils.global_constant(builder.module, "udfkit_str_literal", const)
            value = builder.insert_value(value, builder.bitcast(gv, i8p), 0)
        value = builder.insert_value(value, ir.Constant(i64, len(data)), 1)
        return value

    def text_arg(context, builder, ty, value):
        """The address of a str operand (a str value or a literal)."""
        if isinstance(ty, StrType):
            return by_address(context, builder, value)
        return by_address(context, builder, literal_value(context, builder, ty))

    def int_arg(context, builder, ty, value, default):
        if isinstance(ty, (types.Omitted, types.NoneType)) or ty is None:
            return ir.Constant(i64, default)
        return context.cast(builder, value, ty, types.int64)

    def optional_int(ty):
        return ty is None or isinstance(ty, (types.Integer, types.Omitted, types.NoneType, types.Boolean))

    def absent(ty):
        return ty is None or isinstance(ty, (types.Omitted, types.NoneType))

    NPOS = (1 << 63) - 1
    ns.update(locals())
    del ns["ns"]


def _define_2(ns):
    """Part 2 of define(): its names come from and go to ns."""
    (NPOS, absent, by_address, i32, i64, i8p, int_arg, intrinsic,) = (ns[k] for k in ('NPOS', 'absent', 'by_address', 'i32', 'i64', 'i8p', 'int_arg', 'intrinsic'))
    (ir, is_text, new_string, optional_int, shim, str_type, text_arg, types,) = (ns[k] for k in ('ir', 'is_text', 'new_string', 'optional_int', 'shim', 'str_type', 'text_arg', 'types'))

    # Intrinsics: each a call of one shim.
    @intrinsic
    def s_len(typingctx, s):
        def codegen(context, builder, sig, args):
            return shim(builder, "udfkit_pystr_len", i64, [by_address(context, builder, args[0])])
        return types.int64(s), codegen

    def binary_int(name):
        @intrinsic
        def op(typingctx, a, b):
            if not (is_text(a) and is_text(b)):
                return None

            def codegen(context, builder, sig, args):
                return shim(builder, name, i32, [text_arg(context, builder, sig.args[0], args[0]),
                                                 text_arg(context, builder, sig.args[1], args[1])])
            return types.int32(a, b), codegen
        return op

    s_cmp = binary_int("udfkit_pystr_cmp")
    s_eq = binary_int("udfkit_pystr_eq")
    s_contains = binary_int("udfkit_pystr_contains")

    def search(name, result):
        @intrinsic
        def op(typingctx, s, sub, start, end):
            if not (is_text(sub) and optional_int(start) and optional_int(end)):
                return None
            ret = types.int64 if result == "int" else types.boolean

            def codegen(context, builder, sig, args):
                r = shim(builder, f"udfkit_pystr_{name}", i64, [
                    by_address(context, builder, args[0]), text_arg(context, builder, sig.args[1], args[1]),
                    int_arg(context, builder, sig.args[2], args[2], 0),
                    int_arg(context, builder, sig.args[3], args[3], NPOS)])
                return r if result == "int" else builder.icmp_signed("!=", r, ir.Constant(i64, 0))
            return ret(s, sub, start, end), codegen
        return op

    def predicate(name):
        @intrinsic
        def op(typingctx, s):
            def codegen(context, builder, sig, args):
                r = shim(builder, f"udfkit_pystr_{name}", i32, [by_address(context, builder, args[0])])
                return builder.icmp_signed("!=", r, ir.Constant(i32, 0))
            return types.boolean(s), codegen
        return op

    def producer(name, kinds):
        """An intrinsic making a new str: the shim's operands after `out`, each "s" (a str or
        literal), "s?" (one that may be omitted: NULL), "i<default>" (an int that may be
        omitted), "f" (a float), "u" (an unsigned int)."""
        def typer(typingctx, *operands):
            if len(operands) != len(kinds):
                return None
            for ty, kind in zip(operands, kinds):
                if kind == "s" and not is_text(ty):
                    return None
                if kind == "s?" and not (is_text(ty) or absent(ty)):
                    return None
                if kind.startswith("i") and not optional_int(ty):
                    return None
                if kind == "f" and not isinstance(ty, types.Float):
                    return None
                if kind == "u" and not isinstance(ty, types.Integer):
                    return None

            def codegen(context, builder, sig, args):
                out = new_string(context, builder)
                call = [builder.bitcast(out, i8p)]
                for ty, kind, value in zip(sig.args, kinds, args):
                    if kind == "s":
                        call.append(text_arg(context, builder, ty, value))
                    elif kind == "s?":
                        call.append(ir.Constant(i8p, None) if absent(ty) else text_arg(context, builder, ty, value))
                    elif kind.startswith("i"):
                        call.append(int_arg(context, builder, ty, value, int(kind[1:])))
                    elif kind == "f":
                        call.append(context.cast(builder, value, ty, types.float64))
                    else:
                        call.append(context.cast(builder, value, ty, types.uint64))
                shim(builder, f"udfkit_pystr_{name}", ir.VoidType(), call)
                return builder.load(out)
            return str_type(*operands), codegen

        names = ", ".join(f"x{k}" for k in range(len(kinds)))
        scope = {"typer": typer}
        exec(f"def op(typingctx, {names}):\n    return typer(typingctx, {names})\n", scope)
        op = scope["op"]
        op.__name__ = f"str_{name}"
        return intrinsic(op)
    ns.update(locals())
    del ns["ns"]


def _define_3(ns):
    """Part 3 of define(): its names come from and go to ns."""
    (StrType, by_address, i64, i8p, int_arg, intrinsic, ir, is_text,) = (ns[k] for k in ('StrType', 'by_address', 'i64', 'i8p', 'int_arg', 'intrinsic', 'ir', 'is_text'))
    (new_string, optional_int, overload, s_len, shim, slot_of, str_type, text_arg,) = (ns[k] for k in ('new_string', 'optional_int', 'overload', 's_len', 'shim', 'slot_of', 'str_type', 'text_arg'))
    (types,) = (ns[k] for k in ('types',))

    def to_number(name, result):
        @intrinsic
        def op(typingctx, s, base):
            if not optional_int(base):
                return None
            ret = types.int64 if result == "int" else types.float64

            def codegen(context, builder, sig, args):
                call = [by_address(context, builder, args[0])]
                if result == "int":
                    call.append(int_arg(context, builder, sig.args[1], args[1], 10))
                return shim(builder, f"udfkit_pystr_{name}", ir.IntType(64) if result == "int" else ir.DoubleType(),
                            call)
            return ret(s, base), codegen
        return op

    s_to_int = to_number("to_int", "int")
    s_to_float = to_number("to_double", "float")

    @intrinsic
    def s_ord(typingctx, s):
        def codegen(context, builder, sig, args):
            return shim(builder, "udfkit_pystr_ord", i64, [by_address(context, builder, args[0])])
        return types.int64(s), codegen

    # The C ABI wrapper's pieces.
    @intrinsic
    def s_ctx(typingctx):
        """The row's arena, in the calling function's frame."""
        def codegen(context, builder, sig, args):
            ctx = slot_of(builder, ir.ArrayType(i64, 7))
            base = slot_of(builder, ir.ArrayType(ir.IntType(8), ARENA))
            shim(builder, "udfkit_pystr_ctx_init", ir.VoidType(),
                 [builder.bitcast(ctx, i8p), builder.bitcast(base, i8p)])
            return builder.bitcast(ctx, i8p)
        return types.voidptr(), codegen

    @intrinsic
    def s_param(typingctx, data, size, ctx):
        def codegen(context, builder, sig, args):
            out = new_string(context, builder)
            shim(builder, "udfkit_pystr_param", ir.VoidType(), [
                builder.bitcast(out, i8p), builder.bitcast(args[0], i8p),
                context.cast(builder, args[1], sig.args[1], types.int64), args[2]])
            return builder.load(out)
        return str_type(data, size, ctx), codegen

    def unwrap(context, builder, ty, value):
        """A str of an Optional(str) known not to be None (the wrapper has checked)."""
        if isinstance(ty, types.Optional):
            return str_type, context.cast(builder, value, ty, str_type)
        return ty, value

    @intrinsic
    def s_emit(typingctx, out, s):
        if not (is_text(s) or (isinstance(s, types.Optional) and isinstance(s.type, StrType))):
            return None

        def codegen(context, builder, sig, args):
            ty, value = unwrap(context, builder, sig.args[1], args[1])
            shim(builder, "udfkit_pystr_emit", ir.VoidType(),
                 [builder.bitcast(args[0], i8p), text_arg(context, builder, ty, value)])
            return context.get_dummy_value()
        return types.none(out, s), codegen

    @intrinsic
    def s_release(typingctx, ctx, result):
        def codegen(context, builder, sig, args):
            res = ir.Constant(i8p, None)
            ty, value = unwrap(context, builder, sig.args[1], args[1])
            if isinstance(ty, StrType):
                res = by_address(context, builder, value)
            shim(builder, "udfkit_pystr_release", ir.VoidType(), [args[0], res])
            return context.get_dummy_value()
        return types.none(ctx, result), codegen

    # Python's syntax on str.
    @overload(len, target="cuda")
    def ov_len(s):
        if isinstance(s, StrType):
            return lambda s: s_len(s)

    def both_text(a, b):
        return (isinstance(a, StrType) or isinstance(b, StrType)) and is_text(a) and is_text(b)
    ns.update(locals())
    del ns["ns"]


def _define_4(ns):
    """Part 4 of define(): its names come from and go to ns."""
    (StrType, both_text, operator, overload, producer, s_cmp, s_contains, s_eq,) = (ns[k] for k in ('StrType', 'both_text', 'operator', 'overload', 'producer', 's_cmp', 's_contains', 's_eq'))
    (TypingError, overload_method,) = (ns[k] for k in ('TypingError', 'overload_method',))
    (s_ord, s_to_float, s_to_int, types,) = (ns[k] for k in ('s_ord', 's_to_float', 's_to_int', 'types'))

    for op, test in ((operator.eq, "== 0"), (operator.ne, "!= 0"), (operator.lt, "< 0"), (operator.le, "<= 0"),
                     (operator.gt, "> 0"), (operator.ge, ">= 0")):
        def make(test=test, op=op):
            scope = {"s_cmp": s_cmp, "s_eq": s_eq}
            if op in (operator.eq, operator.ne):
                exec(f"def impl(a, b):\n    return s_eq(a, b) {'!= 0' if op is operator.eq else '== 0'}\n", scope)
            else:
                exec(f"def impl(a, b):\n    return s_cmp(a, b) {test}\n", scope)

            @overload(op, target="cuda")
            def ov_cmp(a, b):
                if both_text(a, b):
                    return scope["impl"]
        make()

    @overload(operator.contains, target="cuda")
    def ov_contains(a, b):
        if both_text(a, b):
            return lambda a, b: s_contains(a, b) != 0

    s_concat = producer("concat", ("s", "s"))

    @overload(operator.add, target="cuda")
    def ov_add(a, b):
        if both_text(a, b):
            return lambda a, b: s_concat(a, b)

    s_repeat = producer("repeat", ("s", "i0"))

    @overload(operator.mul, target="cuda")
    def ov_mul(a, b):
        if isinstance(a, StrType) and isinstance(b, types.Integer):
            return lambda a, b: s_repeat(a, b)
        if isinstance(b, StrType) and isinstance(a, types.Integer):
            return lambda a, b: s_repeat(b, a)

    s_at = producer("at", ("s", "i0"))
    s_slice = producer("slice", ("s", "i0", "i0", "i1"))

    @overload(operator.getitem, target="cuda")
    def ov_getitem(s, i):
        if not isinstance(s, StrType):
            return None
        if isinstance(i, types.Integer):
            return lambda s, i: s_at(s, i)
        if isinstance(i, types.SliceType):
            return lambda s, i: s_slice(s, i.start, i.stop, i.step)

    s_from_int = producer("from_int", ("i0",))
    s_from_uint = producer("from_uint", ("u",))
    s_from_double = producer("from_double", ("f",))

    # numba-cuda's own str()/repr() call __str__/__repr__, else make "<object type:float64>", and
    # may be tried before ov_str (its builtins registered first, as after the worker's warm-up):
    # numbers' __str__ and __repr__ are udfkit's, so str(x) is CPython's text either way.
    def number_text(x):
        if isinstance(x, types.Boolean):
            return None
        if isinstance(x, types.Integer):
            if x.signed or x.bitwidth < 64:
                return lambda x: s_from_int(x)
            return lambda x: s_from_uint(x)
        if isinstance(x, types.Float):
            return lambda x: s_from_double(x)

    for number in (types.Integer, types.Float):
        for dunder in ("__str__", "__repr__"):
            overload_method(number, dunder, target="cuda")(number_text)

    @overload(str, target="cuda")
    def ov_str(x):
        if isinstance(x, StrType):
            return lambda x: x
        return number_text(x)

    # The same for a str: str(s) is s (numba-cuda's would be "<object type:str>"); repr(s), which
    # CPython quotes and escapes, is refused.
    @overload_method(StrType, "__str__", target="cuda")
    def ov_str_str(s):
        return lambda s: s

    @overload_method(StrType, "__repr__", target="cuda")
    def ov_str_repr(s):
        raise TypingError("repr() of a str is not supported in udfkit's Python UDFs (str(s) is)")

    @overload(repr, target="cuda")
    def ov_repr(x):
        if isinstance(x, StrType):
            raise TypingError("repr() of a str is not supported in udfkit's Python UDFs (str(s) is)")
        return number_text(x)

    @overload(int, target="cuda")
    def ov_int(s, base=None):
        if isinstance(s, StrType):
            return lambda s, base=None: s_to_int(s, base)

    @overload(float, target="cuda")
    def ov_float(s):
        if isinstance(s, StrType):
            return lambda s: s_to_float(s, None)

    @overload(ord, target="cuda")
    def ov_ord(s):
        if isinstance(s, StrType):
            return lambda s: s_ord(s)

    s_chr = producer("chr", ("i0",))

    @overload(chr, target="cuda")
    def ov_chr(i):
        if isinstance(i, types.Integer):
            return lambda i: s_chr(i)
    ns.update(locals())
    del ns["ns"]


def _define_5(ns):
    """Part 5 of define(): its names come from and go to ns."""
    (StrType, TypingError, absent, is_text, models, optional_int, overload_method, predicate,) = (ns[k] for k in ('StrType', 'TypingError', 'absent', 'is_text', 'models', 'optional_int', 'overload_method', 'predicate'))
    (producer, register_model, search, str_type, types,) = (ns[k] for k in ('producer', 'register_model', 'search', 'str_type', 'types'))

    # Methods.
    for name in PREDICATES:
        def make_pred(name=name):
            fn = predicate(name)

            @overload_method(StrType, name, target="cuda")
            def ov(s):
                return lambda s: fn(s)
        make_pred()

    for name, result in SEARCHES.items():
        def make_search(name=name, result=result):
            fn = search(name, result)

            @overload_method(StrType, name, target="cuda")
            def ov(s, sub, start=None, end=None):
                if is_text(sub) and optional_int(start) and optional_int(end):
                    return lambda s, sub, start=None, end=None: fn(s, sub, start, end)
        make_search()

    for name in MAPS:
        def make_map(name=name):
            fn = producer(name, ("s",))

            @overload_method(StrType, name, target="cuda")
            def ov(s):
                return lambda s: fn(s)
        make_map()

    for name in STRIPS:
        def make_strip(name=name):
            plain, chars = producer(name, ("s",)), producer(name + "_chars", ("s", "s"))

            @overload_method(StrType, name, target="cuda")
            def ov(s, chars_=None):
                if absent(chars_):
                    return lambda s, chars_=None: plain(s)
                if is_text(chars_):
                    return lambda s, chars_=None: chars(s, chars_)
        make_strip()

    for name in ("removeprefix", "removesuffix"):
        def make_remove(name=name):
            fn = producer(name, ("s", "s"))

            @overload_method(StrType, name, target="cuda")
            def ov(s, affix):
                if is_text(affix):
                    return lambda s, affix: fn(s, affix)
        make_remove()

    s_zfill = producer("zfill", ("s", "i0"))

    @overload_method(StrType, "zfill", target="cuda")
    def ov_zfill(s, width):
        if isinstance(width, types.Integer):
            return lambda s, width: s_zfill(s, width)

    for name in ("ljust", "rjust", "center"):
        def make_pad(name=name):
            fn = producer(name, ("s", "i0", "s?"))

            @overload_method(StrType, name, target="cuda")
            def ov(s, width, fillchar=None):
                if isinstance(fillchar, types.StringLiteral) and len(fillchar.literal_value) != 1:
                    raise TypingError(f"str.{name}(): the fill character must be exactly one character long")
                if isinstance(width, types.Integer) and (absent(fillchar) or isinstance(fillchar,
                                                                                      types.StringLiteral)):
                    return lambda s, width, fillchar=None: fn(s, width, fillchar)
        make_pad()

    s_replace = producer("replace", ("s", "s", "s", "i-1"))

    @overload_method(StrType, "replace", target="cuda")
    def ov_replace(s, old, new, count=None):
        if is_text(old) and is_text(new) and optional_int(count):
            return lambda s, old, new, count=None: s_replace(s, old, new, count)

    # s.split(sep, maxsplit): a value only indexed (s.split(sep)[k]) or measured (len(...)).
    class SplitType(types.Type):
        def __init__(self, sep, maxsplit, reverse):
            self.sep, self.maxsplit, self.reverse = sep, maxsplit, reverse
            super().__init__(name=f"{'r' if reverse else ''}split(str, {sep}, {maxsplit})")

    @register_model(SplitType)
    class SplitModel(models.StructModel):
        def __init__(self, dmm, fe_type):
            members = [("s", str_type), ("sep", fe_type.sep), ("maxsplit", fe_type.maxsplit)]
            super().__init__(dmm, fe_type, members)
    ns.update(locals())
    del ns["ns"]


def _define_6(ns):
    """Part 6 of define(): its names come from and go to ns."""
    global NS
    (AttributeTemplate, SplitType, StrType, TypingError, absent, by_address, cgutils, i32,) = (ns[k] for k in ('AttributeTemplate', 'SplitType', 'StrType', 'TypingError', 'absent', 'by_address', 'cgutils', 'i32'))
    (i64, i8p, infer_getattr, int_arg, intrinsic, ir, is_text, name,) = (ns[k] for k in ('i64', 'i8p', 'infer_getattr', 'int_arg', 'intrinsic', 'ir', 'is_text', 'name'))
    (new_string, operator, optional_int, overload, overload_method, pytypes, s_ctx, s_emit,) = (ns[k] for k in ('new_string', 'operator', 'optional_int', 'overload', 'overload_method', 'pytypes', 's_ctx', 's_emit'))
    (s_param, s_release, shim, str_type, text_arg, types,) = (ns[k] for k in ('s_param', 's_release', 'shim', 'str_type', 'text_arg', 'types'))

    def make_split(reverse):
        name = "rsplit" if reverse else "split"

        @intrinsic
        def s_split(typingctx, s, sep, maxsplit):
            if not ((is_text(sep) or absent(sep)) and optional_int(maxsplit)):
                return None
            sep_ty = types.none if absent(sep) else sep
            max_ty = types.none if absent(maxsplit) else maxsplit

            def codegen(context, builder, sig, args):
                ty = sig.return_type
                value = cgutils.create_struct_proxy(ty)(context, builder)
                value.s = args[0]
                if not absent(sig.args[1]):
                    value.sep = args[1]
                if not absent(sig.args[2]):
                    value.maxsplit = args[2]
                return value._getvalue()
            return SplitType(sep_ty, max_ty, reverse)(s, sep, maxsplit), codegen

        @overload_method(StrType, name, target="cuda")
        def ov_split(s, sep=None, maxsplit=None):
            if (is_text(sep) or absent(sep)) and optional_int(maxsplit):
                return lambda s, sep=None, maxsplit=None: s_split(s, sep, maxsplit)

    make_split(False)
    make_split(True)

    def split_operands(context, builder, split_ty, value):
        """The shim's operands for a split value: the str, the separator (NULL: none) and maxsplit."""
        proxy = cgutils.create_struct_proxy(split_ty)(context, builder, value=value)
        sep = ir.Constant(i8p, None) if isinstance(split_ty.sep, types.NoneType) else text_arg(
            context, builder, split_ty.sep, proxy.sep)
        maxsplit = int_arg(context, builder, split_ty.maxsplit, proxy.maxsplit, -1)
        return [by_address(context, builder, proxy.s), sep], maxsplit

    @intrinsic
    def s_split_at(typingctx, split, k):
        if not (isinstance(split, SplitType) and isinstance(k, types.Integer)):
            return None

        def codegen(context, builder, sig, args):
            out = new_string(context, builder)
            (s, sep), maxsplit = split_operands(context, builder, sig.args[0], args[0])
            shim(builder, "udfkit_pystr_split_part", ir.VoidType(), [
                builder.bitcast(out, i8p), s, sep, context.cast(builder, args[1], sig.args[1], types.int64), maxsplit,
                ir.Constant(i32, 1 if sig.args[0].reverse else 0)])
            return builder.load(out)
        return str_type(split, k), codegen

    @intrinsic
    def s_split_len(typingctx, split):
        if not isinstance(split, SplitType):
            return None

        def codegen(context, builder, sig, args):
            (s, sep), maxsplit = split_operands(context, builder, sig.args[0], args[0])
            return shim(builder, "udfkit_pystr_split_count", i64, [s, sep, maxsplit])
        return types.int64(split), codegen

    @overload(operator.getitem, target="cuda")
    def ov_split_getitem(split, k):
        if isinstance(split, SplitType) and isinstance(k, types.Integer):
            return lambda split, k: s_split_at(split, k)

    @overload(len, target="cuda")
    def ov_split_len(split):
        if isinstance(split, SplitType):
            return lambda split: s_split_len(split)

    # What no overload takes: a typing error naming the operation.
    @infer_getattr
    class StrAttributes(AttributeTemplate):
        key = StrType

        def generic_resolve(self, ty, attr):
            if attr.startswith("_"):
                return None
            raise TypingError(f"str.{attr} is not supported in udfkit's Python UDFs (docs/strings.md lists what "
                              f"is: {', '.join(SUPPORTED)}, and len, in, +, *, comparisons, s[i], s[a:b:c], int(), "
                              f"float(), str())")

    NS = pytypes.SimpleNamespace(str_type=str_type, StrType=StrType, s_ctx=s_ctx, s_param=s_param, s_emit=s_emit,
                                 s_release=s_release)
    return NS


def define():
    """The numba type `str` and its operations, registered with numba-cuda once; returns the
    namespace (the type as NS.str_type)."""
    global NS
    if NS is not None:
        return NS
    ns = {}
    _define_1(ns)
    _define_2(ns)
    _define_3(ns)
    _define_4(ns)
    _define_5(ns)
    return _define_6(ns)


def uses_strings(fn):
    """Whether a function's spec has a string type."""
    return any(t.rstrip("?*") == "string" for t in fn["params"] + [fn["ret"] or ""])


def wrapper(fn, pyfunc, path, line, frontend, numba_type, udfkit_type, error):
    """The C ABI wrapper of a UDF with string parameters or results (and T? ones): the
    wrapper, its signature and the return type's name. `error(message, path, line)` makes
    the worker's located error."""
    ns = define()
    from numba.core import types

    params, ret = fn["params"], fn["ret"]
    name = fn["source_name"]
    for k, t in enumerate(params):
        if t.endswith("*"):
            raise error(f"'{name}': parameter {k + 1} is {t}, an output; a Python UDF returns its result instead "
                        f"(one string, or a number)", path, line)

    def value_type(t):
        base = t.rstrip("?")
        return ns.str_type if base == "string" else numba_type(base)

    user_args = tuple(types.optional(value_type(t)) if t.endswith("?") else value_type(t) for t in params)
    device = frontend.device_function(pyfunc)
    returned = device.compile_device(user_args).signature.return_type
    inner = returned.type if isinstance(returned, types.Optional) else None
    plain = inner if inner is not None else returned
    if ret is None:
        base = "string" if isinstance(plain, ns.StrType) else udfkit_type(plain)
        if base is None:
            raise error(f"'{name}' returns {returned}, which cannot cross the C ABI", path, line)
        ret = base + "?" if inner is not None else base
    elif inner is not None and not ret.endswith("?"):
        raise error(f"'{name}' may return None, but its return type {ret} is not nullable: declare {ret}?", path, line)
    base = ret.rstrip("?")
    if (base == "string") != isinstance(plain, ns.StrType) and not isinstance(plain, types.NoneType):
        raise error(f"'{name}' returns {plain}, but its spec says {ret}" + (
            ": return a str (str(x) makes one of a number)" if base == "string" else ""), path, line)
    abi_params, abi_types, call = [], [], []
    if base == "string":
        abi_params.append("out")
        abi_types.append(types.voidptr)
    elif ret.endswith("?"):
        abi_params.append("out")
        abi_types.append(types.CPointer(types.uint8 if ret == "bool?" else numba_type(base)))
    for k, t in enumerate(params):
        if t.rstrip("?") == "string":
            abi_params += [f"a{k}", f"a{k}_size"]
            abi_types += [types.voidptr, types.int64]
            value = f"s_param(a{k}, a{k}_size, ctx)"
        else:
            abi_params.append(f"a{k}")
            abi_types.append(numba_type(t.rstrip("?")))
            value = f"a{k}"
        if t.endswith("?"):
            abi_params.append(f"a{k}_valid")
            abi_types.append(types.boolean)
            value = f"({value} if a{k}_valid else None)"
        call.append(value)
    body = f"    ctx = s_ctx()\n    r = udf({', '.join(call)})\n"
    if base == "string" and ret.endswith("?"):
        body += ("    if r is None:\n        s_release(ctx, None)\n        return False\n"
                 "    s_emit(out, r)\n    s_release(ctx, r)\n    return True\n")
        abi_ret = types.boolean
    elif base == "string":
        body += "    s_emit(out, r)\n    s_release(ctx, r)\n"
        abi_ret = types.none
    elif ret.endswith("?"):
        store = "(1 if r else 0)" if ret == "bool?" else "r"
        body += (f"    s_release(ctx, None)\n    if r is None:\n        return False\n    out[0] = {store}\n"
                 f"    return True\n")
        abi_ret = types.boolean
    elif ret == "void":
        body += "    s_release(ctx, None)\n"
        abi_ret = types.none
    else:
        body += "    s_release(ctx, None)\n    return r\n"
        abi_ret = numba_type(ret)
    scope = {"udf": device, "s_ctx": ns.s_ctx, "s_param": ns.s_param, "s_emit": ns.s_emit, "s_release": ns.s_release}
    exec(f"def udfkit_strings_{fn['c_name']}({', '.join(abi_params)}):\n{body}", scope)
    return scope[f"udfkit_strings_{fn['c_name']}"], abi_ret(*abi_types), ret


SHIM_CODE = {}  # (cc, output) -> (bytes, kind), once per process


def shim_code(request, nvrtc_compile):
    """SHIM_SOURCE compiled for the request's architecture (LTO-IR or PTX), with udfkit's
    string headers, which udfkit writes into the request's outdir (udfkit/*.cuh).
    nvrtc_compile(path, cc, ltoir) is the frontend's NVRTC."""
    import os

    key = (tuple(request["cc"]), request["output"])
    if key not in SHIM_CODE:
        from numba.cuda import config

        outdir = request["outdir"]
        source = os.path.join(outdir, "udfkit_strings.cu")
        with open(source, "w") as f:
            f.write(SHIM_SOURCE)
        saved = config.CUDA_NVRTC_EXTRA_SEARCH_PATHS
        config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = outdir
        try:
            SHIM_CODE[key] = nvrtc_compile(source, key[0], request["output"] == "ltoir")
        finally:
            config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = saved
            os.unlink(source)
    return SHIM_CODE[key]
