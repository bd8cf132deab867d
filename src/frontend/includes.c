#include "frontend/includes.h"

#include "base/buf.h"
#include "base/fs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct walker {
    const char *const *dirs;
    size_t ndirs;
    const char *cuda_dir;
    udfkit_include_set *out;
    char **visited; /* absolute paths, the source included */
    size_t nvisited;
} walker;

static bool visited(walker *w, const char *abs)
{
    for (size_t i = 0; i < w->nvisited; i++)
        if (strcmp(w->visited[i], abs) == 0)
            return true;
    char **v = realloc(w->visited, (w->nvisited + 1) * sizeof *v);
    if (!v)
        return true;
    w->visited = v;
    w->visited[w->nvisited++] = strdup(abs);
    return false;
}

static void note_name(walker *w, const char *name, const char *path)
{
    udfkit_include_set *o = w->out;
    for (size_t i = 0; i < o->nnames; i++) {
        if (strcmp(o->names[i].name, name) != 0)
            continue;
        if (o->names[i].path && strcmp(o->names[i].path, path) != 0) {
            free(o->names[i].path);
            o->names[i].path = NULL; /* ambiguous: NVRTC resolves it itself */
        }
        return;
    }
    udfkit_include_name *n = realloc(o->names, (o->nnames + 1) * sizeof *n);
    if (!n)
        return;
    o->names = n;
    o->names[o->nnames++] = (udfkit_include_name){strdup(name), strdup(path)};
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
    if (w->cuda_dir) {
        char *p = udfkit_path_join(w->cuda_dir, name);
        if (udfkit_file_exists(p)) {
            *system = true;
            return p;
        }
        free(p);
    }
    return NULL;
}

static void walk(walker *w, const char *path, bool system);

static void scan_text(walker *w, const char *path, const char *text, bool system)
{
    char *dir = udfkit_path_dirname(path);
    const char *p = text;
    while (*p) {
        const char *line = p;
        while (*p && *p != '\n')
            p++;
        const char *end = p;
        if (*p)
            p++;
        const char *q = line;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (q == end || *q != '#')
            continue;
        q++;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if ((size_t)(end - q) < 7 || strncmp(q, "include", 7) != 0)
            continue;
        q += 7;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (q == end || (*q != '"' && *q != '<'))
            continue; /* computed includes cannot be followed */
        char close = *q == '"' ? '"' : '>';
        const char *name_begin = ++q;
        while (q < end && *q != close)
            q++;
        if (q == end)
            continue;
        char *name = strndup(name_begin, (size_t)(q - name_begin));
        bool found_system;
        char *found = resolve(w, dir, name, close == '"', &found_system);
        if (found) {
            found_system |= system;
            if (!found_system)
                note_name(w, name, found);
            walk(w, found, found_system);
            free(found);
        }
        free(name);
    }
    free(dir);
}

static void walk(walker *w, const char *path, bool system)
{
    char *abs = udfkit_path_absolute(path);
    bool seen = visited(w, abs);
    free(abs);
    if (seen)
        return;
    udfkit_buf text = UDFKIT_BUF_INIT;
    if (udfkit_read_file(path, &text) != UDFKIT_RC_OK) {
        udfkit_diag_clear();
        return;
    }
    if (w->nvisited > 1) {
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

udfkit_rc udfkit_includes_follow(const char *source, const char *const *dirs, size_t ndirs, const char *cuda_dir,
                                 udfkit_include_set *out)
{
    memset(out, 0, sizeof *out);
    walker w = {dirs, ndirs, cuda_dir, out, NULL, 0};
    walk(&w, source, false);
    for (size_t i = 0; i < w.nvisited; i++)
        free(w.visited[i]);
    free(w.visited);
    return UDFKIT_RC_OK;
}

void udfkit_include_set_free(udfkit_include_set *s)
{
    for (size_t i = 0; i < s->nfiles; i++)
        free(s->files[i].path);
    for (size_t i = 0; i < s->nnames; i++) {
        free(s->names[i].name);
        free(s->names[i].path);
    }
    free(s->files);
    free(s->names);
    memset(s, 0, sizeof *s);
}
