#include "artifact/merge.h"

#include "artifact/manifest.h"
#include "base/arch.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/spec.h"
#include "base/text.h"

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

/* One `udfkit merge`: its inputs and the manifest it builds. */
typedef struct merge_state {
    const udfkit_merge_request *req;
    udfkit_spec *specs;
    udfkit_manifest *manifests; /* inputs that are manifests */
    size_t nmanifests;
    raw_code *raw;              /* inputs that are precompiled code */
    size_t nraw;
    char *out_dir, *stem;
    json_t *merged;
    udfkit_outputs *outputs;
} merge_state;

static udfkit_rc load_inputs(merge_state *m)
{
    const udfkit_merge_request *req = m->req;
    for (size_t i = 0; i < req->ninputs; i++) {
        const char *ext = udfkit_path_extension(req->inputs[i]);
        udfkit_rc rc;
        if (strcmp(ext, ".ptx") == 0 || strcmp(ext, ".ltoir") == 0) {
            m->raw[m->nraw].path = req->inputs[i];
            m->raw[m->nraw].kind = ext + 1;
            if ((rc = udfkit_read_file(req->inputs[i], &m->raw[m->nraw++].data)))
                return rc;
        } else if ((rc = udfkit_manifest_load(req->inputs[i], &m->manifests[m->nmanifests++]))) {
            return rc;
        }
    }
    return UDFKIT_RC_OK;
}

/* The one compile that exports spec's c_name (*fn NULL: none does). */
static udfkit_rc find_compiled(const merge_state *m, const udfkit_spec *spec, const udfkit_manifest **owner,
                               json_t **fn)
{
    *owner = NULL;
    *fn = NULL;
    for (size_t k = 0; k < m->nmanifests; k++) {
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(m->manifests[k].root, "functions"), i, f)
        {
            if (strcmp(json_string_value(json_object_get(f, "c_name")), spec->c_name) != 0)
                continue;
            if (*owner)
                return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                                   "function '%s' is defined by two sources (%s and %s); name one with @file in "
                                   "its spec '%s'",
                                   spec->c_name, json_string_value(json_object_get(*fn, "source")),
                                   json_string_value(json_object_get(f, "source")), spec->text);
            *owner = &m->manifests[k];
            *fn = f;
        }
    }
    return UDFKIT_RC_OK;
}

/* A spec exported by a compile: its record, if the signatures agree. */
static udfkit_rc merge_compiled(merge_state *m, const udfkit_spec *spec, const udfkit_manifest *owner, json_t *fn)
{
    const char *exported = json_string_value(json_object_get(fn, "signature"));
    if (!signature_agrees(spec, exported))
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                           "function '%s' was compiled as %s, but its spec '%s' declares another signature",
                           spec->c_name, exported, spec->text);
    json_t *copy = json_deep_copy(fn);
    const char *source = json_string_value(json_object_get(fn, "source"));
    if (source) {
        char *rel = rebase(owner->dir, source, m->out_dir);
        json_object_set_new(copy, "source", json_string(rel));
        free(rel);
    }
    json_array_append_new(json_object_get(m->merged, "functions"), copy);
    return UDFKIT_RC_OK;
}

/* A path as the user would open it: relative to the working directory where it lies
 * inside it, else absolute. */
static char *shown_path(const char *path)
{
    char *abs = realpath(path, NULL);
    if (!abs)
        abs = udfkit_path_absolute(path);
    char *rel = udfkit_path_relative(abs, ".");
    if (strncmp(rel, "../", 3) == 0 || strcmp(rel, "..") == 0) {
        free(rel);
        return abs;
    }
    free(abs);
    return rel;
}

/* The user's sources behind the inputs (what each compile read, as its manifest records
 * them) and the precompiled files, for messages: "a.cu, b.py". Also every function they
 * define, to find a near miss. */
static void user_sources(const merge_state *m, udfkit_buf *list, const char ***names, size_t *nnames,
                         const char ***files, size_t *nfiles)
{
    *names = NULL;
    *files = NULL;
    *nnames = *nfiles = 0;
    for (size_t k = 0; k < m->nmanifests; k++) {
        size_t i, j;
        json_t *src, *name;
        json_array_foreach(json_object_get(m->manifests[k].root, "sources"), i, src)
        {
            const char *rel = json_string_value(json_object_get(src, "path"));
            if (!rel)
                continue;
            char *abs = udfkit_path_join(m->manifests[k].dir, rel), *shown = shown_path(abs);
            udfkit_buf_printf(list, "%s%s", list->size ? ", " : "", shown);
            const char **grown = realloc(*files, (*nfiles + 1) * sizeof **files);
            if (grown) {
                *files = grown;
                (*files)[(*nfiles)++] = strdup(udfkit_path_basename(shown));
            }
            free(abs);
            free(shown);
            json_array_foreach(json_object_get(src, "defines"), j, name)
            {
                const char **more = json_is_string(name) ? realloc(*names, (*nnames + 1) * sizeof **names) : NULL;
                if (more) {
                    *names = more;
                    (*names)[(*nnames)++] = json_string_value(name);
                }
            }
        }
    }
    for (size_t r = 0; r < m->nraw; r++) {
        char *shown = shown_path(m->raw[r].path);
        udfkit_buf_printf(list, "%s%s", list->size ? ", " : "", shown);
        free(shown);
    }
}

/* No input exports the spec's function: which sources there were, and the name or file
 * the user may have meant. */
static udfkit_rc not_found(const merge_state *m, const udfkit_spec *spec)
{
    udfkit_buf list = UDFKIT_BUF_INIT, hint = UDFKIT_BUF_INIT;
    const char **names, **files;
    size_t nnames, nfiles;
    user_sources(m, &list, &names, &nnames, &files, &nfiles);
    udfkit_rc rc;
    if (spec->file) {
        const char *near = udfkit_nearest(udfkit_path_basename(spec->file), files, nfiles);
        if (near)
            udfkit_buf_printf(&hint, "; did you mean '@%s'?", near);
        bool named = false;
        for (size_t i = 0; i < nfiles; i++)
            named |= udfkit_source_matches(spec->file, files[i]);
        rc = named ? udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': '%s' is not defined in '%s' (sources: %s)",
                                 spec->text, spec->source_name, spec->file, list.data ? list.data : "none")
                   : udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': '@%s' is not one of the sources (%s)%s",
                                 spec->text, spec->file, list.data ? list.data : "none", hint.data ? hint.data : "");
    } else {
        const char *near = udfkit_nearest(spec->source_name, names, nnames);
        if (near)
            udfkit_buf_printf(&hint, "; did you mean '%s'?", near);
        rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': no source defines '%s' (sources: %s)%s",
                         spec->text, spec->source_name, list.data ? list.data : "none", hint.data ? hint.data : "");
    }
    for (size_t i = 0; i < nfiles; i++)
        free((char *)files[i]);
    free(files);
    free(names);
    udfkit_buf_free(&list);
    udfkit_buf_free(&hint);
    return rc;
}

/* Precompiled code: PTX names its functions; LTO-IR is taken on the spec's word. */
static udfkit_rc merge_precompiled(merge_state *m, const udfkit_spec *spec)
{
    raw_code *found = NULL;
    for (size_t r = 0; r < m->nraw && !found; r++) {
        bool named = spec->file ? udfkit_source_matches(spec->file, m->raw[r].path)
                                : strcmp(m->raw[r].kind, "ptx") == 0 ? ptx_defines(m->raw[r].data.data, spec->c_name)
                                                                     : m->nraw == 1;
        if (named)
            found = &m->raw[r];
    }
    if (!found)
        return not_found(m, spec);
    if (!spec->sig.has_return)
        return udfkit_fail(UDFKIT_RC_INPUT, found->path, 0,
                           "function spec '%s': precompiled code needs the return type in its signature", spec->text);
    found->used = true;
    char *source = udfkit_path_relative(found->path, m->out_dir);
    udfkit_manifest_add_function(m->merged, spec, strcmp(found->kind, "ptx") == 0 ? "ptx" : "ltoir", source, 0);
    free(source);
    return UDFKIT_RC_OK;
}

/* Every spec: exported by exactly one compile, or found in one precompiled source. */
static udfkit_rc merge_functions(merge_state *m)
{
    for (size_t s = 0; s < m->req->nfunctions; s++) {
        const udfkit_spec *spec = &m->specs[s];
        const udfkit_manifest *owner;
        json_t *fn;
        udfkit_rc rc = find_compiled(m, spec, &owner, &fn);
        if (!rc)
            rc = owner ? merge_compiled(m, spec, owner, fn) : merge_precompiled(m, spec);
        if (rc)
            return rc;
    }
    return UDFKIT_RC_OK;
}

/* An artifact of a compile outside the output's directory is copied beside the output: a
 * manifest names only files beside it. Its link record, if any, follows it. */
static udfkit_rc copy_outside(merge_state *m, const udfkit_manifest *in, const json_t *a, json_t *copy)
{
    char *from;
    udfkit_buf data = UDFKIT_BUF_INIT, name = UDFKIT_BUF_INIT;
    udfkit_rc rc = udfkit_manifest_read_artifact(in, a, &from, &data);
    if (!rc) {
        char hash[UDFKIT_HASH_HEX_SIZE];
        udfkit_hash_hex(data.data, data.size, hash);
        udfkit_buf_printf(&name, "%s.%.12s.%s", m->stem, hash, udfkit_path_basename(from));
        char *to = udfkit_path_join(m->out_dir, name.data);
        rc = udfkit_outputs_write(m->outputs, to, data.data, data.size);
        free(to);
        const char *old = json_string_value(json_object_get(a, "path"));
        size_t i;
        json_t *record;
        json_array_foreach(json_object_get(in->root, "link"), i, record)
        {
            if (json_is_string(json_object_get(record, "artifact")) &&
                strcmp(json_string_value(json_object_get(record, "artifact")), old) == 0)
                json_object_set_new(record, "artifact", json_string(name.data));
        }
        json_object_set_new(copy, "path", json_string(name.data));
    }
    free(from);
    udfkit_buf_free(&data);
    udfkit_buf_free(&name);
    return rc;
}

/* Artifacts of the compiles (rebased to the output's directory, or copied beside it),
 * their link records and producers. */
static udfkit_rc merge_compiled_artifacts(merge_state *m)
{
    for (size_t k = 0; k < m->nmanifests; k++) {
        const udfkit_manifest *in = &m->manifests[k];
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(in->root, "artifacts"), i, a)
        {
            json_t *copy = json_deep_copy(a);
            char *path = rebase(in->dir, json_string_value(json_object_get(a, "path")), m->out_dir);
            json_object_set_new(copy, "path", json_string(path));
            udfkit_rc rc = udfkit_path_stays_inside(path) ? UDFKIT_RC_OK : copy_outside(m, in, a, copy);
            free(path);
            if (rc) {
                json_decref(copy);
                return rc;
            }
            const char *source = json_string_value(json_object_get(a, "source"));
            if (source) {
                char *rel = rebase(in->dir, source, m->out_dir);
                json_object_set_new(copy, "source", json_string(rel));
                free(rel);
            }
            json_array_append_new(json_object_get(m->merged, "artifacts"), copy);
        }
        json_array_extend(json_object_get(m->merged, "link"), json_object_get(in->root, "link"));
        const char *key;
        json_t *value;
        json_object_foreach(json_object_get(in->root, "producers"), key, value)
        {
            json_t *have = json_object_get(json_object_get(m->merged, "producers"), key);
            udfkit_version a_v, b_v;
            /* Keep the newest: it decides which nvJitLink can link the package. */
            if (!have || (udfkit_version_parse(json_string_value(value), &a_v) &&
                          udfkit_version_parse(json_string_value(have), &b_v) && udfkit_version_compare(a_v, b_v) > 0))
                json_object_set(json_object_get(m->merged, "producers"), key, value);
        }
    }
    return UDFKIT_RC_OK;
}

/* Precompiled code that defines a function, and LINK files, copied beside the output. */
static udfkit_rc copy_code(merge_state *m)
{
    udfkit_rc rc;
    json_t *art;
    for (size_t r = 0; r < m->nraw; r++) {
        if (!m->raw[r].used)
            continue;
        char arch[32];
        bool has_arch = strcmp(m->raw[r].kind, "ptx") == 0 && ptx_arch(m->raw[r].data.data, arch, sizeof arch);
        if ((rc = copy_in(m->merged, m->outputs, m->out_dir, m->stem, m->raw[r].kind, has_arch ? arch : NULL,
                          m->raw[r].path, &m->raw[r].data, &art)))
            return rc;
    }
    for (size_t l = 0; l < m->req->nlinks; l++) {
        const char *link = m->req->links[l];
        const char *ext = udfkit_path_extension(link);
        static const char *const kinds[] = {".ltoir", ".ptx", ".cubin", ".fatbin", ".o", ".a"};
        bool known = false;
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
            known |= strcmp(ext, kinds[k]) == 0;
        if (!known)
            return udfkit_fail(UDFKIT_RC_INPUT, link, 0,
                               "a LINK file must be .ltoir, .ptx, .cubin, .fatbin, .o or .a (compile .cu files first)");
        udfkit_buf data = UDFKIT_BUF_INIT;
        if (!(rc = udfkit_read_file(link, &data)))
            rc = copy_in(m->merged, m->outputs, m->out_dir, m->stem, ext + 1, NULL, link, &data, &art);
        udfkit_buf_free(&data);
        if (rc)
            return rc;
        json_object_set_new(art, "role", json_string("link"));
    }
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_merge(const udfkit_merge_request *req)
{
    merge_state m = {
        .req = req,
        .specs = calloc(req->nfunctions + 1, sizeof *m.specs),
        .manifests = calloc(req->ninputs + 1, sizeof *m.manifests),
        .raw = calloc(req->ninputs + 1, sizeof *m.raw),
        .out_dir = udfkit_path_dirname(req->output),
        .stem = udfkit_path_stem(req->output),
        .merged = udfkit_manifest_new("udfs"),
        .outputs = udfkit_outputs_new(),
    };
    udfkit_rc rc = udfkit_outputs_claim(m.outputs, req->output);
    if (!rc)
        rc = udfkit_outputs_inputs(m.outputs, req->inputs, req->ninputs);
    if (!rc)
        rc = udfkit_outputs_inputs(m.outputs, req->links, req->nlinks);
    for (size_t i = 0; i < req->nfunctions && !rc; i++)
        rc = udfkit_spec_parse(req->functions[i], &m.specs[i]);
    if (!rc)
        rc = udfkit_specs_check_unique(m.specs, req->nfunctions);
    if (!rc)
        rc = load_inputs(&m);
    if (!rc)
        rc = merge_functions(&m);
    if (!rc)
        rc = merge_compiled_artifacts(&m);
    if (!rc)
        rc = copy_code(&m);
    if (!rc) {
        udfkit_buf text = UDFKIT_BUF_INIT;
        udfkit_manifest_dump(m.merged, &text);
        rc = udfkit_outputs_write(m.outputs, req->output, text.data, text.size);
        udfkit_buf_free(&text);
    }
    if (!rc)
        rc = udfkit_outputs_commit(m.outputs);
    for (size_t i = 0; i < req->nfunctions; i++)
        udfkit_spec_free(&m.specs[i]);
    for (size_t i = 0; i < m.nmanifests; i++)
        udfkit_manifest_free(&m.manifests[i]);
    for (size_t i = 0; i < m.nraw; i++)
        udfkit_buf_free(&m.raw[i].data);
    free(m.specs);
    free(m.manifests);
    free(m.raw);
    free(m.out_dir);
    free(m.stem);
    json_decref(m.merged);
    udfkit_outputs_free(m.outputs);
    return rc;
}
