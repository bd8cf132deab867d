#include "codegen/kernel_entry.h"

#include "base/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const template_names[] = {
    [UDFKIT_KERNEL_MAP] = "map",
    [UDFKIT_KERNEL_FILTER] = "filter",
    [UDFKIT_KERNEL_REDUCE] = "reduce",
    [UDFKIT_KERNEL_NULLABLE_MAP] = "nullable_map",
    [UDFKIT_KERNEL_NULLABLE_FILTER] = "nullable_filter",
    [UDFKIT_KERNEL_NULLABLE_REDUCE] = "nullable_reduce",
    [UDFKIT_KERNEL_INCLUSIVE_SCAN] = "inclusive_scan",
    [UDFKIT_KERNEL_EXCLUSIVE_SCAN] = "exclusive_scan",
    [UDFKIT_KERNEL_REDUCE_BY_KEY] = "reduce_by_key",
    [UDFKIT_KERNEL_TRANSFORM_REDUCE] = "transform_reduce",
    [UDFKIT_KERNEL_SEGMENTED_REDUCE] = "segmented_reduce",
    [UDFKIT_KERNEL_SORT] = "sort",
};

const char *udfkit_kernel_template_name(udfkit_kernel_template t)
{
    return template_names[t];
}

void udfkit_kernel_entry_suffix(const udfkit_kernel_entry *e, udfkit_buf *out)
{
    udfkit_buf_puts(out, e->c_name);
    if (e->tpl == UDFKIT_KERNEL_REDUCE_BY_KEY)
        udfkit_buf_printf(out, "_by_%s", udfkit_scalar_name(e->key));
    else if (e->tpl == UDFKIT_KERNEL_TRANSFORM_REDUCE)
        udfkit_buf_printf(out, "_%s", e->op_name);
    else if (e->tpl == UDFKIT_KERNEL_FILTER && e->filter_out != UDFKIT_FILTER_INDICES)
        udfkit_buf_puts(out, e->filter_out == UDFKIT_FILTER_VALUES ? "_values" : "_indices32");
}

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* An identifier at p, or NULL; *end is set past it. */
static char *identifier_at(const char *p, const char **end)
{
    const char *q = p;
    if (isalpha((unsigned char)*q) || *q == '_')
        while (isalnum((unsigned char)*q) || *q == '_')
            q++;
    *end = q;
    return q == p ? NULL : strndup(p, (size_t)(q - p));
}

/* reduce_by_key's K: an integer type, the keys' column. */
static udfkit_rc parse_key(const char *text, const char *key, udfkit_kernel_entry *out)
{
    udfkit_type t;
    if (!key)
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                           "kernel entry '%s': reduce_by_key takes the op and the keys' type: reduce_by_key(op, K), "
                           "e.g. reduce_by_key(add, int32)",
                           text);
    if (!udfkit_type_parse(key, &t) || t.pointer || t.nullable || t.scalar < UDFKIT_INT8 || t.scalar > UDFKIT_UINT64)
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                           "kernel entry '%s': reduce_by_key's keys are an integer type (int8, int16, int32, int64, "
                           "uint8, uint16, uint32, uint64), not '%s'",
                           text, key);
    out->key = t.scalar;
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_kernel_entry_parse(const char *text, udfkit_kernel_entry *out)
{
    memset(out, 0, sizeof *out);
    out->text = strdup(text);
    const char *p = skip_space(text);
    char *tpl = identifier_at(p, &p);
    p = skip_space(p);
    bool well_formed = tpl && *p == '(';
    char *option = NULL;
    if (well_formed) {
        out->c_name = identifier_at(skip_space(p + 1), &p);
        p = skip_space(p);
        if (out->c_name && *p == ',') {
            option = identifier_at(skip_space(p + 1), &p);
            p = skip_space(p);
            well_formed = option != NULL;
        }
        well_formed = well_formed && out->c_name && *p == ')' && !*skip_space(p + 1);
    }
    udfkit_rc rc = UDFKIT_RC_OK;
    if (!well_formed) {
        rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                         "kernel entry '%s' is not of the form template(c_name), e.g. map(f)", text);
    } else {
        size_t t = 0;
        while (t < sizeof template_names / sizeof *template_names && strcmp(template_names[t], tpl) != 0)
            t++;
        if (t == sizeof template_names / sizeof *template_names)
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                             "unknown kernel template '%s' in '%s' (templates: map, filter, reduce, nullable_map, "
                             "nullable_filter, nullable_reduce, inclusive_scan, exclusive_scan, reduce_by_key, "
                             "transform_reduce, segmented_reduce, sort)",
                             tpl, text);
        out->tpl = (udfkit_kernel_template)t;
    }
    if (!rc && out->tpl == UDFKIT_KERNEL_REDUCE_BY_KEY)
        rc = parse_key(text, option, out);
    else if (!rc && out->tpl == UDFKIT_KERNEL_TRANSFORM_REDUCE) {
        if (!option)
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                             "kernel entry '%s': transform_reduce takes the function and the op: "
                             "transform_reduce(f, op), e.g. transform_reduce(square, add)",
                             text);
        out->op_name = option;
        option = NULL;
    } else if (!rc && option) {
        if (out->tpl == UDFKIT_KERNEL_NULLABLE_MAP && strcmp(option, "nullify") == 0)
            out->nullify = true;
        else if (out->tpl == UDFKIT_KERNEL_NULLABLE_MAP)
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                             "kernel entry '%s': unknown option '%s' (nullable_map takes 'nullify': rows the UDF "
                             "fails become nulls)",
                             text, option);
        else if (out->tpl == UDFKIT_KERNEL_FILTER && strcmp(option, "indices32") == 0)
            out->filter_out = UDFKIT_FILTER_INDICES32;
        else if (out->tpl == UDFKIT_KERNEL_FILTER && strcmp(option, "values") == 0)
            out->filter_out = UDFKIT_FILTER_VALUES;
        else if (out->tpl == UDFKIT_KERNEL_FILTER)
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                             "kernel entry '%s': unknown option '%s' (filter takes 'indices32': 32-bit row numbers, "
                             "or 'values': the kept rows' values of every input)",
                             text, option);
        else
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "kernel entry '%s': %s takes no option ('%s')", text, tpl,
                             option);
    }
    free(option);
    free(tpl);
    return rc;
}

static bool is_type(udfkit_type t, udfkit_scalar s)
{
    return t.scalar == s && !t.pointer;
}

/* The signature does not fit: "kernel entry 'map(f)': 'f' is void(float32), but ...". */
static udfkit_rc mismatch(const udfkit_kernel_entry *e, const char *needs)
{
    udfkit_buf sig = UDFKIT_BUF_INIT;
    udfkit_signature_format(&e->fn->sig, &sig);
    udfkit_rc rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "kernel entry '%s': '%s' is %s, but %s", e->text,
                               e->c_name, sig.data, needs);
    udfkit_buf_free(&sig);
    return rc;
}

/* map and filter pass one element of each input array: values only, at least one. */
static udfkit_rc check_elementwise(const udfkit_kernel_entry *e)
{
    const udfkit_signature *s = &e->fn->sig;
    const char *tpl = udfkit_kernel_template_name(e->tpl);
    if (!s->nparams) {
        udfkit_buf why = UDFKIT_BUF_INIT;
        udfkit_buf_printf(&why, "%s needs at least one parameter, one input array each", tpl);
        udfkit_rc rc = mismatch(e, why.data);
        udfkit_buf_free(&why);
        return rc;
    }
    for (size_t i = 0; i < s->nparams; i++) {
        if (!s->params[i].pointer)
            continue;
        udfkit_buf why = UDFKIT_BUF_INIT, type = UDFKIT_BUF_INIT;
        udfkit_type_name(s->params[i], &type);
        udfkit_buf_printf(&why, "%s passes one element of each input array, not a pointer: parameter %zu is %s", tpl,
                          i + 1, type.data);
        udfkit_rc rc = mismatch(e, why.data);
        udfkit_buf_free(&why);
        udfkit_buf_free(&type);
        return rc;
    }
    return UDFKIT_RC_OK;
}

/* A map with several outputs: void(A1..An, O1*, ..., Ok*), values first, at least one
 * input and one output, each output a pointer to a value type. */
static udfkit_rc check_outputs(const udfkit_kernel_entry *e)
{
    const udfkit_signature *s = &e->fn->sig;
    size_t inputs = udfkit_kernel_map_inputs(s);
    const char *why = NULL;
    if (inputs == 0)
        why = "a map with outputs needs void(A1..An, O1*, ..., Ok*) with at least one input A1 (or R(A1..An))";
    else if (inputs == s->nparams)
        why = "map needs R(A1..An) with R not void, or void(A1..An, O1*, ..., Ok*) writing k outputs";
    for (size_t i = inputs; !why && i < s->nparams; i++)
        if (!s->params[i].pointer)
            why = "a map with outputs takes its inputs first, then only its outputs (O1*, ..., Ok*)";
        else if (s->params[i].scalar == UDFKIT_VOID)
            why = "a map's outputs point to values (void* is no column type)";
    return why ? mismatch(e, why) : UDFKIT_RC_OK;
}

/* An associative op T(T, T) with T a value (reduces, scans). */
static udfkit_rc check_op(const udfkit_kernel_entry *e, const udfkit_signature *s, bool t_known, udfkit_type t)
{
    udfkit_buf why = UDFKIT_BUF_INIT;
    const char *tpl = udfkit_kernel_template_name(e->tpl);
    if (t_known && (t.pointer || is_type(t, UDFKIT_VOID)))
        udfkit_buf_printf(&why, "%s needs T(T, T) with T a value, not void or a pointer", tpl);
    else if (s->nparams != 2 || !udfkit_type_equal(s->params[0], t) || !udfkit_type_equal(s->params[1], t))
        udfkit_buf_printf(&why, "%s needs T(T, T): two parameters of the type it returns", tpl);
    udfkit_rc rc = why.data ? mismatch(e, why.data) : UDFKIT_RC_OK;
    udfkit_buf_free(&why);
    return rc;
}

/* sort's comparator less: bool(T, T) with T a value, the sorted column's type; true where its
 * first argument goes before its second. A return type not declared (Python's, checked at
 * build time) is taken for bool. */
static udfkit_rc check_less(const udfkit_kernel_entry *e, const udfkit_signature *s)
{
    const char *why = NULL;
    if (s->has_return && !is_type(s->ret, UDFKIT_BOOL))
        why = "sort needs a comparator bool(T, T), true where the first value goes before the second: it must "
              "return bool";
    else if (s->nparams != 2 || !udfkit_type_equal(s->params[0], s->params[1]))
        why = "sort needs a comparator bool(T, T): two parameters of the type it sorts";
    else if (s->params[0].pointer || is_type(s->params[0], UDFKIT_VOID))
        why = "sort needs a comparator bool(T, T) with T a value, not void or a pointer";
    return why ? mismatch(e, why) : UDFKIT_RC_OK;
}

/* The entry's function c_name among fns; NULL with *rc set where there is none. */
static const udfkit_spec *find_function(const udfkit_kernel_entry *e, const char *c_name, const udfkit_spec *fns,
                                        size_t count, udfkit_rc *rc)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(fns[i].c_name, c_name) == 0)
            return &fns[i];
    udfkit_buf names = UDFKIT_BUF_INIT;
    for (size_t i = 0; i < count; i++)
        udfkit_buf_printf(&names, "%s%s", i ? ", " : "", fns[i].c_name);
    *rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "kernel entry '%s': no function '%s' among the inputs (%s%s)", e->text,
                      c_name, count ? "functions: " : "none given", count ? names.data : "");
    udfkit_buf_free(&names);
    return NULL;
}

/* transform_reduce(f, op): f T(A1..An) over values, op T(T, T) with f's T (an f without a
 * declared return takes op's). */
static udfkit_rc bind_transform_reduce(udfkit_kernel_entry *e, const udfkit_spec *fns, size_t count,
                                       bool return_may_be_unknown)
{
    const udfkit_signature *f = &e->fn->sig;
    udfkit_rc rc = UDFKIT_RC_OK;
    if (f->has_return && (f->ret.pointer || is_type(f->ret, UDFKIT_VOID)))
        return mismatch(e, "transform_reduce needs f: T(A1..An) with T a value, not void or a pointer");
    if ((rc = check_elementwise(e)))
        return rc;
    if (!(e->op = find_function(e, e->op_name, fns, count, &rc)))
        return rc;
    const udfkit_signature *op = &e->op->sig;
    udfkit_type t = f->has_return ? f->ret : op->ret;
    bool fits = (op->has_return || return_may_be_unknown) && op->nparams == 2 && !t.pointer &&
                !is_type(t, UDFKIT_VOID) && udfkit_type_equal(op->params[0], t) &&
                udfkit_type_equal(op->params[1], t) && (!op->has_return || udfkit_type_equal(op->ret, t)) &&
                !udfkit_signature_nullable(op);
    if (fits)
        return UDFKIT_RC_OK;
    udfkit_buf sig = UDFKIT_BUF_INIT, type = UDFKIT_BUF_INIT;
    udfkit_signature_format(op, &sig);
    udfkit_type_name(t, &type);
    rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                     "kernel entry '%s': '%s' is %s, but transform_reduce needs op: T(T, T) with T the type '%s' "
                     "returns (%s), with no nullable (T?) types",
                     e->text, e->op_name, sig.data, e->c_name, f->has_return ? type.data : "not declared");
    udfkit_buf_free(&sig);
    udfkit_buf_free(&type);
    return rc;
}

size_t udfkit_kernel_map_inputs(const udfkit_signature *s)
{
    size_t n = 0;
    while (n < s->nparams && !s->params[n].pointer)
        n++;
    return n;
}

udfkit_rc udfkit_kernel_entry_bind(udfkit_kernel_entry *e, const udfkit_spec *fns, size_t count,
                                   bool return_may_be_unknown)
{
    udfkit_rc rc = UDFKIT_RC_OK;
    if (!(e->fn = find_function(e, e->c_name, fns, count, &rc)))
        return rc;
    const udfkit_signature *s = &e->fn->sig;
    if (!s->has_return && !return_may_be_unknown)
        return mismatch(e, "its return type is not declared; give one in the spec");
    /* Where the return type is unknown, reduce's T is its first parameter's type. */
    bool t_known = s->has_return || s->nparams;
    udfkit_type t = s->has_return || !s->nparams ? s->ret : s->params[0];
    /* map, filter, reduce and the scans pass dense arrays: a null has no place in them. */
    bool dense = e->tpl == UDFKIT_KERNEL_MAP || e->tpl == UDFKIT_KERNEL_FILTER || e->tpl == UDFKIT_KERNEL_REDUCE ||
                 e->tpl == UDFKIT_KERNEL_INCLUSIVE_SCAN || e->tpl == UDFKIT_KERNEL_EXCLUSIVE_SCAN ||
                 e->tpl == UDFKIT_KERNEL_REDUCE_BY_KEY || e->tpl == UDFKIT_KERNEL_TRANSFORM_REDUCE ||
                 e->tpl == UDFKIT_KERNEL_SEGMENTED_REDUCE || e->tpl == UDFKIT_KERNEL_SORT;
    if (dense && udfkit_signature_nullable(s)) {
        udfkit_buf why = UDFKIT_BUF_INIT;
        const char *tpl = udfkit_kernel_template_name(e->tpl);
        udfkit_buf_printf(&why, "%s takes no nullable (T?) types: it passes dense columns, with no validity", tpl);
        if (e->tpl == UDFKIT_KERNEL_MAP || e->tpl == UDFKIT_KERNEL_FILTER || e->tpl == UDFKIT_KERNEL_REDUCE)
            udfkit_buf_printf(&why, "; use nullable_%s(%s), whose columns come with validity bitmaps", tpl, e->c_name);
        rc = mismatch(e, why.data);
        udfkit_buf_free(&why);
        return rc;
    }
    switch (e->tpl) {
    case UDFKIT_KERNEL_NULLABLE_MAP:
    case UDFKIT_KERNEL_MAP:
        if (s->has_return && is_type(s->ret, UDFKIT_VOID))
            rc = check_outputs(e);
        else if (s->has_return && s->ret.pointer)
            rc = mismatch(e, "map needs R(A1..An) with R a value, not a pointer");
        else
            rc = check_elementwise(e);
        break;
    case UDFKIT_KERNEL_FILTER:
        if (s->has_return && !is_type(s->ret, UDFKIT_BOOL))
            rc = mismatch(e, "filter needs a predicate bool(A1..An)");
        else
            rc = check_elementwise(e);
        break;
    case UDFKIT_KERNEL_NULLABLE_FILTER:
        if (s->has_return && !is_type(s->ret, UDFKIT_BOOL))
            rc = mismatch(e, "nullable_filter needs a predicate bool(A1..An) or bool?(A1..An)");
        else
            rc = check_elementwise(e);
        break;
    case UDFKIT_KERNEL_NULLABLE_REDUCE:
        if (udfkit_signature_nullable(s)) {
            rc = mismatch(e, "nullable_reduce skips nulls and combines valid values only: op is T(T, T), with no "
                             "nullable (T?) types");
            break;
        }
        /* fall through */
    case UDFKIT_KERNEL_REDUCE:
    case UDFKIT_KERNEL_INCLUSIVE_SCAN:
    case UDFKIT_KERNEL_EXCLUSIVE_SCAN:
    case UDFKIT_KERNEL_REDUCE_BY_KEY:
    case UDFKIT_KERNEL_SEGMENTED_REDUCE:
        rc = check_op(e, s, t_known, t);
        break;
    case UDFKIT_KERNEL_TRANSFORM_REDUCE:
        rc = bind_transform_reduce(e, fns, count, return_may_be_unknown);
        break;
    case UDFKIT_KERNEL_SORT:
        rc = check_less(e, s);
        break;
    }
    return rc;
}

void udfkit_kernel_entry_free(udfkit_kernel_entry *e)
{
    free(e->text);
    free(e->c_name);
    free(e->op_name);
    memset(e, 0, sizeof *e);
}
