/* Names no jansson function: only its types and the json_is_* macros, which read the type
 * field. The runtime's static library links this file without jansson. */
#include "artifact/manifest_read.h"

#include "base/arch.h"
#include "base/fs.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

/* jansson's json_decref, through the reader's json_delete. */
static void decref(const udfkit_manifest_reader *js, json_t *j)
{
    if (j && j->refcount != (size_t)-1 && __atomic_sub_fetch(&j->refcount, 1, __ATOMIC_RELEASE) == 0)
        js->delete_(j);
}

static udfkit_rc invalid(const char *path, const char *what)
{
    return udfkit_fail(UDFKIT_RC_INPUT, path, 0, "not a valid udfkit manifest: %s", what);
}

static udfkit_rc check_artifacts(const udfkit_manifest *m, const json_t *artifacts)
{
    const udfkit_manifest_reader *js = m->reader;
    for (size_t i = 0; i < js->array_size(artifacts); i++) {
        const json_t *a = js->array_get(artifacts, i);
        const json_t *kind = js->object_get(a, "kind"), *path = js->object_get(a, "path");
        const char *arch = js->string_value(js->object_get(a, "arch"));
        udfkit_target t;
        if (!json_is_string(kind) || !json_is_string(path))
            return invalid(m->path, "an artifact lacks its kind or path");
        if (arch && !udfkit_target_parse_name(arch, &t))
            return invalid(m->path, "an artifact's arch is not sm_NN or compute_NN");
        const char *rel = js->string_value(path);
        if (!udfkit_path_stays_inside(rel))
            return udfkit_fail(UDFKIT_RC_INPUT, m->path, 0,
                               "names the artifact '%s', which is not inside the manifest's directory; a manifest "
                               "names only files beside it",
                               rel);
    }
    return UDFKIT_RC_OK;
}

static udfkit_rc check_functions(const udfkit_manifest *m, const json_t *functions)
{
    const udfkit_manifest_reader *js = m->reader;
    for (size_t i = 0; i < js->array_size(functions); i++) {
        const json_t *fn = js->array_get(functions, i);
        if (!json_is_string(js->object_get(fn, "c_name")) || !json_is_string(js->object_get(fn, "signature")))
            return invalid(m->path, "a function lacks c_name or signature");
    }
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_manifest_read(const udfkit_manifest_reader *reader, const char *path, const void *text, size_t size,
                               udfkit_manifest *out)
{
    const udfkit_manifest_reader *js = reader;
    memset(out, 0, sizeof *out);
    json_error_t err;
    json_t *root = js->loadb(text, size, 0, &err);
    if (!root)
        return udfkit_fail(UDFKIT_RC_INPUT, path, err.line, "malformed JSON: %s", err.text);
    *out = (udfkit_manifest){strdup(path), udfkit_path_dirname(path), root, reader};
    if (!out->path || !out->dir)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    const json_t *version = js->object_get(root, "udfkit_manifest");
    if (!json_is_integer(version))
        return invalid(path, "no \"udfkit_manifest\" version");
    if (js->integer_value(version) > UDFKIT_MANIFEST_VERSION)
        return udfkit_fail(UDFKIT_RC_INPUT, path, 0,
                           "is a manifest of format %lld, newer than this %s reads (%d): update udfkit",
                           (long long)js->integer_value(version), reader->name, UDFKIT_MANIFEST_VERSION);
    const json_t *functions = js->object_get(root, "functions"), *artifacts = js->object_get(root, "artifacts");
    if (!json_is_array(functions) || !json_is_array(artifacts))
        return invalid(path, "\"functions\" and \"artifacts\" must be arrays");
    udfkit_rc rc = check_artifacts(out, artifacts);
    return rc ? rc : check_functions(out, functions);
}

void udfkit_manifest_free(udfkit_manifest *m)
{
    if (m->root)
        decref(m->reader, m->root);
    free(m->path);
    free(m->dir);
    memset(m, 0, sizeof *m);
}

udfkit_rc udfkit_manifest_resolve(const udfkit_manifest *m, const char *rel, char **path)
{
    *path = NULL;
    if (!udfkit_path_stays_inside(rel))
        return udfkit_fail(UDFKIT_RC_INPUT, m->path, 0,
                           "names the file '%s', which is not inside the manifest's directory; a manifest names only "
                           "files beside it",
                           rel ? rel : "");
    *path = udfkit_path_join(m->dir, rel);
    if (udfkit_file_exists(*path) && !udfkit_path_resolves_inside(*path, m->dir))
        return udfkit_fail(UDFKIT_RC_INPUT, m->path, 0,
                           "names the file '%s', a symbolic link that leads out of the manifest's directory", rel);
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_manifest_read_artifact(const udfkit_manifest *m, const json_t *artifact, char **path,
                                        udfkit_buf *data)
{
    const udfkit_manifest_reader *js = m->reader;
    udfkit_rc rc = udfkit_manifest_resolve(m, js->string_value(js->object_get(artifact, "path")), path);
    if (rc)
        return rc;
    rc = udfkit_read_file(*path, data);
    if (rc)
        return udfkit_fail(rc, m->path, 0, "names artifact '%s', which cannot be read: %s", *path,
                           udfkit_diag_message());
    const json_t *size = js->object_get(artifact, "size");
    if (size && (json_int_t)data->size != js->integer_value(size))
        return udfkit_fail(UDFKIT_RC_INPUT, *path, 0,
                           "changed since %s was written (it has %zu bytes where the manifest says %lld); rebuild it "
                           "with udfkit compile",
                           m->path, data->size, (long long)js->integer_value(size));
    const char *expected = js->string_value(js->object_get(artifact, "xxh3_128"));
    if (expected) {
        char actual[UDFKIT_HASH_HEX_SIZE];
        udfkit_hash_hex(data->data ? data->data : "", data->size, actual);
        if (strcmp(actual, expected) != 0)
            return udfkit_fail(UDFKIT_RC_INPUT, *path, 0,
                               "changed since %s was written (its hash differs); rebuild it with udfkit compile",
                               m->path);
    }
    return UDFKIT_RC_OK;
}
