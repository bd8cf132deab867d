#include "frontend/exporter.h"

#include "base/templates.h"
#include "base/template.h"

#include <string.h>

void udfkit_exporter_abi_type(udfkit_type t, udfkit_buf *out)
{
    udfkit_buf_printf(out, "%s%s", udfkit_kind_info(t.kind)->cuda, t.pointer ? " *" : "");
}

/* The prelude's enumerator of t (enum __udfkit_kind in templates/export_prelude.cuh: the kinds
 * in the table's order after __UDFKIT_K_UNKNOWN, pointers 100 above their kind). */
static int kind_of(udfkit_type t)
{
    /* A kind checked as another's (a date32 as int32): that kind's enumerator. */
    udfkit_kind k = udfkit_kind_info(t.kind)->abi_kind ? udfkit_kind_info(t.kind)->abi_kind : t.kind;
    return (int)k + 1 + (t.pointer ? 100 : 0);
}

/* The prelude's enumerators, "__UDFKIT_K_UNKNOWN = 0, __UDFKIT_K_VOID, ...", lines filled to
 * 140 columns; and a __udfkit_traits specialisation per C++ type of each kind. */
static void prelude_kinds(udfkit_buf *kinds, udfkit_buf *traits)
{
    udfkit_buf_puts(kinds, "    __UDFKIT_K_UNKNOWN = 0,");
    size_t column = kinds->size;
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++) {
        const udfkit_kind_row *row = udfkit_kind_info((udfkit_kind)k);
        size_t word = 1 + strlen(row->cxx_kind) + 1;
        bool wrap = column + word > 140;
        udfkit_buf_printf(kinds, "%s%s,", wrap ? "\n    " : " ", row->cxx_kind);
        column = wrap ? 4 + word - 1 : column + word;
        for (const udfkit_cxx_form *f = row->cxx; f->type; f++) {
            if (f->comment)
                udfkit_buf_printf(traits, "%s\n", f->comment);
            udfkit_buf_printf(traits, "template <> struct __udfkit_traits<%s> { static constexpr int __udfkit_kind = %s; };\n",
                              f->type, f->kind ? f->kind : row->cxx_kind);
        }
    }
    /* The template breaks the line after the last. */
    traits->data[--traits->size] = '\0';
}

static void emit_call(const udfkit_spec *s, udfkit_buf *out)
{
    const char *name = s->source_name;
    udfkit_buf_printf(out, "%s%s(", strncmp(name, "::", 2) == 0 ? "" : "::", name);
    for (size_t i = 0; i < s->sig.nparams; i++) {
        udfkit_buf_printf(out, "%s__udfkit::__udfkit_arg<%d, %zu, ", i ? ", " : "", kind_of(s->sig.params[i]), i);
        udfkit_exporter_abi_type(s->sig.params[i], out);
        udfkit_buf_printf(out, ">{__udfkit_a%zu}", i);
    }
    udfkit_buf_puts(out, ")");
}

udfkit_signature udfkit_exporter_c_abi(const udfkit_signature *s)
{
    udfkit_signature abi = {0};
    abi.has_return = true;
    abi.ret = s->ret;
    const udfkit_kind_row *ret = udfkit_kind_info(s->ret.kind);
    if (s->has_return && ret->result_out && !s->ret.pointer) {
        /* A string result: its builder leads, and the function returns void (bool under ?). */
        abi.ret = (udfkit_type){.kind = s->ret.nullable ? UDFKIT_BOOL : UDFKIT_VOID};
        abi.params[abi.nparams++] = (udfkit_type){.kind = s->ret.kind, .pointer = true};
    } else if (s->has_return && s->ret.nullable) {
        abi.ret = (udfkit_type){.kind = UDFKIT_BOOL};
        abi.params[abi.nparams++] = (udfkit_type){.kind = s->ret.kind, .pointer = true};
    }
    for (size_t i = 0; i < s->nparams && abi.nparams + 3 <= UDFKIT_MAX_PARAMS; i++) {
        udfkit_type t = s->params[i];
        const udfkit_kind_row *row = udfkit_kind_info(t.kind);
        for (unsigned p = 0; row->parts && !t.pointer && p < row->c_params; p++)
            abi.params[abi.nparams++] = (udfkit_type){.kind = row->parts[p].kind, .pointer = row->parts[p].pointer};
        if (!row->parts || t.pointer)
            abi.params[abi.nparams++] = (udfkit_type){.kind = t.kind, .pointer = t.pointer};
        if (t.nullable)
            abi.params[abi.nparams++] = (udfkit_type){.kind = UDFKIT_BOOL, .pointer = t.pointer};
    }
    return abi;
}

/* "float " or "float *": a type as a name follows it. */
static void abi_type_then_name(udfkit_type t, udfkit_buf *out)
{
    udfkit_exporter_abi_type(t, out);
    if (!t.pointer)
        udfkit_buf_puts(out, " ");
}

void udfkit_exporter_abi_params(const udfkit_signature *sig, const char *prefix, bool types, udfkit_buf *out)
{
    udfkit_signature abi = udfkit_exporter_c_abi(sig);
    size_t k = 0;
    bool leading = sig->has_return && (sig->ret.nullable || (udfkit_kind_info(sig->ret.kind)->result_out &&
                                                              !sig->ret.pointer));
    if (leading) {
        if (types)
            abi_type_then_name(abi.params[k], out);
        udfkit_buf_printf(out, "%sout", prefix);
        k++;
    }
    for (size_t i = 0; i < sig->nparams; i++) {
        udfkit_type t = sig->params[i];
        const udfkit_kind_row *row = udfkit_kind_info(t.kind);
        unsigned parts = row->parts && !t.pointer ? row->c_params : 1;
        for (unsigned p = 0; p < parts; p++) {
            udfkit_buf_puts(out, k ? ", " : "");
            /* A string's parts as udfkit::string_view takes them ("const char *", not int8's). */
            if (types && row->parts && !t.pointer)
                udfkit_buf_printf(out, "%s%s", row->parts[p].cuda, row->parts[p].pointer ? "" : " ");
            else if (types)
                abi_type_then_name(abi.params[k], out);
            udfkit_buf_printf(out, "%sa%zu%s", prefix, i, row->parts && !t.pointer ? row->parts[p].suffix : "");
            k++;
        }
        if (t.nullable) {
            udfkit_buf_puts(out, ", ");
            if (types)
                abi_type_then_name(abi.params[k], out);
            udfkit_buf_printf(out, "%sa%zu_valid", prefix, i);
            k++;
        }
    }
}

void udfkit_exporter_declaration(const udfkit_signature *sig, const char *name, udfkit_buf *out)
{
    udfkit_signature abi = udfkit_exporter_c_abi(sig);
    udfkit_exporter_abi_type(abi.ret, out);
    udfkit_buf_printf(out, " %s(", name);
    udfkit_exporter_abi_params(sig, "", true, out);
    udfkit_buf_puts(out, ")");
}

/* The call of the source's function in its own form: a T? argument as cuda::std::optional<T>,
 * a string as udfkit::string_view (a string? as an optional of one), a string result's
 * builder first where the source takes it. */
static void own_form_call(const udfkit_export *e, udfkit_buf *call)
{
    const udfkit_spec *s = e->spec;
    const char *name = s->source_name;
    bool optional = udfkit_signature_nullable(&s->sig);
    udfkit_buf_printf(call, "%s%s(", strncmp(name, "::", 2) == 0 ? "" : "::", name);
    /* The leading out: a string's builder, or a decimal128's pointer as it is. */
    if (e->builder)
        udfkit_buf_puts(call, s->sig.ret.kind == UDFKIT_STRING ? "__udfkit::__udfkit_builder{__udfkit_out}"
                                                              : "__udfkit_out");
    for (size_t i = 0; i < s->sig.nparams; i++) {
        udfkit_type t = s->sig.params[i];
        udfkit_type plain = {t.kind, t.pointer, false};
        udfkit_buf_puts(call, i || e->builder ? ", " : "");
        if (t.kind == UDFKIT_DECIMAL128 && !t.pointer) {
            udfkit_buf_printf(call, "__udfkit::__udfkit_decimal128_arg{__udfkit_a%zu_lo, __udfkit_a%zu_hi}", i, i);
            continue;
        }
        if (udfkit_kind_info(t.kind)->parts && !t.pointer) {
            if (t.nullable)
                udfkit_buf_printf(call, "__udfkit::__udfkit_optional_string_arg<%zu>{__udfkit_a%zu, __udfkit_a%zu_size, "
                                        "__udfkit_a%zu_valid}", i, i, i, i);
            else
                udfkit_buf_printf(call, "__udfkit::__udfkit_string_arg<%zu>{__udfkit_a%zu, __udfkit_a%zu_size}", i, i, i);
            continue;
        }
        udfkit_buf_printf(call, "__udfkit::%s<%d, %zu, ",
                          t.nullable ? "__udfkit_optional_arg" : optional ? "__udfkit_plain_arg" : "__udfkit_arg",
                          kind_of(plain), i);
        udfkit_exporter_abi_type(plain, call);
        if (t.nullable)
            udfkit_buf_printf(call, ">{__udfkit_a%zu, __udfkit_a%zu_valid}", i, i);
        else
            udfkit_buf_printf(call, optional ? ">{{__udfkit_a%zu}}" : ">{__udfkit_a%zu}", i);
    }
    udfkit_buf_puts(call, ")");
}

/* The body's result: a string built through the builder (or appended from the view the source
 * returns), a T? stored through the C ABI pair, or the value. */
static void own_form_result(const udfkit_export *e, const char *call, udfkit_buf *out)
{
    const udfkit_signature *sig = &e->spec->sig;
    udfkit_type value = {sig->ret.kind, false, false};
    if (sig->ret.kind == UDFKIT_DECIMAL128 && !sig->ret.pointer && !e->builder) {
        /* Returned by value (udfkit_decimal128), stored through the leading out. */
        udfkit_buf_printf(out, "    __udfkit::__udfkit_check_return<%d, decltype(%s)>();\n", kind_of(value), call);
        udfkit_buf_printf(out, "    __udfkit::__udfkit_decimal128_result(__udfkit_out, %s);\n}\n", call);
        return;
    }
    if (udfkit_kind_info(sig->ret.kind)->result_out && !sig->ret.pointer) {
        if (e->builder) {
            /* The source built the result itself: it returns void, or bool (valid) under string?. */
            udfkit_buf_printf(out, "    __udfkit::__udfkit_check_return<%d, decltype(%s)>();\n    %s%s;\n}\n",
                              sig->ret.nullable ? kind_of((udfkit_type){.kind = UDFKIT_BOOL}) : kind_of((udfkit_type){0}),
                              call, sig->ret.nullable ? "return " : "", call);
        } else if (sig->ret.nullable) {
            udfkit_buf_printf(out, "    __udfkit::__udfkit_check_optional_return<%d, decltype(%s)>();\n", kind_of(value),
                              call);
            udfkit_buf_printf(out, "    return __udfkit::__udfkit_optional_string_result(__udfkit_out, %s);\n}\n", call);
        } else {
            udfkit_buf_printf(out, "    __udfkit::__udfkit_check_return<%d, decltype(%s)>();\n", kind_of(value), call);
            udfkit_buf_printf(out, "    __udfkit::__udfkit_string_result(__udfkit_out, %s);\n}\n", call);
        }
        return;
    }
    if (sig->has_return && sig->ret.nullable) {
        udfkit_buf_printf(out, "    __udfkit::__udfkit_check_optional_return<%d, decltype(%s)>();\n", kind_of(value), call);
        udfkit_buf_printf(out, "    return __udfkit::__udfkit_optional_result(__udfkit_out, %s);\n}\n", call);
        return;
    }
    udfkit_buf_printf(out, "    __udfkit::__udfkit_check_return<%d, decltype(%s)>();\n", kind_of(sig->ret), call);
    if (udfkit_type_is(sig->ret, UDFKIT_VOID)) {
        udfkit_buf_printf(out, "    %s;\n}\n", call);
    } else {
        udfkit_buf_puts(out, "    return __udfkit::__udfkit_bits<");
        udfkit_exporter_abi_type(sig->ret, out);
        udfkit_buf_printf(out, ">(%s);\n}\n", call);
    }
}

/* A spec whose C ABI is expanded (T?, strings) and whose source takes its own forms
 * (cuda::std::optional<T>, udfkit::string_view, a string result's builder or a returned
 * view): the forwarder has the C ABI of SPEC.md and converts (a T?* output needs the pair
 * form). */
static void emit_own_form(const udfkit_export *e, udfkit_buf *out)
{
    const udfkit_spec *s = e->spec;
    udfkit_signature abi = udfkit_exporter_c_abi(&s->sig);
    udfkit_buf call = UDFKIT_BUF_INIT;
    own_form_call(e, &call);
    udfkit_buf_printf(out, "#line 1 \"" UDFKIT_EXPORT_FILE_PREFIX "%s\"\n", s->c_name);
    udfkit_buf_puts(out, "extern \"C\" __device__ ");
    udfkit_exporter_abi_type(abi.ret, out);
    udfkit_buf_printf(out, " %s(", s->c_name);
    udfkit_exporter_abi_params(&s->sig, "__udfkit_", true, out);
    udfkit_buf_puts(out, ")\n{\n");
    own_form_result(e, call.data, out);
    udfkit_buf_free(&call);
}

static void emit_one(const udfkit_export *e, udfkit_buf *out)
{
    const udfkit_spec *s = e->spec;
    udfkit_buf_printf(out, "#line 1 \"" UDFKIT_EXPORT_FILE_PREFIX "%s\"\n", s->c_name);
    if (e->check_only)
        udfkit_buf_printf(out, "inline __device__ void __udfkit_check_%s(", s->c_name);
    else {
        udfkit_buf_puts(out, "extern \"C\" __device__ ");
        udfkit_exporter_abi_type(s->sig.ret, out);
        udfkit_buf_printf(out, " %s(", s->c_name);
    }
    for (size_t i = 0; i < s->sig.nparams; i++) {
        if (i)
            udfkit_buf_puts(out, ", ");
        udfkit_exporter_abi_type(s->sig.params[i], out);
        udfkit_buf_printf(out, " __udfkit_a%zu", i);
    }
    udfkit_buf_printf(out, ")\n{\n    __udfkit::__udfkit_check_return<%d, decltype(", kind_of(s->sig.ret));
    emit_call(s, out);
    udfkit_buf_puts(out, ")>();\n");
    if (!e->check_only) {
        bool is_void = s->sig.ret.kind == UDFKIT_VOID && !s->sig.ret.pointer;
        if (is_void) {
            udfkit_buf_puts(out, "    ");
        } else {
            udfkit_buf_puts(out, "    return __udfkit::__udfkit_bits<");
            udfkit_exporter_abi_type(s->sig.ret, out);
            udfkit_buf_puts(out, ">(");
        }
        emit_call(s, out);
        udfkit_buf_puts(out, is_void ? ";\n" : ");\n");
    }
    udfkit_buf_puts(out, "}\n");
}

void udfkit_exporter_emit(const udfkit_export *exports, size_t count, udfkit_buf *out)
{
    udfkit_buf_puts(out, "\n#line 1 \"udfkit-export-prelude\"\n");
    udfkit_buf kinds = UDFKIT_BUF_INIT, traits = UDFKIT_BUF_INIT;
    prelude_kinds(&kinds, &traits);
    const udfkit_template_var vars[] = {{"KINDS", kinds.data}, {"TRAITS", traits.data}};
    udfkit_template_render(udfkit_tpl_export_prelude, vars, 2, out);
    udfkit_buf_free(&kinds);
    udfkit_buf_free(&traits);
    bool optional = false, strings = false;
    for (size_t i = 0; i < count; i++) {
        optional |= udfkit_signature_nullable(&exports[i].spec->sig) && !exports[i].pair;
        strings |= udfkit_signature_has(&exports[i].spec->sig, UDFKIT_KIND_TEXT) && !exports[i].pair;
    }
    if (optional) {
        udfkit_buf_puts(out, "\n#line 1 \"udfkit-export-optional\"\n");
        udfkit_buf_puts(out, udfkit_tpl_export_optional);
    }
    if (strings) {
        const udfkit_template_var with[] = {{"OPTIONAL", optional ? "1" : "0"}};
        udfkit_buf_puts(out, "\n#line 1 \"udfkit-export-strings\"\n");
        udfkit_template_render(udfkit_tpl_export_strings, with, 1, out);
    }
    /* A namespace of its own lets an extern "C" forwarder share the name of the C++
     * function it forwards to: the two are different entities. */
    udfkit_buf_puts(out, "namespace __udfkit_export {\n");
    for (size_t i = 0; i < count; i++) {
        if (!udfkit_signature_expanded(&exports[i].spec->sig)) {
            emit_one(&exports[i], out);
        } else if (exports[i].pair) {
            /* The source takes the C ABI itself: the forwarder of its plain C ABI. */
            udfkit_spec abi = *exports[i].spec;
            abi.sig = udfkit_exporter_c_abi(&exports[i].spec->sig);
            udfkit_export plain = {&abi, exports[i].check_only, false, false};
            emit_one(&plain, out);
        } else {
            emit_own_form(&exports[i], out);
        }
    }
    udfkit_buf_puts(out, "} /* namespace __udfkit_export */\n");
}
