#include "frontend/include_check.h"

#include "base/buf.h"
#include "base/fs.h"
#include "base/strset.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What an entry says of a file: its stat data. */
typedef struct file_stat {
    unsigned long long size, mtime, ctime, ino, dev;
} file_stat;

/* The entries this process checked (CUDA's headers included) or stored, the most recent
 * ones, as read: a compile of the same text again checks their other files by stat alone. */
#define REMEMBERED 64
typedef struct remembered {
    char key[UDFKIT_CACHE_KEY_SIZE];
    char files_key[UDFKIT_CACHE_KEY_SIZE];
    udfkit_include_set set;
    file_stat *stats; /* per file of set */
} remembered;
static pthread_mutex_t memory_lock = PTHREAD_MUTEX_INITIALIZER;
static remembered memory[REMEMBERED];
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

static bool stat_holds(const char *path, const file_stat *want)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    file_stat now = stat_of(&st);
    return now.size == want->size && now.mtime == want->mtime && now.ctime == want->ctime && now.ino == want->ino &&
           now.dev == want->dev;
}

static bool absent_holds(const udfkit_include_absent *a)
{
    struct stat st;
    return a->missing ? stat(a->path, &st) != 0 : !udfkit_file_exists(a->path);
}

void udfkit_include_check_key(const char *source, const char *text, size_t text_size, const char *const *dirs,
                              size_t ndirs, const char *cuda_dir, char key[UDFKIT_CACHE_KEY_SIZE])
{
    udfkit_hasher *h = udfkit_hasher_new("udfkit-includes-1");
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

static bool add_file(udfkit_include_set *s, file_stat **stats, const char *path, bool system, const file_stat *st)
{
    udfkit_include_file *grown = realloc(s->files, (s->nfiles + 1) * sizeof *grown);
    if (grown)
        s->files = grown;
    file_stat *more = stats ? realloc(*stats, (s->nfiles + 1) * sizeof *more) : NULL;
    if (more)
        *stats = more;
    char *copy = strdup(path);
    if (!grown || (stats && !more) || !copy) {
        free(copy);
        return false;
    }
    if (stats)
        (*stats)[s->nfiles] = *st;
    s->files[s->nfiles++] = (udfkit_include_file){copy, system};
    return true;
}

static bool add_absent(udfkit_include_set *s, const char *path, bool system, bool missing)
{
    udfkit_include_absent *grown = realloc(s->absent, (s->nabsent + 1) * sizeof *grown);
    if (grown)
        s->absent = grown;
    char *copy = strdup(path);
    if (!grown || !copy) {
        free(copy);
        return false;
    }
    s->absent[s->nabsent++] = (udfkit_include_absent){copy, system, missing};
    return true;
}

static bool copy_set(const udfkit_include_set *from, const file_stat *from_stats, udfkit_include_set *to,
                     file_stat **to_stats)
{
    memset(to, 0, sizeof *to);
    bool ok = true;
    for (size_t i = 0; ok && i < from->nfiles; i++)
        ok = add_file(to, to_stats, from->files[i].path, from->files[i].system, from_stats ? &from_stats[i] : NULL);
    for (size_t i = 0; ok && i < from->nabsent; i++)
        ok = add_absent(to, from->absent[i].path, from->absent[i].system, from->absent[i].missing);
    if (!ok) {
        udfkit_include_set_free(to);
        if (to_stats) {
            free(*to_stats);
            *to_stats = NULL;
        }
    }
    return ok;
}

/* Keeps the entry `key` in memory, in place of what it held for `key` before. */
static void remember(const char *key, const udfkit_include_set *set, const file_stat *stats, const char *files_key)
{
    pthread_mutex_lock(&memory_lock);
    remembered *r = NULL;
    for (size_t i = 0; i < nmemory && !r; i++)
        if (strcmp(memory[i].key, key) == 0)
            r = &memory[i];
    if (!r) {
        r = &memory[nmemory < REMEMBERED ? nmemory++ : next_slot];
        if (nmemory == REMEMBERED)
            next_slot = (next_slot + 1) % REMEMBERED;
    }
    {
        udfkit_include_set_free(&r->set);
        free(r->stats);
        r->stats = NULL;
        r->key[0] = '\0';
        if (copy_set(set, stats, &r->set, &r->stats)) {
            memcpy(r->key, key, UDFKIT_CACHE_KEY_SIZE);
            memcpy(r->files_key, files_key, UDFKIT_CACHE_KEY_SIZE);
        }
    }
    pthread_mutex_unlock(&memory_lock);
}

/* The entry `key` from memory, its files other than CUDA's checked by stat: 1 found and
 * holding, 0 not there, -1 there and no longer holding. */
static int find_remembered(const char *key, udfkit_include_set *out, char files_key[UDFKIT_CACHE_KEY_SIZE])
{
    int found = 0;
    pthread_mutex_lock(&memory_lock);
    for (size_t i = 0; i < nmemory && !found; i++) {
        const remembered *r = &memory[i];
        if (strcmp(r->key, key) != 0)
            continue;
        bool ok = true;
        for (size_t f = 0; ok && f < r->set.nfiles; f++)
            ok = r->set.files[f].system || stat_holds(r->set.files[f].path, &r->stats[f]);
        for (size_t f = 0; ok && f < r->set.nabsent; f++)
            ok = r->set.absent[f].system || absent_holds(&r->set.absent[f]);
        ok = ok && copy_set(&r->set, NULL, out, NULL);
        if (ok)
            memcpy(files_key, r->files_key, UDFKIT_CACHE_KEY_SIZE);
        found = ok ? 1 : -1;
    }
    pthread_mutex_unlock(&memory_lock);
    return found;
}

/* One line of an entry, checked against the file system and added to *out. */
static bool check_line(const char *line, udfkit_include_set *out, file_stat **stats)
{
    file_stat want;
    int system, missing, at = 0;
    if (sscanf(line, "F %d %llu %llu %llu %llu %llu %n", &system, &want.size, &want.mtime, &want.ctime, &want.ino,
               &want.dev, &at) == 6 &&
        at > 0)
        return stat_holds(line + at, &want) && add_file(out, stats, line + at, system != 0, &want);
    at = 0;
    if (sscanf(line, "A %d %d %n", &system, &missing, &at) == 2 && at > 0) {
        udfkit_include_absent a = {(char *)(line + at), system != 0, missing != 0};
        return absent_holds(&a) && add_absent(out, line + at, system != 0, missing != 0);
    }
    return false;
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
    bool ok = list && hash && hash->size == UDFKIT_CACHE_KEY_SIZE - 1;
    char *text = ok ? strndup(list->data ? list->data : "", list->size) : NULL;
    file_stat *stats = NULL;
    ok = text != NULL;
    for (char *line = text, *next; ok && *line; line = next) {
        if (!(next = strchr(line, '\n'))) {
            ok = false;
            break;
        }
        *next++ = '\0';
        ok = check_line(line, out, &stats);
    }
    free(text);
    if (ok) {
        memcpy(files_key, hash->data, UDFKIT_CACHE_KEY_SIZE - 1);
        files_key[UDFKIT_CACHE_KEY_SIZE - 1] = '\0';
        remember(key, out, stats, files_key);
    } else {
        udfkit_include_set_free(out);
    }
    free(stats);
    udfkit_cache_entry_free(&e);
    return ok;
}

void udfkit_include_check_store(udfkit_cache *cache, const char *key, const udfkit_include_set *set, double started,
                                char files_key[UDFKIT_CACHE_KEY_SIZE])
{
    /* Each file's stat before its bytes: a change after the stat shows as a changed stat. */
    udfkit_hasher *h = udfkit_hasher_new("udfkit-include-files-1");
    udfkit_buf list = UDFKIT_BUF_INIT;
    const unsigned long long recent = (unsigned long long)((started - 1.0) * 1e9);
    file_stat *stats = calloc(set->nfiles + 1, sizeof *stats);
    bool keep = cache != NULL && key != NULL && stats != NULL;
    for (size_t i = 0; i < set->nfiles; i++) {
        const udfkit_include_file *f = &set->files[i];
        struct stat st;
        if (stat(f->path, &st) != 0 || strchr(f->path, '\n') || ns_of(st.st_mtim) >= recent ||
            ns_of(st.st_ctim) >= recent) {
            keep = false;
        } else if (keep) {
            stats[i] = stat_of(&st);
            udfkit_buf_printf(&list, "F %d %llu %llu %llu %llu %llu %s\n", f->system ? 1 : 0, stats[i].size,
                              stats[i].mtime, stats[i].ctime, stats[i].ino, stats[i].dev, f->path);
        }
        udfkit_hasher_add_file(h, f->path);
    }
    udfkit_hasher_finish(h, files_key);
    for (size_t i = 0; keep && i < set->nabsent; i++) {
        const udfkit_include_absent *a = &set->absent[i];
        if (strchr(a->path, '\n'))
            keep = false;
        else
            udfkit_buf_printf(&list, "A %d %d %s\n", a->system ? 1 : 0, a->missing ? 1 : 0, a->path);
    }
    if (keep) {
        udfkit_cache_entry e = {0};
        udfkit_cache_entry_add(&e, "files", list.data ? list.data : "", list.size);
        udfkit_cache_entry_add(&e, "hash", files_key, UDFKIT_CACHE_KEY_SIZE - 1);
        udfkit_cache_put(cache, key, &e);
        udfkit_cache_entry_free(&e);
        remember(key, set, stats, files_key);
    }
    free(stats);
    udfkit_buf_free(&list);
}
