#include "frontend/cuda_compile.h"

#include "artifact/manifest.h"
#include "base/arch.h"
#include "base/fs.h"
#include "cache/cache.h"
#include "frontend/cxx_scan.h"
#include "frontend/depfile.h"
#include "frontend/exporter.h"
#include "frontend/includes.h"
#include "frontend/nvrtc_log.h"
#include "nvidia/toolchain.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct source_unit {
    const char *path;         /* as given */
    udfkit_buf text;          /* the user's text followed by the forwarders */
    udfkit_include_set includes;
    udfkit_cxx_defs defs;     /* definitions in the source and its local headers */
    char **def_files;         /* for each def: the file it is in */
    udfkit_export *exports;
    udfkit_log_export *log_exports;
    size_t nexports;
    const char **header_texts;
    const char **header_names;
    size_t nheaders;
    udfkit_buf *header_bufs;
    char key[UDFKIT_CACHE_KEY_SIZE]; /* everything this source's compiles read */
} source_unit;

typedef struct compile_job {
    source_unit *unit;
    udfkit_target target;
    const char *const *options;
    size_t noptions;
    udfkit_code_kind kind;
    udfkit_rc rc;
    char *message; /* the failure, for jobs that set one */
    udfkit_buf code;
    udfkit_buf log;
} compile_job;

typedef struct job_queue {
    compile_job *jobs;
    size_t count;
    size_t next;
    pthread_mutex_t lock;
    udfkit_cache *cache;
} job_queue;

/* The source text (with its forwarders), the headers NVRTC gets in memory, and every file
 * the includes reach, CUDA's own headers too. */
static void unit_key(source_unit *u)
{
    udfkit_hasher *h = udfkit_hasher_new("nvrtc-unit");
    udfkit_hasher_add_str(h, u->path);
    udfkit_hasher_add(h, u->text.data, u->text.size);
    for (size_t i = 0; i < u->nheaders; i++) {
        udfkit_hasher_add_str(h, u->header_names[i]);
        udfkit_hasher_add_str(h, u->header_texts[i]);
    }
    for (size_t i = 0; i < u->includes.nfiles; i++)
        udfkit_hasher_add_file(h, u->includes.files[i].path);
    udfkit_hasher_finish(h, u->key);
}

static void job_key(const compile_job *j, char key[UDFKIT_CACHE_KEY_SIZE])
{
    udfkit_hasher *h = udfkit_hasher_new("nvrtc-compile");
    udfkit_toolchain_key(h, UDFKIT_PART_NVRTC);
    udfkit_hasher_add_str(h, j->unit->key);
    for (size_t i = 0; i < j->noptions; i++)
        udfkit_hasher_add_str(h, j->options[i]);
    udfkit_hasher_add(h, &j->kind, sizeof j->kind);
    udfkit_hasher_finish(h, key);
}

static void *worker(void *arg)
{
    job_queue *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        size_t i = q->next++;
        pthread_mutex_unlock(&q->lock);
        if (i >= q->count) {
            udfkit_diag_clear(); /* messages are thread-local; this thread may end now */
            return NULL;
        }
        compile_job *j = &q->jobs[i];
        char key[UDFKIT_CACHE_KEY_SIZE];
        udfkit_cache_entry hit = {0};
        if (q->cache) {
            job_key(j, key);
            if (udfkit_cache_get(q->cache, key, &hit)) {
                const udfkit_buf *code = udfkit_cache_entry_find(&hit, "code"), *log = udfkit_cache_entry_find(&hit, "log");
                if (code && log) {
                    udfkit_cache_record(q->cache, true);
                    udfkit_buf_append(&j->code, code->data, code->size);
                    udfkit_buf_append(&j->log, log->data, log->size);
                    j->rc = UDFKIT_RC_OK;
                    udfkit_cache_entry_free(&hit);
                    continue;
                }
                udfkit_cache_entry_free(&hit);
            }
            udfkit_cache_record(q->cache, false);
        }
        udfkit_nvrtc_job nj = {j->unit->text.data,
                               j->unit->path,
                               j->options,
                               j->noptions,
                               j->unit->header_texts,
                               j->unit->header_names,
                               j->unit->nheaders,
                               j->kind};
        j->rc = udfkit_nvrtc_compile(&nj, &j->code, &j->log);
        if (j->rc && !j->log.size)
            j->message = strdup(udfkit_diag_message());
        if (!j->rc && q->cache) {
            udfkit_cache_entry entry = {0};
            udfkit_cache_entry_add(&entry, "code", j->code.data ? j->code.data : "", j->code.size);
            udfkit_cache_entry_add(&entry, "log", j->log.data ? j->log.data : "", j->log.size);
            udfkit_cache_put(q->cache, key, &entry);
            udfkit_cache_entry_free(&entry);
        }
    }
}

/* Compiles every job on up to one thread per core: NVRTC programs are independent. */
static void run_jobs(compile_job *jobs, size_t count, udfkit_cache *cache)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nthreads = cores > 0 ? (size_t)cores : 1;
    if (nthreads > count)
        nthreads = count;
    if (nthreads > 32)
        nthreads = 32;
    job_queue q = {jobs, count, 0, PTHREAD_MUTEX_INITIALIZER, cache};
    pthread_t threads[32];
    size_t started = 0;
    for (size_t i = 1; i < nthreads; i++)
        if (pthread_create(&threads[started], NULL, worker, &q) == 0)
            started++;
    worker(&q);
    for (size_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&q.lock);
}

static bool is_cuda_source(const char *path)
{
    const char *ext = udfkit_path_extension(path);
    return strcmp(ext, ".cu") == 0 || strcmp(ext, ".cuh") == 0 || strcmp(ext, ".cpp") == 0 ||
           strcmp(ext, ".cc") == 0 || strcmp(ext, ".cxx") == 0;
}

static udfkit_rc load_unit(source_unit *u, const udfkit_compile_request *req, const char *cuda_dir)
{
    udfkit_rc rc = udfkit_read_file(u->path, &u->text);
    if (rc)
        return rc;
    rc = udfkit_includes_follow(u->path, req->include_dirs, req->ninclude_dirs, cuda_dir, &u->includes);
    if (rc)
        return rc;
    /* Definitions in the source and in the local headers it includes. */
    size_t nfiles = 1 + u->includes.nfiles;
    for (size_t f = 0; f < nfiles; f++) {
        const char *file = f == 0 ? u->path : u->includes.files[f - 1].path;
        if (f > 0 && u->includes.files[f - 1].system)
            continue;
        udfkit_buf text = UDFKIT_BUF_INIT;
        if (f == 0)
            udfkit_buf_append(&text, u->text.data, u->text.size);
        else if (udfkit_read_file(file, &text) != UDFKIT_RC_OK) {
            udfkit_diag_clear();
            continue;
        }
        size_t before = u->defs.count;
        udfkit_cxx_scan(text.data, &u->defs);
        char **files = realloc(u->def_files, u->defs.count * sizeof *files);
        if (files) {
            u->def_files = files;
            for (size_t d = before; d < u->defs.count; d++)
                u->def_files[d] = (char *)file;
        }
        udfkit_buf_free(&text);
    }
    /* User headers go to NVRTC in memory, so it compiles exactly what the depfile lists. */
    u->header_texts = calloc(u->includes.nnames + 1, sizeof *u->header_texts);
    u->header_names = calloc(u->includes.nnames + 1, sizeof *u->header_names);
    u->header_bufs = calloc(u->includes.nnames + 1, sizeof *u->header_bufs);
    for (size_t i = 0; i < u->includes.nnames; i++) {
        if (!u->includes.names[i].path)
            continue;
        if (udfkit_read_file(u->includes.names[i].path, &u->header_bufs[u->nheaders]) != UDFKIT_RC_OK) {
            udfkit_diag_clear();
            continue;
        }
        u->header_texts[u->nheaders] = u->header_bufs[u->nheaders].data;
        u->header_names[u->nheaders] = u->includes.names[i].name;
        u->nheaders++;
    }
    return UDFKIT_RC_OK;
}

static void free_unit(source_unit *u)
{
    udfkit_buf_free(&u->text);
    udfkit_include_set_free(&u->includes);
    udfkit_cxx_defs_free(&u->defs);
    free(u->def_files);
    free(u->exports);
    free(u->log_exports);
    for (size_t i = 0; i < u->nheaders; i++)
        udfkit_buf_free(&u->header_bufs[i]);
    free(u->header_bufs);
    free(u->header_texts);
    free(u->header_names);
}

/* Finds the source that defines spec's function: its @file, or the one source whose
 * text defines it. */
static udfkit_rc resolve_spec(const udfkit_spec *spec, source_unit *units, size_t n, bool skip_absent,
                              size_t *unit_index, const udfkit_cxx_def **def, bool *absent)
{
    *absent = false;
    char *base = udfkit_cxx_base_name(spec->source_name);
    udfkit_rc rc = UDFKIT_RC_OK;
    *def = NULL;
    if (spec->file) {
        size_t i = 0, matches = 0;
        for (size_t k = 0; k < n; k++)
            if (udfkit_source_matches(spec->file, units[k].path) && matches++ == 0)
                i = k;
        if (matches > 1) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                             "function spec '%s': '@%s' matches several sources; give more of its path", spec->text,
                             spec->file);
            goto done;
        }
        if (matches == 0 && skip_absent) {
            *absent = true;
            goto done;
        }
        if (matches == 0) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': '@%s' is not one of the sources", spec->text,
                             spec->file);
            goto done;
        }
        *unit_index = i;
        udfkit_cxx_find(&units[i].defs, base, spec->sig.nparams, def);
        goto done;
    }
    size_t found = 0;
    for (size_t i = 0; i < n; i++) {
        const udfkit_cxx_def *d;
        if (udfkit_cxx_find(&units[i].defs, base, spec->sig.nparams, &d)) {
            if (found++ == 0) {
                *unit_index = i;
                *def = d;
            } else {
                rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                                 "function spec '%s': '%s' is defined in both %s and %s; name one with @file "
                                 "(%s@%s:...)",
                                 spec->text, spec->source_name, units[*unit_index].path, units[i].path,
                                 spec->source_name, udfkit_path_basename(units[i].path));
                goto done;
            }
        }
    }
    if (found == 0) {
        if (skip_absent) {
            *absent = true;
        } else if (n == 1) {
            *unit_index = 0; /* perhaps made by a macro: the compile decides */
        } else {
            udfkit_buf list = UDFKIT_BUF_INIT;
            for (size_t i = 0; i < n; i++)
                udfkit_buf_printf(&list, "%s%s", i ? ", " : "", units[i].path);
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': no source defines '%s' (searched %s)",
                             spec->text, spec->source_name, list.data);
            udfkit_buf_free(&list);
        }
    }
done:
    free(base);
    return rc;
}

static const char *kind_name(udfkit_code_kind k)
{
    return k == UDFKIT_CODE_LTOIR ? "ltoir" : k == UDFKIT_CODE_PTX ? "ptx" : "cubin";
}

static void version_string(udfkit_version v, char *buf, size_t size)
{
    snprintf(buf, size, "%d.%d", v.major, v.minor);
}

udfkit_rc udfkit_cuda_compile(const udfkit_compile_request *req)
{
    udfkit_rc rc = UDFKIT_RC_OK;
    udfkit_spec *specs = calloc(req->nfunctions + 1, sizeof *specs);
    source_unit *units = calloc(req->nsources + 1, sizeof *units);
    compile_job *jobs = NULL;
    size_t njobs = 0;
    char **options = NULL;
    size_t noptions = 0;
    udfkit_outputs *outputs = udfkit_outputs_new();
    json_t *manifest = NULL;
    const char *cuda_dir = req->cuda_include_dir ? req->cuda_include_dir : UDFKIT_CUDA_INCLUDE_DIR;
    udfkit_toolchain tc;
    if ((rc = udfkit_toolchain_query(&tc)))
        goto done;

    if (req->output) {
        if ((rc = udfkit_outputs_claim(outputs, req->output)))
            goto done;
        if (req->depfile && (rc = udfkit_outputs_claim(outputs, req->depfile)))
            goto done;
    }
    for (size_t i = 0; i < req->nfunctions; i++)
        if ((rc = udfkit_spec_parse(req->functions[i], &specs[i])))
            goto done;
    if ((rc = udfkit_specs_check_unique(specs, req->nfunctions)))
        goto done;
    for (size_t i = 0; i < req->nfunctions; i++)
        if (!specs[i].sig.has_return) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                             "function spec '%s': CUDA C++ functions need a return type (only Python UDFs can "
                             "leave it out)",
                             specs[i].text);
            goto done;
        }

    udfkit_target_list targets;
    if ((rc = udfkit_toolchain_parse_archs(req->arch, &targets)))
        goto done;
    /* LTO-IR and PTX compile once per virtual architecture, cubins once per real one. */
    udfkit_target compile_for[64];
    size_t ncompile = 0;
    if (req->emit == UDFKIT_CODE_CUBIN) {
        for (size_t i = 0; i < targets.count; i++)
            if (targets.items[i].sass)
                compile_for[ncompile++] = targets.items[i];
        if (!ncompile) {
            rc = udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "--emit cubin needs a real architecture (e.g. 80-real or 80)");
            goto done;
        }
    } else {
        ncompile = udfkit_targets_virtual(&targets, compile_for, 64);
    }

    for (size_t i = 0; i < req->nsources; i++) {
        units[i].path = req->sources[i];
        if (!is_cuda_source(units[i].path)) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, units[i].path, 0,
                             "unknown source kind '%s' (expected .cu, .cuh, .cpp, .cc, .cxx or .py)",
                             udfkit_path_extension(units[i].path));
            goto done;
        }
        if ((rc = load_unit(&units[i], req, cuda_dir)))
            goto done;
    }

    /* Each spec goes to the source that defines it. */
    for (size_t i = 0; i < req->nsources; i++) {
        units[i].exports = calloc(req->nfunctions + 1, sizeof *units[i].exports);
        units[i].log_exports = calloc(req->nfunctions + 1, sizeof *units[i].log_exports);
    }
    int *spec_lines = calloc(req->nfunctions + 1, sizeof *spec_lines);
    const char **spec_files = calloc(req->nfunctions + 1, sizeof *spec_files);
    bool *spec_absent = calloc(req->nfunctions + 1, sizeof *spec_absent);
    for (size_t i = 0; i < req->nfunctions && !rc; i++) {
        size_t ui = 0;
        const udfkit_cxx_def *def = NULL;
        bool absent;
        if ((rc = resolve_spec(&specs[i], units, req->nsources, req->skip_absent, &ui, &def, &absent)))
            break;
        if (absent) {
            spec_absent[i] = true;
            continue;
        }
        source_unit *u = &units[ui];
        const char *file = u->path;
        int line = 0;
        if (def) {
            file = u->def_files[def - u->defs.items];
            line = def->line;
        }
        spec_lines[i] = line;
        spec_files[i] = file;
        char *base = udfkit_cxx_base_name(specs[i].source_name);
        bool check_only = def && def->c_linkage && strcmp(base, specs[i].c_name) == 0;
        free(base);
        u->exports[u->nexports] = (udfkit_export){&specs[i], check_only};
        u->log_exports[u->nexports] = (udfkit_log_export){&specs[i], file, line};
        u->nexports++;
    }
    if (rc)
        goto free_specs;
    for (size_t i = 0; i < req->nsources; i++)
        if (units[i].nexports)
            udfkit_exporter_emit(units[i].exports, units[i].nexports, &units[i].text);

    /* NVRTC options, shared by every job but for -arch. */
    size_t nbase = 8 + 2 * req->ninclude_dirs + 2 * req->ndefines + req->nextra_options;
    options = calloc(nbase + 2, sizeof *options);
    udfkit_buf opt = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&opt, "--std=%s", req->std ? req->std : "c++17");
    options[noptions++] = udfkit_buf_detach(&opt);
    options[noptions++] = strdup("-rdc=true");
    if (req->emit == UDFKIT_CODE_LTOIR)
        options[noptions++] = strdup("-dlto");
    for (size_t i = 0; i < req->ninclude_dirs; i++) {
        udfkit_buf_printf(&opt, "-I%s", req->include_dirs[i]);
        options[noptions++] = udfkit_buf_detach(&opt);
    }
    if (cuda_dir && *cuda_dir) {
        udfkit_buf_printf(&opt, "-I%s", cuda_dir);
        options[noptions++] = udfkit_buf_detach(&opt);
    }
    for (size_t i = 0; i < req->ndefines; i++) {
        udfkit_buf_printf(&opt, "-D%s", req->defines[i]);
        options[noptions++] = udfkit_buf_detach(&opt);
    }
    for (size_t i = 0; i < req->nextra_options; i++)
        options[noptions++] = strdup(req->extra_options[i]);

    njobs = req->nsources * ncompile;
    jobs = calloc(njobs + 1, sizeof *jobs);
    char **arch_options = calloc(ncompile + 1, sizeof *arch_options);
    const char ***job_options = calloc(ncompile + 1, sizeof *job_options);
    for (size_t a = 0; a < ncompile; a++) {
        char name[32];
        udfkit_target_name(compile_for[a], name, sizeof name);
        udfkit_buf_printf(&opt, "-arch=%s", name);
        arch_options[a] = udfkit_buf_detach(&opt);
        job_options[a] = calloc(noptions + 2, sizeof **job_options);
        memcpy(job_options[a], options, noptions * sizeof *options);
        job_options[a][noptions] = arch_options[a];
    }
    for (size_t s = 0; s < req->nsources; s++)
        for (size_t a = 0; a < ncompile; a++) {
            compile_job *j = &jobs[s * ncompile + a];
            j->unit = &units[s];
            j->target = compile_for[a];
            j->options = job_options[a];
            j->noptions = noptions + 1;
            j->kind = req->emit;
        }
    for (size_t u = 0; u < req->nsources; u++)
        unit_key(&units[u]);
    udfkit_cache *cache = udfkit_cache_open();
    run_jobs(jobs, njobs, cache);
    udfkit_cache_close(cache);

    /* Diagnostics: one report per source (the first failing architecture's), warnings once. */
    udfkit_buf report = UDFKIT_BUF_INIT;
    bool failed = false;
    for (size_t s = 0; s < req->nsources; s++) {
        for (size_t a = 0; a < ncompile; a++) {
            compile_job *j = &jobs[s * ncompile + a];
            if (j->message) {
                udfkit_buf_printf(&report, "%s\n", j->message);
                failed = true;
                break;
            }
            if (!j->log.size)
                continue;
            udfkit_buf text = UDFKIT_BUF_INIT;
            bool error = udfkit_nvrtc_log_rewrite(j->log.data, units[s].log_exports, units[s].nexports, &text) || j->rc;
            if (error || a == 0)
                udfkit_buf_append(&report, text.data ? text.data : "", text.size);
            udfkit_buf_free(&text);
            if (error) {
                if (ncompile > 1) {
                    char name[32];
                    udfkit_target_name(j->target, name, sizeof name);
                    udfkit_buf_printf(&report, "%s: note: while compiling for %s\n", units[s].path, name);
                }
                failed = true;
                break;
            }
        }
    }
    if (failed) {
        while (report.size && report.data[report.size - 1] == '\n')
            report.data[--report.size] = '\0';
        rc = udfkit_fail_text(UDFKIT_RC_INPUT, report.data);
        udfkit_buf_free(&report);
        goto free_jobs;
    }
    if (report.size)
        fputs(report.data, stderr);
    udfkit_buf_free(&report);

    /* Outputs. */
    bool as_manifest = req->output && strcmp(udfkit_path_extension(req->output), ".json") == 0;
    if (!as_manifest && njobs != 1) {
        rc = udfkit_fail(UDFKIT_RC_USAGE, NULL, 0,
                         "%zu artifacts (%zu sources x %zu architectures) need a manifest: -o OUT.json", njobs,
                         req->nsources, ncompile);
        goto free_jobs;
    }
    if (!as_manifest) {
        rc = udfkit_outputs_write(outputs, req->output, jobs[0].code.data, jobs[0].code.size);
    } else {
        char *dir = udfkit_path_dirname(req->output);
        char *stem = udfkit_path_stem(req->output);
        char v[32];
        manifest = udfkit_manifest_new("udfs");
        version_string(tc.nvrtc, v, sizeof v);
        udfkit_manifest_set_producer(manifest, "nvrtc", v);
        for (size_t i = 0; i < req->nfunctions; i++) {
            if (spec_absent[i])
                continue;
            char *rel = udfkit_path_relative(spec_files[i], dir);
            udfkit_manifest_add_function(manifest, &specs[i], "cuda", rel, spec_lines[i]);
            free(rel);
        }
        for (size_t j = 0; j < njobs && !rc; j++) {
            char arch[32];
            udfkit_target_name(jobs[j].target, arch, sizeof arch);
            udfkit_buf name = UDFKIT_BUF_INIT;
            char *source_stem = udfkit_path_stem(jobs[j].unit->path);
            /* Sources of the same name in different directories get distinct artifacts. */
            udfkit_buf_printf(&name, "%s.%s", stem, source_stem);
            bool clash = false;
            for (size_t k = 0; k < j / ncompile; k++) {
                char *other = udfkit_path_stem(units[k].path);
                clash |= strcmp(other, source_stem) == 0;
                free(other);
            }
            if (clash)
                udfkit_buf_printf(&name, "-%zu", j / ncompile);
            udfkit_buf_printf(&name, ".%s.%s", arch, kind_name(req->emit));
            char *path = udfkit_path_join(dir, name.data);
            char *source_rel = udfkit_path_relative(jobs[j].unit->path, dir);
            udfkit_manifest_add_artifact(manifest, kind_name(req->emit), arch, name.data, source_rel, jobs[j].code.data,
                                         jobs[j].code.size);
            rc = udfkit_outputs_write(outputs, path, jobs[j].code.data, jobs[j].code.size);
            free(source_rel);
            free(path);
            free(source_stem);
            udfkit_buf_free(&name);
        }
        if (!rc) {
            udfkit_buf text = UDFKIT_BUF_INIT;
            udfkit_manifest_dump(manifest, &text);
            rc = udfkit_outputs_write(outputs, req->output, text.data, text.size);
            udfkit_buf_free(&text);
        }
        free(dir);
        free(stem);
    }
    if (!rc && req->depfile) {
        const char **deps = NULL;
        size_t ndeps = 0;
        for (size_t s = 0; s < req->nsources; s++) {
            const char **grown = realloc(deps, (ndeps + 1 + units[s].includes.nfiles) * sizeof *deps);
            if (!grown)
                break;
            deps = grown;
            deps[ndeps++] = units[s].path;
            for (size_t f = 0; f < units[s].includes.nfiles; f++)
                deps[ndeps++] = units[s].includes.files[f].path;
        }
        udfkit_buf text = UDFKIT_BUF_INIT;
        char *target = req->depfile_target ? strdup(req->depfile_target) : udfkit_path_absolute(req->output);
        udfkit_depfile_format(target, deps, ndeps, &text);
        free(target);
        rc = udfkit_outputs_write(outputs, req->depfile, text.data, text.size);
        udfkit_buf_free(&text);
        free(deps);
    }
    if (!rc)
        rc = udfkit_outputs_commit(outputs);

free_jobs:
    for (size_t j = 0; j < njobs; j++) {
        udfkit_buf_free(&jobs[j].code);
        udfkit_buf_free(&jobs[j].log);
        free(jobs[j].message);
    }
    for (size_t a = 0; a < ncompile; a++) {
        free(arch_options[a]);
        free(job_options[a]);
    }
    free(arch_options);
    free(job_options);
free_specs:
    free(spec_lines);
    free(spec_files);
    free(spec_absent);
done:
    json_decref(manifest);
    udfkit_outputs_free(outputs);
    for (size_t i = 0; i < noptions; i++)
        free(options[i]);
    free(options);
    free(jobs);
    for (size_t i = 0; i < req->nsources; i++)
        free_unit(&units[i]);
    free(units);
    for (size_t i = 0; i < req->nfunctions; i++)
        udfkit_spec_free(&specs[i]);
    free(specs);
    return rc;
}
