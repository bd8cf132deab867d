#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

udfkit_rc udfkit_read_file(const char *path, udfkit_buf *out)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return udfkit_fail(UDFKIT_RC_INPUT, path, 0, "is a directory, not a file");
    FILE *f = fopen(path, "rb");
    if (!f)
        return udfkit_fail(UDFKIT_RC_INPUT, path, 0, "cannot read: %s", strerror(errno));
    out->size = 0;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (!udfkit_buf_append(out, chunk, n)) {
            fclose(f);
            return udfkit_fail(UDFKIT_RC_INTERNAL, path, 0, "out of memory");
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad)
        return udfkit_fail(UDFKIT_RC_INPUT, path, 0, "read failed");
    if (!out->data)
        udfkit_buf_append(out, "", 0);
    return UDFKIT_RC_OK;
}

bool udfkit_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *udfkit_path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

const char *udfkit_path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *udfkit_path_join(const char *dir, const char *name)
{
    if (name[0] == '/' || !dir[0] || strcmp(dir, ".") == 0)
        return strdup(name);
    udfkit_buf b = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&b, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    return udfkit_buf_detach(&b);
}

char *udfkit_path_absolute(const char *path)
{
    char resolved[PATH_MAX];
    if (path[0] == '/')
        return strdup(path);
    if (!getcwd(resolved, sizeof resolved))
        return strdup(path);
    return udfkit_path_join(resolved, path);
}

/* Splits a normalized absolute path into components, dropping "." and folding "..". */
static size_t split_components(char *path, char **parts, size_t max)
{
    size_t n = 0;
    for (char *tok = strtok(path, "/"); tok; tok = strtok(NULL, "/")) {
        if (strcmp(tok, ".") == 0)
            continue;
        if (strcmp(tok, "..") == 0) {
            if (n)
                n--;
            continue;
        }
        if (n < max)
            parts[n++] = tok;
    }
    return n;
}

char *udfkit_path_relative(const char *path, const char *base)
{
    char *p = udfkit_path_absolute(path), *b = udfkit_path_absolute(base);
    char *pp[256], *bp[256];
    size_t np = split_components(p, pp, 256), nb = split_components(b, bp, 256);
    size_t common = 0;
    while (common < np && common < nb && strcmp(pp[common], bp[common]) == 0)
        common++;
    udfkit_buf out = UDFKIT_BUF_INIT;
    for (size_t i = common; i < nb; i++)
        udfkit_buf_puts(&out, "../");
    for (size_t i = common; i < np; i++)
        udfkit_buf_printf(&out, "%s%s", pp[i], i + 1 < np ? "/" : "");
    if (out.size == 0)
        udfkit_buf_puts(&out, ".");
    free(p);
    free(b);
    return udfkit_buf_detach(&out);
}

char *udfkit_path_stem(const char *path)
{
    const char *base = udfkit_path_basename(path);
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? strndup(base, (size_t)(dot - base)) : strdup(base);
}

const char *udfkit_path_extension(const char *path)
{
    const char *base = udfkit_path_basename(path);
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot : "";
}

bool udfkit_source_matches(const char *file, const char *source)
{
    char *a = udfkit_path_absolute(file), *b = udfkit_path_absolute(source);
    char *ra = udfkit_path_relative(a, "/"), *rb = udfkit_path_relative(b, "/");
    size_t lf = strlen(file), ls = strlen(source);
    bool same = strcmp(ra, rb) == 0 || (ls > lf && source[ls - lf - 1] == '/' && strcmp(source + ls - lf, file) == 0);
    free(a);
    free(b);
    free(ra);
    free(rb);
    return same;
}

typedef struct output {
    char *final;
    char *temp;
} output;

struct udfkit_outputs {
    output *items;
    size_t count;
    bool committed;
};

udfkit_outputs *udfkit_outputs_new(void)
{
    return calloc(1, sizeof(udfkit_outputs));
}

static udfkit_rc write_all(int fd, const char *path, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        ssize_t n = write(fd, p, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return udfkit_fail(UDFKIT_RC_ENV, path, 0, "cannot write: %s", strerror(errno));
        }
        p += n;
        size -= (size_t)n;
    }
    return UDFKIT_RC_OK;
}

static output *find_output(udfkit_outputs *o, const char *path)
{
    for (size_t i = 0; i < o->count; i++)
        if (strcmp(o->items[i].final, path) == 0)
            return &o->items[i];
    return NULL;
}

udfkit_rc udfkit_outputs_claim(udfkit_outputs *o, const char *path)
{
    if (find_output(o, path))
        return UDFKIT_RC_OK;
    output *items = realloc(o->items, (o->count + 1) * sizeof *items);
    if (!items)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    o->items = items;
    o->items[o->count].final = strdup(path);
    o->items[o->count].temp = NULL;
    o->count++;
    return UDFKIT_RC_OK;
}

bool udfkit_make_dirs(const char *dir)
{
    char *copy = strdup(dir);
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(copy, 0777);
        *p = '/';
    }
    bool ok = mkdir(copy, 0777) == 0 || errno == EEXIST;
    free(copy);
    return ok;
}

udfkit_rc udfkit_outputs_write(udfkit_outputs *o, const char *path, const void *data, size_t size)
{
    output *existing = find_output(o, path);
    if (existing && existing->temp)
        return udfkit_fail(UDFKIT_RC_USAGE, path, 0, "would be written twice by one command");
    char *dir = udfkit_path_dirname(path);
    udfkit_make_dirs(dir); /* outputs may go to directories that do not exist yet */
    udfkit_buf temp = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&temp, "%s/.%s.udfkit-XXXXXX", dir, udfkit_path_basename(path));
    free(dir);
    int fd = mkstemp(temp.data);
    if (fd < 0) {
        udfkit_rc rc = udfkit_fail(UDFKIT_RC_ENV, path, 0, "cannot create output: %s", strerror(errno));
        udfkit_buf_free(&temp);
        return rc;
    }
    udfkit_rc rc = write_all(fd, path, data, size);
    /* mkstemp creates 0600; outputs get the usual umask-governed mode. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    if (close(fd) != 0 && rc == UDFKIT_RC_OK)
        rc = udfkit_fail(UDFKIT_RC_ENV, path, 0, "cannot write: %s", strerror(errno));
    if (rc == UDFKIT_RC_OK && !existing) {
        rc = udfkit_outputs_claim(o, path);
        existing = rc == UDFKIT_RC_OK ? find_output(o, path) : NULL;
    }
    if (rc != UDFKIT_RC_OK) {
        unlink(temp.data);
        udfkit_buf_free(&temp);
        return rc;
    }
    existing->temp = udfkit_buf_detach(&temp);
    return UDFKIT_RC_OK;
}

static bool same_contents(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0 || sa.st_size != sb.st_size)
        return false;
    udfkit_buf x = UDFKIT_BUF_INIT, y = UDFKIT_BUF_INIT;
    bool same = udfkit_read_file(a, &x) == UDFKIT_RC_OK && udfkit_read_file(b, &y) == UDFKIT_RC_OK &&
                x.size == y.size && memcmp(x.data, y.data, x.size) == 0;
    udfkit_diag_clear();
    udfkit_buf_free(&x);
    udfkit_buf_free(&y);
    return same;
}

udfkit_rc udfkit_outputs_commit(udfkit_outputs *o)
{
    /* The first output is the one build systems watch (the manifest), so it goes last:
     * once it is in place every artifact it names already is. */
    for (size_t k = 0; k < o->count; k++) {
        size_t i = (k + 1) % o->count;
        if (!o->items[i].temp)
            continue;
        /* An output whose bytes did not change keeps its file and time stamp: build
         * systems that re-check outputs (Ninja's restat) then rebuild nothing after it. */
        if (same_contents(o->items[i].temp, o->items[i].final)) {
            unlink(o->items[i].temp);
            free(o->items[i].temp);
            o->items[i].temp = NULL;
            continue;
        }
        if (rename(o->items[i].temp, o->items[i].final) != 0) {
            udfkit_rc rc = udfkit_fail(UDFKIT_RC_ENV, o->items[i].final, 0, "cannot write: %s", strerror(errno));
            udfkit_outputs_abort(o);
            return rc;
        }
        free(o->items[i].temp);
        o->items[i].temp = NULL;
    }
    o->committed = true;
    return UDFKIT_RC_OK;
}

void udfkit_outputs_abort(udfkit_outputs *o)
{
    for (size_t i = 0; i < o->count; i++) {
        if (o->items[i].temp) {
            unlink(o->items[i].temp);
            free(o->items[i].temp);
            o->items[i].temp = NULL;
        }
        unlink(o->items[i].final);
    }
    o->committed = false;
}

void udfkit_outputs_free(udfkit_outputs *o)
{
    if (!o)
        return;
    if (!o->committed)
        udfkit_outputs_abort(o);
    for (size_t i = 0; i < o->count; i++) {
        free(o->items[i].final);
        free(o->items[i].temp);
    }
    free(o->items);
    free(o);
}
