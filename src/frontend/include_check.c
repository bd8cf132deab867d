#define _GNU_SOURCE /* O_PATH */
#include "frontend/include_check.h"

#include "base/buf.h"
#include "base/fs.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What an entry says of a file or directory: its stat data. */
typedef struct file_stat {
    unsigned long long size, mtime, ctime, ino, dev;
} file_stat;

/* A directory of an entry: the files in it are checked by fstatat relative to it (one path
 * walk to the directory, then one name each), and, where `guards`, the places in it where the
 * walk found nothing are checked by its own stat: a name cannot appear in (or leave) a
 * directory without changing its mtime and ctime. */
typedef struct manifest_dir {
    char *path;
    file_stat st;
    bool guards, system; /* system: every record in it is CUDA's */
    long parent;         /* the directory it is opened from (its name there: path + rel_at), or -1 */
    size_t rel_at;
} manifest_dir;

/* A file (dir >= 0: `path` + name_at is its name in dirs[dir]; dir < 0: checked alone by its
 * path) or a place found empty (dir < 0: checked alone; dir >= 0: by its directory's stat). */
typedef struct manifest_rec {
    char *path;
    size_t name_at;
    long dir;
    bool system, missing;
    file_stat st;
} manifest_rec;

/* An entry, as stored on disk ("udfkit-includes-2", one line each) and kept in memory. */
typedef struct manifest {
    char key[UDFKIT_CACHE_KEY_SIZE];
    char files_key[UDFKIT_CACHE_KEY_SIZE];
    manifest_dir *dirs;
    manifest_rec *files, *absent;
    size_t ndirs, nfiles, nabsent;
} manifest;

/* The entries this process checked (CUDA's headers included) or stored, the most recent
 * ones: a compile of the same text again checks their other files by stat alone. */
#define REMEMBERED 64
static pthread_mutex_t memory_lock = PTHREAD_MUTEX_INITIALIZER;
static manifest memory[REMEMBERED];
static size_t nmemory, next_slot;

double udfkit_include_check_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned long long ns_of(struct timespec t)
{
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static file_stat stat_of(const struct stat *st)
{
    return (file_stat){(unsigned long long)st->st_size, ns_of(st->st_mtim), ns_of(st->st_ctim),
                       (unsigned long long)st->st_ino, (unsigned long long)st->st_dev};
}

static bool same_stat(const struct stat *st, const file_stat *want)
{
    file_stat now = stat_of(st);
    return now.size == want->size && now.mtime == want->mtime && now.ctime == want->ctime && now.ino == want->ino &&
           now.dev == want->dev;
}

void udfkit_include_check_key(const char *source, const char *text, size_t text_size, const char *const *dirs,
                              size_t ndirs, const char *cuda_dir, char key[UDFKIT_CACHE_KEY_SIZE])
{
    udfkit_hasher *h = udfkit_hasher_new("udfkit-includes-2");
    udfkit_hasher_add_str(h, source);
    udfkit_hasher_add(h, text, text_size);
    for (size_t i = 0; i < ndirs; i++)
        udfkit_hasher_add_str(h, dirs[i]);
    udfkit_hasher_add_str(h, cuda_dir ? cuda_dir : "");
    char *cwd = getcwd(NULL, 0);
    udfkit_hasher_add_str(h, cwd ? cwd : "");
    free(cwd);
    udfkit_hasher_finish(h, key);
}

static void manifest_free(manifest *m)
{
    for (size_t i = 0; i < m->ndirs; i++)
        free(m->dirs[i].path);
    for (size_t i = 0; i < m->nfiles; i++)
        free(m->files[i].path);
    for (size_t i = 0; i < m->nabsent; i++)
        free(m->absent[i].path);
    free(m->dirs);
    free(m->files);
    free(m->absent);
    memset(m, 0, sizeof *m);
}

/* The index of the directory `path`[0, len) in m (added where new, with `st`), -1 where out
 * of memory. */
static long dir_index(manifest *m, const char *path, size_t len, const file_stat *st, bool system)
{
    for (size_t i = 0; i < m->ndirs; i++)
        if (strlen(m->dirs[i].path) == len && memcmp(m->dirs[i].path, path, len) == 0) {
            m->dirs[i].system = m->dirs[i].system && system;
            return (long)i;
        }
    char *copy = strndup(path, len);
    if (!copy)
        return -1;
    m->dirs[m->ndirs] = (manifest_dir){copy, st ? *st : (file_stat){0}, false, system, -1, 0};
    return (long)m->ndirs++;
}

/* Where a path's name starts: after its last '/' (the directory "/" for "/name"). */
static size_t name_start(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

static size_t dir_length(size_t name_at)
{
    return name_at > 1 ? name_at - 1 : name_at;
}

/* The record of `path` in m (its directory added where new). */
static bool add_rec(manifest *m, bool file, const char *path, bool system, bool missing, bool by_dir,
                    const file_stat *st, const file_stat *dir_st)
{
    size_t at = name_start(path);
    long dir = -1;
    by_dir = by_dir && at > 0;
    if (by_dir && (dir = dir_index(m, path, dir_length(at), dir_st, system)) < 0)
        return false;
    if (by_dir && dir_st) {
        m->dirs[dir].st = *dir_st;
        m->dirs[dir].guards = true;
    }
    char *copy = strdup(path);
    if (!copy)
        return false;
    manifest_rec r = {copy, by_dir ? at : 0, dir, system, missing, st ? *st : (file_stat){0}};
    if (file)
        m->files[m->nfiles++] = r;
    else
        m->absent[m->nabsent++] = r;
    return true;
}

static bool manifest_alloc(manifest *m, size_t ndirs, size_t nfiles, size_t nabsent)
{
    memset(m, 0, sizeof *m);
    m->dirs = calloc(ndirs + 1, sizeof *m->dirs);
    m->files = calloc(nfiles + 1, sizeof *m->files);
    m->absent = calloc(nabsent + 1, sizeof *m->absent);
    if (m->dirs && m->files && m->absent)
        return true;
    manifest_free(m);
    return false;
}

/* The files a manifest lists, for the compile (each path copied); the places found empty
 * are the entry's to check, of no use to the compile, and left out. */
static bool set_of(const manifest *m, udfkit_include_set *out)
{
    memset(out, 0, sizeof *out);
    out->files = calloc(m->nfiles + 1, sizeof *out->files);
    bool ok = out->files != NULL;
    for (size_t i = 0; ok && i < m->nfiles; i++) {
        out->files[i] = (udfkit_include_file){strdup(m->files[i].path), m->files[i].system};
        ok = out->files[i].path != NULL;
        out->nfiles += ok;
    }
    if (!ok)
        udfkit_include_set_free(out);
    return ok;
}

/* Whether everything m records still holds: each directory opened once, its files checked
 * by fstatat from it, its places found empty by its own stat; CUDA's records left out where
 * `skip_system` (already checked in this process). */
static bool manifest_holds(const manifest *m, bool skip_system)
{
    int *fds = malloc((m->ndirs + 1) * sizeof *fds);
    if (!fds)
        return false;
    bool ok = true;
    for (size_t d = 0; d < m->ndirs; d++) {
        fds[d] = -1;
        const manifest_dir *dir = &m->dirs[d];
        if (!ok || (skip_system && dir->system))
            continue;
        /* From the directory above where that is open: a walk of one name or a few. */
        fds[d] = dir->parent >= 0 && fds[dir->parent] >= 0
                     ? openat(fds[dir->parent], dir->path + dir->rel_at, O_PATH | O_DIRECTORY | O_CLOEXEC)
                     : open(dir->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        struct stat st;
        ok = fds[d] >= 0 && (!dir->guards || (fstat(fds[d], &st) == 0 && same_stat(&st, &dir->st)));
    }
    for (size_t i = 0; ok && i < m->nfiles; i++) {
        const manifest_rec *r = &m->files[i];
        struct stat st;
        if (!(skip_system && r->system))
            ok = (r->dir >= 0 ? fstatat(fds[r->dir], r->path + r->name_at, &st, 0) : stat(r->path, &st)) == 0 &&
                 same_stat(&st, &r->st);
    }
    for (size_t i = 0; ok && i < m->nabsent; i++) {
        const manifest_rec *r = &m->absent[i];
        struct stat st;
        if (r->dir < 0 && !(skip_system && r->system))
            ok = r->missing ? stat(r->path, &st) != 0 : !udfkit_file_exists(r->path);
    }
    for (size_t d = 0; d < m->ndirs; d++)
        if (fds[d] >= 0)
            close(fds[d]);
    free(fds);
    return ok;
}

/* Keeps m in memory under its key (m's contents moved there), in place of what it held for
 * that key before. */
static void remember(manifest *m)
{
    pthread_mutex_lock(&memory_lock);
    manifest *r = NULL;
    for (size_t i = 0; i < nmemory && !r; i++)
        if (strcmp(memory[i].key, m->key) == 0)
            r = &memory[i];
    if (!r) {
        r = &memory[nmemory < REMEMBERED ? nmemory++ : next_slot];
        if (nmemory == REMEMBERED)
            next_slot = (next_slot + 1) % REMEMBERED;
    }
    manifest_free(r);
    *r = *m;
    memset(m, 0, sizeof *m);
    pthread_mutex_unlock(&memory_lock);
}

/* The entry `key` from memory, its records other than CUDA's checked: 1 found and holding,
 * 0 not there, -1 there and no longer holding. */
static int find_remembered(const char *key, udfkit_include_set *out, char files_key[UDFKIT_CACHE_KEY_SIZE])
{
    int found = 0;
    pthread_mutex_lock(&memory_lock);
    for (size_t i = 0; i < nmemory && !found; i++) {
        const manifest *r = &memory[i];
        if (strcmp(r->key, key) != 0)
            continue;
        bool ok = manifest_holds(r, true) && set_of(r, out);
        if (ok)
            memcpy(files_key, r->files_key, UDFKIT_CACHE_KEY_SIZE);
        found = ok ? 1 : -1;
    }
    pthread_mutex_unlock(&memory_lock);
    return found;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Reads `count` numbers, each followed by one space, from *p: unsigned hexadecimal (at most
 * 16 digits), or "=" for the number before it (a ctime equal to its mtime). */
static bool read_numbers(const char **p, unsigned long long *out, size_t count)
{
    const char *c = *p;
    for (size_t i = 0; i < count; i++) {
        unsigned long long v = 0;
        const char *first = c;
        if (*c == '=' && i > 0) {
            v = out[i - 1];
            c++;
        } else {
            for (int digit; c - first < 16 && (digit = hex_digit(*c)) >= 0; c++)
                v = v << 4 | (unsigned long long)digit;
        }
        if (c == first || *c != ' ')
            return false;
        c++;
        out[i] = v;
    }
    *p = c;
    return true;
}

/* A stat as an entry writes it: size, mtime, ctime ("=" where it is the mtime), inode and
 * device, in hexadecimal. */
static void write_stat(udfkit_buf *out, const file_stat *st)
{
    if (st->ctime == st->mtime)
        udfkit_buf_printf(out, "%llx %llx = %llx %llx ", st->size, st->mtime, st->ino, st->dev);
    else
        udfkit_buf_printf(out, "%llx %llx %llx %llx %llx ", st->size, st->mtime, st->ctime, st->ino, st->dev);
}

/* `name` in the directory `dir` (NULL: `name` is the whole path); *name_at: where the name
 * starts in it. */
static char *joined(const char *dir, const char *name, size_t nl, size_t *name_at)
{
    size_t dl = dir ? strlen(dir) : 0;
    bool slash = dir && dl && dir[dl - 1] != '/';
    char *p = malloc(dl + slash + nl + 1);
    if (!p)
        return NULL;
    if (dir)
        memcpy(p, dir, dl);
    if (slash)
        p[dl] = '/';
    memcpy(p + dl + slash, name, nl);
    p[dl + slash + nl] = '\0';
    *name_at = dir ? dl + slash : 0;
    return p;
}

/* One line of an entry (without its newline) into m: a directory (by its name in an earlier
 * one, or its path), a file or a place found empty (by its name in a directory, or its path). */
static bool parse_line(manifest *m, const char *line, const char *end)
{
    unsigned long long n[8];
    const char *c = line + 2;
    char kind = line[0];
    size_t count = kind == 'D' ? 8 : kind == 'F' ? 7 : kind == 'A' ? 3 : 0;
    if (!count || line[1] != ' ' || !read_numbers(&c, n, count) || c >= end || n[0] > m->ndirs)
        return false;
    const char *in = n[0] ? m->dirs[n[0] - 1].path : NULL;
    size_t name_at;
    char *path = joined(in, c, (size_t)(end - c), &name_at);
    if (!path)
        return false;
    if (kind == 'D') {
        m->dirs[m->ndirs++] = (manifest_dir){path, {n[3], n[4], n[5], n[6], n[7]}, n[1] != 0, n[2] != 0,
                                             (long)n[0] - 1, name_at};
        return true;
    }
    manifest_rec r = {path, name_at, (long)n[0] - 1, n[1] != 0, kind == 'A' && n[2] != 0, {0}};
    if (kind == 'F') {
        r.st = (file_stat){n[2], n[3], n[4], n[5], n[6]};
        m->files[m->nfiles++] = r;
        return true;
    }
    m->absent[m->nabsent++] = r;
    /* A place checked by its directory's stat: where nothing was, in a directory that guards. */
    return !n[0] || (r.missing && m->dirs[n[0] - 1].guards);
}

/* An entry's text, its lines parsed where they lie (read_numbers stops at each line's end). */
static bool parse_manifest(const udfkit_buf *list, manifest *m)
{
    static const char head[] = "udfkit-includes-2\n";
    const char *text = list->data, *end = text + list->size;
    if (list->size < sizeof head - 1 || memcmp(text, head, sizeof head - 1) != 0 || end[-1] != '\n' ||
        memchr(text, '\0', list->size))
        return false;
    size_t count[3] = {0};
    for (const char *line = text + sizeof head - 1; line < end; line = strchr(line, '\n') + 1)
        if (*line == 'D' || *line == 'F' || *line == 'A')
            count[*line == 'D' ? 0 : *line == 'F' ? 1 : 2]++;
    if (!manifest_alloc(m, count[0], count[1], count[2]))
        return false;
    bool ok = true;
    for (const char *line = text + sizeof head - 1, *next; ok && line < end; line = next + 1) {
        next = memchr(line, '\n', (size_t)(end - line));
        ok = parse_line(m, line, next); /* the counts above leave room for each line */
    }
    if (!ok)
        manifest_free(m);
    return ok;
}

bool udfkit_include_check_find(udfkit_cache *cache, const char *key, udfkit_include_set *out,
                               char files_key[UDFKIT_CACHE_KEY_SIZE])
{
    memset(out, 0, sizeof *out);
    int in_memory = find_remembered(key, out, files_key);
    if (in_memory)
        return in_memory > 0;
    udfkit_cache_entry e = {0};
    if (!cache || !udfkit_cache_get(cache, key, &e))
        return false;
    const udfkit_buf *list = udfkit_cache_entry_find(&e, "files");
    const udfkit_buf *hash = udfkit_cache_entry_find(&e, "hash");
    manifest m;
    bool ok = list && list->data && hash && hash->size == UDFKIT_CACHE_KEY_SIZE - 1 && parse_manifest(list, &m);
    if (ok) {
        ok = manifest_holds(&m, false) && set_of(&m, out);
        memcpy(m.key, key, UDFKIT_CACHE_KEY_SIZE);
        memcpy(m.files_key, hash->data, UDFKIT_CACHE_KEY_SIZE - 1);
        m.files_key[UDFKIT_CACHE_KEY_SIZE - 1] = '\0';
        if (ok) {
            memcpy(files_key, m.files_key, UDFKIT_CACHE_KEY_SIZE);
            remember(&m);
        }
        manifest_free(&m);
    }
    udfkit_cache_entry_free(&e);
    return ok;
}

/* The manifest of `set`, each file stat'd before its bytes are hashed (a change after the
 * stat shows as a changed stat); false where it cannot be kept: a file or a directory that
 * guards a place found empty changed within the second before the walk began (a later change
 * within the same time stamp could not be seen), or a newline in a path. */
static bool make_manifest(const udfkit_include_set *set, double started, udfkit_hasher *h, manifest *m)
{
    const unsigned long long recent = (unsigned long long)((started - 1.0) * 1e9);
    bool keep = manifest_alloc(m, set->nfiles + set->nabsent, set->nfiles, set->nabsent);
    for (size_t i = 0; i < set->nfiles; i++) {
        const udfkit_include_file *f = &set->files[i];
        struct stat st;
        const bool there = stat(f->path, &st) == 0;
        const file_stat fs = there ? stat_of(&st) : (file_stat){0};
        if (!there || strchr(f->path, '\n') || fs.mtime >= recent || fs.ctime >= recent)
            keep = false;
        else if (keep)
            keep = add_rec(m, true, f->path, f->system, false, true, &fs, NULL);
        udfkit_hasher_add_file(h, f->path);
    }
    for (size_t i = 0; keep && i < set->nabsent; i++) {
        const udfkit_include_absent *a = &set->absent[i];
        size_t at = name_start(a->path);
        char *dir = a->missing && at ? strndup(a->path, dir_length(at)) : NULL;
        struct stat st;
        bool by_dir = dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
        free(dir);
        const file_stat dir_st = by_dir ? stat_of(&st) : (file_stat){0};
        if (strchr(a->path, '\n') || (by_dir && (dir_st.mtime >= recent || dir_st.ctime >= recent)))
            keep = false;
        else
            keep = add_rec(m, false, a->path, a->system, a->missing, by_dir, NULL, by_dir ? &dir_st : NULL);
    }
    if (!keep)
        manifest_free(m);
    return keep;
}

static int by_path(const void *a, const void *b, void *dirs)
{
    const manifest_dir *d = dirs;
    return strcmp(d[*(const size_t *)a].path, d[*(const size_t *)b].path);
}

/* Orders m's directories by path, so that each comes after those above it, and gives each
 * the nearest of those (parent, rel_at). */
static bool order_dirs(manifest *m)
{
    size_t *order = malloc((m->ndirs + 1) * sizeof *order), *where = malloc((m->ndirs + 1) * sizeof *where);
    manifest_dir *dirs = malloc((m->ndirs + 1) * sizeof *dirs);
    bool ok = order && where && dirs;
    for (size_t i = 0; ok && i < m->ndirs; i++)
        order[i] = i;
    if (ok)
        qsort_r(order, m->ndirs, sizeof *order, by_path, m->dirs);
    for (size_t i = 0; ok && i < m->ndirs; i++) {
        dirs[i] = m->dirs[order[i]];
        where[order[i]] = i;
        dirs[i].parent = -1;
        size_t len = strlen(dirs[i].path);
        for (size_t j = i; j-- > 0 && dirs[i].parent < 0;) {
            size_t pl = strlen(dirs[j].path);
            if (pl < len && memcmp(dirs[j].path, dirs[i].path, pl) == 0 &&
                (dirs[i].path[pl] == '/' || dirs[j].path[pl - 1] == '/')) {
                dirs[i].parent = (long)j;
                dirs[i].rel_at = dirs[i].path[pl] == '/' ? pl + 1 : pl;
            }
        }
    }
    for (size_t i = 0; ok && i < m->nfiles; i++)
        m->files[i].dir = m->files[i].dir < 0 ? -1 : (long)where[m->files[i].dir];
    for (size_t i = 0; ok && i < m->nabsent; i++)
        m->absent[i].dir = m->absent[i].dir < 0 ? -1 : (long)where[m->absent[i].dir];
    if (ok) {
        free(m->dirs);
        m->dirs = dirs;
        dirs = NULL;
    }
    free(order);
    free(where);
    free(dirs);
    return ok;
}

/* One line each, the numbers in hexadecimal: D <parent+1> <guards> <system> <stat> <name in
 * parent, or path>; F <dir+1> <system> <stat> <name in dir, or path>; A <dir+1> <system>
 * <missing> <name in dir, or path> (<stat>: write_stat). */
static void write_manifest(const manifest *m, udfkit_buf *out)
{
    udfkit_buf_puts(out, "udfkit-includes-2\n");
    for (size_t i = 0; i < m->ndirs; i++) {
        const manifest_dir *d = &m->dirs[i];
        udfkit_buf_printf(out, "D %lx %d %d ", (unsigned long)(d->parent + 1), d->guards, d->system);
        write_stat(out, &d->st);
        udfkit_buf_printf(out, "%s\n", d->path + d->rel_at);
    }
    for (size_t i = 0; i < m->nfiles; i++) {
        const manifest_rec *r = &m->files[i];
        udfkit_buf_printf(out, "F %lx %d ", (unsigned long)(r->dir + 1), r->system);
        write_stat(out, &r->st);
        udfkit_buf_printf(out, "%s\n", r->path + r->name_at);
    }
    for (size_t i = 0; i < m->nabsent; i++) {
        const manifest_rec *r = &m->absent[i];
        udfkit_buf_printf(out, "A %lx %d %d %s\n", (unsigned long)(r->dir + 1), r->system, r->missing, r->path + r->name_at);
    }
}

void udfkit_include_check_store(udfkit_cache *cache, const char *key, const udfkit_include_set *set, double started,
                                char files_key[UDFKIT_CACHE_KEY_SIZE])
{
    udfkit_hasher *h = udfkit_hasher_new("udfkit-include-files-1");
    manifest m;
    bool keep = make_manifest(set, started, h, &m) && cache && key && order_dirs(&m);
    udfkit_hasher_finish(h, files_key);
    if (keep) {
        udfkit_buf list = UDFKIT_BUF_INIT;
        write_manifest(&m, &list);
        udfkit_cache_entry e = {0};
        udfkit_cache_entry_add(&e, "files", list.data ? list.data : "", list.size);
        udfkit_cache_entry_add(&e, "hash", files_key, UDFKIT_CACHE_KEY_SIZE - 1);
        udfkit_cache_put(cache, key, &e);
        udfkit_cache_entry_free(&e);
        udfkit_buf_free(&list);
        memcpy(m.key, key, UDFKIT_CACHE_KEY_SIZE);
        memcpy(m.files_key, files_key, UDFKIT_CACHE_KEY_SIZE);
        remember(&m);
    }
    manifest_free(&m);
}
