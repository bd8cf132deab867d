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
    return (int)t.kind + 1 + (t.pointer ? 100 : 0);
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
    if (s->has_return && s->ret.nullable) {
        abi.ret = (udfkit_type){.kind = UDFKIT_BOOL};
        abi.params[abi.nparams++] = (udfkit_type){.kind = s->ret.kind, .pointer = true};
    }
    for (size_t i = 0; i < s->nparams && abi.nparams + 2 <= UDFKIT_MAX_PARAMS; i++) {
        udfkit_type t = s->params[i];
        abi.params[abi.nparams++] = (udfkit_type){t.kind, t.pointer, false};
        if (t.nullable)
            abi.params[abi.nparams++] = (udfkit_type){UDFKIT_BOOL, t.pointer, false};
    }
    return abi;
}

/* A spec with nullable types whose source takes and returns cuda::std::optional<T>: the
 * forwarder has the C ABI pairs and converts (a T?* output needs the pair form). */
static void emit_optional(const udfkit_export *e, udfkit_buf *out)
{
    const udfkit_spec *s = e->spec;
    const char *name = s->source_name;
    bool nullable_ret = s->sig.has_return && s->sig.ret.nullable;
    udfkit_signature abi = udfkit_exporter_c_abi(&s->sig);
    udfkit_buf call = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&call, "%s%s(", strncmp(name, "::", 2) == 0 ? "" : "::", name);
    for (size_t i = 0; i < s->sig.nparams; i++) {
        udfkit_type t = s->sig.params[i];
        udfkit_type plain = {t.kind, t.pointer, false};
        udfkit_buf_printf(&call, "%s__udfkit::%s<%d, %zu, ", i ? ", " : "",
                          t.nullable ? "__udfkit_optional_arg" : "__udfkit_plain_arg", kind_of(plain), i);
        udfkit_exporter_abi_type(plain, &call);
        if (t.nullable)
            udfkit_buf_printf(&call, ">{__udfkit_a%zu, __udfkit_a%zu_valid}", i, i);
        else
            udfkit_buf_printf(&call, ">{{__udfkit_a%zu}}", i);
    }
    udfkit_buf_puts(&call, ")");
    udfkit_buf_printf(out, "#line 1 \"" UDFKIT_EXPORT_FILE_PREFIX "%s\"\n", s->c_name);
    udfkit_buf_puts(out, "extern \"C\" __device__ ");
    udfkit_exporter_abi_type(abi.ret, out);
    udfkit_buf_printf(out, " %s(", s->c_name);
    const char *sep = "";
    if (nullable_ret) {
        udfkit_exporter_abi_type(abi.params[0], out);
        udfkit_buf_puts(out, " __udfkit_out");
        sep = ", ";
    }
    for (size_t i = 0; i < s->sig.nparams; i++, sep = ", ") {
        udfkit_type t = s->sig.params[i];
        udfkit_buf_puts(out, sep);
        udfkit_exporter_abi_type((udfkit_type){t.kind, t.pointer, false}, out);
        udfkit_buf_printf(out, " __udfkit_a%zu", i);
        if (t.nullable) {
            udfkit_buf_puts(out, ", ");
            udfkit_exporter_abi_type((udfkit_type){UDFKIT_BOOL, t.pointer, false}, out);
            udfkit_buf_printf(out, " __udfkit_a%zu_valid", i);
        }
    }
    udfkit_buf_puts(out, ")\n{\n");
    if (nullable_ret) {
        udfkit_buf_printf(out, "    __udfkit::__udfkit_check_optional_return<%d, decltype(%s)>();\n",
                          kind_of((udfkit_type){s->sig.ret.kind, false, false}), call.data);
        udfkit_buf_printf(out, "    return __udfkit::__udfkit_optional_result(__udfkit_out, %s);\n}\n", call.data);
    } else {
        bool is_void = s->sig.ret.kind == UDFKIT_VOID && !s->sig.ret.pointer;
        udfkit_buf_printf(out, "    __udfkit::__udfkit_check_return<%d, decltype(%s)>();\n", kind_of(s->sig.ret),
                          call.data);
        if (is_void) {
            udfkit_buf_printf(out, "    %s;\n}\n", call.data);
        } else {
            udfkit_buf_puts(out, "    return __udfkit::__udfkit_bits<");
            udfkit_exporter_abi_type(s->sig.ret, out);
            udfkit_buf_printf(out, ">(%s);\n}\n", call.data);
        }
    }
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
    bool optional = false;
    for (size_t i = 0; i < count; i++)
        optional |= udfkit_signature_nullable(&exports[i].spec->sig) && !exports[i].pair;
    if (optional) {
        udfkit_buf_puts(out, "\n#line 1 \"udfkit-export-optional\"\n");
        udfkit_buf_puts(out, udfkit_tpl_export_optional);
    }
    /* A namespace of its own lets an extern "C" forwarder share the name of the C++
     * function it forwards to: the two are different entities. */
    udfkit_buf_puts(out, "namespace __udfkit_export {\n");
    for (size_t i = 0; i < count; i++) {
        if (!udfkit_signature_nullable(&exports[i].spec->sig)) {
            emit_one(&exports[i], out);
        } else if (exports[i].pair) {
            /* The source takes the pairs itself: the forwarder of its plain C ABI. */
            udfkit_spec abi = *exports[i].spec;
            abi.sig = udfkit_exporter_c_abi(&exports[i].spec->sig);
            udfkit_export plain = {&abi, exports[i].check_only, false};
            emit_one(&plain, out);
        } else {
            emit_optional(&exports[i], out);
        }
    }
    udfkit_buf_puts(out, "} /* namespace __udfkit_export */\n");
}
