#include "frontend/exporter.h"

#include "base/templates.h"

#include <string.h>

/* C++ spellings that need no header under NVRTC; int64 is long, as int64_t is on LP64. */
static const char *const abi_spelling[UDFKIT_SCALAR_COUNT] = {
    [UDFKIT_VOID] = "void",          [UDFKIT_BOOL] = "bool",
    [UDFKIT_INT8] = "signed char",   [UDFKIT_INT16] = "short",
    [UDFKIT_INT32] = "int",          [UDFKIT_INT64] = "long",
    [UDFKIT_UINT8] = "unsigned char", [UDFKIT_UINT16] = "unsigned short",
    [UDFKIT_UINT32] = "unsigned int", [UDFKIT_UINT64] = "unsigned long",
    [UDFKIT_FLOAT16] = "unsigned short", [UDFKIT_FLOAT32] = "float",
    [UDFKIT_FLOAT64] = "double",
};

void udfkit_exporter_abi_type(udfkit_type t, udfkit_buf *out)
{
    udfkit_buf_printf(out, "%s%s", abi_spelling[t.scalar], t.pointer ? " *" : "");
}

/* Matches enum __udfkit_kind in templates/export_prelude.cuh. */
static int kind_of(udfkit_type t)
{
    return (int)t.scalar + 1 + (t.pointer ? 100 : 0);
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
        bool is_void = s->sig.ret.scalar == UDFKIT_VOID && !s->sig.ret.pointer;
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
    udfkit_buf_puts(out, udfkit_tpl_export_prelude);
    /* A namespace of its own lets an extern "C" forwarder share the name of the C++
     * function it forwards to: the two are different entities. */
    udfkit_buf_puts(out, "namespace __udfkit_export {\n");
    for (size_t i = 0; i < count; i++)
        emit_one(&exports[i], out);
    udfkit_buf_puts(out, "} /* namespace __udfkit_export */\n");
}
