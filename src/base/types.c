#include "base/types.h"

#include "base/text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The C++ types each kind is to the exporter's check, in the order the prelude lists them. */
static const udfkit_cxx_form void_cxx[] = {{"void"}, {NULL}}, bool_cxx[] = {{"bool"}, {NULL}};
static const udfkit_cxx_form int8_cxx[] = {{"char", NULL, "/* char is signed on every platform CUDA supports. */"},
                                            {"signed char"}, {NULL}};
static const udfkit_cxx_form int16_cxx[] = {{"short"}, {NULL}}, int32_cxx[] = {{"int"}, {NULL}};
static const udfkit_cxx_form int64_cxx[] = {{"long", "sizeof(long) == 8 ? __UDFKIT_K_INT64 : __UDFKIT_K_INT32"},
                                             {"long long"}, {NULL}};
static const udfkit_cxx_form uint8_cxx[] = {{"unsigned char"}, {NULL}}, uint16_cxx[] = {{"unsigned short"}, {NULL}};
static const udfkit_cxx_form uint32_cxx[] = {{"unsigned int"}, {NULL}};
static const udfkit_cxx_form uint64_cxx[] = {
    {"unsigned long", "sizeof(long) == 8 ? __UDFKIT_K_UINT64 : __UDFKIT_K_UINT32"}, {"unsigned long long"}, {NULL}};
static const udfkit_cxx_form float16_cxx[] = {{"__half"}, {NULL}}, float32_cxx[] = {{"float"}, {NULL}};
static const udfkit_cxx_form float64_cxx[] = {{"double"}, {NULL}};
/* A string is what a UDF takes (udfkit::string_view) and the builder of a result. */
static const udfkit_cxx_form string_cxx[] = {{"udfkit::string_view"}, {"udfkit_string_out"}, {NULL}};
/* Kinds the exporter checks as another's (abi_kind) have no C++ forms of their own. */
static const udfkit_cxx_form no_cxx[] = {{NULL}};
/* SPEC.md, "Strings": a string parameter aN is `const char *aN, int64_t aN_size`. */
static const udfkit_abi_part string_parts[] = {
    {"", "const char *", "const char *", UDFKIT_INT8, true, "udfkit_detail::column_text(%s)"},
    {"_size", "int64_t", "long", UDFKIT_INT64, false, "%s.size()"},
};

/* The names C and numpy give the kinds, which a spec must spell the numba way. */
static const char *const bool_c[] = {"_Bool", NULL};
static const char *const int8_c[] = {"char", "signed char", "int8_t", NULL};
static const char *const int16_c[] = {"short", "int16_t", NULL};
static const char *const int32_c[] = {"int", "int32_t", "i4", NULL};
static const char *const int64_c[] = {"long", "long long", "long int", "int64_t", "i8", NULL};
static const char *const uint8_c[] = {"unsigned char", "uint8_t", NULL};
static const char *const uint16_c[] = {"unsigned short", "uint16_t", NULL};
static const char *const uint32_c[] = {"unsigned", "unsigned int", "uint32_t", NULL};
static const char *const uint64_c[] = {"unsigned long", "unsigned long long", "size_t", "uint64_t", NULL};
static const char *const float16_c[] = {"half", "__half", NULL};
static const char *const float32_c[] = {"float", "f4", NULL};
static const char *const float64_c[] = {"double", "f8", NULL};
static const char *const string_c[] = {"str", "text", "utf8", NULL};
static const char *const date_c[] = {"date", NULL};
static const char *const timestamp_c[] = {"datetime", "datetime64", NULL};
static const char *const duration_c[] = {"timedelta", "timedelta64", "interval", NULL};
static const char *const decimal_c[] = {"decimal", "numeric", NULL};
/* A decimal128 is its two 64-bit halves at the C ABI (SPEC.md): aN_lo, aN_hi. */
static const udfkit_abi_part decimal128_parts[] = {
    {"_lo", "uint64_t", "unsigned long", UDFKIT_UINT64, false, "%s.lo"},
    {"_hi", "int64_t", "long", UDFKIT_INT64, false, "%s.hi"},
};
static const udfkit_cxx_form decimal128_cxx[] = {{"udfkit_decimal128"}, {NULL}};
static const char *const no_c_names[] = {NULL};

#define INT (UDFKIT_KIND_VALUE | UDFKIT_KIND_INTEGER | UDFKIT_KIND_SIGNED | UDFKIT_KIND_KEY)
#define UINT (UDFKIT_KIND_VALUE | UDFKIT_KIND_INTEGER | UDFKIT_KIND_KEY)
#define TIME (UDFKIT_KIND_VALUE | UDFKIT_KIND_SIGNED | UDFKIT_KIND_KEY | UDFKIT_KIND_TEMPORAL)
#define DEC (UDFKIT_KIND_VALUE | UDFKIT_KIND_SIGNED | UDFKIT_KIND_KEY | UDFKIT_KIND_DECIMAL)
#define FLOAT (UDFKIT_KIND_VALUE | UDFKIT_KIND_FLOAT | UDFKIT_KIND_SIGNED)

static const udfkit_kind_row kind_rows[UDFKIT_KIND_COUNT] = {
    /* name, flags, size, C, CUDA, C params, numba, Arrow, exporter kind, C++ forms, C names */
    [UDFKIT_VOID] = {"void", 0, 0, "void", "void", 0, "void", NULL, "__UDFKIT_K_VOID", void_cxx, no_c_names},
    [UDFKIT_BOOL] = {"bool", UDFKIT_KIND_VALUE, 1, "bool", "bool", 1, "boolean", "b", "__UDFKIT_K_BOOL", bool_cxx, bool_c},
    [UDFKIT_INT8] = {"int8", INT, 1, "int8_t", "signed char", 1, "int8", "c", "__UDFKIT_K_INT8", int8_cxx, int8_c},
    [UDFKIT_INT16] = {"int16", INT, 2, "int16_t", "short", 1, "int16", "s", "__UDFKIT_K_INT16", int16_cxx, int16_c},
    [UDFKIT_INT32] = {"int32", INT, 4, "int32_t", "int", 1, "int32", "i", "__UDFKIT_K_INT32", int32_cxx, int32_c},
    /* int64 is long in CUDA C++, as int64_t is on LP64. */
    [UDFKIT_INT64] = {"int64", INT, 8, "int64_t", "long", 1, "int64", "l", "__UDFKIT_K_INT64", int64_cxx, int64_c},
    [UDFKIT_UINT8] = {"uint8", UINT, 1, "uint8_t", "unsigned char", 1, "uint8", "C", "__UDFKIT_K_UINT8", uint8_cxx,
                      uint8_c},
    [UDFKIT_UINT16] = {"uint16", UINT, 2, "uint16_t", "unsigned short", 1, "uint16", "S", "__UDFKIT_K_UINT16",
                       uint16_cxx, uint16_c},
    [UDFKIT_UINT32] = {"uint32", UINT, 4, "uint32_t", "unsigned int", 1, "uint32", "I", "__UDFKIT_K_UINT32", uint32_cxx,
                       uint32_c},
    [UDFKIT_UINT64] = {"uint64", UINT, 8, "uint64_t", "unsigned long", 1, "uint64", "L", "__UDFKIT_K_UINT64",
                       uint64_cxx, uint64_c},
    /* float16 crosses the C ABI as its bit pattern (SPEC.md); CUDA C callers get __half wrappers. */
    [UDFKIT_FLOAT16] = {"float16", FLOAT, 2, "uint16_t", "unsigned short", 1, "float16", "e", "__UDFKIT_K_FLOAT16",
                        float16_cxx, float16_c, "__half", "__ushort_as_half", "__half_as_ushort"},
    [UDFKIT_FLOAT32] = {"float32", FLOAT, 4, "float", "float", 1, "float32", "f", "__UDFKIT_K_FLOAT32", float32_cxx,
                        float32_c},
    [UDFKIT_FLOAT64] = {"float64", FLOAT, 8, "double", "double", 1, "float64", "g", "__UDFKIT_K_FLOAT64", float64_cxx,
                        float64_c},
    /* UTF-8 text: two C parameters, a result through its builder (udfkit_string_out *, which is
     * what string* spells), columns of Arrow's three layouts (docs/strings.md). */
    [UDFKIT_STRING] = {"string", UDFKIT_KIND_VALUE | UDFKIT_KIND_TEXT, 0, "udfkit_string_out", "udfkit_string_out", 2,
                       "udfkit_string", "u", "__UDFKIT_K_STRING", string_cxx, string_c, NULL, NULL, NULL,
                       string_parts, true, "udfkit::string_view", "udfkit_strings", "udfkit::strings_column"},
    /* Dates, times and decimals (docs/decimals-and-dates.md) with Arrow's layouts: integers at
     * the C ABI, checked as those integers; a decimal128 is two halves, its result through
     * udfkit_decimal128 *out. Arrow's formats take the parameters (types.c's type_arrow). */
    [UDFKIT_DATE32] = {"date32", TIME, 4, "int32_t", "int", 1, "NPDatetime", "tdD", "__UDFKIT_K_DATE32", no_cxx,
                       date_c, .abi_kind = UDFKIT_INT32},
    [UDFKIT_DATE64] = {"date64", TIME, 8, "int64_t", "long", 1, "NPDatetime", "tdm", "__UDFKIT_K_DATE64", no_cxx,
                       no_c_names, .abi_kind = UDFKIT_INT64},
    [UDFKIT_TIMESTAMP] = {"timestamp", TIME, 8, "int64_t", "long", 1, "NPDatetime", "ts%c:", "__UDFKIT_K_TIMESTAMP",
                          no_cxx, timestamp_c, .params = UDFKIT_PARAMS_UNIT, .abi_kind = UDFKIT_INT64},
    [UDFKIT_DURATION] = {"duration", TIME, 8, "int64_t", "long", 1, "NPTimedelta", "tD%c", "__UDFKIT_K_DURATION",
                         no_cxx, duration_c, .params = UDFKIT_PARAMS_UNIT, .abi_kind = UDFKIT_INT64},
    [UDFKIT_DECIMAL32] = {"decimal32", DEC, 4, "int32_t", "int", 1, "udfkit_decimal", "d:%u,%u,32",
                          "__UDFKIT_K_DECIMAL32", no_cxx, no_c_names, .params = UDFKIT_PARAMS_DECIMAL,
                          .max_precision = 9, .abi_kind = UDFKIT_INT32},
    [UDFKIT_DECIMAL64] = {"decimal64", DEC, 8, "int64_t", "long", 1, "udfkit_decimal", "d:%u,%u,64",
                          "__UDFKIT_K_DECIMAL64", no_cxx, no_c_names, .params = UDFKIT_PARAMS_DECIMAL,
                          .max_precision = 18, .abi_kind = UDFKIT_INT64},
    [UDFKIT_DECIMAL128] = {"decimal128", DEC, 16, "udfkit_decimal128", "udfkit_decimal128", 2, "udfkit_decimal",
                           "d:%u,%u", "__UDFKIT_K_DECIMAL128", decimal128_cxx, decimal_c, .parts = decimal128_parts,
                           .result_out = true, .params = UDFKIT_PARAMS_DECIMAL, .max_precision = 38},
};

#undef INT
#undef UINT
#undef FLOAT
#undef TIME
#undef DEC

const udfkit_kind_row *udfkit_kind_info(udfkit_kind k)
{
    return &kind_rows[k];
}

const char *udfkit_kind_name(udfkit_kind k)
{
    return kind_rows[k].name;
}

size_t udfkit_kind_size(udfkit_kind k)
{
    return kind_rows[k].size;
}

udfkit_type udfkit_type_value(udfkit_type t)
{
    return (udfkit_type){.kind = t.kind, .unit = t.unit, .precision = t.precision, .scale = t.scale};
}

bool udfkit_type_is(udfkit_type t, udfkit_kind k)
{
    return t.kind == k && !t.pointer;
}

bool udfkit_type_equal(udfkit_type a, udfkit_type b)
{
    return a.kind == b.kind && a.pointer == b.pointer && a.nullable == b.nullable && a.unit == b.unit &&
           a.precision == b.precision && a.scale == b.scale;
}

bool udfkit_signature_nullable(const udfkit_signature *s)
{
    bool any = s->has_return && s->ret.nullable;
    for (size_t i = 0; i < s->nparams; i++)
        any |= s->params[i].nullable;
    return any;
}

/* Whether t is a result written through its kind's builder (a string result). */
static bool result_out(udfkit_type t)
{
    return kind_rows[t.kind].result_out && !t.pointer;
}

size_t udfkit_signature_c_arity(const udfkit_signature *s)
{
    size_t n = s->has_return && (s->ret.nullable || result_out(s->ret));
    for (size_t i = 0; i < s->nparams; i++)
        n += (s->params[i].pointer ? 1 : kind_rows[s->params[i].kind].c_params) + s->params[i].nullable;
    return n;
}

bool udfkit_signature_has(const udfkit_signature *s, unsigned flags)
{
    bool any = s->has_return && (kind_rows[s->ret.kind].flags & flags) == flags;
    for (size_t i = 0; i < s->nparams; i++)
        any |= (kind_rows[s->params[i].kind].flags & flags) == flags;
    return any;
}

bool udfkit_signature_expanded(const udfkit_signature *s)
{
    bool any = udfkit_signature_nullable(s) || (s->has_return && result_out(s->ret));
    for (size_t i = 0; i < s->nparams; i++)
        any |= !s->params[i].pointer && kind_rows[s->params[i].kind].parts;
    return any;
}

static void trim(const char **begin, const char **end)
{
    while (*begin < *end && isspace((unsigned char)**begin))
        (*begin)++;
    while (*end > *begin && isspace((unsigned char)(*end)[-1]))
        (*end)--;
}

typedef enum { PARSED, UNKNOWN_TYPE, NULLABLE_POINTER, NULLABLE_VOID, BAD_PARAMS, ARRAY } parse_result;

static const char *const unit_names[] = {"s", "ms", "us", "ns"};

/* A kind's parameters after its name, b..e: "[us]" or "(15,2)"; false where they are not the
 * kind's (none given where it takes some counts as wrong too). */
static bool parse_params(const udfkit_kind_row *row, const char *b, const char *e, udfkit_type *t)
{
    trim(&b, &e);
    if (row->params == UDFKIT_PARAMS_NONE)
        return b == e;
    if (row->params == UDFKIT_PARAMS_UNIT) {
        if (e - b < 3 || *b != '[' || e[-1] != ']')
            return false;
        const char *u = b + 1, *ue = e - 1;
        trim(&u, &ue);
        for (int k = 0; k < 4; k++)
            if ((size_t)(ue - u) == strlen(unit_names[k]) && strncmp(u, unit_names[k], (size_t)(ue - u)) == 0) {
                t->unit = (uint8_t)k;
                return true;
            }
        return false;
    }
    unsigned p = 0, sc = 0;
    int used = 0;
    char text[64];
    if (e - b >= (ptrdiff_t)sizeof text)
        return false;
    memcpy(text, b, (size_t)(e - b));
    text[e - b] = '\0';
    if (sscanf(text, " ( %u , %u ) %n", &p, &sc, &used) != 2 || text[used] != '\0' || p < 1 ||
        p > row->max_precision || sc > p)
        return false;
    t->precision = (uint8_t)p;
    t->scale = (uint8_t)sc;
    return true;
}

/* "T", "T*", "T?", "T?*", with T's parameters ("timestamp[us]", "decimal128(15,2)"); "T*?" and
 * "void?" are refused with a reason of their own, as are parameters a kind does not take. */
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
    const char *name_end = begin;
    while (name_end < end && (isalnum((unsigned char)*name_end) || *name_end == '_'))
        name_end++;
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++) {
        size_t n = strlen(kind_rows[k].name);
        if ((size_t)(name_end - begin) != n || strncmp(begin, kind_rows[k].name, n) != 0)
            continue;
        if (nullable && !(kind_rows[k].flags & UDFKIT_KIND_VALUE))
            return NULLABLE_VOID;
        *out = (udfkit_type){.kind = (udfkit_kind)k};
        /* numba's array spellings (float32[:]) have a ':' in their brackets. */
        if (!parse_params(&kind_rows[k], name_end, end, out))
            return memchr(name_end, ':', (size_t)(end - name_end)) && !kind_rows[k].params ? ARRAY : BAD_PARAMS;
        out->pointer = pointer;
        out->nullable = nullable;
        return PARSED;
    }
    return memchr(begin, '[', (size_t)(end - begin)) ? ARRAY : UNKNOWN_TYPE;
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

static void unknown_type(const char *b, const char *e, char *why, size_t why_size);
static void params_error(const char *b, const char *e, char *why, size_t why_size);

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
    else if (r == ARRAY)
        snprintf(why, why_size, "arrays cannot cross the C ABI: pass a pointer (e.g. float32*) and a length");
    else if (r == BAD_PARAMS)
        params_error(b, e, why, why_size);
    else
        unknown_type(b, e, why, why_size);
}

/* What parameters the kind named at b takes, for a type whose parameters are wrong. */
static void params_error(const char *b, const char *e, char *why, size_t why_size)
{
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++) {
        size_t n = strlen(kind_rows[k].name);
        if (strncmp(b, kind_rows[k].name, n) != 0 || isalnum((unsigned char)b[n]) || b[n] == '_')
            continue;
        if (kind_rows[k].params == UDFKIT_PARAMS_UNIT)
            snprintf(why, why_size, "'%.*s' is not a type: %s takes its unit, %s[s], %s[ms], %s[us] or %s[ns]",
                     (int)(e - b), b, kind_rows[k].name, kind_rows[k].name, kind_rows[k].name, kind_rows[k].name,
                     kind_rows[k].name);
        else if (kind_rows[k].params == UDFKIT_PARAMS_DECIMAL)
            snprintf(why, why_size,
                     "'%.*s' is not a type: %s takes its precision and scale, %s(p,s) with 1 <= p <= %u and 0 <= s <= p",
                     (int)(e - b), b, kind_rows[k].name, kind_rows[k].name, kind_rows[k].max_precision);
        else
            snprintf(why, why_size, "'%.*s' is not a type: %s takes no parameters", (int)(e - b), b, kind_rows[k].name);
        return;
    }
}

/* The types a spec may name, for messages: "bool, int8..int64, ..., T*, void*" (a run of
 * integer kinds of one signedness as its first and last). */
static void type_list(udfkit_buf *out)
{
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++) {
        unsigned flags = kind_rows[k].flags;
        if (!(flags & UDFKIT_KIND_VALUE))
            continue;
        int last = k;
        while ((flags & UDFKIT_KIND_INTEGER) && last + 1 < UDFKIT_KIND_COUNT && kind_rows[last + 1].flags == flags)
            last++;
        udfkit_buf_printf(out, "%s%s", out->size ? ", " : "", kind_rows[k].name);
        if (last > k)
            udfkit_buf_printf(out, "..%s", kind_rows[last].name);
        udfkit_buf_puts(out, kind_rows[k].params == UDFKIT_PARAMS_UNIT      ? "[unit]"
                             : kind_rows[k].params == UDFKIT_PARAMS_DECIMAL ? "(p,s)"
                                                                           : "");
        k = last;
    }
    udfkit_buf_puts(out, ", T*, void*");
}

/* "unknown type 'double': write float64 ...", "unknown type 'flaot32' (did you mean
 * float32? ...)". */
static void unknown_type(const char *b, const char *e, char *why, size_t why_size)
{
    const char *star = e;
    while (star > b && (star[-1] == '*' || isspace((unsigned char)star[-1])))
        star--;
    size_t n = (size_t)(star - b);
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++)
        for (const char *const *c = kind_rows[k].c_names; *c; c++)
            if (strlen(*c) == n && strncmp(b, *c, n) == 0) {
                snprintf(why, why_size, "unknown type '%.*s': write %s%.*s (the spec names C's %s %s)", (int)(e - b), b,
                         kind_rows[k].name, (int)(e - star), star, *c, kind_rows[k].name);
                return;
            }
    const char *near = NULL;
    size_t best = 3;
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++) {
        size_t d = udfkit_edit_distance(b, n, kind_rows[k].name, 3);
        if (d < best) {
            best = d;
            near = kind_rows[k].name;
        }
    }
    udfkit_buf types = UDFKIT_BUF_INIT;
    type_list(&types);
    if (near)
        snprintf(why, why_size, "unknown type '%.*s' (did you mean %s%.*s? types: %s)", (int)(e - b), b, near,
                 (int)(e - star), star, types.data);
    else
        snprintf(why, why_size, "unknown type '%.*s' (types: %s)", (int)(e - b), b, types.data);
    udfkit_buf_free(&types);
}

/* Where a type that starts at p ends: after its name, its parameters ("[us]", "(15,2)") and its
 * '?' and '*'; NULL where a parenthesis or bracket is not closed. */
static const char *type_end(const char *p, const char *end)
{
    while (p < end && *p != ',' && *p != ')') {
        if (*p == '(' || *p == '[') {
            const char close = *p == '(' ? ')' : ']';
            const char *q = memchr(p, close, (size_t)(end - p));
            if (!q)
                return NULL;
            p = q;
        }
        p++;
    }
    return p;
}

/* The '(' that opens the parameter list: the first after the return type's name and
 * parameters (a decimal's "(p,s)" is its own), or NULL. */
static const char *params_open(const char *text)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    const char *name = p;
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    const char *q = p;
    while (isspace((unsigned char)*q))
        q++;
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++)
        if (kind_rows[k].params == UDFKIT_PARAMS_DECIMAL && (size_t)(p - name) == strlen(kind_rows[k].name) &&
            strncmp(name, kind_rows[k].name, (size_t)(p - name)) == 0 && *q == '(') {
            const char *close = strchr(q, ')');
            if (!close)
                return NULL;
            return strchr(close + 1, '(');
        }
    return strchr(text, '(');
}

bool udfkit_signature_parse(const char *text, udfkit_signature *out, char *why, size_t why_size)
{
    memset(out, 0, sizeof *out);
    const char *open = params_open(text);
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
        const char *end = type_end(p, close);
        if (!end) {
            snprintf(why, why_size, "signature '%s' is not of the form ret(arg, ...)", text);
            return false;
        }
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
        if (!parse_range(b, e, t)) {
            udfkit_type ignored;
            if (parse_type(b, e, &ignored) == ARRAY)
                snprintf(why, why_size,
                         "parameter %zu: arrays cannot cross the C ABI: pass a pointer (e.g. float32*) and a length",
                         out->nparams + 1);
            else
                type_error(b, e, why, why_size);
            return false;
        }
        if (!(kind_rows[t->kind].flags & UDFKIT_KIND_VALUE) && !t->pointer) {
            snprintf(why, why_size, "parameter %zu is void; only void* can be passed", out->nparams + 1);
            return false;
        }
        out->nparams++;
        p = end + 1;
    }
    return true;
}

/* A kind's parameters as a spec spells them: "[us]", "(15,2)", or nothing. */
static void params_name(udfkit_type t, udfkit_buf *out)
{
    if (kind_rows[t.kind].params == UDFKIT_PARAMS_UNIT)
        udfkit_buf_printf(out, "[%s]", unit_names[t.unit & 3]);
    else if (kind_rows[t.kind].params == UDFKIT_PARAMS_DECIMAL)
        udfkit_buf_printf(out, "(%u,%u)", t.precision, t.scale);
}

void udfkit_type_name(udfkit_type t, udfkit_buf *out)
{
    udfkit_buf_puts(out, kind_rows[t.kind].name);
    params_name(t, out);
    udfkit_buf_printf(out, "%s%s", t.nullable ? "?" : "", t.pointer ? "*" : "");
}

bool udfkit_type_arrow(udfkit_type t, udfkit_buf *out)
{
    const char *f = kind_rows[t.kind].arrow;
    if (!f || t.pointer)
        return false;
    if (kind_rows[t.kind].params == UDFKIT_PARAMS_UNIT)
        udfkit_buf_printf(out, f, "smun"[t.unit & 3]);
    else if (kind_rows[t.kind].params == UDFKIT_PARAMS_DECIMAL)
        udfkit_buf_printf(out, f, t.precision, t.scale);
    else
        udfkit_buf_puts(out, f);
    return true;
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
    udfkit_buf_printf(out, "%s%s", kind_rows[t.kind].c, t.pointer ? " *" : "");
}

/* "T name", or "T *name" where T ends with '*'. */
static void c_param(udfkit_buf *out, const char *type, const char *name, size_t i, const char *suffix)
{
    size_t n = strlen(type);
    udfkit_buf_printf(out, "%s%s%s%zu%s", type, n && type[n - 1] == '*' ? "" : " ", name, i, suffix);
}

void udfkit_signature_c_prototype(const udfkit_signature *s, const char *name, udfkit_buf *out)
{
    bool nullable_ret = s->has_return && s->ret.nullable, built = s->has_return && result_out(s->ret);
    if (built) {
        /* A string result: void f(udfkit_string_out *out, ...), bool under string? (valid). */
        udfkit_buf_printf(out, "%s %s(%s *out", nullable_ret ? "bool" : "void", name, kind_rows[s->ret.kind].c);
    } else if (nullable_ret) {
        /* A T? return: bool f(T *out, ...), true where the result is valid. */
        udfkit_buf_printf(out, "bool %s(%s *out", name, kind_rows[s->ret.kind].c);
    } else {
        udfkit_type_c(s->ret, out);
        udfkit_buf_printf(out, "%s%s(", s->ret.pointer ? "" : " ", name);
    }
    bool leading = built || nullable_ret;
    if (s->nparams == 0 && !leading)
        udfkit_buf_puts(out, "void");
    for (size_t i = 0; i < s->nparams; i++) {
        const udfkit_type t = s->params[i];
        const udfkit_abi_part *parts = t.pointer ? NULL : kind_rows[t.kind].parts;
        if (i || leading)
            udfkit_buf_puts(out, ", ");
        for (unsigned p = 0; parts && p < kind_rows[t.kind].c_params; p++) {
            udfkit_buf_puts(out, p ? ", " : "");
            c_param(out, parts[p].c, "a", i, parts[p].suffix);
        }
        if (!parts) {
            udfkit_type_c(t, out);
            udfkit_buf_printf(out, "%sa%zu", t.pointer ? "" : " ", i);
        }
        if (t.nullable)
            udfkit_buf_printf(out, ", bool %sa%zu_valid", t.pointer ? "*" : "", i);
    }
    udfkit_buf_puts(out, ")");
}
