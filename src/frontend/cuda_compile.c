#include "frontend/cuda_compile.h"

#include "artifact/manifest.h"
#include "base/fs.h"
#include "frontend/cuda_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void version_string(udfkit_version v, char *buf, size_t size)
{
    snprintf(buf, size, "%d.%d", v.major, v.minor);
}

/* The artifact of job j beside the manifest: <stem>.<source stem>[-<source index>].<arch>.<kind>
 * (sources of the same name in different directories get distinct artifacts). */
static udfkit_rc write_artifact(cuda_build *b, udfkit_outputs *outputs, json_t *manifest, const char *dir, const char *stem, size_t j)
{
    const compile_job *job = &b->jobs[j];
    const char *kind = udfkit_cuda_kind_name(b->req->emit);
    char arch[32];
    udfkit_target_name(job->target, arch, sizeof arch);
    udfkit_buf name = UDFKIT_BUF_INIT;
    char *source_stem = udfkit_path_stem(job->unit->path);
    udfkit_buf_printf(&name, "%s.%s", stem, source_stem);
    bool clash = false;
    for (size_t k = 0; k < j / b->ncompile; k++) {
        char *other = udfkit_path_stem(b->units[k].path);
        clash |= strcmp(other, source_stem) == 0;
        free(other);
    }
    if (clash)
        udfkit_buf_printf(&name, "-%zu", j / b->ncompile);
    udfkit_buf_printf(&name, ".%s.%s", arch, kind);
    char *path = udfkit_path_join(dir, name.data);
    char *source_rel = udfkit_path_relative(job->unit->path, dir);
    udfkit_manifest_add_artifact(manifest, kind, arch, name.data, source_rel, job->code.data, job->code.size);
    udfkit_rc rc = udfkit_outputs_write(outputs, path, job->code.data, job->code.size);
    free(source_rel);
    free(path);
    free(source_stem);
    udfkit_buf_free(&name);
    return rc;
}

/* The manifest, naming its functions and artifacts relative to itself, and the artifacts. */
static udfkit_rc write_manifest(cuda_build *b, udfkit_outputs *outputs)
{
    const udfkit_compile_request *req = b->req;
    char *dir = udfkit_path_dirname(req->output);
    char *stem = udfkit_path_stem(req->output);
    char v[32];
    json_t *manifest = udfkit_manifest_new("udfs");
    version_string(b->nvrtc, v, sizeof v);
    udfkit_manifest_set_producer(manifest, "nvrtc", v);
    for (size_t i = 0; i < req->nsources; i++) {
        const udfkit_cxx_defs *defs = &b->units[i].defs;
        const char **names = calloc(defs->count + 1, sizeof *names);
        for (size_t k = 0; names && k < defs->count; k++)
            names[k] = defs->items[k].qualified;
        char *rel = udfkit_path_relative(b->units[i].path, dir);
        udfkit_manifest_add_source(manifest, rel, names, names ? defs->count : 0);
        free(rel);
        free(names);
    }
    for (size_t i = 0; i < req->nfunctions; i++) {
        if (!b->spec_files[i])
            continue;
        char *rel = udfkit_path_relative(b->spec_files[i], dir);
        udfkit_manifest_add_function(manifest, &b->specs[i], "cuda", rel, b->spec_lines[i]);
        free(rel);
    }
    udfkit_rc rc = UDFKIT_RC_OK;
    for (size_t j = 0; j < b->njobs && !rc; j++)
        rc = write_artifact(b, outputs, manifest, dir, stem, j);
    if (!rc) {
        udfkit_buf text = UDFKIT_BUF_INIT;
        udfkit_manifest_dump(manifest, &text);
        rc = udfkit_outputs_write(outputs, req->output, text.data, text.size);
        udfkit_buf_free(&text);
    }
    json_decref(manifest);
    free(dir);
    free(stem);
    return rc;
}

/* Every source and every file its includes reach. */
static udfkit_rc write_depfile(cuda_build *b, udfkit_outputs *outputs)
{
    const char **deps = NULL;
    size_t ndeps = 0;
    for (size_t s = 0; s < b->req->nsources; s++) {
        const source_unit *u = &b->units[s];
        const char **grown = realloc(deps, (ndeps + 1 + u->includes.nfiles) * sizeof *deps);
        if (!grown)
            break;
        deps = grown;
        deps[ndeps++] = u->path;
        for (size_t f = 0; f < u->includes.nfiles; f++)
            deps[ndeps++] = u->includes.files[f].path;
    }
    udfkit_rc rc = udfkit_request_write_depfile(b->req, outputs, deps, ndeps);
    free(deps);
    return rc;
}

/* One artifact may be written as it is; more need a manifest. */
static udfkit_rc write_outputs(cuda_build *b, udfkit_outputs *outputs)
{
    const udfkit_compile_request *req = b->req;
    bool as_manifest = req->output && strcmp(udfkit_path_extension(req->output), ".json") == 0;
    if (!as_manifest && b->njobs != 1)
        return udfkit_fail(UDFKIT_RC_USAGE, NULL, 0,
                           "%zu artifacts (%zu sources x %zu architectures) need a manifest: -o OUT.json", b->njobs,
                           req->nsources, b->ncompile);
    udfkit_rc rc = as_manifest ? write_manifest(b, outputs)
                               : udfkit_outputs_write(outputs, req->output, b->jobs[0].code.data, b->jobs[0].code.size);
    if (!rc && req->depfile)
        rc = write_depfile(b, outputs);
    if (!rc)
        rc = udfkit_outputs_commit(outputs);
    return rc;
}

udfkit_rc udfkit_cuda_compile(const udfkit_compile_request *req)
{
    cuda_build b = {.req = req, .cuda_dir = req->cuda_include_dir};
    udfkit_outputs *outputs = udfkit_outputs_new();
    udfkit_rc rc = udfkit_request_claim_outputs(req, outputs);
    if (!rc)
        rc = udfkit_cuda_build_run(&b);
    if (!rc && b.warnings.size)
        fputs(b.warnings.data, stderr);
    if (!rc)
        rc = write_outputs(&b, outputs);
    udfkit_outputs_free(outputs);
    udfkit_cuda_build_free(&b);
    return rc;
}
