#include "codegen/kernel_entry.h"

#include "base/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *udfkit_kernel_template_name(udfkit_kernel_template t)
{
    return udfkit_template_info(t)->name;
}

const udfkit_template_row *udfkit_kernel_entry_row(const udfkit_kernel_entry *e)
{
    return e->row ? e->row : udfkit_template_info(e->tpl);
}

void udfkit_kernel_entry_suffix(const udfkit_kernel_entry *e, udfkit_buf *out)
{
    udfkit_buf_puts(out, e->c_name);
    if (e->word)
        udfkit_buf_puts(out, e->word->suffix);
    else if (udfkit_kernel_entry_row(e)->extra == UDFKIT_EXTRA_KEY)
        udfkit_buf_printf(out, "_by_%s", udfkit_kind_name(e->key));
    else if (udfkit_kernel_entry_row(e)->extra == UDFKIT_EXTRA_FUNCTION)
        udfkit_buf_printf(out, "_%s", e->op_name);
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

/* The keys' type of an entry with UDFKIT_EXTRA_KEY (reduce_by_key's K): a kind with the row's
 * key_flags. */
static udfkit_rc parse_key(const udfkit_template_row *row, const char *text, const char *key, udfkit_kernel_entry *out)
{
    udfkit_type t;
    if (!udfkit_type_parse(key, &t) || t.pointer || t.nullable || (udfkit_kind_info(t.kind)->flags & row->key_flags) != row->key_flags) {
        udfkit_buf kinds = UDFKIT_BUF_INIT;
        for (int k = 0; k < UDFKIT_KIND_COUNT; k++)
            if ((udfkit_kind_info((udfkit_kind)k)->flags & row->key_flags) == row->key_flags)
                udfkit_buf_printf(&kinds, "%s%s%s", kinds.size ? ", " : "", udfkit_kind_name((udfkit_kind)k),
                                  udfkit_kind_info((udfkit_kind)k)->params == UDFKIT_PARAMS_UNIT      ? "[unit]"
                                  : udfkit_kind_info((udfkit_kind)k)->params == UDFKIT_PARAMS_DECIMAL ? "(p,s)"
                                                                                                      : "");
        udfkit_rc rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "kernel entry '%s': %s's keys are of a type compared as a "
                                   "whole (%s), not '%s'", text, row->name, kinds.data, key);
        udfkit_buf_free(&kinds);
        return rc;
    }
    out->key = t.kind;
    return UDFKIT_RC_OK;
}

/* What follows the function: nothing, one of the row's words, a type or a second function. */
static udfkit_rc parse_extra(const char *text, const char *tpl, char **option, udfkit_kernel_entry *out)
{
    const udfkit_template_row *row = udfkit_kernel_entry_row(out);
    if (row->extra == UDFKIT_EXTRA_KEY || row->extra == UDFKIT_EXTRA_FUNCTION) {
        if (!*option)
            return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "kernel entry '%s': %s", text, row->extra_help);
        if (row->extra == UDFKIT_EXTRA_KEY)
            return parse_key(row, text, *option, out);
        out->op_name = *option;
        *option = NULL;
        return UDFKIT_RC_OK;
    }
    if (!*option)
        return UDFKIT_RC_OK;
    if (row->extra != UDFKIT_EXTRA_WORD)
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "kernel entry '%s': %s takes no option ('%s')", text, tpl, *option);
    udfkit_buf words = UDFKIT_BUF_INIT;
    for (const udfkit_template_word *w = row->words; w->word; w++) {
        if (strcmp(w->word, *option) == 0) {
            out->word = w;
            out->nullify = w->nullify;
            out->filter_out = w->filter_out;
            udfkit_buf_free(&words);
            return UDFKIT_RC_OK;
        }
        udfkit_buf_printf(&words, "%s%s", w == row->words ? "" : ", or ", w->help);
    }
    udfkit_rc rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "kernel entry '%s': unknown option '%s' (%s takes %s)", text,
                               *option, tpl, words.data);
    udfkit_buf_free(&words);
    return rc;
}

/* An entry's option at p: an identifier, with the parameters a type spells after its name
 * ("timestamp[us]", "decimal128(15,2)"); NULL where there is none. */
static char *option_at(const char *p, const char **end)
{
    const char *q;
    char *name = identifier_at(p, &q);
    if (!name)
        return *end = p, NULL;
    const char *r = skip_space(q);
    if (*r == '[' || (*r == '(' && strchr(r, ')') && strchr(r, ')') != strrchr(r, ')'))) {
        const char *close = strchr(r, *r == '[' ? ']' : ')');
        if (close) {
            free(name);
            *end = close + 1;
            return strndup(p, (size_t)(close + 1 - p));
        }
    }
    *end = q;
    return name;
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
            option = option_at(skip_space(p + 1), &p);
            p = skip_space(p);
            well_formed = option != NULL;
        }
        well_formed = well_formed && out->c_name && *p == ')' && !*skip_space(p + 1);
    }
    udfkit_rc rc = UDFKIT_RC_OK;
    if (!well_formed) {
        rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                         "kernel entry '%s' is not of the form template(c_name), e.g. map(f)", text);
    } else if (!udfkit_template_find(tpl, strlen(tpl), &out->tpl)) {
        udfkit_buf names = UDFKIT_BUF_INIT;
        udfkit_template_list(&names);
        rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "unknown kernel template '%s' in '%s' (templates: %s)", tpl, text,
                         names.data);
        udfkit_buf_free(&names);
    } else {
        rc = parse_extra(text, tpl, &option, out);
    }
    free(option);
    free(tpl);
    return rc;
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
        else if (s->params[i].kind == UDFKIT_VOID)
            why = "a map's outputs point to values (void* is no column type)";
    return why ? mismatch(e, why) : UDFKIT_RC_OK;
}

/* An associative op T(T, T) with T a value (reduces, scans). */
static udfkit_rc check_op(const udfkit_kernel_entry *e, const udfkit_signature *s, bool t_known, udfkit_type t)
{
    udfkit_buf why = UDFKIT_BUF_INIT;
    const char *tpl = udfkit_kernel_template_name(e->tpl);
    if (t_known && (t.pointer || udfkit_type_is(t, UDFKIT_VOID)))
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
    if (s->has_return && !udfkit_type_is(s->ret, UDFKIT_BOOL))
        why = "sort needs a comparator bool(T, T), true where the first value goes before the second: it must "
              "return bool";
    else if (s->nparams != 2 || !udfkit_type_equal(s->params[0], s->params[1]))
        why = "sort needs a comparator bool(T, T): two parameters of the type it sorts";
    else if (s->params[0].pointer || udfkit_type_is(s->params[0], UDFKIT_VOID))
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
    if (f->has_return && (f->ret.pointer || udfkit_type_is(f->ret, UDFKIT_VOID)))
        return mismatch(e, "transform_reduce needs f: T(A1..An) with T a value, not void or a pointer");
    if ((rc = check_elementwise(e)))
        return rc;
    if (!(e->op = find_function(e, e->op_name, fns, count, &rc)))
        return rc;
    const udfkit_signature *op = &e->op->sig;
    udfkit_type t = f->has_return ? f->ret : op->ret;
    bool fits = (op->has_return || return_may_be_unknown) && op->nparams == 2 && !t.pointer &&
                !udfkit_type_is(t, UDFKIT_VOID) && udfkit_type_equal(op->params[0], t) &&
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

/* UDFKIT_SHAPE_MAP: R(A1..An) with R a value, or void(A1..An, O1*, ..., Ok*). */
static udfkit_rc check_map(udfkit_kernel_entry *e, const udfkit_spec *fns, size_t count, bool return_may_be_unknown)
{
    (void)fns, (void)count, (void)return_may_be_unknown;
    const udfkit_signature *s = &e->fn->sig;
    if (s->has_return && udfkit_type_is(s->ret, UDFKIT_VOID))
        return check_outputs(e);
    if (s->has_return && s->ret.pointer)
        return mismatch(e, "map needs R(A1..An) with R a value, not a pointer");
    return check_elementwise(e);
}

/* UDFKIT_SHAPE_PREDICATE: bool(A1..An) (or bool? where the row takes nullable types). */
static udfkit_rc check_predicate(udfkit_kernel_entry *e, const udfkit_spec *fns, size_t count,
                                 bool return_may_be_unknown)
{
    (void)fns, (void)count, (void)return_may_be_unknown;
    const udfkit_template_row *row = udfkit_kernel_entry_row(e);
    const udfkit_signature *s = &e->fn->sig;
    if (!s->has_return || udfkit_type_is(s->ret, UDFKIT_BOOL))
        return check_elementwise(e);
    udfkit_buf why = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&why, "%s needs %s", row->name, row->predicate);
    udfkit_rc rc = mismatch(e, why.data);
    udfkit_buf_free(&why);
    return rc;
}

/* UDFKIT_SHAPE_OP: T(T, T); where the return type is unknown, T is its first parameter's. */
static udfkit_rc check_op_shape(udfkit_kernel_entry *e, const udfkit_spec *fns, size_t count,
                                bool return_may_be_unknown)
{
    (void)fns, (void)count, (void)return_may_be_unknown;
    const udfkit_signature *s = &e->fn->sig;
    bool t_known = s->has_return || s->nparams;
    return check_op(e, s, t_known, s->has_return || !s->nparams ? s->ret : s->params[0]);
}

static udfkit_rc check_less_shape(udfkit_kernel_entry *e, const udfkit_spec *fns, size_t count,
                                  bool return_may_be_unknown)
{
    (void)fns, (void)count, (void)return_may_be_unknown;
    return check_less(e, &e->fn->sig);
}

/* Whether a map's result, or one of its outputs, is a string. */
static bool text_results(const udfkit_signature *s)
{
    bool any = !UDFKIT_MAP_HAS_OUTPUTS(s) && s->has_return && (udfkit_kind_info(s->ret.kind)->flags & UDFKIT_KIND_TEXT);
    for (size_t i = udfkit_kernel_map_inputs(s); UDFKIT_MAP_HAS_OUTPUTS(s) && i < s->nparams; i++)
        any |= (udfkit_kind_info(s->params[i].kind)->flags & UDFKIT_KIND_TEXT) != 0;
    return any;
}

typedef udfkit_rc (*shape_check)(udfkit_kernel_entry *e, const udfkit_spec *fns, size_t count,
                                 bool return_may_be_unknown);
static const shape_check shape_checks[UDFKIT_SHAPE_COUNT] = {
    [UDFKIT_SHAPE_MAP] = check_map,
    [UDFKIT_SHAPE_PREDICATE] = check_predicate,
    [UDFKIT_SHAPE_OP] = check_op_shape,
    [UDFKIT_SHAPE_TRANSFORM] = bind_transform_reduce,
    [UDFKIT_SHAPE_LESS] = check_less_shape,
};

udfkit_rc udfkit_kernel_entry_bind(udfkit_kernel_entry *e, const udfkit_spec *fns, size_t count,
                                   bool return_may_be_unknown)
{
    udfkit_rc rc = UDFKIT_RC_OK;
    if (!(e->fn = find_function(e, e->c_name, fns, count, &rc)))
        return rc;
    const udfkit_template_row *row = udfkit_kernel_entry_row(e);
    const udfkit_signature *s = &e->fn->sig;
    if (!s->has_return && !return_may_be_unknown)
        return mismatch(e, "its return type is not declared; give one in the spec");
    if (row->refuses_nullable && udfkit_signature_nullable(s)) {
        udfkit_buf why = UDFKIT_BUF_INIT;
        udfkit_buf_printf(&why, "%s %s", row->name, row->refuses_nullable);
        /* Templates over dense columns name their twin over nullable ones. */
        if (row->twin)
            udfkit_buf_printf(&why, "; use %s(%s), whose columns come with validity bitmaps", row->twin, e->c_name);
        rc = mismatch(e, why.data);
        udfkit_buf_free(&why);
        return rc;
    }
    if ((rc = shape_checks[row->shape](e, fns, count, return_may_be_unknown)))
        return rc;
    /* The variant of the template for this UDF. */
    unsigned is = row->outputs && text_results(s) ? UDFKIT_WHEN_TEXT_RESULTS : 0;
    for (size_t i = 0; i < s->nparams; i++)
        if (!s->params[i].pointer && (udfkit_kind_info(s->params[i].kind)->flags & UDFKIT_KIND_TEXT))
            is |= UDFKIT_WHEN_TEXT_INPUTS;
    if (e->filter_out == UDFKIT_FILTER_VALUES)
        is |= UDFKIT_WHEN_VALUES;
    for (const udfkit_template_variant *v = row->variants; v && v->row; v++)
        if ((v->when & is) == v->when) {
            e->row = v->row;
            break;
        }
    return UDFKIT_RC_OK;
}

void udfkit_kernel_entry_free(udfkit_kernel_entry *e)
{
    free(e->text);
    free(e->c_name);
    free(e->op_name);
    memset(e, 0, sizeof *e);
}
