#include "artifact/merge.h"

#include "artifact/manifest.h"
#include "base/arch.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/spec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct raw_code {
    const char *path;
    const char *kind; /* "ptx" or "ltoir" */
    udfkit_buf data;
    bool used;
} raw_code;

/* Whether PTX text defines a visible function `name`: on its ".visible .func" line the
 * name stands before the last '(' ("(.param .b32 func_retval0) name("). */
static bool ptx_defines(const char *ptx, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = strstr(ptx, ".visible .func"); p; p = strstr(p + 1, ".visible .func")) {
        const char *line_end = strchr(p, '\n');
        const char *open = NULL;
        for (const char *q = strchr(p, '('); q && (!line_end || q < line_end); q = strchr(q + 1, '('))
            open = q;
        if (open && open - p > (ptrdiff_t)len && strncmp(open - len, name, len) == 0 &&
            !(isalnum((unsigned char)open[-(ptrdiff_t)len - 1]) || open[-(ptrdiff_t)len - 1] == '_'))
            return true;
    }
    return false;
}

/* "compute_80" from ".target sm_80" */
static bool ptx_arch(const char *ptx, char *out, size_t size)
{
    const char *t = strstr(ptx, ".target");
    if (!t)
        return false;
    t += 7;
    while (*t == ' ' || *t == '\t')
        t++;
    udfkit_target target;
    char name[32];
    size_t n = 0;
    while (n + 1 < sizeof name && (isalnum((unsigned char)t[n]) || t[n] == '_'))
        n++;
    memcpy(name, t, n);
    name[n] = '\0';
    if (!udfkit_target_parse_name(name, &target))
        return false;
    target.sass = false;
    udfkit_target_name(target, out, size);
    return true;
}

static char *rebase(const char *manifest_dir, const char *path, const char *out_dir)
{
    char *abs = udfkit_path_join(manifest_dir, path);
    char *rel = udfkit_path_relative(abs, out_dir);
    free(abs);
    return rel;
}

/* Copies a file beside the output as an artifact. */
static udfkit_rc copy_in(json_t *manifest, udfkit_outputs *outputs, const char *out_dir, const char *stem,
                         const char *kind, const char *arch, const char *source_path, const udfkit_buf *data,
                         json_t **artifact)
{
    char hash[UDFKIT_HASH_HEX_SIZE];
    udfkit_hash_hex(data->data, data->size, hash);
    udfkit_buf name = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&name, "%s.%s.%.12s.%s", stem, udfkit_path_basename(source_path), hash, kind);
    char *source = udfkit_path_relative(source_path, out_dir);
    *artifact = udfkit_manifest_add_artifact(manifest, kind, arch, name.data, source, data->data, data->size);
    char *path = udfkit_path_join(out_dir, name.data);
    udfkit_rc rc = udfkit_outputs_write(outputs, path, data->data, data->size);
    free(path);
    free(source);
    udfkit_buf_free(&name);
    return rc;
}

static bool signature_agrees(const udfkit_spec *declared, const char *exported)
{
    udfkit_signature sig;
    char why[128];
    if (!udfkit_signature_parse(exported, &sig, why, sizeof why) || sig.nparams != declared->sig.nparams)
        return false;
    for (size_t i = 0; i < sig.nparams; i++)
        if (!udfkit_type_equal(sig.params[i], declared->sig.params[i]))
            return false;
    return !declared->sig.has_return || udfkit_type_equal(sig.ret, declared->sig.ret);
}

udfkit_rc udfkit_merge(const udfkit_merge_request *req)
{
    udfkit_outputs *outputs = udfkit_outputs_new();
    udfkit_rc rc = udfkit_outputs_claim(outputs, req->output);
    udfkit_spec *specs = calloc(req->nfunctions + 1, sizeof *specs);
    udfkit_manifest *manifests = calloc(req->ninputs + 1, sizeof *manifests);
    raw_code *raw = calloc(req->ninputs + 1, sizeof *raw);
    size_t nmanifests = 0, nraw = 0;
    char *out_dir = udfkit_path_dirname(req->output), *stem = udfkit_path_stem(req->output);
    json_t *merged = udfkit_manifest_new("udfs");
    udfkit_buf list = UDFKIT_BUF_INIT;
    if (rc)
        goto done;
    for (size_t i = 0; i < req->nfunctions && !rc; i++)
        rc = udfkit_spec_parse(req->functions[i], &specs[i]);
    if (rc || (rc = udfkit_specs_check_unique(specs, req->nfunctions)))
        goto done;

    for (size_t i = 0; i < req->ninputs; i++) {
        const char *ext = udfkit_path_extension(req->inputs[i]);
        if (strcmp(ext, ".ptx") == 0 || strcmp(ext, ".ltoir") == 0) {
            raw[nraw].path = req->inputs[i];
            raw[nraw].kind = ext + 1;
            if ((rc = udfkit_read_file(req->inputs[i], &raw[nraw++].data)))
                goto done;
        } else if ((rc = udfkit_manifest_load(req->inputs[i], &manifests[nmanifests++]))) {
            goto done;
        }
        udfkit_buf_printf(&list, "%s%s", list.size ? ", " : "", req->inputs[i]);
    }

    /* Every spec: exported by exactly one compile, or found in one precompiled source. */
    for (size_t s = 0; s < req->nfunctions; s++) {
        const udfkit_spec *spec = &specs[s];
        const udfkit_manifest *owner = NULL;
        json_t *owner_fn = NULL;
        for (size_t m = 0; m < nmanifests; m++) {
            size_t i;
            json_t *fn;
            json_array_foreach(json_object_get(manifests[m].root, "functions"), i, fn)
            {
                if (strcmp(json_string_value(json_object_get(fn, "c_name")), spec->c_name) != 0)
                    continue;
                if (owner) {
                    rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                                     "function '%s' is defined by two sources (%s and %s); name one with @file in "
                                     "its spec '%s'",
                                     spec->c_name, json_string_value(json_object_get(owner_fn, "source")),
                                     json_string_value(json_object_get(fn, "source")), spec->text);
                    goto done;
                }
                owner = &manifests[m];
                owner_fn = fn;
            }
        }
        if (owner) {
            const char *exported = json_string_value(json_object_get(owner_fn, "signature"));
            if (!signature_agrees(spec, exported)) {
                rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function '%s' was compiled as %s, but its spec '%s' declares another signature",
                                 spec->c_name, exported, spec->text);
                goto done;
            }
            json_t *copy = json_deep_copy(owner_fn);
            const char *source = json_string_value(json_object_get(owner_fn, "source"));
            if (source) {
                char *rel = rebase(owner->dir, source, out_dir);
                json_object_set_new(copy, "source", json_string(rel));
                free(rel);
            }
            json_array_append_new(json_object_get(merged, "functions"), copy);
            continue;
        }
        /* Precompiled code: PTX names its functions; LTO-IR is taken on the spec's word. */
        raw_code *found = NULL;
        for (size_t r = 0; r < nraw && !found; r++) {
            bool named = spec->file ? udfkit_source_matches(spec->file, raw[r].path)
                                    : strcmp(raw[r].kind, "ptx") == 0 ? ptx_defines(raw[r].data.data, spec->c_name)
                                                                      : nraw == 1;
            if (named)
                found = &raw[r];
        }
        if (!found) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': no source defines '%s' (sources: %s)",
                             spec->text, spec->source_name, list.data ? list.data : "none");
            goto done;
        }
        if (!spec->sig.has_return) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, found->path, 0,
                             "function spec '%s': precompiled code needs the return type in its signature", spec->text);
            goto done;
        }
        found->used = true;
        char *source = udfkit_path_relative(found->path, out_dir);
        udfkit_manifest_add_function(merged, spec, strcmp(found->kind, "ptx") == 0 ? "ptx" : "ltoir", source, 0);
        free(source);
    }

    /* Artifacts of the compiles, their link records and producers. */
    for (size_t m = 0; m < nmanifests; m++) {
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(manifests[m].root, "artifacts"), i, a)
        {
            json_t *copy = json_deep_copy(a);
            char *path = rebase(manifests[m].dir, json_string_value(json_object_get(a, "path")), out_dir);
            json_object_set_new(copy, "path", json_string(path));
            free(path);
            const char *source = json_string_value(json_object_get(a, "source"));
            if (source) {
                char *rel = rebase(manifests[m].dir, source, out_dir);
                json_object_set_new(copy, "source", json_string(rel));
                free(rel);
            }
            json_array_append_new(json_object_get(merged, "artifacts"), copy);
        }
        json_array_extend(json_object_get(merged, "link"), json_object_get(manifests[m].root, "link"));
        const char *key;
        json_t *value;
        json_object_foreach(json_object_get(manifests[m].root, "producers"), key, value)
        {
            json_t *have = json_object_get(json_object_get(merged, "producers"), key);
            udfkit_version a_v, b_v;
            /* Keep the newest: it decides which nvJitLink can link the package. */
            if (!have || (udfkit_version_parse(json_string_value(value), &a_v) &&
                          udfkit_version_parse(json_string_value(have), &b_v) && udfkit_version_compare(a_v, b_v) > 0))
                json_object_set(json_object_get(merged, "producers"), key, value);
        }
    }
    for (size_t r = 0; r < nraw; r++) {
        if (!raw[r].used)
            continue;
        char arch[32];
        bool has_arch = strcmp(raw[r].kind, "ptx") == 0 && ptx_arch(raw[r].data.data, arch, sizeof arch);
        json_t *art;
        if ((rc = copy_in(merged, outputs, out_dir, stem, raw[r].kind, has_arch ? arch : NULL, raw[r].path, &raw[r].data,
                          &art)))
            goto done;
    }
    for (size_t l = 0; l < req->nlinks; l++) {
        udfkit_buf data = UDFKIT_BUF_INIT;
        const char *ext = udfkit_path_extension(req->links[l]);
        static const char *const kinds[] = {".ltoir", ".ptx", ".cubin", ".fatbin", ".o", ".a"};
        bool known = false;
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
            known |= strcmp(ext, kinds[k]) == 0;
        if (!known) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, req->links[l], 0,
                             "a LINK file must be .ltoir, .ptx, .cubin, .fatbin, .o or .a (compile .cu files first)");
            goto done;
        }
        json_t *art;
        if (!(rc = udfkit_read_file(req->links[l], &data)))
            rc = copy_in(merged, outputs, out_dir, stem, ext + 1, NULL, req->links[l], &data, &art);
        udfkit_buf_free(&data);
        if (rc)
            goto done;
        json_object_set_new(art, "role", json_string("link"));
    }
    udfkit_buf text = UDFKIT_BUF_INIT;
    udfkit_manifest_dump(merged, &text);
    rc = udfkit_outputs_write(outputs, req->output, text.data, text.size);
    udfkit_buf_free(&text);
    if (!rc)
        rc = udfkit_outputs_commit(outputs);
done:
    for (size_t i = 0; i < req->nfunctions; i++)
        udfkit_spec_free(&specs[i]);
    for (size_t i = 0; i < nmanifests; i++)
        udfkit_manifest_free(&manifests[i]);
    for (size_t i = 0; i < nraw; i++)
        udfkit_buf_free(&raw[i].data);
    free(specs);
    free(manifests);
    free(raw);
    free(out_dir);
    free(stem);
    json_decref(merged);
    udfkit_buf_free(&list);
    udfkit_outputs_free(outputs);
    return rc;
}
