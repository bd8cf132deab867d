#include "frontend/includes.h"

#include "base/buf.h"
#include "base/fs.h"
#include "base/strset.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A file to read: where it was found, and whether it is one of CUDA's headers. */
typedef struct pending {
    char *path;
    bool system;
} pending;

typedef struct walker {
    const char *const *dirs;
    size_t ndirs;
    const char *cuda_dir;
    udfkit_include_set *out;
    udfkit_strset visited; /* real paths of the files read, the source's included */
    pending *stack; /* files found but not read yet, the next on top */
    size_t depth, cap;
} walker;

/* Whether the file at `path` was read already; notes it if not. */
static bool visited(walker *w, const char *path)
{
    char *real = realpath(path, NULL);
    if (!real)
        real = udfkit_path_absolute(path);
    bool added = udfkit_strset_add(&w->visited, real);
    free(real);
    return !added;
}

/* Resolves like a compiler: quoted names first beside the includer, then -I, then CUDA. */
static char *resolve(walker *w, const char *includer_dir, const char *name, bool quoted, bool *system)
{
    *system = false;
    if (name[0] == '/')
        return udfkit_file_exists(name) ? strdup(name) : NULL;
    if (quoted) {
        char *p = udfkit_path_join(includer_dir, name);
        if (udfkit_file_exists(p))
            return p;
        free(p);
    }
    for (size_t i = 0; i < w->ndirs; i++) {
        char *p = udfkit_path_join(w->dirs[i], name);
        if (udfkit_file_exists(p))
            return p;
        free(p);
    }
    for (int cccl = 0; w->cuda_dir && cccl < 2; cccl++) {
        /* The toolkit's headers, and CCCL's under include/cccl (CUDA 13). */
        char *dir = cccl ? udfkit_path_join(w->cuda_dir, "cccl") : strdup(w->cuda_dir);
        char *p = udfkit_path_join(dir, name);
        free(dir);
        if (udfkit_file_exists(p)) {
            *system = true;
            return p;
        }
        free(p);
    }
    return NULL;
}

/* The name of an #include "name" or <name> directive on the line [q, end), or NULL
 * (computed includes cannot be followed). */
static char *directive_name(const char *q, const char *end, bool *quoted)
{
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    if (q == end || *q != '#')
        return NULL;
    q++;
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    if ((size_t)(end - q) < 7 || strncmp(q, "include", 7) != 0)
        return NULL;
    q += 7;
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    if (q == end || (*q != '"' && *q != '<'))
        return NULL;
    char close = *q == '"' ? '"' : '>';
    const char *name_begin = ++q;
    while (q < end && *q != close)
        q++;
    if (q == end)
        return NULL;
    *quoted = close == '"';
    return strndup(name_begin, (size_t)(q - name_begin));
}

static void push(walker *w, char *path, bool system)
{
    if (w->depth == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 32;
        pending *grown = realloc(w->stack, cap * sizeof *grown);
        if (!grown) {
            free(path);
            return;
        }
        w->stack = grown;
        w->cap = cap;
    }
    w->stack[w->depth++] = (pending){path, system};
}

/* Finds the files `text` includes and puts them on the stack so that the first is read
 * next: depth first, in the order of the directives, as a compile reads them. */
static void scan_text(walker *w, const char *path, const char *text, bool system)
{
    char *dir = udfkit_path_dirname(path);
    size_t first = w->depth;
    for (const char *p = text; *p;) {
        const char *line = p;
        while (*p && *p != '\n')
            p++;
        const char *end = p;
        if (*p)
            p++;
        bool quoted;
        char *name = directive_name(line, end, &quoted);
        if (!name)
            continue;
        bool found_system;
        char *found = resolve(w, dir, name, quoted, &found_system);
        if (found)
            push(w, found, found_system || system);
        free(name);
    }
    for (size_t i = first, j = w->depth; i + 1 < j; i++, j--) {
        pending t = w->stack[i];
        w->stack[i] = w->stack[j - 1];
        w->stack[j - 1] = t;
    }
    free(dir);
}

/* Reads one file, lists it (the source itself is not listed), and finds what it includes. */
static void read_one(walker *w, const char *path, bool system, bool is_source)
{
    if (visited(w, path))
        return;
    udfkit_buf text = UDFKIT_BUF_INIT;
    if (udfkit_read_file(path, &text) != UDFKIT_RC_OK) {
        udfkit_diag_clear();
        return;
    }
    if (!is_source) {
        udfkit_include_set *o = w->out;
        udfkit_include_file *f = realloc(o->files, (o->nfiles + 1) * sizeof *f);
        if (f) {
            o->files = f;
            o->files[o->nfiles++] = (udfkit_include_file){strdup(path), system};
        }
    }
    scan_text(w, path, text.data, system);
    udfkit_buf_free(&text);
}

static udfkit_rc follow(const char *source, const char *text, const char *const *dirs, size_t ndirs,
                        const char *cuda_dir, udfkit_include_set *out)
{
    memset(out, 0, sizeof *out);
    walker w = {.dirs = dirs, .ndirs = ndirs, .cuda_dir = cuda_dir, .out = out};
    if (text) {
        visited(&w, source);
        scan_text(&w, source, text, false);
    } else {
        read_one(&w, source, false, true);
    }
    while (w.depth) {
        pending next = w.stack[--w.depth];
        read_one(&w, next.path, next.system, false);
        free(next.path);
    }
    udfkit_strset_free(&w.visited);
    free(w.stack);
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_includes_follow(const char *source, const char *const *dirs, size_t ndirs, const char *cuda_dir,
                                 udfkit_include_set *out)
{
    return follow(source, NULL, dirs, ndirs, cuda_dir, out);
}

udfkit_rc udfkit_includes_follow_text(const char *source, const char *text, const char *const *dirs, size_t ndirs,
                                      const char *cuda_dir, udfkit_include_set *out)
{
    return follow(source, text, dirs, ndirs, cuda_dir, out);
}

void udfkit_include_set_free(udfkit_include_set *s)
{
    for (size_t i = 0; i < s->nfiles; i++)
        free(s->files[i].path);
    free(s->files);
    memset(s, 0, sizeof *s);
}
