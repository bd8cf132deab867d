#include "frontend/cuda_build.h"

#include "artifact/code_check.h"
#include "base/fs.h"
#include "base/locate.h"
#include "base/templates.h"
#include "frontend/include_check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct job_queue {
    compile_job *jobs;
    size_t count;
    size_t next;
    pthread_mutex_t lock;
    udfkit_cache *cache;
    const cuda_build *build;
} job_queue;

/* The headers every CUDA C/C++ compile may include, by their include names: <udfkit/udf.h>
 * (pre-included: udfkit_row_error), <udfkit/string.cuh> with the headers it includes
 * (docs/strings.md), <udfkit/decimal.cuh> and <udfkit/datetime.cuh> (docs/decimals-and-dates.md). */
static const char *const device_header_names[] = {
    "udfkit/udf.h",          "udfkit/string.cuh",      "udfkit/string_unicode.cuh", "udfkit/string_pow5.cuh",
    "udfkit/string_chars.cuh", "udfkit/string_text.cuh", "udfkit/string_case.cuh",    "udfkit/string_number.cuh",
    "udfkit/decimal.cuh",      "udfkit/datetime.cuh"};
static const char *const device_header_texts[] = {
    udfkit_tpl_udf_device_h,     udfkit_tpl_string_cuh,      udfkit_tpl_string_unicode_cuh, udfkit_tpl_string_pow5_cuh,
    udfkit_tpl_string_chars_cuh, udfkit_tpl_string_text_cuh, udfkit_tpl_string_case_cuh,    udfkit_tpl_string_number_cuh,
    udfkit_tpl_decimal_cuh,      udfkit_tpl_datetime_cuh};
#define DEVICE_HEADERS (sizeof device_header_names / sizeof *device_header_names)

size_t udfkit_device_headers(const char *const **names, const char *const **texts)
{
    *names = device_header_names;
    *texts = device_header_texts;
    return DEVICE_HEADERS;
}

/* The source text (with its forwarders) and every file the includes reach, CUDA's own
 * headers too (their bytes hashed by include_check.c, or known from its entry). */
static void unit_key(source_unit *u)
{
    udfkit_hasher *h = udfkit_hasher_new("nvrtc-unit-3");
    udfkit_hasher_add_str(h, u->path);
    udfkit_hasher_add(h, u->text.data, u->text.size);
    udfkit_hasher_add_str(h, u->files_key);
    udfkit_hasher_finish(h, u->key);
}

/* An untrusted compile's results are kept apart, with the roots it could read: a trusted
 * compile of the same text may have read files (a computed include) that no key names. */
static void job_key(const cuda_build *b, const compile_job *j, char key[UDFKIT_CACHE_KEY_SIZE])
{
    udfkit_hasher *h = udfkit_hasher_new("nvrtc-compile");
    udfkit_toolchain_key(h, UDFKIT_PART_NVRTC);
    udfkit_hasher_add_str(h, j->unit->key);
    for (size_t i = 0; i < j->noptions; i++)
        udfkit_hasher_add_str(h, j->options[i]);
    udfkit_hasher_add(h, &j->kind, sizeof j->kind);
    for (size_t i = 0; i < DEVICE_HEADERS; i++)
        udfkit_hasher_add_str(h, device_header_texts[i]);
    if (b->req->untrusted) {
        udfkit_hasher_add_str(h, "untrusted, reading only below:");
        for (size_t i = 0; i < b->nroots; i++)
            udfkit_hasher_add_str(h, b->roots[i]);
    }
    udfkit_hasher_finish(h, key);
}

/* NVRTC here, or in the sandbox helper. */
static udfkit_rc compile_one(const cuda_build *b, const udfkit_nvrtc_job *nj, compile_job *j)
{
    if (!b->isolated)
        return udfkit_nvrtc_compile(nj, &j->code, &j->log);
    udfkit_rc rc = udfkit_sandbox_nvrtc(&b->sandbox, nj, &j->code, &j->log);
    if (b->req->untrusted)
        udfkit_nvrtc_log_hide_open_reasons(&j->log);
    return rc;
}

/* -v: "nvrtc udfs.cu --std=c++17 ... -arch=compute_80: 0.35 s" */
static void note_job(const compile_job *j, const char *how)
{
    if (!udfkit_verbose())
        return;
    udfkit_buf opts = UDFKIT_BUF_INIT;
    udfkit_buf_join(&opts, j->options, j->noptions, " ");
    udfkit_note("nvrtc %s %s: %s", j->unit->path, opts.data ? opts.data : "", how);
    udfkit_buf_free(&opts);
}

/* A cached result is used only where it is the code it claims to be: the entry's checksum
 * says that it is as stored, not what was stored (another process may have planted it). */
static bool code_is(udfkit_code_kind kind, const udfkit_buf *code, const char *key)
{
    char why[256];
    bool ok = kind == UDFKIT_CODE_LTOIR ? udfkit_ltoir_check(code->data, code->size, why, sizeof why)
              : kind == UDFKIT_CODE_PTX ? udfkit_ptx_check(code->data, code->size, why, sizeof why)
                                        : udfkit_cubin_check(code->data, code->size, why, sizeof why);
    if (!ok)
        udfkit_warn("the cache entry %s is not used: the code in it %s; the result is rebuilt", key, why);
    return ok;
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
        double start = udfkit_seconds();
        char key[UDFKIT_CACHE_KEY_SIZE];
        udfkit_cache_entry hit = {0};
        if (q->cache) {
            job_key(q->build, j, key);
            if (udfkit_cache_get(q->cache, key, &hit)) {
                const udfkit_buf *code = udfkit_cache_entry_find(&hit, "code"), *log = udfkit_cache_entry_find(&hit, "log");
                if (code && log && code_is(j->kind, code, key)) {
                    udfkit_cache_record(q->cache, &hit, true);
                    udfkit_buf_append(&j->code, code->data, code->size);
                    udfkit_buf_append(&j->log, log->data, log->size);
                    j->rc = UDFKIT_RC_OK;
                    udfkit_cache_entry_free(&hit);
                    note_job(j, "from the cache");
                    continue;
                }
                udfkit_cache_entry_free(&hit);
            }
            udfkit_cache_record(q->cache, &hit, false);
        }
        udfkit_nvrtc_job nj = {j->unit->text.data,
                               j->unit->path,
                               j->options,
                               j->noptions,
                               device_header_texts,
                               device_header_names,
                               DEVICE_HEADERS,
                               j->kind};
        j->rc = compile_one(q->build, &nj, j);
        char took[64];
        snprintf(took, sizeof took, "%.2f s%s", udfkit_seconds() - start, j->rc ? ", failed" : "");
        note_job(j, took);
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
static void run_jobs(const cuda_build *b, compile_job *jobs, size_t count, udfkit_cache *cache)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nthreads = cores > 0 ? (size_t)cores : 1;
    if (nthreads > count)
        nthreads = count;
    if (nthreads > 32)
        nthreads = 32;
    job_queue q = {jobs, count, 0, PTHREAD_MUTEX_INITIALIZER, cache, b};
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

static udfkit_rc load_unit(const cuda_build *b, source_unit *u, const char *given, const char *cuda_dir)
{
    const udfkit_compile_request *req = b->req;
    udfkit_rc rc = UDFKIT_RC_OK;
    udfkit_include_roots roots = {(const char *const *)b->roots, b->nroots, false};
    if (given)
        udfkit_buf_puts(&u->text, given);
    else
        rc = udfkit_read_file(u->path, &u->text);
    double started = udfkit_include_check_now();
    if (!rc && req->untrusted) {
        rc = udfkit_includes_follow_confined(u->path, u->text.data ? u->text.data : "", req->include_dirs,
                                             req->ninclude_dirs, cuda_dir, &roots, &u->includes);
        if (!rc)
            udfkit_include_check_store(NULL, NULL, &u->includes, started, u->files_key);
    } else if (!rc) {
        /* The includes known from an earlier compile of the same text where every file they
         * reach stats the same (include_check.h), else followed and remembered. */
        udfkit_cache *known = udfkit_cache_open_section("includes");
        char key[UDFKIT_CACHE_KEY_SIZE];
        udfkit_include_check_key(u->path, u->text.data ? u->text.data : "", u->text.size, req->include_dirs,
                                 req->ninclude_dirs, cuda_dir, key);
        if (known && udfkit_include_check_find(known, key, &u->includes, u->files_key)) {
            udfkit_note("compile: %s: its includes (%zu files) as an earlier compile found them, unchanged", u->path,
                        u->includes.nfiles);
        } else {
            rc = udfkit_includes_follow_text(u->path, u->text.data ? u->text.data : "", req->include_dirs,
                                             req->ninclude_dirs, cuda_dir, &u->includes);
            if (!rc)
                udfkit_include_check_store(known, key, &u->includes, started, u->files_key);
        }
        udfkit_cache_close(known);
    }
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
    /* NVRTC reads the user's headers itself, from disk, resolving every include relative to
     * the file that names it, as nvcc does; the include follower resolves them the same way
     * for the depfile. */
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
}

/* Whether the signature's result is a string, written through the kernel's builder. */
static bool built_result(const udfkit_signature *sig)
{
    return sig->has_return && !sig->ret.pointer && udfkit_kind_info(sig->ret.kind)->result_out;
}

/* A definition of spec's function in `defs`: with the spec's parameters, with a string
 * result's builder first (the builder form), or, for a spec whose C ABI is expanded (T?,
 * strings), with the C ABI itself (the pair form). */
static size_t find_def(const udfkit_cxx_defs *defs, const char *base, const udfkit_spec *spec,
                       const udfkit_cxx_def **def)
{
    size_t n = udfkit_cxx_find(defs, base, spec->sig.nparams, def);
    if (!n && built_result(&spec->sig))
        n = udfkit_cxx_find(defs, base, spec->sig.nparams + 1, def);
    if (!n && udfkit_signature_expanded(&spec->sig))
        n = udfkit_cxx_find(defs, base, udfkit_signature_c_arity(&spec->sig), def);
    return n;
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
        find_def(&units[i].defs, base, spec, def);
        goto done;
    }
    size_t found = 0;
    for (size_t i = 0; i < n; i++) {
        const udfkit_cxx_def *d;
        if (find_def(&units[i].defs, base, spec, &d)) {
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

/* Parses the specs (each CUDA C++ function's return type is checked where it is placed:
 * with --skip-absent, a spec for a Python UDF of the same target may leave it out). */
static udfkit_rc parse_specs(cuda_build *b)
{
    const udfkit_compile_request *req = b->req;
    udfkit_rc rc;
    for (size_t i = 0; i < req->nfunctions; i++)
        if ((rc = udfkit_spec_parse(req->functions[i], &b->specs[i])))
            return rc;
    return udfkit_specs_check_unique(b->specs, req->nfunctions);
}

/* LTO-IR and PTX compile once per virtual architecture, cubins once per real one. */
static udfkit_rc plan_targets(cuda_build *b)
{
    udfkit_target_list targets;
    udfkit_rc rc = udfkit_toolchain_parse_archs(b->req->arch, &targets);
    if (rc)
        return rc;
    if (b->req->emit != UDFKIT_CODE_CUBIN) {
        b->ncompile = udfkit_targets_virtual(&targets, b->compile_for, 64);
        return UDFKIT_RC_OK;
    }
    for (size_t i = 0; i < targets.count; i++)
        if (targets.items[i].sass)
            b->compile_for[b->ncompile++] = targets.items[i];
    if (!b->ncompile)
        return udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "--emit cubin needs a real architecture (e.g. 80-real or 80)");
    return UDFKIT_RC_OK;
}

static udfkit_rc load_sources(cuda_build *b)
{
    for (size_t i = 0; i < b->req->nsources; i++) {
        source_unit *u = &b->units[i];
        u->path = b->req->sources[i];
        /* A text given in memory (udfkit_compile_source) is CUDA C++ whatever its name. */
        if (!b->req->source_texts && !is_cuda_source(u->path))
            return udfkit_fail(UDFKIT_RC_INPUT, u->path, 0,
                               "unknown source kind '%s' (expected .cu, .cuh, .cpp, .cc, .cxx or .py)",
                               udfkit_path_extension(u->path));
        udfkit_rc rc = load_unit(b, u, b->req->source_texts ? b->req->source_texts[i] : NULL, b->cuda_dir);
        if (rc)
            return rc;
    }
    return UDFKIT_RC_OK;
}

/* Each spec goes to the source that defines it, whose text gets the spec's forwarder. */
static udfkit_rc place_specs(cuda_build *b)
{
    const udfkit_compile_request *req = b->req;
    for (size_t i = 0; i < req->nsources; i++) {
        b->units[i].exports = calloc(req->nfunctions + 1, sizeof *b->units[i].exports);
        b->units[i].log_exports = calloc(req->nfunctions + 1, sizeof *b->units[i].log_exports);
    }
    for (size_t i = 0; i < req->nfunctions; i++) {
        size_t ui = 0;
        const udfkit_cxx_def *def = NULL;
        bool absent;
        udfkit_rc rc = resolve_spec(&b->specs[i], b->units, req->nsources, req->skip_absent, &ui, &def, &absent);
        if (rc)
            return rc;
        if (absent)
            continue;
        if (!b->specs[i].sig.has_return)
            return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                               "function spec '%s': CUDA C++ functions need a return type (only Python UDFs can "
                               "leave it out)",
                               b->specs[i].text);
        source_unit *u = &b->units[ui];
        const char *file = u->path;
        int line = 0;
        if (def) {
            file = u->def_files[def - u->defs.items];
            line = def->line;
        }
        b->spec_lines[i] = line;
        b->spec_files[i] = file;
        char *base = udfkit_cxx_base_name(b->specs[i].source_name);
        bool check_only = def && def->c_linkage && strcmp(base, b->specs[i].c_name) == 0;
        free(base);
        const udfkit_signature *sig = &b->specs[i].sig;
        /* Where only a string result expands the C ABI, the builder form and the pair form have
         * one arity: the builder converts to the pointer and the reference alike. */
        bool builder = built_result(sig) && def && def->nparams == sig->nparams + 1;
        bool pair = udfkit_signature_expanded(sig) && !builder && def &&
                    def->nparams == udfkit_signature_c_arity(sig) && def->nparams != sig->nparams;
        for (size_t k = 0; udfkit_signature_nullable(sig) && !pair && k < sig->nparams; k++)
            if (sig->params[k].nullable && sig->params[k].pointer)
                return udfkit_fail(UDFKIT_RC_INPUT, file, line,
                                   "function spec '%s': parameter %zu is an output that may be set to null (T?*): "
                                   "'%s' must take the C ABI pairs itself (T *x, bool *x_valid), as the header "
                                   "declares them",
                                   b->specs[i].text, k + 1, b->specs[i].source_name);
        bool nullable_decimal128 = sig->has_return && sig->ret.nullable && sig->ret.kind == UDFKIT_DECIMAL128;
        for (size_t k = 0; k < sig->nparams; k++)
            nullable_decimal128 |= sig->params[k].nullable && sig->params[k].kind == UDFKIT_DECIMAL128;
        if (nullable_decimal128 && !pair)
            return udfkit_fail(UDFKIT_RC_INPUT, file, line,
                               "function spec '%s': '%s' must take a decimal128? through the C ABI itself (the "
                               "halves and their valid flag, a result's udfkit_decimal128 *out and a bool return), "
                               "as the header declares it",
                               b->specs[i].text, b->specs[i].source_name);
        u->exports[u->nexports] = (udfkit_export){&b->specs[i], check_only, pair, builder};
        u->log_exports[u->nexports] = (udfkit_log_export){&b->specs[i], file, line, pair};
        u->nexports++;
    }
    for (size_t i = 0; i < req->nsources; i++)
        if (b->units[i].nexports)
            udfkit_exporter_emit(b->units[i].exports, b->units[i].nexports, &b->units[i].text);
    return UDFKIT_RC_OK;
}

/* NVRTC options, shared by every job but for -arch. */
static void plan_options(cuda_build *b)
{
    const udfkit_compile_request *req = b->req;
    size_t nbase = 9 + 2 * req->ninclude_dirs + 2 * req->ndefines + req->nextra_options;
    b->options = calloc(nbase + 2, sizeof *b->options);
    udfkit_buf opt = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&opt, "--std=%s", req->std ? req->std : "c++17");
    b->options[b->noptions++] = udfkit_buf_detach(&opt);
    b->options[b->noptions++] = strdup("-rdc=true");
    b->options[b->noptions++] = strdup("--pre-include=udfkit/udf.h");
    /* __int128 in device code, as nvcc allows it: <udfkit/decimal.cuh> computes with it. */
    b->options[b->noptions++] = strdup("--device-int128");
    /* A user's text has no directory of its own to include from. */
    if (req->untrusted)
        b->options[b->noptions++] = strdup("-no-source-include");
    if (req->emit == UDFKIT_CODE_LTOIR)
        b->options[b->noptions++] = strdup("-dlto");
    for (size_t i = 0; i < req->ninclude_dirs; i++) {
        udfkit_buf_printf(&opt, "-I%s", req->include_dirs[i]);
        b->options[b->noptions++] = udfkit_buf_detach(&opt);
    }
    if (b->cuda_dir && *b->cuda_dir) {
        udfkit_buf_printf(&opt, "-I%s", b->cuda_dir);
        b->options[b->noptions++] = udfkit_buf_detach(&opt);
        /* CUDA 13 keeps CCCL (<cuda/std/...>, <cub/...>) under include/cccl, as nvcc finds it. */
        char *cccl = udfkit_path_join(b->cuda_dir, "cccl");
        struct stat st;
        if (stat(cccl, &st) == 0 && S_ISDIR(st.st_mode)) {
            udfkit_buf_printf(&opt, "-I%s", cccl);
            b->options[b->noptions++] = udfkit_buf_detach(&opt);
        }
        free(cccl);
    }
    for (size_t i = 0; i < req->ndefines; i++) {
        udfkit_buf_printf(&opt, "-D%s", req->defines[i]);
        b->options[b->noptions++] = udfkit_buf_detach(&opt);
    }
    for (size_t i = 0; i < req->nextra_options; i++)
        b->options[b->noptions++] = strdup(req->extra_options[i]);
}

/* One job per source and target, sources major. */
static void plan_jobs(cuda_build *b)
{
    plan_options(b);
    size_t nsources = b->req->nsources, ncompile = b->ncompile;
    b->njobs = nsources * ncompile;
    b->jobs = calloc(b->njobs + 1, sizeof *b->jobs);
    b->arch_options = calloc(ncompile + 1, sizeof *b->arch_options);
    b->job_options = calloc(ncompile + 1, sizeof *b->job_options);
    udfkit_buf opt = UDFKIT_BUF_INIT;
    for (size_t a = 0; a < ncompile; a++) {
        char name[32];
        udfkit_target_name(b->compile_for[a], name, sizeof name);
        udfkit_buf_printf(&opt, "-arch=%s", name);
        b->arch_options[a] = udfkit_buf_detach(&opt);
        b->job_options[a] = calloc(b->noptions + 2, sizeof **b->job_options);
        memcpy(b->job_options[a], b->options, b->noptions * sizeof *b->options);
        b->job_options[a][b->noptions] = b->arch_options[a];
    }
    for (size_t s = 0; s < nsources; s++)
        for (size_t a = 0; a < ncompile; a++) {
            compile_job *j = &b->jobs[s * ncompile + a];
            j->unit = &b->units[s];
            j->target = b->compile_for[a];
            j->options = b->job_options[a];
            j->noptions = b->noptions + 1;
            j->kind = b->req->emit;
        }
    for (size_t u = 0; u < nsources; u++)
        unit_key(&b->units[u]);
}

/* Diagnostics: one report per source (the first failing architecture's), warnings once.
 * A failure returns the whole report as the error; warnings alone go to b->warnings. */
static udfkit_rc report_jobs(cuda_build *b)
{
    udfkit_buf report = UDFKIT_BUF_INIT;
    bool failed = false;
    for (size_t s = 0; s < b->req->nsources; s++) {
        const source_unit *u = &b->units[s];
        for (size_t a = 0; a < b->ncompile; a++) {
            const compile_job *j = &b->jobs[s * b->ncompile + a];
            if (j->message) {
                udfkit_buf_printf(&report, "%s\n", j->message);
                failed = true;
                break;
            }
            if (!j->log.size)
                continue;
            udfkit_buf text = UDFKIT_BUF_INIT;
            bool error = udfkit_nvrtc_log_rewrite(j->log.data, u->log_exports, u->nexports, &text) || j->rc;
            if (error || a == 0)
                udfkit_buf_append(&report, text.data ? text.data : "", text.size);
            udfkit_buf_free(&text);
            if (error) {
                if (b->ncompile > 1) {
                    char name[32];
                    udfkit_target_name(j->target, name, sizeof name);
                    udfkit_buf_printf(&report, "%s: note: while compiling for %s\n", u->path, name);
                }
                failed = true;
                break;
            }
        }
    }
    udfkit_rc rc = UDFKIT_RC_OK;
    if (failed) {
        while (report.size && report.data[report.size - 1] == '\n')
            report.data[--report.size] = '\0';
        rc = udfkit_fail_text(UDFKIT_RC_INPUT, report.data);
    } else if (report.size) {
        udfkit_buf_append(&b->warnings, report.data, report.size);
    }
    udfkit_buf_free(&report);
    return rc;
}

void udfkit_cuda_build_free(cuda_build *b)
{
    if (!b->req)
        return;
    for (size_t j = 0; j < b->njobs; j++) {
        udfkit_buf_free(&b->jobs[j].code);
        udfkit_buf_free(&b->jobs[j].log);
        free(b->jobs[j].message);
    }
    free(b->jobs);
    for (size_t a = 0; b->arch_options && a < b->ncompile; a++) {
        free(b->arch_options[a]);
        free(b->job_options[a]);
    }
    free(b->arch_options);
    free(b->job_options);
    for (size_t i = 0; i < b->noptions; i++)
        free(b->options[i]);
    free(b->options);
    for (size_t i = 0; b->units && i < b->req->nsources; i++)
        free_unit(&b->units[i]);
    free(b->units);
    for (size_t i = 0; b->specs && i < b->req->nfunctions; i++)
        udfkit_spec_free(&b->specs[i]);
    free(b->specs);
    free(b->spec_files);
    free(b->spec_lines);
    udfkit_buf_free(&b->warnings);
    for (size_t i = 0; i < b->nroots; i++)
        free(b->roots[i]);
    free(b->roots);
}

const char *udfkit_cuda_kind_name(udfkit_code_kind k)
{
    return k == UDFKIT_CODE_LTOIR ? "ltoir" : k == UDFKIT_CODE_PTX ? "ptx" : "cubin";
}

/* A root of an untrusted compile: a directory's real path (one that does not exist holds
 * nothing to read, and is left out). */
static void add_root(cuda_build *b, const char *dir)
{
    char *real = dir && *dir ? realpath(dir, NULL) : NULL;
    char **grown = real ? realloc(b->roots, (b->nroots + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(real);
        return;
    }
    b->roots = grown;
    b->roots[b->nroots++] = real;
}

/* NVRTC in the sandbox helper: for untrusted text (confined to the roots), or where the
 * request sets limits; the deadline counts from now. */
static void plan_isolation(cuda_build *b)
{
    const udfkit_compile_request *req = b->req;
    b->isolated = req->sandbox || req->untrusted;
    if (req->sandbox)
        b->sandbox = *req->sandbox;
    if (b->sandbox.seconds > 0)
        b->sandbox.deadline = udfkit_seconds() + b->sandbox.seconds;
    if (!req->untrusted)
        return;
    for (size_t i = 0; i < req->ninclude_dirs; i++)
        add_root(b, req->include_dirs[i]);
    for (size_t i = 0; i < req->nallowed_dirs; i++)
        add_root(b, req->allowed_dirs[i]);
    add_root(b, b->cuda_dir);
    b->sandbox.confine = true;
    b->sandbox.roots = (const char *const *)b->roots;
    b->sandbox.nroots = b->nroots;
}

udfkit_rc udfkit_cuda_build_run(cuda_build *b)
{
    const udfkit_compile_request *req = b->req;
    if (!b->cuda_dir && *udfkit_locate_cuda_headers_dir())
        b->cuda_dir = udfkit_locate_cuda_headers_dir();
    plan_isolation(b);
    b->specs = calloc(req->nfunctions + 1, sizeof *b->specs);
    b->spec_files = calloc(req->nfunctions + 1, sizeof *b->spec_files);
    b->spec_lines = calloc(req->nfunctions + 1, sizeof *b->spec_lines);
    b->units = calloc(req->nsources + 1, sizeof *b->units);
    if (!b->specs || !b->spec_files || !b->spec_lines || !b->units)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    udfkit_rc rc = udfkit_toolchain_part_version(UDFKIT_PART_NVRTC, &b->nvrtc);
    if (!rc)
        rc = parse_specs(b);
    if (!rc)
        rc = plan_targets(b);
    if (!rc)
        rc = load_sources(b);
    if (!rc)
        rc = place_specs(b);
    if (!rc) {
        plan_jobs(b);
        udfkit_cache *cache = udfkit_cache_open();
        run_jobs(b, b->jobs, b->njobs, cache);
        udfkit_cache_close(cache);
        rc = report_jobs(b);
    }
    return rc;
}
