#include "base/types.h"

#include "base/text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *numba;
    const char *c;
    size_t size;
} scalars[UDFKIT_SCALAR_COUNT] = {
    [UDFKIT_VOID] = {"void", "void", 0},
    [UDFKIT_BOOL] = {"bool", "bool", 1},
    [UDFKIT_INT8] = {"int8", "int8_t", 1},
    [UDFKIT_INT16] = {"int16", "int16_t", 2},
    [UDFKIT_INT32] = {"int32", "int32_t", 4},
    [UDFKIT_INT64] = {"int64", "int64_t", 8},
    [UDFKIT_UINT8] = {"uint8", "uint8_t", 1},
    [UDFKIT_UINT16] = {"uint16", "uint16_t", 2},
    [UDFKIT_UINT32] = {"uint32", "uint32_t", 4},
    [UDFKIT_UINT64] = {"uint64", "uint64_t", 8},
    /* float16 crosses the C ABI as its bit pattern (SPEC.md). */
    [UDFKIT_FLOAT16] = {"float16", "uint16_t", 2},
    [UDFKIT_FLOAT32] = {"float32", "float", 4},
    [UDFKIT_FLOAT64] = {"float64", "double", 8},
};

const char *udfkit_scalar_name(udfkit_scalar s)
{
    return scalars[s].numba;
}

size_t udfkit_scalar_size(udfkit_scalar s)
{
    return scalars[s].size;
}

bool udfkit_type_equal(udfkit_type a, udfkit_type b)
{
    return a.scalar == b.scalar && a.pointer == b.pointer && a.nullable == b.nullable;
}

bool udfkit_signature_nullable(const udfkit_signature *s)
{
    bool any = s->has_return && s->ret.nullable;
    for (size_t i = 0; i < s->nparams; i++)
        any |= s->params[i].nullable;
    return any;
}

size_t udfkit_signature_c_arity(const udfkit_signature *s)
{
    size_t n = s->nparams + (s->has_return && s->ret.nullable);
    for (size_t i = 0; i < s->nparams; i++)
        n += s->params[i].nullable;
    return n;
}

static void trim(const char **begin, const char **end)
{
    while (*begin < *end && isspace((unsigned char)**begin))
        (*begin)++;
    while (*end > *begin && isspace((unsigned char)(*end)[-1]))
        (*end)--;
}

typedef enum { PARSED, UNKNOWN_TYPE, NULLABLE_POINTER, NULLABLE_VOID } parse_result;

/* "T", "T*", "T?", "T?*"; "T*?" and "void?" are refused with a reason of their own. */
static parse_result parse_type(const char *begin, const char *end, udfkit_type *out)
{
    trim(&begin, &end);
    bool pointer = false, nullable = false;
    if (end > begin && end[-1] == '?') {
        const char *before = end - 1;
        trim(&begin, &before);
        if (before > begin && before[-1] == '*')
            return NULLABLE_POINTER;
    }
    if (end > begin && end[-1] == '*') {
        pointer = true;
        end--;
        trim(&begin, &end);
    }
    if (end > begin && end[-1] == '?') {
        nullable = true;
        end--;
        trim(&begin, &end);
    }
    for (int s = 0; s < UDFKIT_SCALAR_COUNT; s++) {
        size_t n = strlen(scalars[s].numba);
        if ((size_t)(end - begin) == n && strncmp(begin, scalars[s].numba, n) == 0) {
            if (nullable && s == UDFKIT_VOID)
                return NULLABLE_VOID;
            out->scalar = (udfkit_scalar)s;
            out->pointer = pointer;
            out->nullable = nullable;
            return PARSED;
        }
    }
    return UNKNOWN_TYPE;
}

static bool parse_range(const char *begin, const char *end, udfkit_type *out)
{
    return parse_type(begin, end, out) == PARSED;
}

bool udfkit_type_parse(const char *text, udfkit_type *out)
{
    if (!text)
        return false;
    return parse_range(text, text + strlen(text), out);
}

/* C's names for the types, and the spec names to write instead. */
static const struct {
    const char *c, *spec;
} c_names[] = {
    {"double", "float64"},          {"float", "float32"},           {"half", "float16"},
    {"__half", "float16"},          {"int", "int32"},               {"long", "int64"},
    {"long long", "int64"},         {"long int", "int64"},          {"short", "int16"},
    {"char", "int8"},               {"signed char", "int8"},        {"unsigned char", "uint8"},
    {"unsigned short", "uint16"},   {"unsigned", "uint32"},         {"unsigned int", "uint32"},
    {"unsigned long", "uint64"},    {"unsigned long long", "uint64"}, {"size_t", "uint64"},
    {"int8_t", "int8"},             {"int16_t", "int16"},           {"int32_t", "int32"},
    {"int64_t", "int64"},           {"uint8_t", "uint8"},           {"uint16_t", "uint16"},
    {"uint32_t", "uint32"},         {"uint64_t", "uint64"},         {"_Bool", "bool"},
    {"f4", "float32"},              {"f8", "float64"},              {"i4", "int32"},
    {"i8", "int64"},
};

static void unknown_type(const char *b, const char *e, char *why, size_t why_size);

/* Why b..e is not a type: a nullable pointer or void, or an unknown name. */
static void type_error(const char *b, const char *e, char *why, size_t why_size)
{
    udfkit_type t;
    trim(&b, &e);
    parse_result r = parse_type(b, e, &t);
    if (r == NULLABLE_POINTER)
        snprintf(why, why_size,
                 "'%.*s' is not a type: a pointer cannot be null in udfkit's C ABI; an output that may be set to "
                 "null is T?* (e.g. float32?*)",
                 (int)(e - b), b);
    else if (r == NULLABLE_VOID)
        snprintf(why, why_size, "'%.*s' is not a type: void cannot be null", (int)(e - b), b);
    else
        unknown_type(b, e, why, why_size);
}

/* "unknown type 'double': write float64 ...", "unknown type 'flaot32' (did you mean
 * float32? ...)". */
static void unknown_type(const char *b, const char *e, char *why, size_t why_size)
{
    const char *star = e;
    while (star > b && (star[-1] == '*' || isspace((unsigned char)star[-1])))
        star--;
    size_t n = (size_t)(star - b);
    for (size_t i = 0; i < sizeof c_names / sizeof *c_names; i++)
        if (strlen(c_names[i].c) == n && strncmp(b, c_names[i].c, n) == 0) {
            snprintf(why, why_size, "unknown type '%.*s': write %s%.*s (the spec names C's %s %s)", (int)(e - b), b,
                     c_names[i].spec, (int)(e - star), star, c_names[i].c, c_names[i].spec);
            return;
        }
    const char *near = NULL;
    size_t best = 3;
    for (int k = 0; k < UDFKIT_SCALAR_COUNT; k++) {
        size_t d = udfkit_edit_distance(b, n, scalars[k].numba, 3);
        if (d < best) {
            best = d;
            near = scalars[k].numba;
        }
    }
    if (near)
        snprintf(why, why_size,
                 "unknown type '%.*s' (did you mean %s%.*s? types: bool, int8..int64, uint8..uint64, float16, float32, "
                 "float64, T*, void*)",
                 (int)(e - b), b, near, (int)(e - star), star);
    else
        snprintf(why, why_size,
                 "unknown type '%.*s' (types: bool, int8..int64, uint8..uint64, float16, float32, float64, T*, void*)",
                 (int)(e - b), b);
}

bool udfkit_signature_parse(const char *text, udfkit_signature *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    const char *open = strchr(text, '(');
    const char *close = strrchr(text, ')');
    if (!open || !close || close < open) {
        snprintf(why, why_size, "signature '%s' is not of the form ret(arg, ...)", text);
        return false;
    }
    for (const char *p = close + 1; *p; p++)
        if (!isspace((unsigned char)*p)) {
            snprintf(why, why_size, "unexpected text after ')' in signature '%s'", text);
            return false;
        }
    const char *rb = text, *re = open;
    trim(&rb, &re);
    if (rb == re) {
        out->has_return = false;
    } else {
        out->has_return = true;
        if (memchr(rb, '[', (size_t)(re - rb))) {
            snprintf(why, why_size, "arrays cannot cross the C ABI: pass a pointer (e.g. float32*) and a length");
            return false;
        }
        if (!parse_range(rb, re, &out->ret)) {
            type_error(rb, re, why, why_size);
            return false;
        }
        if (out->ret.nullable && out->ret.pointer) {
            snprintf(why, why_size, "a return type cannot be a nullable output (%.*s): return T? (e.g. float32?)",
                     (int)(re - rb), rb);
            return false;
        }
    }
    const char *p = open + 1;
    const char *ab = p, *ae = close;
    trim(&ab, &ae);
    if (ab == ae || (ae - ab == 4 && strncmp(ab, "void", 4) == 0))
        return true;
    while (p <= close) {
        const char *comma = memchr(p, ',', (size_t)(close - p));
        const char *end = comma ? comma : close;
        if (out->nparams == UDFKIT_MAX_PARAMS) {
            snprintf(why, why_size, "more than %d parameters", UDFKIT_MAX_PARAMS);
            return false;
        }
        udfkit_type *t = &out->params[out->nparams];
        const char *b = p, *e = end;
        trim(&b, &e);
        if (b == e) {
            snprintf(why, why_size, "empty parameter type in signature '%s'", text);
            return false;
        }
        if (memchr(b, '[', (size_t)(e - b))) {
            snprintf(why, why_size, "parameter %zu: arrays cannot cross the C ABI: pass a pointer (e.g. float32*) and a length",
                     out->nparams + 1);
            return false;
        }
        if (!parse_range(b, e, t)) {
            type_error(b, e, why, why_size);
            return false;
        }
        if (t->scalar == UDFKIT_VOID && !t->pointer) {
            snprintf(why, why_size, "parameter %zu is void; only void* can be passed", out->nparams + 1);
            return false;
        }
        out->nparams++;
        p = end + 1;
    }
    return true;
}

void udfkit_type_name(udfkit_type t, udfkit_buf *out)
{
    udfkit_buf_printf(out, "%s%s%s", scalars[t.scalar].numba, t.nullable ? "?" : "", t.pointer ? "*" : "");
}

void udfkit_signature_format(const udfkit_signature *s, udfkit_buf *out)
{
    if (s->has_return)
        udfkit_type_name(s->ret, out);
    udfkit_buf_puts(out, "(");
    for (size_t i = 0; i < s->nparams; i++) {
        if (i)
            udfkit_buf_puts(out, ", ");
        udfkit_type_name(s->params[i], out);
    }
    udfkit_buf_puts(out, ")");
}

void udfkit_type_c(udfkit_type t, udfkit_buf *out)
{
    udfkit_buf_printf(out, "%s%s", scalars[t.scalar].c, t.pointer ? " *" : "");
}

void udfkit_signature_c_prototype(const udfkit_signature *s, const char *name, udfkit_buf *out)
{
    bool nullable_ret = s->has_return && s->ret.nullable;
    if (nullable_ret) {
        /* A T? return: bool f(T *out, ...), true where the result is valid. */
        udfkit_buf_printf(out, "bool %s(%s *out", name, scalars[s->ret.scalar].c);
    } else {
        udfkit_type_c(s->ret, out);
        udfkit_buf_printf(out, "%s%s(", s->ret.pointer ? "" : " ", name);
    }
    if (s->nparams == 0 && !nullable_ret)
        udfkit_buf_puts(out, "void");
    for (size_t i = 0; i < s->nparams; i++) {
        if (i || nullable_ret)
            udfkit_buf_puts(out, ", ");
        udfkit_type_c(s->params[i], out);
        udfkit_buf_printf(out, "%sa%zu", s->params[i].pointer ? "" : " ", i);
        if (s->params[i].nullable)
            udfkit_buf_printf(out, ", bool %sa%zu_valid", s->params[i].pointer ? "*" : "", i);
    }
    udfkit_buf_puts(out, ")");
}
