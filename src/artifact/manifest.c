#include "artifact/manifest.h"

#include "base/fs.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

json_t *udfkit_manifest_new(const char *kind)
{
    json_t *m = json_object();
    json_object_set_new(m, "udfkit_manifest", json_integer(UDFKIT_MANIFEST_VERSION));
    json_object_set_new(m, "kind", json_string(kind));
    json_t *producers = json_object();
    json_object_set_new(producers, "udfkit", json_string(UDFKIT_VERSION_STRING));
    json_object_set_new(m, "producers", producers);
    json_object_set_new(m, "functions", json_array());
    json_object_set_new(m, "artifacts", json_array());
    json_object_set_new(m, "link", json_array());
    return m;
}

void udfkit_manifest_set_producer(json_t *m, const char *name, const char *version)
{
    json_object_set_new(json_object_get(m, "producers"), name, json_string(version));
}

void udfkit_manifest_add_source(json_t *m, const char *path, const char *const *defines, size_t ndefines)
{
    json_t *sources = json_object_get(m, "sources");
    if (!sources) {
        sources = json_array();
        json_object_set_new(m, "sources", sources);
    }
    json_t *entry = json_object(), *names = json_array();
    json_object_set_new(entry, "path", json_string(path));
    for (size_t i = 0; i < ndefines; i++)
        json_array_append_new(names, json_string(defines[i]));
    json_object_set_new(entry, "defines", names);
    json_array_append_new(sources, entry);
}

void udfkit_manifest_add_function(json_t *m, const udfkit_spec *spec, const char *language, const char *source,
                                  int line)
{
    json_t *fn = json_object();
    udfkit_buf text = UDFKIT_BUF_INIT;
    json_object_set_new(fn, "c_name", json_string(spec->c_name));
    json_object_set_new(fn, "source_name", json_string(spec->source_name));
    json_object_set_new(fn, "language", json_string(language));
    json_object_set_new(fn, "source", json_string(source));
    json_object_set_new(fn, "line", json_integer(line));
    udfkit_signature_format(&spec->sig, &text);
    json_object_set_new(fn, "signature", json_string(text.data));
    text.size = 0;
    udfkit_signature_c_prototype(&spec->sig, spec->c_name, &text);
    json_object_set_new(fn, "prototype", json_string(text.data));
    udfkit_buf_free(&text);
    json_array_append_new(json_object_get(m, "functions"), fn);
}

json_t *udfkit_manifest_add_artifact(json_t *m, const char *kind, const char *arch, const char *path,
                                     const char *source, const void *data, size_t size)
{
    char hash[UDFKIT_HASH_HEX_SIZE];
    udfkit_hash_hex(data, size, hash);
    json_t *a = json_object();
    json_object_set_new(a, "kind", json_string(kind));
    if (arch)
        json_object_set_new(a, "arch", json_string(arch));
    json_object_set_new(a, "path", json_string(path));
    if (source)
        json_object_set_new(a, "source", json_string(source));
    json_object_set_new(a, "size", json_integer((json_int_t)size));
    json_object_set_new(a, "xxh3_128", json_string(hash));
    json_array_append_new(json_object_get(m, "artifacts"), a);
    return a;
}

void udfkit_manifest_dump(const json_t *m, udfkit_buf *out)
{
    char *text = json_dumps(m, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (text) {
        udfkit_buf_puts(out, text);
        udfkit_buf_puts(out, "\n");
        free(text);
    }
}

bool udfkit_manifest_sniff(const void *data, size_t size)
{
    const char *p = data;
    size_t i = 0;
    while (i < size && (p[i] == ' ' || p[i] == '\n' || p[i] == '\t' || p[i] == '\r'))
        i++;
    if (i >= size || p[i] != '{')
        return false;
    size_t window = size - i < 256 ? size - i : 256;
    for (size_t k = i; k + 17 <= i + window; k++)
        if (memcmp(p + k, "\"udfkit_manifest\"", 17) == 0)
            return true;
    return false;
}

/* jansson's own functions: the tool links it. */
static const udfkit_manifest_reader tool_reader = {
    .name = "udfkit",
    .loadb = json_loadb,
    .object_get = json_object_get,
    .array_size = json_array_size,
    .array_get = json_array_get,
    .string_value = json_string_value,
    .integer_value = json_integer_value,
    .delete_ = json_delete,
};

udfkit_rc udfkit_manifest_load(const char *path, udfkit_manifest *out)
{
    memset(out, 0, sizeof *out);
    udfkit_buf text = UDFKIT_BUF_INIT;
    udfkit_rc rc = udfkit_read_file(path, &text);
    if (!rc)
        rc = udfkit_manifest_read(&tool_reader, path, text.data, text.size, out);
    udfkit_buf_free(&text);
    return rc;
}

udfkit_rc udfkit_manifest_function_spec(const udfkit_manifest *m, const json_t *fn, udfkit_spec *out)
{
    memset(out, 0, sizeof *out);
    const char *c_name = json_string_value(json_object_get(fn, "c_name"));
    const char *signature = json_string_value(json_object_get(fn, "signature"));
    const char *source_name = json_string_value(json_object_get(fn, "source_name"));
    char why[256];
    if (!udfkit_is_c_identifier(c_name) || udfkit_c_name_reserved(c_name))
        return udfkit_fail(UDFKIT_RC_INPUT, m->path, 0, "function c_name '%s' is not a valid exported C name", c_name);
    if (!udfkit_signature_parse(signature, &out->sig, why, sizeof why) || !out->sig.has_return)
        return udfkit_fail(UDFKIT_RC_INPUT, m->path, 0, "function '%s' has an invalid signature '%s'", c_name,
                           signature);
    out->c_name = strdup(c_name);
    out->source_name = strdup(source_name ? source_name : c_name);
    out->text = strdup(c_name);
    return UDFKIT_RC_OK;
}
