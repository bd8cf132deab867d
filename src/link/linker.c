#include "link/linker.h"

#include "artifact/code_check.h"

#include "artifact/inspect.h"
#include "artifact/manifest.h"
#include "base/arch.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/spec.h"
#include "base/strset.h"
#include "cache/cache.h"
#include "link/function_table.h"
#include "nvidia/nvfatbin_wrap.h"
#include "nvidia/nvjitlink_wrap.h"
#include "nvidia/nvrtc_wrap.h"
#include "nvidia/ptxcompiler_wrap.h"
#include "nvidia/toolchain.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

/* One piece of device code available to the link. */
typedef struct piece {
    udfkit_input_kind kind;
    bool has_ltoir;       /* LTO-IR, or a container holding some: the link needs -lto */
    char *path;
    udfkit_buf data;
    bool has_arch;        /* from a manifest: compiled for one virtual architecture */
    udfkit_target arch;
    const char *group;    /* manifest path + source: one of each group goes into a link */
    json_t *provides;     /* the UDFs (c_names) whose code this is; NULL for other code */
    char *source;         /* the manifest's source of it, where that file is; else NULL */
    bool link_file;       /* support code UDFs bring (a manifest's `role: link` artifact) */
    char digest[UDFKIT_HASH_HEX_SIZE]; /* of data: what link units' cache keys name it by */
} piece;

typedef struct link_set {
    piece *items;
    size_t count;
    udfkit_function_table table; /* the input manifests' functions, merged */
    json_t *producers;
    char **groups;
    size_t ngroups;
    unsigned depth; /* manifests being read, each named by the link list of the one before */
    const char *kernels_source; /* --units: the kernels' source, which one of the pieces has */
} link_set;

/* A manifest's link list may name another manifest; a chain longer than this is a cycle
 * or a mistake, and no stack grows with what a file says. */
#define MAX_MANIFEST_DEPTH 8

static piece *add_piece(link_set *s)
{
    piece *items = realloc(s->items, (s->count + 1) * sizeof *items);
    if (!items)
        return NULL;
    s->items = items;
    memset(&s->items[s->count], 0, sizeof *s->items);
    return &s->items[s->count++];
}

static const char *intern_group(link_set *s, const char *name)
{
    for (size_t i = 0; i < s->ngroups; i++)
        if (strcmp(s->groups[i], name) == 0)
            return s->groups[i];
    char **groups = realloc(s->groups, (s->ngroups + 1) * sizeof *groups);
    if (!groups)
        return NULL;
    s->groups = groups;
    s->groups[s->ngroups] = strdup(name);
    return s->groups[s->ngroups++];
}

static bool starts_with(const udfkit_buf *b, const void *magic, size_t n)
{
    return b->size >= n && memcmp(b->data, magic, n) == 0;
}

/* By extension, then by content for files named otherwise. */
static bool classify(const char *path, const udfkit_buf *data, udfkit_input_kind *kind)
{
    const char *ext = udfkit_path_extension(path);
    static const struct {
        const char *ext;
        udfkit_input_kind kind;
    } by_ext[] = {{".ltoir", UDFKIT_INPUT_LTOIR}, {".ptx", UDFKIT_INPUT_PTX},   {".cubin", UDFKIT_INPUT_CUBIN},
                  {".fatbin", UDFKIT_INPUT_FATBIN}, {".o", UDFKIT_INPUT_OBJECT}, {".a", UDFKIT_INPUT_LIBRARY}};
    for (size_t i = 0; i < sizeof by_ext / sizeof *by_ext; i++)
        if (strcmp(ext, by_ext[i].ext) == 0) {
            *kind = by_ext[i].kind;
            return true;
        }
    static const unsigned char fatbin_magic[] = {0x50, 0xed, 0x55, 0xba};
    if (starts_with(data, fatbin_magic, 4))
        *kind = UDFKIT_INPUT_FATBIN;
    else if (starts_with(data, "!<arch>\n", 8))
        *kind = UDFKIT_INPUT_LIBRARY;
    else if (starts_with(data, "\177ELF", 4) && data->size > 20)
        *kind = (unsigned char)data->data[18] == 190 ? UDFKIT_INPUT_CUBIN : UDFKIT_INPUT_OBJECT;
    else if (data->size && strstr(data->data, ".version") && strstr(data->data, ".target"))
        *kind = UDFKIT_INPUT_PTX;
    else
        return false;
    return true;
}

/* Binary inputs are read through before nvJitLink sees them: it crashes or spins on some
 * malformed fatbins, and links truncated cubins and malformed host objects without a word.
 * Also notes whether the piece carries LTO-IR (nvcc -dlto): asking for -lto without any
 * makes nvJitLink fail. */
static udfkit_rc examine(piece *p)
{
    p->has_ltoir = p->kind == UDFKIT_INPUT_LTOIR;
    if (p->kind == UDFKIT_INPUT_LTOIR || p->kind == UDFKIT_INPUT_PTX)
        return UDFKIT_RC_OK;
    static const char *const expected[] = {[UDFKIT_INPUT_CUBIN] = "cubin", [UDFKIT_INPUT_FATBIN] = "fatbin",
                                           [UDFKIT_INPUT_OBJECT] = "object", [UDFKIT_INPUT_LIBRARY] = "archive"};
    json_t *desc = NULL;
    udfkit_rc rc = udfkit_inspect_data(p->data.data, p->data.size, p->path, &desc);
    if (rc)
        return rc;
    const char *kind = json_string_value(json_object_get(desc, "kind"));
    if (!kind || strcmp(kind, expected[p->kind]) != 0)
        rc = udfkit_fail(UDFKIT_RC_INPUT, p->path, 0, "is not a valid %s (it reads as %s)", expected[p->kind],
                         kind ? kind : "nothing udfkit knows");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(desc, "entries"), i, e)
    {
        const char *entry_kind = json_string_value(json_object_get(e, "kind"));
        /* Fatbins carried as data are not what nvJitLink links from an object. */
        p->has_ltoir |= entry_kind && strcmp(entry_kind, "ltoir") == 0 && !json_object_get(e, "embedded");
    }
    json_decref(desc);
    return rc;
}

static udfkit_rc add_file(link_set *s, const char *path, const udfkit_toolchain *tc);
static udfkit_rc add_manifest_at_depth(link_set *s, const char *path, const udfkit_toolchain *tc);

static bool kind_of_artifact(const char *kind, udfkit_input_kind *out)
{
    static const struct {
        const char *name;
        udfkit_input_kind kind;
    } kinds[] = {{"ltoir", UDFKIT_INPUT_LTOIR}, {"ptx", UDFKIT_INPUT_PTX}, {"cubin", UDFKIT_INPUT_CUBIN},
                 {"fatbin", UDFKIT_INPUT_FATBIN}, {"o", UDFKIT_INPUT_OBJECT}, {"a", UDFKIT_INPUT_LIBRARY}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kind && strcmp(kind, kinds[i].name) == 0) {
            *out = kinds[i].kind;
            return true;
        }
    return false;
}

static udfkit_rc add_manifest(link_set *s, const char *path, const udfkit_toolchain *tc)
{
    if (s->depth >= MAX_MANIFEST_DEPTH)
        return udfkit_fail(UDFKIT_RC_INPUT, path, 0,
                           "is named by a chain of %d manifests' link lists (a cycle?); at most %d are followed",
                           MAX_MANIFEST_DEPTH, MAX_MANIFEST_DEPTH);
    s->depth++;
    udfkit_rc rc = add_manifest_at_depth(s, path, tc);
    s->depth--;
    return rc;
}

static udfkit_rc add_manifest_at_depth(link_set *s, const char *path, const udfkit_toolchain *tc)
{
    udfkit_manifest m;
    udfkit_rc rc = udfkit_manifest_load(path, &m);
    if (rc)
        goto done;
    /* LTO-IR from a newer NVRTC or NVVM cannot be read by this nvJitLink. */
    const char *producer;
    json_t *version;
    json_object_foreach(json_object_get(m.root, "producers"), producer, version)
    {
        udfkit_version v;
        if (strcmp(producer, "nvrtc") != 0 && strcmp(producer, "nvvm") != 0)
            continue;
        if (!json_is_string(version) || !udfkit_version_parse(json_string_value(version), &v))
            continue;
        if ((rc = udfkit_toolchain_check_producer(tc, strcmp(producer, "nvrtc") == 0 ? "NVRTC" : "NVVM", v, path)))
            goto done;
        if (!json_object_get(s->producers, producer))
            json_object_set(s->producers, producer, version);
    }
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(m.root, "artifacts"), i, a)
    {
        piece *p = add_piece(s);
        if (!p) {
            rc = udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
            goto done;
        }
        if ((rc = udfkit_manifest_read_artifact(&m, a, &p->path, &p->data)))
            goto done;
        if (!kind_of_artifact(json_string_value(json_object_get(a, "kind")), &p->kind)) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, path, 0, "artifact '%s' has an unknown kind", p->path);
            goto done;
        }
        if ((rc = examine(p)))
            goto done;
        const char *arch = json_string_value(json_object_get(a, "arch"));
        p->has_arch = arch && udfkit_target_parse_name(arch, &p->arch) && !p->arch.sass &&
                      (p->kind == UDFKIT_INPUT_LTOIR || p->kind == UDFKIT_INPUT_PTX);
        /* One artifact of each group goes into a link: a CUDA source's code for one
         * architecture, a Python function's, or one link file. */
        udfkit_buf group = UDFKIT_BUF_INIT;
        const char *source = json_string_value(json_object_get(a, "source"));
        const char *function = json_string_value(json_object_get(a, "function"));
        const char *hash = json_string_value(json_object_get(a, "xxh3_128"));
        if (function)
            udfkit_buf_printf(&group, "%s\n%s#%s", path, source ? source : "", function);
        else if (json_object_get(a, "role") && hash)
            /* Link files by their bytes: the same support code, which each Python module
             * brings its own copy of (numba's float16 operators), is linked once. */
            udfkit_buf_printf(&group, "link file\n%s", hash);
        else
            udfkit_buf_printf(&group, "%s\n%s", path, source && !json_object_get(a, "role") ? source : p->path);
        p->group = intern_group(s, group.data);
        udfkit_buf_free(&group);
        p->link_file = json_object_get(a, "role") != NULL;
        char *source_file = NULL;
        if (source && !udfkit_manifest_resolve(&m, source, &source_file) && udfkit_file_exists(source_file))
            p->source = source_file;
        else
            free(source_file);
        udfkit_diag_clear();
        /* The UDFs of this code's source: a unit takes all of a source's code (a Python
         * function's code may call another function of its module, and a unit's link costs
         * the support code the module brings, about 4 s for numba's string support). */
        size_t k;
        json_t *f;
        json_array_foreach(json_object_get(m.root, "functions"), k, f)
        {
            const char *c_name = json_string_value(json_object_get(f, "c_name"));
            const char *fsource = json_string_value(json_object_get(f, "source"));
            if (!c_name || json_object_get(a, "role"))
                continue;
            if (source && fsource && strcmp(source, fsource) == 0) {
                if (!p->provides)
                    p->provides = json_array();
                json_array_append_new(p->provides, json_string(c_name));
            }
        }
    }
    if ((rc = udfkit_function_table_add(&s->table, &m)))
        goto done;
    /* Declared link files travel with the UDFs: link them unasked. */
    json_array_foreach(json_object_get(m.root, "link"), i, a)
    {
        const char *rel = json_is_string(a) ? json_string_value(a) : json_string_value(json_object_get(a, "path"));
        if (!rel)
            continue;
        char *file;
        if (!(rc = udfkit_manifest_resolve(&m, rel, &file)))
            rc = add_file(s, file, tc);
        free(file);
        if (rc)
            goto done;
    }
done:
    udfkit_manifest_free(&m);
    return rc;
}

static udfkit_rc add_file(link_set *s, const char *path, const udfkit_toolchain *tc)
{
    udfkit_buf data = UDFKIT_BUF_INIT;
    udfkit_rc rc = udfkit_read_file(path, &data);
    if (rc)
        return rc;
    if (strcmp(udfkit_path_extension(path), ".json") == 0 || udfkit_manifest_sniff(data.data, data.size)) {
        udfkit_buf_free(&data);
        return add_manifest(s, path, tc);
    }
    udfkit_input_kind kind;
    if (!classify(path, &data, &kind)) {
        udfkit_buf_free(&data);
        return udfkit_fail(UDFKIT_RC_INPUT, path, 0,
                           "unknown input kind (expected .ltoir, .ptx, .cubin, .fatbin, .o, .a or a udfkit manifest)");
    }
    piece *p = add_piece(s);
    if (!p) {
        udfkit_buf_free(&data);
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    }
    p->kind = kind;
    p->path = strdup(path);
    p->data = data;
    p->group = intern_group(s, path);
    return examine(p);
}

/* Links of several architectures run at once; one that takes long says how far it got. */
typedef struct link_progress {
    pthread_mutex_t lock;
    size_t done, total;
    double start;
    double after; /* seconds before progress is told: UDFKIT_PROGRESS_SECONDS, default 1 */
} link_progress;

typedef struct link_job {
    udfkit_target target;
    link_progress *progress;
    link_set *set;
    udfkit_cache *cache;
    const char *const *extra;
    size_t nextra;
    udfkit_rc rc;
    char *message;
    udfkit_buf out;
    char ptx_isa[16];
    json_t *units;    /* `--units`: the link units' plan, or NULL */
    unsigned threads; /* for this architecture's units */
    size_t nunits, units_linked; /* how many units, and how many were not in the cache */
} link_job;

/* For each group, the piece compiled for the highest virtual architecture the target
 * accepts; pieces without an architecture always go in. */
static udfkit_rc select_pieces(link_job *j, const piece **chosen, size_t *count)
{
    link_set *s = j->set;
    *count = 0;
    for (size_t g = 0; g < s->ngroups; g++) {
        const piece *best = NULL;
        bool any_arch = false;
        for (size_t i = 0; i < s->count; i++) {
            const piece *p = &s->items[i];
            if (p->group != s->groups[g])
                continue;
            if (!p->has_arch) {
                chosen[(*count)++] = p;
                continue;
            }
            any_arch = true;
            if (udfkit_target_accepts(j->target, p->arch) && (!best || p->arch.number > best->arch.number))
                best = p;
        }
        if (best)
            chosen[(*count)++] = best;
        else if (any_arch) {
            char name[32];
            udfkit_target_name(j->target, name, sizeof name);
            const char *nl = strchr(s->groups[g], '\n');
            return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                               "%.*s: no artifact of %s can be used for %s: it was compiled for higher or other "
                               "architectures; compile it for %s too",
                               nl ? (int)(nl - s->groups[g]) : (int)strlen(s->groups[g]), s->groups[g],
                               nl ? nl + 1 : "its source", name, name);
        }
    }
    return UDFKIT_RC_OK;
}

/* The symbols nvJitLink's log says are missing, in its two phrasings:
 * "Undefined reference to 'foo' in 'k.ltoir'" and ptxas' "Unresolved extern function 'foo'". */
static void unresolved_symbols(const char *log, udfkit_buf *out)
{
    static const char *const keys[] = {"Undefined reference to '", "Unresolved extern function '",
                                       "Unresolved extern variable '"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        for (const char *p = strstr(log, keys[k]); p; p = strstr(p, keys[k])) {
            p += strlen(keys[k]);
            const char *end = strchr(p, '\'');
            if (!end)
                break;
            udfkit_buf_printf(out, "%s%.*s", out->size ? ", " : "", (int)(end - p), p);
            p = end;
        }
    }
}

static void read_ptx_isa(const udfkit_buf *ptx, char *out, size_t size)
{
    const char *v = strstr(ptx->data ? ptx->data : "", ".version");
    out[0] = '\0';
    if (!v)
        return;
    v += strlen(".version");
    while (*v == ' ' || *v == '\t')
        v++;
    size_t n = 0;
    while (n + 1 < size && (isdigit((unsigned char)v[n]) || v[n] == '.'))
        n++;
    memcpy(out, v, n);
    out[n] = '\0';
}

/* -v: the step with its options and inputs; and "[2/5] sm_90" once a link has taken a second. */
static void report_job(link_job *j, const char *name, const char *const *options, size_t noptions,
                       const udfkit_link_input *inputs, size_t n, const char *how)
{
    if (udfkit_verbose() && noptions) {
        udfkit_buf line = UDFKIT_BUF_INIT;
        udfkit_buf_join(&line, options, noptions, " ");
        for (size_t i = 0; i < n; i++)
            udfkit_buf_printf(&line, " %s", udfkit_path_basename(inputs[i].name));
        udfkit_note("nvjitlink %s: %s: %s", name, line.data ? line.data : "", how);
        udfkit_buf_free(&line);
    }
    link_progress *p = j->progress;
    pthread_mutex_lock(&p->lock);
    size_t done = ++p->done;
    double elapsed = udfkit_seconds() - p->start;
    pthread_mutex_unlock(&p->lock);
    if (p->total > 1 && elapsed > p->after && !j->rc)
        udfkit_progress("[%zu/%zu] %s linked (%.1f s)", done, p->total, name, elapsed);
}


/* A cached result is used only where it is the code it claims to be (a cubin or PTX): the
 * entry's checksum says that it is as stored, not what was stored. */
static bool cached_code_is(bool cubin, const udfkit_buf *code, const char *key)
{
    char why[256];
    bool ok = cubin ? udfkit_cubin_check(code->data, code->size, why, sizeof why)
                    : udfkit_ptx_check(code->data, code->size, why, sizeof why);
    if (!ok)
        udfkit_warn("the cache entry %s is not used: the code in it %s; the result is rebuilt", key, why);
    return ok;
}

/* Link units (`udfkit link --units`, docs/build-speed.md). Each unit is some of the
 * kernels with the UDFs they call: nvJitLink links it alone (-lto -ptx -kernels-used), its
 * PTX is compiled by nvPTXCompiler to whole-program SASS that still links
 * (--extensible-whole-program), and the units' SASS is linked without LTO into the cubin.
 * Each unit's SASS is cached by its own inputs, so an edited UDF relinks only the units that
 * call it. Kernels whose UDFs come from the same inputs form one unit. */
typedef struct link_unit {
    json_t *kernels;        /* names */
    const piece **inputs;   /* the kernels' code, support code, the UDFs' code */
    size_t ninputs;
    char *signature;        /* which UDF pieces: units with the same one are merged */
    char key[UDFKIT_CACHE_KEY_SIZE];
    udfkit_buf code;        /* the unit's SASS */
    udfkit_buf weakened;    /* the names its definitions were made weak in, one a line */
    bool linked;            /* not from the cache */
    udfkit_rc rc;
    char *message;
} link_unit;

typedef struct unit_pool {
    link_job *job;
    link_unit *units;
    size_t count, next, done;
    pthread_mutex_t lock;
    double told; /* when progress was last told */
} unit_pool;

/* The name a PTX directive line declares or defines: the first word after `from` that is not
 * a directive, a number or a function's return parameter ("(.param .b32 func_retval0)"). */
static bool ptx_declared_name(const char *from, const char *eol, const char **word, const char **word_end)
{
    for (const char *q = from; q < eol;) {
        if (*q == '(') {
            const char *close = memchr(q, ')', (size_t)(eol - q));
            q = close ? close + 1 : eol;
        } else if (*q == '.' || isdigit((unsigned char)*q)) {
            while (q < eol && !isspace((unsigned char)*q) && *q != '(')
                q++;
        } else if (isalpha((unsigned char)*q) || *q == '_' || *q == '$') {
            *word = q;
            while (q < eol && (isalnum((unsigned char)*q) || *q == '_' || *q == '$'))
                q++;
            *word_end = q;
            return true;
        } else
            q++;
    }
    return false;
}

/* Whether `p` .. `end` holds `text`. */
static bool within(const char *p, const char *end, const char *text)
{
    for (size_t n = strlen(text); p + n <= end; p++)
        if (memcmp(p, text, n) == 0)
            return true;
    return false;
}

/* The first function or variable the unit's PTX declares extern (but for the few the driver
 * provides): a call the unit's inputs left open, which a link of every input resolves and
 * inlines. Found: its name in `name` (malloc'd). */
static bool open_extern(const udfkit_buf *ptx, char **name)
{
    static const char *const provided[] = {"vprintf", "malloc", "free", "__assertfail"};
    for (const char *line = ptx->data; line && *line;) {
        const char *end = strchr(line, '\n');
        const char *eol = end ? end : line + strlen(line);
        const char *q = line;
        while (q < eol && (*q == ' ' || *q == '\t'))
            q++;
        /* ".extern .func (.param .b32 func_retval0) vprintf(", ".extern .global .align 4 .b8 x[16];" */
        const char *word, *word_end;
        if (strncmp(q, ".extern", 7) == 0 && !within(q, eol, ".shared") &&
            ptx_declared_name(q + 7, eol, &word, &word_end)) {
            char *found = strndup(word, (size_t)(word_end - word));
            bool known = false;
            for (size_t k = 0; found && k < sizeof provided / sizeof *provided; k++)
                known |= strcmp(found, provided[k]) == 0;
            if (!known && found) {
                *name = found;
                return true;
            }
            free(found);
        }
        line = end ? end + 1 : NULL;
    }
    return false;
}

/* Each unit keeps its own copy of what every unit defines (the record of UDF errors the
 * runtime reads, the string library's tables): `.visible` definitions become `.weak`, one of
 * which the final link keeps, as nvcc -rdc does with a header's inline variables; their
 * names go to `names`, one a line, so that the final cubin makes them global again (the
 * driver finds a global by name only where it is). Kernels (`.entry`) stay. */
static void weaken_definitions(udfkit_buf *ptx, udfkit_buf *names)
{
    static const char *const kinds[] = {".visible .global", ".visible .const", ".visible .func"};
    for (char *line = ptx->data; line && *line;) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        char *end = strchr(line, '\n');
        const char *eol = end ? end : line + strlen(line);
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
            if (strncmp(p, kinds[k], strlen(kinds[k])) == 0) {
                memcpy(p, ".weak   ", 8); /* ".visible" and ".weak   " are 8 bytes each */
                const char *word, *word_end;
                if (ptx_declared_name(p + 8, eol, &word, &word_end))
                    udfkit_buf_printf(names, "%.*s\n", (int)(word_end - word), word);
                break;
            }
        line = end ? end + 1 : NULL;
    }
}

/* The symbols of `cubin` (an ELF image nvJitLink made) named in `names` (one a line) that
 * are weak become global. Leaves the image as it is where it does not read as ELF64. */
static void make_global(udfkit_buf *cubin, const char *names)
{
    unsigned char *d = (unsigned char *)cubin->data;
    size_t size = cubin->size;
    if (!names || !*names || size < 64 || memcmp(d, "\177ELF", 4) != 0 || d[4] != 2 || d[5] != 1)
        return;
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, d + 0x28, 8);
    memcpy(&shentsize, d + 0x3a, 2);
    memcpy(&shnum, d + 0x3c, 2);
    if (shentsize < 64 || shoff > size || (uint64_t)shnum * shentsize > size - shoff)
        return;
    for (uint16_t i = 0; i < shnum; i++) {
        const unsigned char *sh = d + shoff + (uint64_t)i * shentsize;
        uint32_t type, link;
        uint64_t off, bytes, entsize;
        memcpy(&type, sh + 4, 4);
        memcpy(&off, sh + 0x18, 8);
        memcpy(&bytes, sh + 0x20, 8);
        memcpy(&link, sh + 0x28, 4);
        memcpy(&entsize, sh + 0x38, 8);
        if (type != 2 /* SHT_SYMTAB */ || entsize < 24 || off > size || bytes > size - off || link >= shnum)
            continue;
        const unsigned char *strsh = d + shoff + (uint64_t)link * shentsize;
        uint64_t stroff, strbytes;
        memcpy(&stroff, strsh + 0x18, 8);
        memcpy(&strbytes, strsh + 0x20, 8);
        if (stroff > size || strbytes > size - stroff)
            continue;
        for (uint64_t at = off; at + entsize <= off + bytes; at += entsize) {
            uint32_t name;
            memcpy(&name, d + at, 4);
            unsigned char *info = d + at + 4;
            if ((*info >> 4) != 2 /* STB_WEAK */ || name >= strbytes)
                continue;
            const char *sym = (const char *)d + stroff + name;
            size_t n = strnlen(sym, (size_t)(strbytes - name));
            for (const char *line = names; *line;) {
                const char *nl = strchr(line, '\n');
                size_t len = nl ? (size_t)(nl - line) : strlen(line);
                if (len == n && memcmp(line, sym, n) == 0) {
                    *info = (unsigned char)((1u /* STB_GLOBAL */ << 4) | (*info & 0xfu));
                    break;
                }
                line = nl ? nl + 1 : line + len;
            }
        }
    }
}

static void link_unit_run(link_job *j, link_unit *u)
{
    char real[32], arch_opt[48];
    udfkit_target_name((udfkit_target){j->target.number, j->target.suffix, true}, real, sizeof real);
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s", real);
    if (j->cache) {
        udfkit_cache_entry hit = {0};
        const udfkit_buf *code;
        bool found = udfkit_cache_get(j->cache, u->key, &hit) && (code = udfkit_cache_entry_find(&hit, "code")) &&
                     cached_code_is(true, code, u->key);
        udfkit_cache_record(j->cache, &hit, found);
        const udfkit_buf *weak = found ? udfkit_cache_entry_find(&hit, "weakened") : NULL;
        if (found) {
            udfkit_buf_append(&u->code, code->data, code->size);
            if (weak && weak->size)
                udfkit_buf_append(&u->weakened, weak->data, weak->size);
        }
        udfkit_cache_entry_free(&hit);
        if (found)
            return;
    }
    size_t nkernels = json_array_size(u->kernels);
    const char **options = calloc(nkernels + 3, sizeof *options);
    udfkit_buf *used = calloc(nkernels + 1, sizeof *used);
    udfkit_link_input *inputs = calloc(u->ninputs + 1, sizeof *inputs);
    udfkit_buf ptx = UDFKIT_BUF_INIT, log = UDFKIT_BUF_INIT;
    char *open = NULL;
    size_t noptions = 0;
    options[noptions++] = arch_opt;
    options[noptions++] = "-lto";
    options[noptions++] = "-ptx";
    for (size_t k = 0; k < nkernels; k++) {
        udfkit_buf_printf(&used[k], "-kernels-used=%s", json_string_value(json_array_get(u->kernels, k)));
        options[noptions++] = used[k].data;
    }
    for (size_t i = 0; i < u->ninputs; i++)
        inputs[i] = (udfkit_link_input){u->inputs[i]->kind, u->inputs[i]->data.data, u->inputs[i]->data.size,
                                        u->inputs[i]->path};
    u->linked = true;
    if ((u->rc = udfkit_jitlink_run(options, noptions, inputs, u->ninputs, true, &ptx, &log))) {
        u->message = strdup(log.size ? log.data : "nvJitLink failed");
    } else if (open_extern(&ptx, &open)) {
        u->rc = UDFKIT_RC_INPUT;
        udfkit_buf why = UDFKIT_BUF_INIT;
        udfkit_buf_printf(&why, "its code calls '%s', which its inputs do not define", open);
        u->message = udfkit_buf_detach(&why);
        free(open);
    } else {
        weaken_definitions(&ptx, &u->weakened);
        const char *whole_unit[] = {"--extensible-whole-program"};
        void *cubin = NULL;
        size_t size = 0;
        char *ptx_log = NULL;
        if (udfkit_ptxcompiler_compile_with(ptx.data, ptx.size, real, whole_unit, 1, &cubin, &size, &ptx_log)) {
            udfkit_buf_append(&u->code, cubin, size);
            if (j->cache) {
                udfkit_cache_entry entry = {0};
                udfkit_cache_entry_add(&entry, "code", u->code.data, u->code.size);
                udfkit_cache_entry_add(&entry, "weakened", u->weakened.data ? u->weakened.data : "",
                                       u->weakened.size);
                udfkit_cache_put(j->cache, u->key, &entry);
                udfkit_cache_entry_free(&entry);
            }
        } else {
            u->rc = UDFKIT_RC_INPUT;
            u->message = strdup(ptx_log ? ptx_log : "nvPTXCompiler failed");
        }
        free(cubin);
        free(ptx_log);
    }
    for (size_t k = 0; k < nkernels; k++)
        udfkit_buf_free(&used[k]);
    free(used);
    free(options);
    free(inputs);
    udfkit_buf_free(&ptx);
    udfkit_buf_free(&log);
}

static void *unit_worker(void *arg)
{
    unit_pool *pool = arg;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        size_t i = pool->next < pool->count ? pool->next++ : pool->count;
        pthread_mutex_unlock(&pool->lock);
        if (i == pool->count)
            break;
        link_unit_run(pool->job, &pool->units[i]);
        /* A long link says how far it got, once a second at most. */
        link_progress *p = pool->job->progress;
        double now = udfkit_seconds();
        pthread_mutex_lock(&pool->lock);
        size_t done = ++pool->done;
        bool tell = now - p->start > p->after && now - pool->told >= 1.0 && done < pool->count;
        if (tell)
            pool->told = now;
        pthread_mutex_unlock(&pool->lock);
        if (tell) {
            char name[32];
            udfkit_target_name(pool->job->target, name, sizeof name);
            udfkit_progress("%s: %zu of %zu units linked (%.1f s)", name, done, pool->count, now - p->start);
        }
    }
    udfkit_diag_clear();
    return NULL;
}

static void link_units_free(link_unit *units, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        json_decref(units[i].kernels);
        free(units[i].inputs);
        free(units[i].signature);
        udfkit_buf_free(&units[i].code);
        udfkit_buf_free(&units[i].weakened);
        free(units[i].message);
    }
    free(units);
}

/* Whether nvJitLink would keep, in u's link, a kernel of another unit: -kernels-used=NAME
 * keeps every kernel whose name has NAME in it (s1 keeps s10), which would then be in two
 * units, needing the other's inputs too. */
static bool keeps_others(const link_unit *u, json_t *plan)
{
    size_t i, k, m;
    json_t *entry, *name, *mine;
    json_array_foreach(plan, i, entry)
    {
        json_array_foreach(json_object_get(entry, "kernels"), k, name)
        {
            const char *kernel = json_string_value(name);
            bool own = false, kept = false;
            json_array_foreach(u->kernels, m, mine)
            {
                own |= strcmp(json_string_value(mine), kernel) == 0;
                kept |= strstr(kernel, json_string_value(mine)) != NULL;
            }
            if (kept && !own)
                return true;
        }
    }
    return false;
}

/* The units of j's plan over the chosen pieces: false (with why) where the plan does not fit
 * them, and the whole library links as one. */
static bool plan_units(link_job *j, const piece **chosen, size_t n, link_unit **out, size_t *count, const char **why)
{
    *out = NULL;
    *count = 0;
    link_unit *units = calloc(json_array_size(j->units) + 1, sizeof *units);
    size_t nunits = 0;
    bool ok = units != NULL;
    /* c_name -> the chosen pieces that have its code. */
    json_t *by_name = json_object();
    for (size_t p = 0; p < n; p++) {
        size_t q;
        json_t *name;
        json_array_foreach(chosen[p]->provides, q, name)
        {
            json_t *list = json_object_get(by_name, json_string_value(name));
            if (!list)
                json_object_set_new(by_name, json_string_value(name), list = json_array());
            json_array_append_new(list, json_integer((json_int_t)p));
        }
    }
    size_t i;
    json_t *plan;
    json_array_foreach(j->units, i, plan)
    {
        if (!ok)
            break;
        json_t *calls = json_object_get(plan, "calls");
        bool *needed = calloc(n + 1, sizeof *needed);
        size_t c;
        json_t *call;
        json_array_foreach(calls, c, call)
        {
            /* Every piece of the source that has it. */
            json_t *pieces = json_object_get(by_name, json_string_value(call));
            bool found = json_array_size(pieces) > 0;
            size_t q;
            json_t *at;
            json_array_foreach(pieces, q, at) needed[json_integer_value(at)] = true;
            if (!found) {
                *why = "a UDF the units call is not in a manifest's functions";
                ok = false;
            }
        }
        udfkit_buf sig = UDFKIT_BUF_INIT;
        for (size_t p = 0; p < n; p++)
            if (needed[p])
                udfkit_buf_printf(&sig, "%zu,", p);
        udfkit_buf_puts(&sig, "");
        link_unit *u = NULL;
        for (size_t k = 0; k < nunits && !u; k++)
            if (strcmp(units[k].signature, sig.data) == 0)
                u = &units[k];
        bool calls_udfs = sig.size > 0;
        if (!u) {
            u = &units[nunits++];
            u->kernels = json_array();
            u->signature = udfkit_buf_detach(&sig);
            u->inputs = calloc(n + 1, sizeof *u->inputs);
            /* The UDFs' support code goes with them: a unit that calls none (the kernels
             * entries share) links without it. */
            for (size_t p = 0; p < n; p++)
                if (needed[p] || (!chosen[p]->provides && (!chosen[p]->link_file || calls_udfs)))
                    u->inputs[u->ninputs++] = chosen[p];
        }
        udfkit_buf_free(&sig);
        json_array_extend(u->kernels, json_object_get(plan, "kernels"));
        free(needed);
    }
    for (size_t k = 0; ok && k < nunits; k++)
        if (keeps_others(&units[k], j->units)) {
            *why = "a kernel's name is in the name of a kernel of other UDF sources (as s1 is in s10), and "
                   "nvJitLink keeps both where one is asked for";
            ok = false;
        }
    json_decref(by_name);
    if (!ok) {
        link_units_free(units, nunits);
        return false;
    }
    *out = units;
    *count = nunits;
    return true;
}

/* Links j's architecture by units into j->out; false where it could not, and the caller
 * links the whole library as one (with the message that gives). */
static bool link_by_units(link_job *j, const piece **chosen, size_t n, const char *arch_opt, const char **how)
{
    const char *why = NULL;
    link_unit *units;
    size_t nunits;
    for (size_t i = 0; i < n; i++)
        if (chosen[i]->kind != UDFKIT_INPUT_LTOIR) {
            udfkit_note("link units for %s: %s is not LTO-IR; linking the whole library as one", arch_opt,
                        chosen[i]->path);
            return false;
        }
    if (!plan_units(j, chosen, n, &units, &nunits, &why)) {
        udfkit_note("link units for %s: %s; linking the whole library as one", arch_opt, why);
        return false;
    }
    /* The keys: a unit's by its kernels and inputs, the library's by its units'. */
    udfkit_version pc = udfkit_toolchain_nvptxcompiler();
    char final_key[UDFKIT_CACHE_KEY_SIZE];
    udfkit_hasher *fh = udfkit_hasher_new("nvjitlink-units");
    udfkit_toolchain_key(fh, UDFKIT_PART_NVJITLINK);
    udfkit_hasher_add_str(fh, arch_opt);
    for (size_t i = 0; i < nunits; i++) {
        udfkit_hasher *h = udfkit_hasher_new("nvjitlink-unit 2");
        udfkit_toolchain_key(h, UDFKIT_PART_NVJITLINK);
        udfkit_hasher_add(h, &pc, sizeof pc);
        udfkit_hasher_add_str(h, arch_opt);
        size_t k;
        json_t *name;
        json_array_foreach(units[i].kernels, k, name) udfkit_hasher_add_str(h, json_string_value(name));
        for (size_t p = 0; p < units[i].ninputs; p++)
            udfkit_hasher_add_str(h, units[i].inputs[p]->digest);
        udfkit_hasher_finish(h, units[i].key);
        udfkit_hasher_add_str(fh, units[i].key);
    }
    udfkit_hasher_finish(fh, final_key);
    bool ok = true;
    if (j->cache) {
        udfkit_cache_entry hit = {0};
        const udfkit_buf *code;
        bool found = udfkit_cache_get(j->cache, final_key, &hit) && (code = udfkit_cache_entry_find(&hit, "code")) &&
                     cached_code_is(true, code, final_key);
        udfkit_cache_record(j->cache, &hit, found);
        if (found) {
            udfkit_buf_append(&j->out, code->data, code->size);
            *how = "from the cache";
        }
        udfkit_cache_entry_free(&hit);
        if (found)
            goto done;
    }
    unit_pool pool = {j, units, nunits, 0, 0, PTHREAD_MUTEX_INITIALIZER, 0.0};
    unsigned threads = j->threads ? j->threads : 1;
    if (threads > nunits)
        threads = (unsigned)nunits;
    pthread_t *tids = calloc(threads + 1, sizeof *tids);
    bool *started = calloc(threads + 1, sizeof *started);
    for (unsigned t = 1; t < threads; t++)
        started[t] = pthread_create(&tids[t], NULL, unit_worker, &pool) == 0;
    unit_worker(&pool);
    for (unsigned t = 1; t < threads; t++)
        if (started[t])
            pthread_join(tids[t], NULL);
    free(tids);
    free(started);
    udfkit_link_input *inputs = calloc(nunits + 1, sizeof *inputs);
    for (size_t i = 0; i < nunits && ok; i++) {
        j->units_linked += units[i].linked;
        if (units[i].rc) {
            udfkit_note("link units for %s: unit %zu (%s... of %zu inputs) did not link: %s; linking the whole library "
                        "as one",
                        arch_opt, i, json_string_value(json_array_get(units[i].kernels, 0)), units[i].ninputs,
                        units[i].message);
            ok = false;
        }
        inputs[i] = (udfkit_link_input){UDFKIT_INPUT_CUBIN, units[i].code.data, units[i].code.size, "unit"};
    }
    if (ok) {
        const char *options[] = {arch_opt};
        udfkit_buf log = UDFKIT_BUF_INIT;
        udfkit_buf weakened = UDFKIT_BUF_INIT;
        for (size_t i = 0; i < nunits; i++)
            if (units[i].weakened.size)
                udfkit_buf_append(&weakened, units[i].weakened.data, units[i].weakened.size);
        udfkit_rc linked_rc = udfkit_jitlink_run(options, 1, inputs, nunits, false, &j->out, &log);
        if (!linked_rc)
            make_global(&j->out, weakened.data);
        udfkit_buf_free(&weakened);
        if (linked_rc) {
            udfkit_note("link units for %s: the units' link failed: %s; linking the whole library as one", arch_opt,
                        log.data ? log.data : "");
            udfkit_buf_free(&j->out);
            ok = false;
        } else if (j->cache) {
            udfkit_cache_entry entry = {0};
            udfkit_cache_entry_add(&entry, "code", j->out.data, j->out.size);
            udfkit_cache_put(j->cache, final_key, &entry);
            udfkit_cache_entry_free(&entry);
        }
        udfkit_buf_free(&log);
    }
    free(inputs);
done:
    j->nunits = nunits;
    link_units_free(units, nunits);
    udfkit_diag_clear();
    return ok;
}

static void *link_one(void *arg)
{
    link_job *j = arg;
    double start = udfkit_seconds();
    const char *how = "not linked";
    char took[64];
    link_set *s = j->set;
    char name[32];
    udfkit_target_name(j->target, name, sizeof name);
    const piece **chosen = calloc(s->count + 1, sizeof *chosen);
    udfkit_link_input *inputs = calloc(s->count + 1, sizeof *inputs);
    const char **options = calloc(j->nextra + 5, sizeof *options);
    udfkit_buf log = UDFKIT_BUF_INIT, arch_opt = UDFKIT_BUF_INIT;
    size_t n = 0, noptions = 0;
    if ((j->rc = select_pieces(j, chosen, &n)))
        goto done;
    bool lto = false;
    udfkit_buf not_lto = UDFKIT_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        inputs[i] = (udfkit_link_input){chosen[i]->kind, chosen[i]->data.data, chosen[i]->data.size, chosen[i]->path};
        lto |= chosen[i]->has_ltoir;
        if (chosen[i]->kind != UDFKIT_INPUT_LTOIR)
            udfkit_buf_printf(&not_lto, "%s%s", not_lto.size ? ", " : "", chosen[i]->path);
    }
    if (!j->target.sass && not_lto.size) {
        j->rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                            "PTX for %s is linked from LTO-IR only, and these inputs are not LTO-IR: %s; "
                            "compile them with --emit ltoir, or ask for %u-real",
                            name, not_lto.data, j->target.number);
        udfkit_buf_free(&not_lto);
        goto done;
    }
    udfkit_buf_free(&not_lto);
    /* Linked PTX is asked for as -arch=sm_NN -lto -ptx: nvJitLink takes no compute_NN here. */
    char real[32];
    udfkit_target_name((udfkit_target){j->target.number, j->target.suffix, true}, real, sizeof real);
    udfkit_buf_printf(&arch_opt, "-arch=%s", real);
    options[noptions++] = arch_opt.data;
    if (lto)
        options[noptions++] = "-lto";
    if (!j->target.sass)
        options[noptions++] = "-ptx";
    for (size_t i = 0; i < j->nextra; i++)
        options[noptions++] = j->extra[i];
    if (j->units && j->target.sass && lto && !j->nextra) {
        const char *unit_how = NULL;
        if (link_by_units(j, chosen, n, arch_opt.data, &unit_how)) {
            snprintf(took, sizeof took, "%zu units, %zu linked, %.2f s", j->nunits, j->units_linked,
                     udfkit_seconds() - start);
            how = unit_how ? unit_how : took;
            goto done;
        }
    }
    /* The same inputs, options and nvJitLink give the same code. */
    char key[UDFKIT_CACHE_KEY_SIZE];
    udfkit_cache_entry hit = {0};
    if (j->cache) {
        udfkit_hasher *h = udfkit_hasher_new("nvjitlink");
        udfkit_toolchain_key(h, UDFKIT_PART_NVJITLINK);
        for (size_t i = 0; i < noptions; i++)
            udfkit_hasher_add_str(h, options[i]);
        for (size_t i = 0; i < n; i++) {
            udfkit_hasher_add(h, &inputs[i].kind, sizeof inputs[i].kind);
            udfkit_hasher_add(h, inputs[i].data, inputs[i].size);
        }
        udfkit_hasher_finish(h, key);
        const udfkit_buf *code;
        bool found = udfkit_cache_get(j->cache, key, &hit) && (code = udfkit_cache_entry_find(&hit, "code")) &&
                     cached_code_is(j->target.sass, code, key);
        udfkit_cache_record(j->cache, &hit, found);
        if (found) {
            how = "from the cache";
            udfkit_buf_append(&j->out, code->data, code->size);
            udfkit_cache_entry_free(&hit);
            if (!j->target.sass)
                read_ptx_isa(&j->out, j->ptx_isa, sizeof j->ptx_isa);
            goto done;
        }
        udfkit_cache_entry_free(&hit);
    }
    j->rc = udfkit_jitlink_run(options, noptions, inputs, n, !j->target.sass, &j->out, &log);
    snprintf(took, sizeof took, "%.2f s%s", udfkit_seconds() - start, j->rc ? ", failed" : "");
    how = took;
    if (!j->rc && j->cache) {
        udfkit_cache_entry entry = {0};
        udfkit_cache_entry_add(&entry, "code", j->out.data, j->out.size);
        udfkit_cache_put(j->cache, key, &entry);
        udfkit_cache_entry_free(&entry);
    }
    if (j->rc && log.size) {
        udfkit_buf symbols = UDFKIT_BUF_INIT;
        unresolved_symbols(log.data, &symbols);
        if (symbols.size)
            udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "link for %s failed: unresolved symbols: %s", name, symbols.data);
        else
            udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "link for %s failed", name);
        udfkit_diag_append_log("nvJitLink", log.data);
        udfkit_buf_free(&symbols);
    }
    if (!j->rc && !j->target.sass)
        read_ptx_isa(&j->out, j->ptx_isa, sizeof j->ptx_isa);
done:
    report_job(j, name, options, noptions, inputs, n, how);
    if (j->rc)
        j->message = strdup(udfkit_diag_message());
    udfkit_diag_clear(); /* the message lives in this thread, which ends here */
    udfkit_buf_free(&log);
    udfkit_buf_free(&arch_opt);
    free(options);
    free(inputs);
    free(chosen);
    return NULL;
}

char *udfkit_link_manifest_path(const char *output)
{
    udfkit_buf b = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&b, "%s.json", output);
    return udfkit_buf_detach(&b);
}

static void version_string(udfkit_version v, char *buf, size_t size)
{
    snprintf(buf, size, "%d.%d", v.major, v.minor);
}

static udfkit_rc write_fatbin(const udfkit_link_request *req, link_set *set, link_job *jobs, size_t njobs,
                              const udfkit_toolchain *tc, udfkit_outputs *outputs)
{
    udfkit_fatbin_entry *entries = calloc(njobs + set->count + 1, sizeof *entries);
    char (*archs)[16] = calloc(njobs + set->count + 1, sizeof *archs);
    udfkit_buf *names = calloc(njobs + set->count + 1, sizeof *names);
    size_t n = 0;
    json_t *manifest = udfkit_manifest_new("fatbin");
    json_t *listed = json_array();
    for (size_t i = 0; i < njobs; i++) {
        udfkit_target_number(jobs[i].target, archs[n], sizeof archs[n]);
        entries[n] = (udfkit_fatbin_entry){jobs[i].target.sass ? UDFKIT_FATBIN_CUBIN : UDFKIT_FATBIN_PTX,
                                           jobs[i].out.data, jobs[i].out.size, archs[n], udfkit_path_basename(req->output)};
        n++;
        char name[32];
        udfkit_target_name(jobs[i].target, name, sizeof name);
        json_t *e = json_object();
        json_object_set_new(e, "kind", json_string(jobs[i].target.sass ? "sass" : "ptx"));
        json_object_set_new(e, "arch", json_string(name));
        if (!jobs[i].target.sass)
            json_object_set_new(e, "ptx_isa", json_string(jobs[i].ptx_isa));
        json_array_append_new(listed, e);
    }
    if (req->keep_ltoir) {
        /* Each distinct LTO-IR input, for linking at load time. */
        char (*hashes)[UDFKIT_HASH_HEX_SIZE] = calloc(set->count + 1, sizeof *hashes);
        size_t nhashes = 0;
        for (size_t i = 0; i < set->count; i++) {
            const piece *p = &set->items[i];
            if (p->kind != UDFKIT_INPUT_LTOIR)
                continue;
            char h[UDFKIT_HASH_HEX_SIZE];
            udfkit_hash_hex(p->data.data, p->data.size, h);
            bool dup = false;
            for (size_t k = 0; k < nhashes; k++)
                dup |= strcmp(hashes[k], h) == 0;
            if (dup)
                continue;
            memcpy(hashes[nhashes++], h, sizeof h);
            udfkit_target t = p->has_arch ? p->arch : jobs[0].target;
            udfkit_target_number(t, archs[n], sizeof archs[n]);
            /* "<group>:<file>": the runtime links one entry of each group, the best for the device. */
            size_t group = 0;
            while (group < set->ngroups && set->groups[group] != p->group)
                group++;
            udfkit_buf_printf(&names[n], "%zu:%s", group, udfkit_path_basename(p->path));
            entries[n] = (udfkit_fatbin_entry){UDFKIT_FATBIN_LTOIR, p->data.data, p->data.size, archs[n], names[n].data};
            n++;
            char name[32];
            udfkit_target_name((udfkit_target){t.number, t.suffix, false}, name, sizeof name);
            json_t *e = json_object();
            json_object_set_new(e, "kind", json_string("ltoir"));
            json_object_set_new(e, "arch", json_string(name));
            json_object_set_new(e, "source", json_string(udfkit_path_basename(p->path)));
            json_array_append_new(listed, e);
        }
        free(hashes);
    }
    udfkit_buf fatbin = UDFKIT_BUF_INIT, text = UDFKIT_BUF_INIT;
    double start = udfkit_seconds();
    udfkit_rc rc = udfkit_fatbin_build(entries, n, req->compression, &fatbin);
    udfkit_note("nvfatbin %zu entries, compression %s -> %s: %zu bytes, %.2f s", n,
                udfkit_fatbin_compression_name(req->compression), req->output, fatbin.size, udfkit_seconds() - start);
    if (!rc)
        rc = udfkit_outputs_write(outputs, req->output, fatbin.data, fatbin.size);
    if (!rc) {
        char v[32];
        const char *key;
        json_t *value;
        json_object_foreach(set->producers, key, value) json_object_set(json_object_get(manifest, "producers"), key, value);
        version_string(tc->nvjitlink, v, sizeof v);
        udfkit_manifest_set_producer(manifest, "nvjitlink", v);
        version_string(tc->nvfatbin, v, sizeof v);
        udfkit_manifest_set_producer(manifest, "nvfatbin", v);
        char *manifest_path = udfkit_link_manifest_path(req->output);
        json_object_set(manifest, "functions", set->table.functions);
        json_t *a = udfkit_manifest_add_artifact(manifest, "fatbin", NULL, udfkit_path_basename(req->output), NULL,
                                                 fatbin.data, fatbin.size);
        json_object_set_new(a, "entries", listed);
        listed = NULL;
        udfkit_manifest_dump(manifest, &text);
        rc = udfkit_outputs_write(outputs, manifest_path, text.data, text.size);
        free(manifest_path);
    }
    json_decref(listed);
    json_decref(manifest);
    udfkit_buf_free(&fatbin);
    udfkit_buf_free(&text);
    for (size_t i = 0; i < njobs + set->count + 1; i++)
        udfkit_buf_free(&names[i]);
    free(names);
    free(entries);
    free(archs);
    return rc;
}

/* `--units FILE`, as `udfkit kernels --units` writes it: {"udfkit_units": 1, "units": [{"kernels":
 * [names], "calls": [c_names]}, ...]}. */
static udfkit_rc read_units(const char *path, json_t **out)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    *out = NULL;
    if (!root)
        return udfkit_fail(UDFKIT_RC_INPUT, path, err.line > 0 ? err.line : 0, "not a units file: %s", err.text);
    json_t *units = json_object_get(root, "units");
    bool ok = json_integer_value(json_object_get(root, "udfkit_units")) == 1 && json_is_array(units);
    size_t i;
    json_t *u;
    json_array_foreach(units, i, u)
    {
        json_t *kernels = json_object_get(u, "kernels"), *calls = json_object_get(u, "calls");
        ok = ok && json_is_array(kernels) && json_array_size(kernels) && json_is_array(calls);
        size_t k;
        json_t *v;
        json_array_foreach(kernels, k, v) ok = ok && json_is_string(v) && udfkit_is_c_identifier(json_string_value(v));
        json_array_foreach(calls, k, v) ok = ok && json_is_string(v);
    }
    if (!ok) {
        json_decref(root);
        return udfkit_fail(UDFKIT_RC_INPUT, path, 0,
                           "not a units file of this udfkit (udfkit_units 1: units, each with kernels, identifiers, "
                           "and calls); write it with 'udfkit kernels --units'");
    }
    /* The plan's units, with the digest of their source beside them. */
    json_t *digest = json_object_get(root, "source_xxh3_128");
    *out = json_object();
    json_object_set(*out, "units", units);
    if (json_is_string(digest))
        json_object_set(*out, "udfkit_source_digest", digest);
    json_decref(root);
    return UDFKIT_RC_OK;
}

/* Whether one of the inputs was compiled from the kernels' source the units are of (else the
 * units file is stale, or of other kernels), and every other input is a UDF's code or support
 * code (else it may hold kernels of its own, which no unit names): only then does the library
 * link by units. Sets s->kernels_source. */
static bool units_fit(link_set *s, const char *path, json_t *units)
{
    const char *want = json_string_value(json_object_get(units, "udfkit_source_digest"));
    for (size_t i = 0; want && i < s->count && !s->kernels_source; i++) {
        const char *file = s->items[i].source;
        if (!file || s->items[i].provides)
            continue;
        udfkit_buf text = UDFKIT_BUF_INIT;
        char digest[UDFKIT_HASH_HEX_SIZE] = "";
        if (!udfkit_read_file(file, &text))
            udfkit_hash_hex(text.data, text.size, digest);
        udfkit_diag_clear();
        udfkit_buf_free(&text);
        if (strcmp(digest, want) == 0)
            s->kernels_source = file;
    }
    if (!s->kernels_source) {
        udfkit_warn("%s: no input was compiled from the kernels' source these units are of (a stale file?); "
                    "linking the whole library as one",
                    path);
        return false;
    }
    for (size_t i = 0; i < s->count; i++) {
        const piece *p = &s->items[i];
        if (!p->provides && !p->link_file && !(p->source && strcmp(p->source, s->kernels_source) == 0)) {
            udfkit_note("%s: %s is neither the kernels' code nor a UDF's (kernels of its own would be in no "
                        "unit); linking the whole library as one",
                        path, p->path);
            return false;
        }
    }
    return true;
}

udfkit_rc udfkit_link(const udfkit_link_request *req)
{
    link_set set = {0};
    udfkit_function_table_init(&set.table, req->output);
    set.producers = json_object();
    link_job *jobs = NULL;
    size_t njobs = 0;
    udfkit_outputs *outputs = udfkit_outputs_new();
    udfkit_cache *cache = NULL;
    json_t *units = NULL;
    udfkit_toolchain tc;
    udfkit_rc rc = udfkit_toolchain_query(&tc);
    if (!rc)
        rc = udfkit_outputs_claim(outputs, req->output);
    char *manifest_path = udfkit_link_manifest_path(req->output);
    if (!rc && req->emit == UDFKIT_LINK_FATBIN)
        rc = udfkit_outputs_claim(outputs, manifest_path);
    if (!rc)
        rc = udfkit_outputs_inputs(outputs, req->inputs, req->ninputs);
    if (!rc && req->units)
        rc = udfkit_outputs_inputs(outputs, &req->units, 1);
    if (rc)
        goto done;
    if (!req->ninputs) {
        rc = udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "link needs at least one input");
        goto done;
    }
    udfkit_target_list targets;
    if ((rc = udfkit_toolchain_parse_archs(req->arch, &targets)))
        goto done;
    if (req->emit != UDFKIT_LINK_FATBIN) {
        bool want_sass = req->emit == UDFKIT_LINK_CUBIN;
        if (targets.count != 1 || targets.items[0].sass != want_sass) {
            rc = udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "--emit %s links one architecture: give --arch NN-%s",
                             want_sass ? "cubin" : "ptx", want_sass ? "real" : "virtual");
            goto done;
        }
    }
    for (size_t i = 0; i < req->ninputs; i++)
        if ((rc = add_file(&set, req->inputs[i], &tc)))
            goto done;
    for (size_t i = 0; i < set.count; i++)
        udfkit_hash_hex(set.items[i].data.data, set.items[i].data.size, set.items[i].digest);
    if (req->units && (rc = read_units(req->units, &units)))
        goto done;
    if (units && !units_fit(&set, req->units, units)) {
        json_decref(units);
        units = NULL;
    }

    njobs = targets.count;
    jobs = calloc(njobs, sizeof *jobs);
    /* The architectures link at once; each links its units with its share of the cores. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *jobs_env = getenv("UDFKIT_LINK_JOBS");
    if (jobs_env && *jobs_env)
        cores = strtol(jobs_env, NULL, 10);
    size_t nsass = 0;
    for (size_t i = 0; i < njobs; i++)
        nsass += targets.items[i].sass;
    unsigned unit_threads = cores > 0 && nsass ? (unsigned)((cores + (long)nsass - 1) / (long)nsass) : 1u;
    const char *after = getenv("UDFKIT_PROGRESS_SECONDS");
    link_progress progress = {PTHREAD_MUTEX_INITIALIZER, 0, njobs, udfkit_seconds(),
                              after && *after ? strtod(after, NULL) : 1.0};
    cache = udfkit_cache_open();
    pthread_t *threads = calloc(njobs, sizeof *threads);
    bool *started = calloc(njobs, sizeof *started);
    for (size_t i = 0; i < njobs; i++) {
        jobs[i] = (link_job){.target = targets.items[i], .progress = &progress, .set = &set, .cache = cache,
                             .extra = req->extra_options, .nextra = req->nextra_options, .units = json_object_get(units, "units"),
                             .threads = unit_threads};
        started[i] = pthread_create(&threads[i], NULL, link_one, &jobs[i]) == 0;
        if (!started[i])
            link_one(&jobs[i]);
    }
    for (size_t i = 0; i < njobs; i++)
        if (started[i])
            pthread_join(threads[i], NULL);
    free(threads);
    free(started);
    for (size_t i = 0; i < njobs; i++)
        if (jobs[i].rc) {
            rc = udfkit_fail_text(jobs[i].rc, jobs[i].message);
            goto done;
        }

    if (req->emit == UDFKIT_LINK_FATBIN)
        rc = write_fatbin(req, &set, jobs, njobs, &tc, outputs);
    else
        rc = udfkit_outputs_write(outputs, req->output, jobs[0].out.data, jobs[0].out.size);
    if (!rc)
        rc = udfkit_outputs_commit(outputs);
done:
    for (size_t i = 0; i < njobs; i++) {
        udfkit_buf_free(&jobs[i].out);
        free(jobs[i].message);
    }
    free(jobs);
    json_decref(units);
    for (size_t i = 0; i < set.count; i++) {
        json_decref(set.items[i].provides);
        free(set.items[i].source);
        free(set.items[i].path);
        udfkit_buf_free(&set.items[i].data);
    }
    free(set.items);
    for (size_t i = 0; i < set.ngroups; i++)
        free(set.groups[i]);
    free(set.groups);
    udfkit_function_table_free(&set.table);
    json_decref(set.producers);
    free(manifest_path);
    udfkit_cache_close(cache);
    udfkit_outputs_free(outputs);
    return rc;
}
