#include "frontend/python_compile.h"

#include "artifact/manifest.h"
#include "base/arch.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/locate.h"
#include "base/spec.h"
#include "base/templates.h"
#include "cache/cache.h"
#include "frontend/cuda_build.h"
#include "frontend/python_server.h"
#include "nvidia/nvrtc_wrap.h"
#include "nvidia/toolchain.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char default_python[PATH_MAX];

static void find_default_python(void)
{
    udfkit_locate_python(default_python, sizeof default_python);
}

const char *udfkit_python_interpreter(const char *requested)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (requested && *requested)
        return requested;
    pthread_once(&once, find_default_python);
    return default_python;
}

const char *udfkit_python_frontend(const char *requested)
{
    return requested && *requested ? requested : "auto";
}

bool udfkit_python_frontend_known(const char *name)
{
    static const char *const names[] = {"numba-cuda", "numba-cuda-mlir", "auto"};
    for (size_t i = 0; name && i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = udfkit_path_join(dir, e->d_name);
        if (unlink(p) != 0 && (errno == EISDIR || errno == EPERM))
            remove_tree(p); /* udfkit/, the string headers */
        free(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* <udfkit/string.cuh> and the headers it includes, which the worker compiles udfkit's string
 * functions for Python UDFs with (udfkit_strings.py): written into the scratch directory's
 * udfkit/ for NVRTC to find there. */
static const char *const string_header_names[] = {"string.cuh",      "string_unicode.cuh", "string_pow5.cuh",
                                                  "string_chars.cuh", "string_text.cuh",    "string_case.cuh",
                                                  "string_number.cuh"};
static const char *string_header_text(size_t i)
{
    const char *const texts[] = {udfkit_tpl_string_cuh,       udfkit_tpl_string_unicode_cuh, udfkit_tpl_string_pow5_cuh,
                                 udfkit_tpl_string_chars_cuh, udfkit_tpl_string_text_cuh,    udfkit_tpl_string_case_cuh,
                                 udfkit_tpl_string_number_cuh};
    return texts[i];
}
#define STRING_HEADERS (sizeof string_header_names / sizeof *string_header_names)

/* The string headers into the scratch directory's udfkit/, and the worker's udfkit_strings.py
 * (str in Python UDFs) beside them: the module is kept out of the worker's text, which travels
 * on a command line. */
static udfkit_rc write_string_support(const char *scratch)
{
    char *dir = udfkit_path_join(scratch, "udfkit");
    char *module = udfkit_path_join(scratch, "udfkit_strings.py");
    udfkit_rc rc = UDFKIT_RC_OK;
    FILE *m = fopen(module, "wb");
    bool written = m && fwrite(udfkit_py_strings, 1, strlen(udfkit_py_strings), m) == strlen(udfkit_py_strings);
    if (m)
        written = fclose(m) == 0 && written;
    if (!written)
        rc = udfkit_fail(UDFKIT_RC_ENV, module, 0, "cannot write: %s", strerror(errno));
    free(module);
    if (!rc && mkdir(dir, 0700) != 0 && errno != EEXIST)
        rc = udfkit_fail(UDFKIT_RC_ENV, dir, 0, "cannot create a directory: %s", strerror(errno));
    for (size_t i = 0; !rc && i < STRING_HEADERS; i++) {
        char *path = udfkit_path_join(dir, string_header_names[i]);
        const char *text = string_header_text(i);
        FILE *f = fopen(path, "wb");
        bool ok = f && fwrite(text, 1, strlen(text), f) == strlen(text);
        if (f)
            ok = fclose(f) == 0 && ok;
        if (!ok)
            rc = udfkit_fail(UDFKIT_RC_ENV, path, 0, "cannot write: %s", strerror(errno));
        free(path);
    }
    free(dir);
    return rc;
}

/* The path of `abs` as the user named it, where it is one of the sources. */
static const char *shown_path(const udfkit_compile_request *req, const char *abs)
{
    for (size_t i = 0; i < req->nsources; i++) {
        char *a = udfkit_path_absolute(req->sources[i]);
        bool same = strcmp(a, abs) == 0;
        free(a);
        if (same)
            return req->sources[i];
    }
    return abs;
}

static json_t *build_request(const udfkit_compile_request *req, const udfkit_spec *specs, char **abs_sources,
                             udfkit_target cc, const char *outdir)
{
    json_t *r = json_object(), *modules = json_array(), *functions = json_array();
    for (size_t i = 0; i < req->nsources; i++)
        json_array_append_new(modules, json_string(abs_sources[i]));
    for (size_t i = 0; i < req->nfunctions; i++) {
        const udfkit_spec *s = &specs[i];
        json_t *fn = json_object(), *params = json_array();
        udfkit_buf name = UDFKIT_BUF_INIT;
        json_object_set_new(fn, "spec", json_string(s->text));
        json_object_set_new(fn, "c_name", json_string(s->c_name));
        json_object_set_new(fn, "source_name", json_string(s->source_name));
        for (size_t k = 0; k < s->sig.nparams; k++) {
            name.size = 0;
            udfkit_type_name(s->sig.params[k], &name);
            json_array_append_new(params, json_string(name.data));
        }
        json_object_set_new(fn, "params", params);
        if (s->sig.has_return) {
            name.size = 0;
            udfkit_type_name(s->sig.ret, &name);
            json_object_set_new(fn, "ret", json_string(name.data));
        } else {
            json_object_set_new(fn, "ret", json_null());
        }
        json_object_set_new(fn, "file", json_null());
        json_object_set_new(fn, "at", s->file ? json_string(s->file) : json_null());
        if (s->file)
            for (size_t k = 0; k < req->nsources; k++)
                if (udfkit_source_matches(s->file, req->sources[k]))
                    json_object_set_new(fn, "file", json_string(abs_sources[k]));
        udfkit_buf_free(&name);
        json_array_append_new(functions, fn);
    }
    json_object_set_new(r, "modules", modules);
    json_object_set_new(r, "functions", functions);
    json_object_set_new(r, "output", json_string(req->emit == UDFKIT_CODE_PTX ? "ptx" : "ltoir"));
    json_t *ccv = json_array();
    json_array_append_new(ccv, json_integer(cc.number / 10));
    json_array_append_new(ccv, json_integer(cc.number % 10));
    json_object_set_new(r, "cc", ccv);
    json_object_set_new(r, "outdir", json_string(outdir));
    json_object_set_new(r, "skip_absent", json_boolean(req->skip_absent));
    json_object_set_new(r, "frontend", json_string(udfkit_python_frontend(req->python_frontend)));
    /* The worker maps the spec's types to numba's by the type table's rows. */
    json_t *kinds = json_object();
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++)
        json_object_set_new(kinds, udfkit_kind_name((udfkit_kind)k), json_string(udfkit_kind_info((udfkit_kind)k)->numba));
    json_object_set_new(r, "kinds", kinds);
    /* Dates, times and decimals in Python UDFs call CUDA C over these, which the worker
     * compiles where a UDF uses them (udfkit_dates_decimals.py). */
    json_t *headers = json_object();
    const char *const *names, *const *texts;
    for (size_t i = 0, n = udfkit_device_headers(&names, &texts); i < n; i++)
        json_object_set_new(headers, names[i], json_string(texts[i]));
    json_object_set_new(r, "headers", headers);
    return r;
}

static udfkit_rc worker_error(const udfkit_compile_request *req, const json_t *answer)
{
    const char *kind = json_string_value(json_object_get(answer, "kind"));
    const char *message = json_string_value(json_object_get(answer, "message"));
    const char *file = json_string_value(json_object_get(answer, "file"));
    int line = (int)json_integer_value(json_object_get(answer, "line"));
    udfkit_rc rc = UDFKIT_RC_INPUT;
    if (kind && strcmp(kind, "env") == 0)
        rc = UDFKIT_RC_ENV;
    else if (kind && strcmp(kind, "internal") == 0)
        rc = UDFKIT_RC_INTERNAL;
    char *rel = NULL;
    if (file) {
        const char *shown = shown_path(req, file);
        rel = shown == file ? udfkit_path_relative(file, ".") : strdup(shown);
        if (strncmp(rel, "../../", 6) == 0) {
            free(rel);
            rel = strdup(file);
        }
    }
    udfkit_fail(rc, rel, line, "%s", message ? message : "the Python frontend failed");
    free(rel);
    const char *trace = json_string_value(json_object_get(answer, "traceback"));
    if (trace)
        udfkit_diag_append_log("Python", trace);
    return rc;
}

/* Whether `name` can only name a file directly inside the scratch directory. Names come
 * from the frontend's answer and from cache entries, which are data, never paths. */
static bool plain_file_name(const char *name)
{
    return name && *name && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* Reads a file the worker wrote into its scratch directory. */
static udfkit_rc scratch_file(const char *dir, const char *name, udfkit_buf *data)
{
    if (!plain_file_name(name))
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "the Python frontend named a file '%s' outside its directory",
                           name ? name : "(none)");
    char *path = udfkit_path_join(dir, name);
    udfkit_rc rc = udfkit_read_file(path, data);
    free(path);
    return rc;
}

/* The first half of the key: the request, the modules named, and the interpreter. What
 * the modules import is known only after a run: it is stored in the entry and checked. */
static void python_key(const json_t *request, const udfkit_compile_request *req, const char *python,
                       char key[UDFKIT_CACHE_KEY_SIZE])
{
    udfkit_hasher *h = udfkit_hasher_new("python-compile-2");
    json_t *stable = json_deep_copy(request);
    json_object_set_new(stable, "outdir", json_string(""));
    char *text = json_dumps(stable, JSON_COMPACT | JSON_SORT_KEYS);
    udfkit_hasher_add_str(h, text);
    free(text);
    json_decref(stable);
    for (size_t i = 0; i < req->nsources; i++)
        udfkit_hasher_add_file(h, req->sources[i]);
    udfkit_hasher_add_str(h, python);
    /* The worker's own code decides what numba-cuda is asked (and how its output is
     * adjusted): another udfkit's worker is another entry. */
    udfkit_hasher_add_str(h, udfkit_py_worker);
    udfkit_hasher_add_str(h, udfkit_py_strings); /* str's operations, and what they compile from */
    for (size_t i = 0; i < STRING_HEADERS; i++)
        udfkit_hasher_add_str(h, string_header_text(i));
    /* What the interpreter imports depends on these too. */
    for (const char *const *var = (const char *const[]){"PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE", NULL}; *var; var++)
        udfkit_hasher_add_str(h, getenv(*var));
    char *real = realpath(python, NULL);
    struct stat st;
    if (real && stat(real, &st) == 0) {
        udfkit_hasher_add_str(h, real);
        udfkit_hasher_add(h, &st.st_size, sizeof st.st_size);
        udfkit_hasher_add(h, &st.st_mtime, sizeof st.st_mtime);
    }
    free(real);
    udfkit_hasher_finish(h, key);
}

static void file_hash(const char *path, char out[UDFKIT_HASH_HEX_SIZE])
{
    udfkit_buf data = UDFKIT_BUF_INIT;
    if (udfkit_read_file(path, &data) == UDFKIT_RC_OK)
        udfkit_hash_hex(data.data, data.size, out);
    else
        strcpy(out, "missing");
    udfkit_diag_clear();
    udfkit_buf_free(&data);
}

/* Whether every file a cached run depended on still has the bytes it had. */
static bool dependencies_unchanged(const udfkit_buf *deps)
{
    json_t *list = json_loadb(deps->data, deps->size, 0, NULL);
    bool same = json_is_array(list);
    size_t i;
    json_t *d;
    json_array_foreach(list, i, d)
    {
        char now[UDFKIT_HASH_HEX_SIZE];
        const char *path = json_string_value(json_array_get(d, 0)), *then = json_string_value(json_array_get(d, 1));
        if (!path || !then) {
            same = false;
            break;
        }
        file_hash(path, now);
        if (strcmp(now, then) != 0) {
            same = false;
            break;
        }
    }
    json_decref(list);
    return same;
}

static bool is_string(const json_t *o, const char *key)
{
    return json_is_string(json_object_get(o, key));
}

/* The kinds a declared link file may be (the worker's __udfkit_link__ check): a file the
 * frontend compiled is LTO-IR or PTX; one used as it is keeps its extension as its kind. */
static bool link_kind_known(const char *kind, bool compiled)
{
    static const char *const kinds[] = {"ltoir", "ptx", "cubin", "fatbin", "o", "a"};
    for (size_t i = 0; kind && i < (compiled ? 2 : sizeof kinds / sizeof *kinds); i++)
        if (strcmp(kind, kinds[i]) == 0)
            return true;
    return false;
}

/* The kind of a declared link file used as it is: its extension less the dot. */
static const char *copied_link_kind(const char *path)
{
    const char *ext = path ? udfkit_path_extension(path) : "";
    return *ext ? ext + 1 : NULL;
}

/* The frontend that made an answer and its version (answers of udfkit before numba-cuda-mlir
 * name numba-cuda's version alone); NULL where the answer names neither. */
static const char *answer_frontend(const json_t *answer, const char **version)
{
    const char *name = json_string_value(json_object_get(answer, "frontend"));
    const char *v = json_string_value(json_object_get(answer, "frontend_version"));
    if (!name && json_is_string(json_object_get(answer, "numba_cuda"))) {
        name = "numba-cuda";
        v = json_string_value(json_object_get(answer, "numba_cuda"));
    }
    if (version)
        *version = v;
    return name && (strcmp(name, "numba-cuda") == 0 || strcmp(name, "numba-cuda-mlir") == 0) && v ? name : NULL;
}

/* The spec a function of the answer compiles, or NULL. */
static udfkit_spec *answer_spec(const json_t *fn, udfkit_spec *specs, size_t nspecs)
{
    const char *c_name = json_string_value(json_object_get(fn, "c_name"));
    for (size_t n = 0; c_name && n < nspecs; n++)
        if (strcmp(specs[n].c_name, c_name) == 0)
            return &specs[n];
    return NULL;
}

/* Whether an answer holds what the rest of this file reads, of the right types, and names
 * only plain files in the scratch directory (a fresh answer's links read from their
 * declared paths are copied there first: keep_link_files). Answers come from the frontend
 * or from the cache, whose entries are data, never paths. */
static bool answer_well_formed(const json_t *answer, udfkit_spec *specs, size_t nspecs)
{
    if (!json_is_object(answer) || !json_is_array(json_object_get(answer, "functions")) ||
        !json_is_array(json_object_get(answer, "depends")) || !answer_frontend(answer, NULL))
        return false;
    size_t i, k;
    json_t *fn, *a, *link, *dep;
    json_array_foreach(json_object_get(answer, "functions"), i, fn)
    {
        const udfkit_spec *spec = answer_spec(fn, specs, nspecs);
        json_t *ret = json_object_get(fn, "ret");
        udfkit_type inferred;
        /* A spec without a return type takes the one numba-cuda inferred. */
        bool ret_ok = spec && (spec->sig.has_return ? json_is_null(ret) || json_is_string(ret)
                                                    : udfkit_type_parse(json_string_value(ret), &inferred));
        if (!ret_ok || !is_string(fn, "source") || !json_is_integer(json_object_get(fn, "line")) ||
            !json_is_array(json_object_get(fn, "artifacts")))
            return false;
        json_array_foreach(json_object_get(fn, "artifacts"), k, a)
        {
            if (!plain_file_name(json_string_value(json_object_get(a, "file"))) || !is_string(a, "kind") ||
                !is_string(a, "role"))
                return false;
        }
    }
    json_array_foreach(json_object_get(answer, "links"), i, link)
    {
        bool copied = json_is_true(json_object_get(link, "copied"));
        const char *path = json_string_value(json_object_get(link, "path"));
        const char *kind = copied ? copied_link_kind(path) : json_string_value(json_object_get(link, "kind"));
        if (!plain_file_name(json_string_value(json_object_get(link, "file"))) || !path ||
            !link_kind_known(kind, !copied))
            return false;
    }
    json_array_foreach(json_object_get(answer, "depends"), i, dep)
    {
        if (!json_is_string(dep))
            return false;
    }
    return true;
}

/* A hit puts the worker's files back into the scratch directory and returns its answer. */
static json_t *replay(const udfkit_cache_entry *e, const char *scratch, udfkit_spec *specs, size_t nspecs)
{
    const udfkit_buf *answer = udfkit_cache_entry_find(e, "answer"), *deps = udfkit_cache_entry_find(e, "deps");
    if (!answer || !deps || !dependencies_unchanged(deps))
        return NULL;
    for (size_t i = 0; i < e->count; i++) {
        if (strncmp(e->blobs[i].name, "file:", 5) != 0)
            continue;
        if (!plain_file_name(e->blobs[i].name + 5)) {
            udfkit_warn("a cached Python frontend answer names a file '%s' outside its directory; it is not used",
                        e->blobs[i].name + 5);
            return NULL;
        }
        char *path = udfkit_path_join(scratch, e->blobs[i].name + 5);
        FILE *f = fopen(path, "wb");
        bool ok = f && fwrite(e->blobs[i].data.data, 1, e->blobs[i].data.size, f) == e->blobs[i].data.size;
        if (f)
            ok = fclose(f) == 0 && ok;
        free(path);
        if (!ok)
            return NULL;
    }
    json_t *loaded = json_loadb(answer->data, answer->size, 0, NULL);
    if (!answer_well_formed(loaded, specs, nspecs)) {
        udfkit_warn("a cached Python frontend answer is malformed or names files outside its directory; it is not "
                    "used");
        json_decref(loaded);
        return NULL;
    }
    return loaded;
}

static void remember(udfkit_cache *cache, const char *key, const json_t *answer, const char *scratch)
{
    udfkit_cache_entry e = {0};
    json_t *deps = json_array();
    const char *lists[] = {"depends", "environment"};
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        json_t *path;
        json_array_foreach(json_object_get(answer, lists[l]), i, path)
        {
            char hash[UDFKIT_HASH_HEX_SIZE];
            file_hash(json_string_value(path), hash);
            json_t *pair = json_array();
            json_array_append(pair, path);
            json_array_append_new(pair, json_string(hash));
            json_array_append_new(deps, pair);
        }
    }
    char *text = json_dumps(deps, JSON_COMPACT);
    udfkit_cache_entry_add(&e, "deps", text, strlen(text));
    free(text);
    text = json_dumps(answer, JSON_COMPACT);
    udfkit_cache_entry_add(&e, "answer", text, strlen(text));
    free(text);
    json_decref(deps);
    DIR *d = opendir(scratch);
    struct dirent *f;
    while (d && (f = readdir(d))) {
        if (f->d_name[0] == '.' || strcmp(f->d_name, "stderr.txt") == 0)
            continue;
        udfkit_buf data = UDFKIT_BUF_INIT, name = UDFKIT_BUF_INIT;
        char *path = udfkit_path_join(scratch, f->d_name);
        if (udfkit_read_file(path, &data) == UDFKIT_RC_OK) {
            udfkit_buf_printf(&name, "file:%s", f->d_name);
            udfkit_cache_entry_add(&e, name.data, data.data, data.size);
        }
        free(path);
        udfkit_buf_free(&data);
        udfkit_buf_free(&name);
    }
    if (d)
        closedir(d);
    udfkit_diag_clear();
    udfkit_cache_put(cache, key, &e);
    udfkit_cache_entry_free(&e);
}

typedef struct written {
    char hash[UDFKIT_HASH_HEX_SIZE];
} written;

/* Writes one function's code and the external code it links (once per content). */
static udfkit_rc add_function_artifacts(udfkit_outputs *outputs, json_t *manifest, const json_t *fn, const char *scratch,
                                        const char *dir, const char *stem, const char *arch, const char *source,
                                        bool as_manifest, const char *output, written **links, size_t *nlinks,
                                        size_t *nartifacts)
{
    const char *c_name = json_string_value(json_object_get(fn, "c_name"));
    udfkit_buf data = UDFKIT_BUF_INIT;
    udfkit_rc rc = UDFKIT_RC_OK;
    size_t k;
    json_t *a;
    json_array_foreach(json_object_get(fn, "artifacts"), k, a)
    {
        const char *kind = json_string_value(json_object_get(a, "kind"));
        bool is_link = strcmp(json_string_value(json_object_get(a, "role")), "link") == 0;
        data.size = 0;
        if ((rc = scratch_file(scratch, json_string_value(json_object_get(a, "file")), &data)))
            break;
        char hash[UDFKIT_HASH_HEX_SIZE];
        udfkit_hash_hex(data.data, data.size, hash);
        bool seen = false;
        for (size_t l = 0; l < *nlinks; l++)
            seen |= strcmp((*links)[l].hash, hash) == 0;
        if (is_link && seen)
            continue; /* several functions need the same external code */
        if (!as_manifest && ++*nartifacts > 1) {
            rc = udfkit_fail(UDFKIT_RC_USAGE, NULL, 0,
                             "more than one artifact (functions and the code they link) needs a manifest: -o OUT.json");
            break;
        }
        udfkit_buf name = UDFKIT_BUF_INIT;
        if (is_link)
            udfkit_buf_printf(&name, "%s.link-%.12s.%s", stem, hash, kind);
        else
            udfkit_buf_printf(&name, "%s.%s.%s.%s", stem, c_name, arch, kind);
        bool code_kind = strcmp(kind, "ltoir") == 0 || strcmp(kind, "ptx") == 0;
        json_t *art = udfkit_manifest_add_artifact(manifest, kind, code_kind ? arch : NULL, name.data, source, data.data,
                                                   data.size);
        if (is_link) {
            json_object_set_new(art, "role", json_string("link"));
            written *grown = realloc(*links, (*nlinks + 1) * sizeof *grown);
            if (grown) {
                *links = grown;
                memcpy((*links)[*nlinks].hash, hash, sizeof hash);
                (*nlinks)++;
            }
        } else {
            json_object_set_new(art, "function", json_string(c_name));
        }
        char *path = as_manifest ? udfkit_path_join(dir, name.data) : strdup(output);
        rc = udfkit_outputs_write(outputs, path, data.data, data.size);
        free(path);
        udfkit_buf_free(&name);
        if (rc)
            break;
    }
    udfkit_buf_free(&data);
    return rc;
}

/* One `udfkit compile` of Python sources, from its request to its outputs. */
typedef struct python_build {
    const udfkit_compile_request *req;
    udfkit_toolchain tc;
    udfkit_spec *specs;
    char **abs_sources;
    udfkit_target cc;  /* the one target compiled for: the lowest asked */
    char arch[32];     /* its name */
    char *scratch;     /* the worker's directory for its files */
    json_t *answer;    /* the worker's, or a cached one */
    json_t *manifest;
    char *dir, *stem;  /* of the output */
    bool as_manifest;
    written *links;    /* external code already written */
    size_t nlinks;
    size_t nartifacts;
    udfkit_outputs *outputs;
} python_build;

/* Specs parsed; every source exists; every @file names exactly one source. */
static udfkit_rc check_request(python_build *b)
{
    const udfkit_compile_request *req = b->req;
    udfkit_rc rc;
    if (req->emit == UDFKIT_CODE_CUBIN)
        return udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "Python UDFs compile to ltoir or ptx; link them to get SASS");
    if (!udfkit_python_frontend_known(udfkit_python_frontend(req->python_frontend)))
        return udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "--python-frontend takes numba-cuda, numba-cuda-mlir or auto, not '%s'",
                           req->python_frontend);
    for (size_t i = 0; i < req->nfunctions; i++)
        if ((rc = udfkit_spec_parse(req->functions[i], &b->specs[i])))
            return rc;
    if ((rc = udfkit_specs_check_unique(b->specs, req->nfunctions)))
        return rc;
    for (size_t i = 0; i < req->nsources; i++) {
        if (!udfkit_file_exists(req->sources[i]))
            return udfkit_fail(UDFKIT_RC_INPUT, req->sources[i], 0, "cannot read: no such file");
        b->abs_sources[i] = udfkit_path_absolute(req->sources[i]);
    }
    for (size_t i = 0; i < req->nfunctions; i++) {
        const udfkit_spec *spec = &b->specs[i];
        if (!spec->file)
            continue;
        size_t found = 0;
        for (size_t k = 0; k < req->nsources; k++)
            found += udfkit_source_matches(spec->file, req->sources[k]);
        if (found > 1)
            return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                               "function spec '%s': '@%s' matches several sources; give more of its path", spec->text,
                               spec->file);
        if (!found && !req->skip_absent)
            return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "function spec '%s': '@%s' is not one of the sources",
                               spec->text, spec->file);
    }
    return UDFKIT_RC_OK;
}

/* Python sources compile once, at the lowest architecture asked. */
static udfkit_rc plan_target(python_build *b)
{
    udfkit_target_list targets;
    udfkit_rc rc = udfkit_toolchain_parse_archs(b->req->arch, &targets);
    if (rc)
        return rc;
    udfkit_target virt[64];
    udfkit_targets_virtual(&targets, virt, 64);
    b->cc = virt[0];
    udfkit_target_name(b->cc, b->arch, sizeof b->arch);
    return UDFKIT_RC_OK;
}

static udfkit_rc make_scratch(python_build *b)
{
    const char *tmp = getenv("TMPDIR");
    udfkit_buf st = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&st, "%s/udfkit-python-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(st.data)) {
        udfkit_rc rc =
            udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "cannot create a scratch directory for the Python worker (%s)", st.data);
        udfkit_buf_free(&st);
        return rc;
    }
    b->scratch = udfkit_buf_detach(&st);
    return UDFKIT_RC_OK;
}

/* Runs the request through the frontend (its server, else a worker of our own); the
 * answer must say ok. */
static udfkit_rc run_frontend(python_build *b, const char *python, const char *request_text)
{
    udfkit_buf output = UDFKIT_BUF_INIT, errors = UDFKIT_BUF_INIT;
    char *stderr_path = udfkit_path_join(b->scratch, "stderr.txt");
    int status = 0;
    udfkit_rc rc =
        udfkit_python_run(python, udfkit_python_frontend(b->req->python_frontend), request_text, &output, stderr_path, &status);
    scratch_file(b->scratch, "stderr.txt", &errors);
    udfkit_diag_clear();
    free(stderr_path);
    if (rc) {
        rc = udfkit_fail(UDFKIT_RC_ENV, NULL, 0,
                         "cannot run the Python interpreter '%s' for Python UDFs; pass --python PATH to one with "
                         "numba-cuda or numba-cuda-mlir (python3 -m pip install --no-deps " UDFKIT_PIP_PINS ")",
                         python);
        goto done;
    }
    json_error_t jerr;
    b->answer = json_loadb(output.data, output.size, 0, &jerr);
    if (!b->answer || !json_is_object(b->answer)) {
        rc = udfkit_fail(status == 127 ? UDFKIT_RC_ENV : UDFKIT_RC_INTERNAL, NULL, 0,
                         "the Python frontend (%s) exited with status %d without an answer", python, status);
        udfkit_diag_append_log("Python", errors.data);
        goto done;
    }
    if (!json_is_true(json_object_get(b->answer, "ok")))
        rc = worker_error(b->req, b->answer);
done:
    udfkit_buf_free(&output);
    udfkit_buf_free(&errors);
    return rc;
}

/* Link files a module declares that the frontend did not compile are read from their
 * paths once, now, and kept in the scratch directory beside the rest, so a cache entry
 * holds their bytes: a cached answer is data, never a path to read. */
static udfkit_rc keep_link_files(python_build *b)
{
    size_t i;
    json_t *link;
    json_array_foreach(json_object_get(b->answer, "links"), i, link)
    {
        if (json_object_get(link, "file"))
            continue;
        const char *original = json_string_value(json_object_get(link, "path"));
        udfkit_buf data = UDFKIT_BUF_INIT, name = UDFKIT_BUF_INIT;
        udfkit_rc rc = UDFKIT_RC_OK;
        if (!original)
            rc = udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "the Python frontend named no link file");
        else if (!link_kind_known(copied_link_kind(original), false))
            rc = udfkit_fail(UDFKIT_RC_INTERNAL, original, 0,
                             "the Python frontend named a link file that is not .ltoir, .ptx, .cubin, .fatbin, .o or .a");
        else
            rc = udfkit_read_file(original, &data);
        if (!rc) {
            udfkit_buf_printf(&name, "copy.%zu%s", i, udfkit_path_extension(original));
            char *path = udfkit_path_join(b->scratch, name.data);
            FILE *f = fopen(path, "wb");
            bool ok = f && fwrite(data.data, 1, data.size, f) == data.size;
            if (f)
                ok = fclose(f) == 0 && ok;
            if (!ok)
                rc = udfkit_fail(UDFKIT_RC_ENV, path, 0, "cannot write: %s", strerror(errno));
            free(path);
            json_object_set_new(link, "file", json_string(name.data));
            json_object_set_new(link, "copied", json_true());
        }
        udfkit_buf_free(&data);
        udfkit_buf_free(&name);
        if (rc)
            return rc;
    }
    return UDFKIT_RC_OK;
}

/* -v: "numba-cuda udfs.py (add_f32, scale) for compute_80, ltoir, /venv/bin/python: 0.07 s", named
 * by the frontend that answered (or was asked, where none did). */
static void note_frontend(const python_build *b, const json_t *request, const char *python, bool cached, double took)
{
    if (!udfkit_verbose())
        return;
    const char *frontend = answer_frontend(b->answer, NULL);
    if (!frontend)
        frontend = json_string_value(json_object_get(request, "frontend"));
    udfkit_buf line = UDFKIT_BUF_INIT;
    udfkit_buf_join(&line, b->req->sources, b->req->nsources, " ");
    for (size_t i = 0; i < b->req->nfunctions; i++)
        udfkit_buf_printf(&line, "%s%s", i ? ", " : " (", b->specs[i].c_name);
    udfkit_buf_printf(&line, "%s for %s, %s, %s", b->req->nfunctions ? ")" : "", b->arch,
                      json_string_value(json_object_get(request, "output")), python);
    if (cached)
        udfkit_note("%s %s: from the cache", frontend, line.data);
    else
        udfkit_note("%s %s: %.2f s", frontend, line.data, took);
    udfkit_buf_free(&line);
}

/* The frontend's answer, from the cache where it has one that still holds. */
static udfkit_rc compile_functions(python_build *b)
{
    udfkit_rc rc = make_scratch(b);
    if (rc)
        return rc;
    json_t *request = build_request(b->req, b->specs, b->abs_sources, b->cc, b->scratch);
    const char *python = udfkit_python_interpreter(b->req->python);
    char key[UDFKIT_CACHE_KEY_SIZE];
    udfkit_cache *cache = udfkit_cache_open();
    if (cache) {
        udfkit_cache_entry hit = {0};
        python_key(request, b->req, python, key);
        if (udfkit_cache_get(cache, key, &hit))
            b->answer = replay(&hit, b->scratch, b->specs, b->req->nfunctions);
        udfkit_cache_record(cache, &hit, b->answer != NULL);
        udfkit_cache_entry_free(&hit);
    }
    double start = udfkit_seconds();
    bool cached = b->answer != NULL;
    if (!b->answer) {
        char *request_text = json_dumps(request, JSON_COMPACT);
        rc = write_string_support(b->scratch);
        if (!rc)
            rc = run_frontend(b, python, request_text);
        free(request_text);
        if (!rc)
            rc = keep_link_files(b);
        if (!rc && !answer_well_formed(b->answer, b->specs, b->req->nfunctions))
            rc = udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "the Python frontend's answer is malformed");
        if (!rc && cache)
            remember(cache, key, b->answer, b->scratch);
    }
    udfkit_cache_close(cache);
    note_frontend(b, request, python, cached, udfkit_seconds() - start);
    json_decref(request);
    if (rc)
        return rc;
    /* LTO-IR from an NVVM newer than this nvJitLink could not be linked. */
    udfkit_version nvvm;
    const char *nvvm_text = json_string_value(json_object_get(b->answer, "nvvm"));
    if (b->req->emit == UDFKIT_CODE_LTOIR && nvvm_text && udfkit_version_parse(nvvm_text, &nvvm))
        rc = udfkit_toolchain_check_producer(&b->tc, "NVVM", nvvm, b->req->sources[0]);
    return rc;
}

/* Each function compiled, with its return type where the spec left it to inference. */
static udfkit_rc write_functions(python_build *b)
{
    size_t i;
    json_t *fn;
    json_array_foreach(json_object_get(b->answer, "functions"), i, fn)
    {
        /* answer_well_formed found the spec and a return type where the spec has none. */
        udfkit_spec *s = answer_spec(fn, b->specs, b->req->nfunctions);
        if (!s->sig.has_return)
            s->sig.has_return = udfkit_type_parse(json_string_value(json_object_get(fn, "ret")), &s->sig.ret);
        char *source = udfkit_path_relative(json_string_value(json_object_get(fn, "source")), b->dir);
        udfkit_manifest_add_function(b->manifest, s, "python", source,
                                     (int)json_integer_value(json_object_get(fn, "line")));
        udfkit_rc rc = add_function_artifacts(b->outputs, b->manifest, fn, b->scratch, b->dir, b->stem, b->arch, source,
                                              b->as_manifest, b->req->output, &b->links, &b->nlinks, &b->nartifacts);
        free(source);
        if (rc)
            return rc;
    }
    return UDFKIT_RC_OK;
}

/* One declared link file (__udfkit_link__), as an artifact of its own beside the manifest. */
static udfkit_rc write_link(python_build *b, const json_t *link)
{
    const char *scratch_name = json_string_value(json_object_get(link, "file"));
    const char *original = json_string_value(json_object_get(link, "path"));
    /* Compiled by the frontend (from .cu), or the declared file as it is. */
    bool compiled = !json_is_true(json_object_get(link, "copied"));
    udfkit_buf data = UDFKIT_BUF_INIT;
    udfkit_rc rc = scratch_file(b->scratch, scratch_name, &data);
    if (rc) {
        udfkit_buf_free(&data);
        return rc;
    }
    const char *kind = compiled ? json_string_value(json_object_get(link, "kind")) : copied_link_kind(original);
    char hash[UDFKIT_HASH_HEX_SIZE];
    udfkit_hash_hex(data.data, data.size, hash);
    udfkit_buf name = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&name, "%s.link-%.12s.%s", b->stem, hash, kind);
    bool code_kind = strcmp(kind, "ltoir") == 0 || (strcmp(kind, "ptx") == 0 && compiled);
    char *source = udfkit_path_relative(original, b->dir);
    json_t *art = udfkit_manifest_add_artifact(b->manifest, kind, code_kind ? b->arch : NULL, name.data, source,
                                               data.data, data.size);
    json_object_set_new(art, "role", json_string("link"));
    json_t *record = json_object();
    json_object_set_new(record, "declared", json_copy(json_object_get(link, "declared")));
    json_object_set_new(record, "source", json_string(source));
    json_object_set_new(record, "artifact", json_string(name.data));
    json_array_append_new(json_object_get(b->manifest, "link"), record);
    char *path = udfkit_path_join(b->dir, name.data);
    if (!b->as_manifest)
        rc = udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "__udfkit_link__ files travel beside a manifest: -o OUT.json");
    else
        rc = udfkit_outputs_write(b->outputs, path, data.data, data.size);
    free(path);
    free(source);
    udfkit_buf_free(&name);
    udfkit_buf_free(&data);
    return rc;
}

/* Every file a module read, as the worker reported them. */
static udfkit_rc write_depfile(python_build *b)
{
    const udfkit_compile_request *req = b->req;
    json_t *deps = json_object_get(b->answer, "depends");
    const char **list = calloc(json_array_size(deps) + 1, sizeof *list);
    size_t i;
    json_t *d;
    json_array_foreach(deps, i, d) list[i] = json_string_value(d);
    udfkit_rc rc = udfkit_request_write_depfile(req, b->outputs, list, json_array_size(deps));
    free(list);
    return rc;
}

/* Each module, with its top-level functions ("def name(" at the start of a line), for
 * merge's messages. */
static void record_sources(python_build *b)
{
    for (size_t i = 0; i < b->req->nsources; i++) {
        udfkit_buf text = UDFKIT_BUF_INIT;
        const char **names = NULL;
        size_t n = 0;
        if (udfkit_read_file(b->req->sources[i], &text) == UDFKIT_RC_OK && text.data) {
            for (const char *p = text.data; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
                const char *q = strncmp(p, "async def ", 10) == 0 ? p + 10 : strncmp(p, "def ", 4) == 0 ? p + 4 : NULL;
                if (!q)
                    continue;
                while (*q == ' ')
                    q++;
                size_t len = strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
                const char **grown = len ? realloc(names, (n + 1) * sizeof *names) : NULL;
                if (grown) {
                    names = grown;
                    names[n++] = strndup(q, len);
                }
            }
        }
        udfkit_diag_clear();
        char *rel = udfkit_path_relative(b->abs_sources[i], b->dir);
        udfkit_manifest_add_source(b->manifest, rel, names, n);
        free(rel);
        for (size_t k = 0; k < n; k++)
            free((char *)names[k]);
        free(names);
        udfkit_buf_free(&text);
    }
}

/* The manifest and the artifacts beside it (or the one artifact), and the depfile. */
static udfkit_rc write_outputs(python_build *b)
{
    const udfkit_compile_request *req = b->req;
    b->dir = udfkit_path_dirname(req->output);
    b->stem = udfkit_path_stem(req->output);
    b->as_manifest = strcmp(udfkit_path_extension(req->output), ".json") == 0;
    b->manifest = udfkit_manifest_new("udfs");
    const char *nvvm_text = json_string_value(json_object_get(b->answer, "nvvm")), *version;
    /* answer_well_formed found the frontend and its version. */
    const char *frontend = answer_frontend(b->answer, &version);
    udfkit_manifest_set_producer(b->manifest, frontend, version);
    if (nvvm_text)
        udfkit_manifest_set_producer(b->manifest, "nvvm", nvvm_text);
    record_sources(b);
    udfkit_rc rc = write_functions(b);
    size_t i;
    json_t *link;
    json_array_foreach(json_object_get(b->answer, "links"), i, link)
    {
        if (rc)
            break;
        rc = write_link(b, link);
    }
    if (!rc && b->as_manifest) {
        udfkit_buf text = UDFKIT_BUF_INIT;
        udfkit_manifest_dump(b->manifest, &text);
        rc = udfkit_outputs_write(b->outputs, req->output, text.data, text.size);
        udfkit_buf_free(&text);
    }
    if (!rc && req->depfile)
        rc = write_depfile(b);
    if (!rc)
        rc = udfkit_outputs_commit(b->outputs);
    return rc;
}

static void build_free(python_build *b)
{
    if (b->scratch && *b->scratch)
        remove_tree(b->scratch);
    free(b->scratch);
    free(b->dir);
    free(b->stem);
    free(b->links);
    json_decref(b->answer);
    json_decref(b->manifest);
    udfkit_outputs_free(b->outputs);
    for (size_t k = 0; k < b->req->nsources; k++)
        free(b->abs_sources[k]);
    free(b->abs_sources);
    for (size_t k = 0; k < b->req->nfunctions; k++)
        udfkit_spec_free(&b->specs[k]);
    free(b->specs);
}

udfkit_rc udfkit_python_compile(const udfkit_compile_request *req)
{
    python_build b = {
        .req = req,
        .specs = calloc(req->nfunctions + 1, sizeof *b.specs),
        .abs_sources = calloc(req->nsources + 1, sizeof *b.abs_sources),
        .outputs = udfkit_outputs_new(),
    };
    udfkit_rc rc = udfkit_toolchain_query(&b.tc);
    if (!rc)
        rc = udfkit_request_claim_outputs(req, b.outputs);
    if (!rc)
        rc = check_request(&b);
    if (!rc)
        rc = plan_target(&b);
    if (!rc)
        rc = compile_functions(&b);
    if (!rc)
        rc = write_outputs(&b);
    build_free(&b);
    return rc;
}
