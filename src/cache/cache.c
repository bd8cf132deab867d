#include "cache/cache.h"

#include "base/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

/* ---- keys ---- */

struct udfkit_hasher {
    XXH3_state_t *state;
};

udfkit_hasher *udfkit_hasher_new(const char *purpose)
{
    udfkit_hasher *h = calloc(1, sizeof *h);
    h->state = XXH3_createState();
    XXH3_128bits_reset(h->state);
    udfkit_hasher_add_str(h, "udfkit-cache-2");
    udfkit_hasher_add_str(h, UDFKIT_VERSION_STRING);
    udfkit_hasher_add_str(h, purpose);
    return h;
}

void udfkit_hasher_add(udfkit_hasher *h, const void *data, size_t size)
{
    uint64_t n = size;
    XXH3_128bits_update(h->state, &n, sizeof n);
    XXH3_128bits_update(h->state, data, size);
}

void udfkit_hasher_add_str(udfkit_hasher *h, const char *s)
{
    udfkit_hasher_add(h, s ? s : "", s ? strlen(s) : 0);
}

bool udfkit_hasher_add_file(udfkit_hasher *h, const char *path)
{
    udfkit_buf data = UDFKIT_BUF_INIT;
    bool ok = udfkit_read_file(path, &data) == UDFKIT_RC_OK;
    udfkit_diag_clear();
    udfkit_hasher_add_str(h, path);
    udfkit_hasher_add(h, ok ? data.data : "", ok ? data.size : 0);
    udfkit_buf_free(&data);
    return ok;
}

void udfkit_hasher_finish(udfkit_hasher *h, char key[UDFKIT_CACHE_KEY_SIZE])
{
    XXH128_hash_t v = XXH3_128bits_digest(h->state);
    snprintf(key, UDFKIT_CACHE_KEY_SIZE, "%016llx%016llx", (unsigned long long)v.high64, (unsigned long long)v.low64);
    XXH3_freeState(h->state);
    free(h);
}

/* ---- entries ---- */

void udfkit_cache_entry_add(udfkit_cache_entry *e, const char *name, const void *data, size_t size)
{
    udfkit_cache_blob *blobs = realloc(e->blobs, (e->count + 1) * sizeof *blobs);
    if (!blobs)
        return;
    e->blobs = blobs;
    e->blobs[e->count].name = strdup(name);
    e->blobs[e->count].data = (udfkit_buf)UDFKIT_BUF_INIT;
    udfkit_buf_append(&e->blobs[e->count].data, data, size);
    e->count++;
}

const udfkit_buf *udfkit_cache_entry_find(const udfkit_cache_entry *e, const char *name)
{
    for (size_t i = 0; i < e->count; i++)
        if (strcmp(e->blobs[i].name, name) == 0)
            return &e->blobs[i].data;
    return NULL;
}

void udfkit_cache_entry_free(udfkit_cache_entry *e)
{
    for (size_t i = 0; i < e->count; i++) {
        free(e->blobs[i].name);
        udfkit_buf_free(&e->blobs[i].data);
    }
    free(e->blobs);
    e->blobs = NULL;
    e->count = 0;
}

/* ---- the store ---- */

/* File layout: "UDFKITC2", u64 payload size, 16-byte XXH3-128 of the payload, payload.
 * Payload: per blob, u32 name length, name, u64 size, bytes. */
static const char magic[8] = {'U', 'D', 'F', 'K', 'I', 'T', 'C', '2'};

struct udfkit_cache {
    char *dir;
    const char *section; /* "entries": results, counted and evicted; "toolchain": facts */
    uint64_t limit;
    pthread_mutex_t lock;
    bool broken; /* the directory cannot be written: no local level from now on */
    bool remote; /* results go on to the next level (section "entries" with one set) */
};

static const udfkit_cache_level *next_level;

/* Said once per process, however many caches are opened or fail. */
static void say_unwritable(const char *dir, int err)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&said))
        udfkit_warn("the cache directory %s cannot be written (%s); going on without a %s", dir, strerror(err),
                    next_level ? "local cache" : "cache");
}

static void say_unsafe(const char *dir, const char *why, mode_t mode)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&said))
        udfkit_warn("the cache directory %s %s (mode %04o): results planted there would be taken for udfkit's; "
                    "going on without a %s (make it the user's own, chmod go-w, or set UDFKIT_CACHE_DIR)",
                    dir, why, (unsigned)mode, next_level ? "local cache" : "cache");
}

/* Why `dir` may not hold results, or NULL: another user (not root) owns it, or anyone may
 * write in it, so entries planted there would be taken for results (ssh's StrictModes does
 * the same for ~/.ssh). A directory its group may write is used, with a warning once. */
static const char *unsafe_dir(const char *dir, mode_t *mode)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return NULL; /* not made: the writability check says so */
    *mode = st.st_mode & 07777;
    if (st.st_uid != geteuid() && st.st_uid != 0)
        return "is owned by another user";
    if (st.st_mode & S_IWOTH)
        return "can be written by every user";
    if (st.st_mode & S_IWGRP) {
        static atomic_flag said = ATOMIC_FLAG_INIT;
        if (!atomic_flag_test_and_set(&said))
            udfkit_warn("the cache directory %s can be written by its group (mode %04o): its members can plant "
                        "results there (chmod g-w to keep them out)",
                        dir, (unsigned)*mode);
    }
    return NULL;
}

void udfkit_cache_set_next_level(const udfkit_cache_level *level)
{
    next_level = level;
}

char *udfkit_cache_directory(void)
{
    const char *env = getenv("UDFKIT_CACHE_DIR");
    if (env && *env)
        return strdup(env);
    udfkit_buf b = UDFKIT_BUF_INIT;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && *xdg)
        udfkit_buf_printf(&b, "%s/udfkit", xdg);
    else if (home && *home)
        udfkit_buf_printf(&b, "%s/.cache/udfkit", home);
    else
        return NULL;
    return udfkit_buf_detach(&b);
}

static uint64_t size_limit(void)
{
    const char *env = getenv("UDFKIT_CACHE_SIZE");
    if (!env || !*env)
        return 2ull << 30;
    char *end;
    double v = strtod(env, &end);
    uint64_t unit = *end == 'K' || *end == 'k' ? 1ull << 10 : *end == 'M' || *end == 'm' ? 1ull << 20
                  : *end == 'G' || *end == 'g' ? 1ull << 30 : 1;
    return v > 0 ? (uint64_t)(v * (double)unit) : 2ull << 30;
}

static void count_event(const udfkit_cache *c, const char *what)
{
    /* One appended byte per event: the file's size is the count, and appends are atomic. */
    char *path = udfkit_path_join(c->dir, what);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (fd >= 0) {
        if (write(fd, ".", 1) != 1)
            (void)0;
        close(fd);
    }
    free(path);
}

udfkit_cache *udfkit_cache_open(void)
{
    return udfkit_cache_open_section("entries");
}

udfkit_cache *udfkit_cache_open_section(const char *section)
{
    const char *off = getenv("UDFKIT_CACHE");
    if (off && (strcmp(off, "0") == 0 || strcmp(off, "off") == 0 || strcmp(off, "false") == 0))
        return NULL;
    char *dir = udfkit_cache_directory();
    if (!dir)
        return NULL;
    char *probe = udfkit_path_join(dir, section);
    bool usable = udfkit_make_dirs(probe) && access(probe, W_OK) == 0;
    int err = errno;
    /* The cache directory and the section's: results are taken from them unchecked. */
    mode_t mode = 0;
    const char *where = dir, *unsafe = usable ? unsafe_dir(dir, &mode) : NULL;
    if (usable && !unsafe && (unsafe = unsafe_dir(probe, &mode)))
        where = probe;
    if (unsafe)
        say_unsafe(where, unsafe, mode);
    else if (!usable)
        say_unwritable(dir, err);
    free(probe);
    usable = usable && !unsafe;
    bool remote = next_level && strcmp(section, "entries") == 0;
    if (!usable && !remote) {
        free(dir);
        return NULL;
    }
    udfkit_cache *c = calloc(1, sizeof *c);
    c->dir = dir;
    c->section = section;
    c->limit = size_limit();
    c->broken = !usable;
    c->remote = remote;
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

void udfkit_cache_close(udfkit_cache *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->lock);
    free(c->dir);
    free(c);
}

static char *entry_path(const udfkit_cache *c, const char *key)
{
    udfkit_buf b = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&b, "%s/%s/%.2s/%s.entry", c->dir, c->section, key, key);
    return udfkit_buf_detach(&b);
}

static bool parse_entry(const udfkit_buf *file, udfkit_cache_entry *out)
{
    if (file->size < 32 || memcmp(file->data, magic, 8) != 0)
        return false;
    uint64_t size;
    memcpy(&size, file->data + 8, 8);
    if (size != file->size - 32)
        return false;
    const unsigned char *payload = (const unsigned char *)file->data + 32;
    XXH128_hash_t want, got = XXH3_128bits(payload, size);
    memcpy(&want.high64, file->data + 16, 8);
    memcpy(&want.low64, file->data + 24, 8);
    if (!XXH128_isEqual(want, got))
        return false;
    size_t at = 0;
    while (at < size) {
        uint32_t name_len;
        uint64_t blob_size;
        if (size - at < 4)
            return false;
        memcpy(&name_len, payload + at, 4);
        at += 4;
        if (size - at < (uint64_t)name_len + 8)
            return false;
        char *name = strndup((const char *)payload + at, name_len);
        at += name_len;
        memcpy(&blob_size, payload + at, 8);
        at += 8;
        if (size - at < blob_size) {
            free(name);
            return false;
        }
        udfkit_cache_entry_add(out, name, payload + at, (size_t)blob_size);
        free(name);
        at += (size_t)blob_size;
    }
    return true;
}

static void store_file(udfkit_cache *c, const char *key, const udfkit_buf *file);
static void remove_entry(udfkit_cache *c, const char *path, const struct stat *was);

/* After a local miss: the next level's entry, verified there and parsed here, fills the
 * local cache. */
static bool get_remote(udfkit_cache *c, const char *key, udfkit_cache_entry *out)
{
    udfkit_buf file = UDFKIT_BUF_INIT;
    bool hit = next_level->get(key, &file);
    if (hit && !(hit = parse_entry(&file, out))) {
        udfkit_cache_entry_free(out);
        udfkit_warn("the remote cache's entry %s holds no valid result; it is rebuilt", key);
    }
    if (hit) {
        out->from_remote = true;
        if (!c->broken)
            store_file(c, key, &file);
    }
    udfkit_buf_free(&file);
    return hit;
}

bool udfkit_cache_get(udfkit_cache *c, const char *key, udfkit_cache_entry *out)
{
    out->from_remote = false;
    if (!c)
        return false;
    if (c->broken)
        return c->remote && get_remote(c, key, out);
    char *path = entry_path(c, key);
    udfkit_buf file = UDFKIT_BUF_INIT;
    struct stat st;
    bool hit = false;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && udfkit_read_file(path, &file) == UDFKIT_RC_OK) {
        hit = parse_entry(&file, out);
        if (!hit) {
            udfkit_cache_entry_free(out);
            udfkit_warn("cache entry %s is corrupt; it is removed and the result rebuilt", path);
            remove_entry(c, path, &st);
        } else {
            utimensat(AT_FDCWD, path, NULL, 0); /* recently used; gone where evicted meanwhile */
        }
    }
    udfkit_diag_clear();
    udfkit_buf_free(&file);
    free(path);
    return hit || (c->remote && get_remote(c, key, out));
}

void udfkit_cache_record(udfkit_cache *c, const udfkit_cache_entry *e, bool hit)
{
    if (c && !c->broken)
        count_event(c, hit && !e->from_remote ? "hits" : "misses");
}

/* ---- the size count ----
 *
 * The entries' total size is kept in the file "size" ("<bytes>\n"), so that a store need not
 * list a cache of many thousand entries: only one that takes the total over the limit does
 * (or the first after the count was lost); it evicts and writes the exact total back.
 *
 * Invariant: whenever no process holds the count's lock (flock on "size"), the count equals
 * the sum of the sizes of the entry files of section "entries", or the file holds no valid
 * count. Every change to that sum is made by a process holding the lock, together with the
 * count: a store's rename (less the size of the entry it replaces, read under the lock), an
 * eviction, the removal of a corrupt entry, cache clear. So an eviction, listing under the
 * lock, sees no entry renamed and not yet counted, and no store counts an entry that another
 * process has already evicted. A hit changes only an entry's time; a store's temporary file
 * is no entry (eviction removes those of killed stores, never counted). Before a change the
 * count is marked stale (its newline overwritten), after it the new count is written: a
 * process killed in between leaves a count that the next store recounts, never a wrong one.
 * The file is never removed, as its inode is the lock; a process that locked a file removed
 * meanwhile (by an older udfkit's cache clear, by hand) locks the new one. Entries changed
 * by hand are seen by the next listing.
 *
 * Where the lock cannot be taken (a file system without flock), a store renames without it
 * and lists the entries and evicts every time: no count is kept, and cache stats says that
 * its figure is an estimate. */

typedef struct aged {
    char *path;
    struct timespec used; /* nanoseconds: entries of one build are used within a second */
    uint64_t size;
    bool orphan;          /* a store's temporary file, left by a store that was killed */
} aged;

static int by_age(const void *a, const void *b)
{
    const aged *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* A store writes "<sub>/.<key>.XXXXXX" and renames it into place within moments; one
 * older than this was left by a store that was killed (SIGKILL, SIGINT, power loss). */
#define ORPHAN_AGE_SECONDS 600

/* Lists every entry with its size and last use, and the temporary files of stores: those
 * older than ORPHAN_AGE_SECONDS, or all of them where `all_temporaries`. `total` is the
 * entries' size, temporary files left out. */
static size_t list_entries(const char *dir, const char *section, bool all_temporaries, aged **out, uint64_t *total)
{
    size_t n = 0, cap = 0;
    *out = NULL;
    *total = 0;
    time_t now = time(NULL);
    char *root = udfkit_path_join(dir, section);
    DIR *d = opendir(root);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *sub = udfkit_path_join(root, e->d_name);
        DIR *s = opendir(sub);
        struct dirent *f;
        while (s && (f = readdir(s))) {
            if (strcmp(f->d_name, ".") == 0 || strcmp(f->d_name, "..") == 0)
                continue;
            char *path = udfkit_path_join(sub, f->d_name);
            struct stat st;
            bool temporary = f->d_name[0] == '.';
            if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
                (temporary && !all_temporaries && now - st.st_mtime < ORPHAN_AGE_SECONDS)) {
                free(path);
                continue;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 256;
                *out = realloc(*out, cap * sizeof **out);
            }
            (*out)[n++] = (aged){path, st.st_mtim, (uint64_t)st.st_size, temporary};
            if (!temporary)
                *total += (uint64_t)st.st_size;
        }
        if (s)
            closedir(s);
        free(sub);
    }
    if (d)
        closedir(d);
    free(root);
    return n;
}

/* Lists every entry and removes orphaned temporary files, then, where the entries are over
 * the limit, the least recently used down to 90% of it, so that eviction does not run on
 * every store; returns the entries' size left. Runs under the count's lock. */
static uint64_t evict(udfkit_cache *c)
{
    aged *entries;
    uint64_t total;
    size_t n = list_entries(c->dir, c->section, false, &entries, &total);
    for (size_t i = 0; i < n; i++)
        if (entries[i].orphan)
            unlink(entries[i].path);
    if (total > c->limit) {
        qsort(entries, n, sizeof *entries, by_age);
        for (size_t i = 0; i < n && total > c->limit / 10 * 9; i++)
            if (!entries[i].orphan && (unlink(entries[i].path) == 0 || errno == ENOENT))
                total -= entries[i].size;
    }
    for (size_t i = 0; i < n; i++)
        free(entries[i].path);
    free(entries);
    return total;
}

/* Opens the file "size" of `dir` and locks it (`how`: LOCK_EX or LOCK_SH), making it where
 * `create`; -1 (errno set) where either cannot be done. */
static int lock_count(const char *dir, int how, bool create)
{
    char *path = udfkit_path_join(dir, "size");
    int fd = -1, err = 0;
    for (int tries = 0; fd < 0 && tries < 8; tries++) {
        fd = open(path, (create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC, 0644);
        if (fd < 0) {
            err = errno;
            break;
        }
        int rc;
        while ((rc = flock(fd, how)) != 0 && errno == EINTR)
            continue;
        struct stat locked;
        bool held = rc == 0 && fstat(fd, &locked) == 0;
        if (!held || !S_ISREG(locked.st_mode)) {
            err = held ? EISDIR : errno; /* no lock here, or "size" is no file */
            close(fd);
            fd = -1;
            break;
        }
        if (locked.st_nlink > 0)
            break;
        close(fd);
        fd = -1;
        err = ENOENT; /* the file locked was removed meanwhile: lock the one there now */
    }
    free(path);
    errno = err;
    return fd;
}

/* The count, locked while the entries change. */
typedef struct size_count {
    int fd;         /* "size", locked exclusively; -1 where it cannot be */
    bool valid;     /* it held a count (else the entries are listed before it is written) */
    uint64_t bytes;
    size_t length;  /* the file's length (up to 31 bytes) */
} size_count;

/* Locks the count and marks it stale, before a change to the entries. */
static void count_begin(const char *dir, size_count *k)
{
    *k = (size_count){lock_count(dir, LOCK_EX, true), false, 0, 0};
    char text[32] = {0};
    ssize_t n = k->fd >= 0 ? pread(k->fd, text, sizeof text - 1, 0) : -1;
    if (n <= 0)
        return;
    char *end;
    k->length = (size_t)n;
    k->bytes = strtoull(text, &end, 10);
    k->valid = text[0] >= '0' && text[0] <= '9' && *end == '\n';
    /* A count followed by anything but a newline is stale. */
    if (k->valid && pwrite(k->fd, "~", 1, end - text) != 1)
        k->valid = false;
}

static void count_change(size_count *k, uint64_t added, uint64_t removed)
{
    if (k->bytes + added < removed)
        k->valid = false; /* the count was wrong (entries removed by hand): the listing says */
    else
        k->bytes += added - removed;
}

/* After the change: evicts where the count is over the limit or was not valid (listing the
 * entries for the exact total), writes the count and unlocks it. */
static void count_end(udfkit_cache *c, size_count *k)
{
    if (!k->valid || k->bytes > c->limit)
        k->bytes = evict(c);
    char text[32];
    int len = snprintf(text, sizeof text, "%llu\n", (unsigned long long)k->bytes);
    if (pwrite(k->fd, text, (size_t)len, 0) != len || ((size_t)len < k->length && ftruncate(k->fd, len) != 0))
        (void)0; /* a count not written is left stale: the next store lists the entries */
    close(k->fd);
}

/* Puts a store's file in place; a result under the count's lock, with the count. */
static bool rename_entry(udfkit_cache *c, const char *temp, const char *path, uint64_t size)
{
    if (strcmp(c->section, "entries") != 0)
        return rename(temp, path) == 0;
    size_count k;
    count_begin(c->dir, &k);
    struct stat old;
    uint64_t replaced = lstat(path, &old) == 0 && S_ISREG(old.st_mode) ? (uint64_t)old.st_size : 0;
    bool ok = rename(temp, path) == 0;
    int err = errno;
    if (ok)
        count_change(&k, size, replaced);
    if (k.fd >= 0)
        count_end(c, &k);
    else if (ok)
        evict(c);
    errno = err;
    return ok;
}

/* Removes a corrupt entry: the file that was read (`was`), not one that another process
 * has put in its place since. */
static void remove_entry(udfkit_cache *c, const char *path, const struct stat *was)
{
    size_count k = {.fd = -1};
    if (strcmp(c->section, "entries") == 0)
        count_begin(c->dir, &k);
    struct stat now;
    if (lstat(path, &now) == 0 && now.st_dev == was->st_dev && now.st_ino == was->st_ino && unlink(path) == 0)
        count_change(&k, 0, S_ISREG(now.st_mode) ? (uint64_t)now.st_size : 0);
    if (k.fd >= 0)
        count_end(c, &k);
}

void udfkit_cache_put(udfkit_cache *c, const char *key, const udfkit_cache_entry *e)
{
    if (!c || (c->broken && !c->remote))
        return;
    udfkit_buf payload = UDFKIT_BUF_INIT, file = UDFKIT_BUF_INIT;
    for (size_t i = 0; i < e->count; i++) {
        uint32_t name_len = (uint32_t)strlen(e->blobs[i].name);
        uint64_t size = e->blobs[i].data.size;
        udfkit_buf_append(&payload, &name_len, 4);
        udfkit_buf_append(&payload, e->blobs[i].name, name_len);
        udfkit_buf_append(&payload, &size, 8);
        udfkit_buf_append(&payload, e->blobs[i].data.data, e->blobs[i].data.size);
    }
    uint64_t size = payload.size;
    XXH128_hash_t h = XXH3_128bits(payload.data, payload.size);
    udfkit_buf_append(&file, magic, 8);
    udfkit_buf_append(&file, &size, 8);
    udfkit_buf_append(&file, &h.high64, 8);
    udfkit_buf_append(&file, &h.low64, 8);
    udfkit_buf_append(&file, payload.data, payload.size);
    udfkit_buf_free(&payload);
    if (!c->broken)
        store_file(c, key, &file);
    if (c->remote)
        next_level->put(key, file.data, file.size);
    udfkit_buf_free(&file);
}

/* Writes an entry file aside and renames it into place. */
static void store_file(udfkit_cache *c, const char *key, const udfkit_buf *file)
{
    char *path = entry_path(c, key);
    char *sub = udfkit_path_dirname(path);
    udfkit_buf temp = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&temp, "%s/.%s.XXXXXX", sub, key);
    bool ok = udfkit_make_dirs(sub);
    int fd = ok ? mkstemp(temp.data) : -1;
    ok = fd >= 0;
    for (size_t at = 0; ok && at < file->size;) {
        ssize_t n = write(fd, file->data + at, file->size - at);
        if (n <= 0 && errno != EINTR)
            ok = false;
        else if (n > 0)
            at += (size_t)n;
    }
    if (fd >= 0) {
        fchmod(fd, 0644);
        ok = close(fd) == 0 && ok;
    }
    int err = errno;
    /* rename() makes the entry appear whole; a reader sees the old one or the new one. */
    bool placed = ok && rename_entry(c, temp.data, path, file->size);
    if (ok && !placed)
        err = errno;
    /* A file that cache clear removed while it was written is not stored; nothing is wrong. */
    if (!placed && !(ok && err == ENOENT)) {
        if (fd >= 0)
            unlink(temp.data);
        say_unwritable(c->dir, err);
        pthread_mutex_lock(&c->lock);
        c->broken = true;
        pthread_mutex_unlock(&c->lock);
    }
    udfkit_buf_free(&temp);
    free(sub);
    free(path);
}

static long long event_count(const char *dir, const char *what)
{
    char *path = udfkit_path_join(dir, what);
    struct stat st;
    long long n = stat(path, &st) == 0 ? (long long)st.st_size : 0;
    free(path);
    return n;
}

udfkit_rc udfkit_cache_read_stats(udfkit_cache_stats *out)
{
    memset(out, 0, sizeof *out);
    const char *off = getenv("UDFKIT_CACHE");
    char *dir = udfkit_cache_directory();
    if (!dir)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "no cache directory: set UDFKIT_CACHE_DIR or HOME");
    /* Listed under the count's lock, shared: no store, eviction or clear changes the entries
     * meanwhile, so the figure is a snapshot, exact. A cache directory that is missing holds
     * nothing; one without flock, or not to be locked by this user, gives an estimate. */
    int lock = lock_count(dir, LOCK_SH, false);
    if (lock < 0 && errno == ENOENT)
        lock = lock_count(dir, LOCK_SH, true);
    out->exact = lock >= 0 || errno == ENOENT;
    aged *entries;
    size_t n = list_entries(dir, "entries", false, &entries, &out->bytes);
    if (lock >= 0)
        close(lock);
    for (size_t i = 0; i < n; i++) {
        if (entries[i].orphan) {
            out->orphans++;
            out->orphan_bytes += entries[i].size;
        }
        free(entries[i].path);
    }
    free(entries);
    out->entries = n - out->orphans;
    out->dir = dir;
    out->off = off && strcmp(off, "0") == 0;
    out->limit = size_limit();
    out->hits = event_count(dir, "hits");
    out->misses = event_count(dir, "misses");
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_cache_clear(void)
{
    char *dir = udfkit_cache_directory();
    if (!dir)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "no cache directory: set UDFKIT_CACHE_DIR or HOME");
    /* Under the count's lock: a store renames its entry before (and it is removed here) or
     * after (its temporary file removed here, it gives up). The count is emptied first, so
     * that a clear killed midway leaves it to be recounted, and is 0 once all is removed. */
    int lock = lock_count(dir, LOCK_EX, true);
    bool emptied = lock >= 0 && ftruncate(lock, 0) == 0;
    udfkit_rc rc = UDFKIT_RC_OK;
    static const char *const sections[] = {"entries", "toolchain", "remotes", "includes", NULL};
    for (const char *const *section = sections; *section; section++) {
        aged *entries;
        uint64_t total;
        size_t n = list_entries(dir, *section, true, &entries, &total);
        for (size_t i = 0; i < n; i++) {
            if (unlink(entries[i].path) != 0 && errno != ENOENT && !rc)
                rc = udfkit_fail(UDFKIT_RC_ENV, entries[i].path, 0, "cannot be removed: %s", strerror(errno));
            free(entries[i].path);
        }
        free(entries);
    }
    if (emptied && !rc && pwrite(lock, "0\n", 2, 0) != 2)
        (void)0; /* an empty count is recounted by the next store */
    if (lock >= 0)
        close(lock);
    /* Not "size": its inode is the count's lock. */
    for (const char *const *what = (const char *const[]){"hits", "misses", NULL}; *what; what++) {
        char *path = udfkit_path_join(dir, *what);
        unlink(path);
        free(path);
    }
    free(dir);
    return rc;
}
