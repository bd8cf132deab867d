#include "frontend/includes.h"

#include "base/buf.h"
#include "base/fs.h"
#include "base/strset.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A file to read: where it was found, and whether it is one of CUDA's headers. */
typedef struct pending {
    char *path;
    bool system;
} pending;

typedef struct walker {
    const char *const *dirs;
    size_t ndirs;
    const char *cuda_dir;
    const udfkit_include_roots *confine; /* NULL: any file the process can read */
    udfkit_rc rc;                        /* the first refusal, which ends the walk */
    udfkit_include_set *out;
    udfkit_strset visited; /* real paths of the files read, the source's included */
    udfkit_strset absent;  /* the paths in out->absent */
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

/* Whether a compile would open `path`: a regular file, or, in a confined walk, anything
 * there (a FIFO or a device is found, and refused, where it would block or never end). */
static bool there(const walker *w, const char *path)
{
    struct stat st;
    return w->confine ? stat(path, &st) == 0 && !S_ISDIR(st.st_mode) : udfkit_file_exists(path);
}

static void add_absent(walker *w, char *path, bool system, bool missing)
{
    udfkit_include_set *o = w->out;
    udfkit_include_absent *grown = NULL;
    if (udfkit_strset_add(&w->absent, path) && (grown = realloc(o->absent, (o->nabsent + 1) * sizeof *grown))) {
        o->absent = grown;
        o->absent[o->nabsent++] = (udfkit_include_absent){path, system, missing};
        return;
    }
    free(path);
}

/* Notes that `dir`/`name` holds no file: the first of `dir` and the prefixes of the path
 * below it that does not exist, or, where each does, the path. */
static void note_absent(walker *w, const char *dir, const char *name, bool system)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        add_absent(w, strdup(dir), system, true);
        return;
    }
    char *p = udfkit_path_join(dir, name);
    const size_t start = strlen(dir), len = strlen(p);
    for (size_t i = start + 1; i < len; i++) {
        if (p[i] != '/')
            continue;
        p[i] = '\0';
        bool gone = stat(p, &st) != 0;
        if (gone) {
            add_absent(w, p, system, true);
            return;
        }
        p[i] = '/';
    }
    add_absent(w, p, system, stat(p, &st) != 0);
}

/* Resolves like a compiler: quoted names first beside the includer, then -I, then CUDA.
 * includer_dir NULL: not beside the includer (a confined source without a directory). Each
 * place looked at in vain is noted (out->absent). */
static char *resolve(walker *w, const char *includer_dir, const char *name, bool quoted, bool *system)
{
    *system = false;
    if (name[0] == '/') {
        if (udfkit_file_exists(name))
            return strdup(name);
        note_absent(w, "/", name + 1, false);
        return NULL;
    }
    if (quoted && includer_dir) {
        char *p = udfkit_path_join(includer_dir, name);
        if (there(w, p))
            return p;
        free(p);
        note_absent(w, includer_dir, name, false);
    }
    for (size_t i = 0; i < w->ndirs; i++) {
        char *p = udfkit_path_join(w->dirs[i], name);
        if (there(w, p))
            return p;
        free(p);
        note_absent(w, w->dirs[i], name, false);
    }
    for (int cccl = 0; w->cuda_dir && cccl < 2; cccl++) {
        /* The toolkit's headers, and CCCL's under include/cccl (CUDA 13). */
        char *dir = cccl ? udfkit_path_join(w->cuda_dir, "cccl") : strdup(w->cuda_dir);
        char *p = udfkit_path_join(dir, name);
        if (udfkit_file_exists(p)) {
            *system = true;
            free(dir);
            return p;
        }
        free(p);
        note_absent(w, dir, name, true);
        free(dir);
    }
    return NULL;
}

/* Whether the line [q, end) is an #include_next directive. */
static bool is_include_next(const char *q, const char *end)
{
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    if (q == end || *q != '#')
        return false;
    q++;
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    return (size_t)(end - q) >= 12 && strncmp(q, "include_next", 12) == 0;
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

/* Whether `name` has a ".." component. */
static bool climbs(const char *name)
{
    for (const char *p = name; (p = strstr(p, "..")); p += 2)
        if ((p == name || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
            return true;
    return false;
}

/* Whether `path` (real) is one of the roots or below one. */
static bool below_roots(const udfkit_include_roots *c, const char *path)
{
    for (size_t i = 0; i < c->nroots; i++) {
        size_t n = strlen(c->roots[i]);
        while (n > 1 && c->roots[i][n - 1] == '/')
            n--;
        if (strncmp(path, c->roots[i], n) == 0 && (path[n] == '\0' || path[n] == '/' || n == 1))
            return true;
    }
    return false;
}

/* A confined walk's checks of one directive of a file that is not CUDA's: no absolute name
 * or ".." in the source itself, no #include_next, and whatever is found (CUDA's headers
 * too: "<cuda/../../x>" is found there) a regular file below the roots, CUDA's among them.
 * The message names the directive, never what is there. */
static bool refused(walker *w, const char *path, int line, const char *name, const char *found, bool is_source)
{
    const char *why = NULL;
    char *real = found ? realpath(found, NULL) : NULL;
    struct stat st;
    if (!name)
        why = "#include_next (it looks past the directories the text may read)";
    else if (name[0] == '/')
        why = "an absolute path: it includes only files below the directories it may read, by names relative to them";
    else if (is_source && climbs(name))
        why = "a name with '..': it includes only files below the directories it may read";
    else if (found && (!real || !below_roots(w->confine, real)))
        why = "a name that leads outside the directories it may read";
    else if (found && (stat(real, &st) != 0 || !S_ISREG(st.st_mode)))
        why = "a name that is not a regular file";
    free(real);
    if (why && name)
        w->rc = udfkit_fail(UDFKIT_RC_INPUT, path, line, "#include \"%s\" is refused: %s", name, why);
    else if (why)
        w->rc = udfkit_fail(UDFKIT_RC_INPUT, path, line, "%s is refused", why);
    return why != NULL;
}

/* Finds the files `text` includes and puts them on the stack so that the first is read
 * next: depth first, in the order of the directives, as a compile reads them. */
static void scan_text(walker *w, const char *path, const char *text, bool system, bool is_source)
{
    bool check = w->confine && !system;
    char *dir = check && is_source && !w->confine->source_dir ? NULL : udfkit_path_dirname(path);
    size_t first = w->depth;
    int number = 0;
    for (const char *p = text; *p && !w->rc;) {
        const char *line = p;
        number++;
        while (*p && *p != '\n')
            p++;
        const char *end = p;
        if (*p)
            p++;
        if (check && is_include_next(line, end) && refused(w, path, number, NULL, NULL, is_source))
            break;
        bool quoted;
        char *name = directive_name(line, end, &quoted);
        if (!name)
            continue;
        bool found_system;
        char *found = check && name[0] == '/' ? NULL : resolve(w, dir, name, quoted, &found_system);
        if (check && refused(w, path, number, name, found, is_source)) {
            free(found);
            found = NULL;
        }
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
    scan_text(w, path, text.data, system, is_source);
    udfkit_buf_free(&text);
}

static udfkit_rc follow(const char *source, const char *text, const char *const *dirs, size_t ndirs,
                        const char *cuda_dir, const udfkit_include_roots *confine, udfkit_include_set *out)
{
    memset(out, 0, sizeof *out);
    walker w = {.dirs = dirs, .ndirs = ndirs, .cuda_dir = cuda_dir, .confine = confine, .out = out};
    if (text) {
        visited(&w, source);
        scan_text(&w, source, text, false, true);
    } else {
        read_one(&w, source, false, true);
    }
    while (w.depth) {
        pending next = w.stack[--w.depth];
        if (!w.rc)
            read_one(&w, next.path, next.system, false);
        free(next.path);
    }
    udfkit_strset_free(&w.visited);
    udfkit_strset_free(&w.absent);
    free(w.stack);
    return w.rc;
}

udfkit_rc udfkit_includes_follow(const char *source, const char *const *dirs, size_t ndirs, const char *cuda_dir,
                                 udfkit_include_set *out)
{
    return follow(source, NULL, dirs, ndirs, cuda_dir, NULL, out);
}

udfkit_rc udfkit_includes_follow_text(const char *source, const char *text, const char *const *dirs, size_t ndirs,
                                      const char *cuda_dir, udfkit_include_set *out)
{
    return follow(source, text, dirs, ndirs, cuda_dir, NULL, out);
}

udfkit_rc udfkit_includes_follow_confined(const char *source, const char *text, const char *const *dirs,
                                          size_t ndirs, const char *cuda_dir, const udfkit_include_roots *confine,
                                          udfkit_include_set *out)
{
    return follow(source, text, dirs, ndirs, cuda_dir, confine, out);
}

void udfkit_include_set_free(udfkit_include_set *s)
{
    for (size_t i = 0; i < s->nfiles; i++)
        free(s->files[i].path);
    free(s->files);
    for (size_t i = 0; i < s->nabsent; i++)
        free(s->absent[i].path);
    free(s->absent);
    memset(s, 0, sizeof *s);
}
