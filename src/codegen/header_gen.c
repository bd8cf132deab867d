#include "codegen/header_gen.h"

#include "artifact/manifest.h"
#include "base/fs.h"
#include "base/spec.h"
#include "base/templates.h"
#include "base/template.h"
#include "frontend/exporter.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

char *udfkit_identifier_from(const char *text)
{
    udfkit_buf b = UDFKIT_BUF_INIT;
    if (!isalpha((unsigned char)*text) && *text != '_')
        udfkit_buf_puts(&b, "_");
    for (const char *p = text; *p; p++) {
        char c = isalnum((unsigned char)*p) ? *p : '_';
        udfkit_buf_append(&b, &c, 1);
    }
    return udfkit_buf_detach(&b);
}

char *udfkit_include_guard(const char *kind, const char *name)
{
    char *ident = udfkit_identifier_from(name);
    for (char *p = ident; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    udfkit_buf b = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&b, "UDFKIT_%s_%s_H", kind, ident);
    free(ident);
    return udfkit_buf_detach(&b);
}

/* The kind a value of type t crosses the C ABI as the bits of (float16 as uint16_t), or NULL. */
static const udfkit_kind_row *as_bits(udfkit_type t)
{
    const udfkit_kind_row *row = udfkit_kind_info(t.kind);
    return row->bits_type && !t.pointer ? row : NULL;
}

/* Where a value crosses the C ABI as bits, a wrapper of its own type helps. Nullable
 * signatures keep their C ABI pairs, without wrappers. */
static bool has_bits(const udfkit_signature *s)
{
    if (udfkit_signature_nullable(s))
        return false;
    bool bits = as_bits(s->ret) != NULL;
    for (size_t i = 0; i < s->nparams; i++)
        bits |= as_bits(s->params[i]) != NULL;
    return bits;
}

/* A wrapper taking and returning the values' own types (__half) where the ABI has their bits. */
static void bits_wrapper(const udfkit_spec *s, udfkit_buf *out)
{
    const udfkit_signature *sig = &s->sig;
    const udfkit_kind_row *ret = as_bits(sig->ret);
    udfkit_buf_puts(out, "static __device__ __forceinline__ ");
    if (ret)
        udfkit_buf_puts(out, ret->bits_type);
    else
        udfkit_type_c(sig->ret, out);
    udfkit_buf_printf(out, " %s(", s->c_name);
    for (size_t i = 0; i < sig->nparams; i++) {
        const udfkit_kind_row *p = as_bits(sig->params[i]);
        if (i)
            udfkit_buf_puts(out, ", ");
        if (p)
            udfkit_buf_puts(out, p->bits_type);
        else
            udfkit_type_c(sig->params[i], out);
        udfkit_buf_printf(out, " __udfkit_a%zu", i); /* reserved: no user macro can take it */
    }
    udfkit_buf_puts(out, ")\n{\n    ");
    if (udfkit_kind_info(sig->ret.kind)->flags & UDFKIT_KIND_VALUE || sig->ret.pointer)
        udfkit_buf_printf(out, "return %s%s", ret ? ret->from_bits : "", ret ? "(" : "");
    udfkit_buf_printf(out, "::%s(", s->c_name);
    for (size_t i = 0; i < sig->nparams; i++) {
        const udfkit_kind_row *p = as_bits(sig->params[i]);
        udfkit_buf_printf(out, "%s%s%s__udfkit_a%zu%s", i ? ", " : "", p ? p->to_bits : "", p ? "(" : "", i, p ? ")" : "");
    }
    udfkit_buf_puts(out, ret ? "));\n}\n" : ");\n}\n");
}

/* One function into the header's parts; each c_name once. */
typedef struct header_parts {
    udfkit_buf markers, protos, halves, table;
    char **seen;
    size_t nseen;
} header_parts;

static udfkit_rc add_function(header_parts *h, const udfkit_spec *s, const char *origin)
{
    for (size_t k = 0; k < h->nseen; k++)
        if (strcmp(h->seen[k], s->c_name) == 0)
            return udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "function '%s' is declared twice", s->c_name);
    char **grown = realloc(h->seen, (h->nseen + 1) * sizeof *grown);
    if (!grown)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    h->seen = grown;
    h->seen[h->nseen++] = strdup(s->c_name);
    udfkit_buf sig = UDFKIT_BUF_INIT, proto = UDFKIT_BUF_INIT;
    udfkit_signature_format(&s->sig, &sig);
    udfkit_signature_c_prototype(&s->sig, s->c_name, &proto);
    udfkit_buf_printf(&h->markers, " *   udfkit-udf %s %s\n", s->c_name, sig.data);
    udfkit_buf_printf(&h->protos, "__device__ %s;\n", proto.data);
    if (has_bits(&s->sig))
        bits_wrapper(s, &h->halves);
    udfkit_buf_printf(&h->table, "        {\"%s\", \"%s\", \"%s\"},\n", s->c_name, sig.data, proto.data);
    udfkit_buf_free(&sig);
    udfkit_buf_free(&proto);
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_header_generate(const char *const *manifests, size_t count, const char *const *specs, size_t nspecs,
                                 const char *name, const char *output)
{
    udfkit_rc rc = UDFKIT_RC_OK;
    header_parts h = {UDFKIT_BUF_INIT, UDFKIT_BUF_INIT, UDFKIT_BUF_INIT, UDFKIT_BUF_INIT, NULL, 0};
    udfkit_buf text = UDFKIT_BUF_INIT;
    udfkit_outputs *outputs = udfkit_outputs_new();
    char *ident = NULL, *guard = NULL;
    if ((rc = udfkit_outputs_claim(outputs, output)) || (rc = udfkit_outputs_inputs(outputs, manifests, count)))
        goto done;
    if (name && !udfkit_is_c_identifier(name)) {
        rc = udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "--name '%s' is not a C identifier", name);
        goto done;
    }
    if (name) {
        ident = strdup(name);
    } else {
        char *stem = udfkit_path_stem(output);
        ident = udfkit_identifier_from(stem);
        free(stem);
    }
    guard = udfkit_include_guard("UDFS", ident);

    for (size_t m = 0; m < count && !rc; m++) {
        udfkit_manifest man;
        if ((rc = udfkit_manifest_load(manifests[m], &man))) {
            udfkit_manifest_free(&man);
            break;
        }
        size_t i;
        json_t *fn;
        json_array_foreach(json_object_get(man.root, "functions"), i, fn)
        {
            udfkit_spec s;
            if (!(rc = udfkit_manifest_function_spec(&man, fn, &s)))
                rc = add_function(&h, &s, manifests[m]);
            udfkit_spec_free(&s);
            if (rc)
                break;
        }
        udfkit_manifest_free(&man);
    }
    /* Declared functions (add_jit_library's SLOTS): their signatures need a return type. */
    for (size_t i = 0; i < nspecs && !rc; i++) {
        udfkit_spec s;
        if ((rc = udfkit_spec_parse(specs[i], &s)))
            break;
        if (!s.sig.has_return)
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': a declared function needs a return type",
                             specs[i]);
        else
            rc = add_function(&h, &s, NULL);
        udfkit_spec_free(&s);
    }
    if (rc)
        goto done;
    udfkit_buf_puts(&h.table, "        {0, 0, 0}");
    while (h.markers.size && h.markers.data[h.markers.size - 1] == '\n')
        h.markers.data[--h.markers.size] = '\0';
    const udfkit_template_var vars[] = {
        {"VERSION", UDFKIT_VERSION_STRING},
        {"NAME", ident},
        {"GUARD", guard},
        {"MARKERS", h.markers.data ? h.markers.data : " *   (none)"},
        {"DEVICE_PROTOTYPES", h.protos.data ? h.protos.data : ""},
        {"HALF_WRAPPERS", h.halves.data ? h.halves.data : ""},
        {"TABLE", h.table.data},
    };
    if ((rc = udfkit_template_render(udfkit_tpl_udf_header, vars, sizeof vars / sizeof *vars, &text)))
        goto done;
    if (!(rc = udfkit_outputs_write(outputs, output, text.data, text.size)))
        rc = udfkit_outputs_commit(outputs);
done:
    for (size_t i = 0; i < h.nseen; i++)
        free(h.seen[i]);
    free(h.seen);
    free(ident);
    free(guard);
    udfkit_buf_free(&h.markers);
    udfkit_buf_free(&h.protos);
    udfkit_buf_free(&h.halves);
    udfkit_buf_free(&h.table);
    udfkit_buf_free(&text);
    udfkit_outputs_free(outputs);
    return rc;
}
