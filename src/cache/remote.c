/* The remote levels behind the local cache (remote.h): each remote's state for the process,
 * the framing and checking of its entries, and its counts for `udfkit cache stats`. */
#include "cache/remote.h"

#include "base/fs.h"
#include "base/strset.h"
#include "cache/cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <xxhash.h>

/* ---- entries ---- */

/* "UDFKITR1", u32 format version, u32 flags (0), the 32-character key, u64 content size,
 * XXH3-128 of the content (high, low); all little-endian. */
static const char remote_magic[8] = {'U', 'D', 'F', 'K', 'I', 'T', 'R', '1'};
#define REMOTE_FORMAT 1u

static void put_le(unsigned char *at, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        at[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *at, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | at[i];
    return v;
}

void udfkit_remote_frame(const char *key, const void *content, size_t size, udfkit_buf *out)
{
    unsigned char h[UDFKIT_REMOTE_HEADER_SIZE] = {0};
    memcpy(h, remote_magic, 8);
    put_le(h + 8, REMOTE_FORMAT, 4);
    memcpy(h + 16, key, 32);
    put_le(h + 48, size, 8);
    XXH128_hash_t sum = XXH3_128bits(content, size);
    put_le(h + 56, sum.high64, 8);
    put_le(h + 64, sum.low64, 8);
    udfkit_buf_append(out, h, sizeof h);
    udfkit_buf_append(out, content, size);
}

bool udfkit_remote_unframe(const char *key, const udfkit_buf *entry, const char **content, size_t *size,
                           const char **why)
{
    const unsigned char *h = (const unsigned char *)entry->data;
    if (entry->size < UDFKIT_REMOTE_HEADER_SIZE || memcmp(h, remote_magic, 8) != 0)
        return *why = "not a udfkit entry", false;
    if (get_le(h + 8, 4) != REMOTE_FORMAT)
        return *why = "of another format version", false;
    if (memcmp(h + 16, key, 32) != 0)
        return *why = "another key's entry", false;
    uint64_t n = get_le(h + 48, 8);
    if (n != entry->size - UDFKIT_REMOTE_HEADER_SIZE)
        return *why = n > entry->size - UDFKIT_REMOTE_HEADER_SIZE ? "truncated" : "longer than its header says", false;
    XXH128_hash_t want = {get_le(h + 64, 8), get_le(h + 56, 8)};
    if (!XXH128_isEqual(want, XXH3_128bits(h + UDFKIT_REMOTE_HEADER_SIZE, n)))
        return *why = "corrupt (its checksum does not match)", false;
    *content = entry->data + UDFKIT_REMOTE_HEADER_SIZE;
    *size = (size_t)n;
    return true;
}

/* ---- the remotes of this process ---- */

enum { HITS, MISSES, STORES, ERRORS, BYTES_READ, BYTES_WRITTEN, NCOUNTS };
static const char *const count_names[NCOUNTS] = {"hits", "misses", "stores", "errors", "bytes_read", "bytes_written"};

typedef struct remote {
    udfkit_remote_config cfg;
    const udfkit_remote_backend *backend;
    pthread_mutex_t lock; /* one request at a time on the connection */
    udfkit_remote_conn *conn;
    atomic_bool off;      /* failed: not asked again in this process */
    udfkit_strset rebuilt; /* keys whose entry here was bad: stored again without asking */
    atomic_llong counts[NCOUNTS];
} remote;

static remote *remotes;
static size_t nremotes;

static const char *kind_name(const remote *r)
{
    return r->cfg.kind == UDFKIT_REMOTE_HTTP ? "HTTP" : "Redis";
}

/* The first failure of a remote: one warning, then it is off for the process. Called under
 * r->lock, so that no request waiting for the connection starts after it. */
static void turn_off(remote *r, const char *what, char *why)
{
    bool was = atomic_exchange(&r->off, true);
    atomic_fetch_add(&r->counts[ERRORS], 1);
    if (!was)
        udfkit_warn("remote cache %s: %s failed: %s; it is not used for the rest of this run", r->cfg.shown, what,
                    why ? why : "no reason given");
    free(why);
}

/* Connects on first use; false (and off) where that fails. Called under r->lock. */
static bool connected(remote *r)
{
    if (r->conn)
        return true;
    char *why = NULL;
    double start = udfkit_seconds();
    r->conn = r->backend->connect(&r->cfg, &why);
    udfkit_note("remote cache %s: %s%s: connect: %s (%.1f ms)", r->cfg.shown, kind_name(r),
                r->cfg.read_only ? ", read-only" : "", r->conn ? "ok" : "failed", (udfkit_seconds() - start) * 1e3);
    if (!r->conn)
        turn_off(r, "connecting", why);
    return r->conn != NULL;
}

/* A fetched entry: checked, counted, and on success its content appended to `file`. */
static bool take_entry(remote *r, const char *key, const udfkit_buf *entry, double ms, udfkit_buf *file)
{
    const char *content, *fault;
    size_t size;
    atomic_fetch_add(&r->counts[BYTES_READ], (long long)entry->size);
    if (!udfkit_remote_unframe(key, entry, &content, &size, &fault)) {
        atomic_fetch_add(&r->counts[ERRORS], 1);
        atomic_fetch_add(&r->counts[MISSES], 1);
        pthread_mutex_lock(&r->lock);
        udfkit_strset_add(&r->rebuilt, key);
        pthread_mutex_unlock(&r->lock);
        udfkit_warn("remote cache %s: the entry %s is %s; it is a miss, rebuilt and stored again", r->cfg.shown, key,
                    fault);
        return false;
    }
    atomic_fetch_add(&r->counts[HITS], 1);
    udfkit_note("remote cache %s: GET %s: hit, %zu bytes (%.1f ms)", r->cfg.shown, key, entry->size, ms);
    udfkit_buf_append(file, content, size);
    return true;
}

/* Asks one remote; true with the entry file's bytes in `file` on a verified hit. */
static bool get_one(remote *r, const char *key, udfkit_buf *file)
{
    udfkit_buf entry = UDFKIT_BUF_INIT;
    char *why = NULL;
    double start = udfkit_seconds();
    pthread_mutex_lock(&r->lock);
    bool asked = !atomic_load(&r->off) && connected(r);
    udfkit_remote_answer a = asked ? r->backend->get(r->conn, key, &entry, &why) : UDFKIT_REMOTE_FAILED;
    if (asked && a == UDFKIT_REMOTE_FAILED)
        turn_off(r, "GET", why); /* before another thread's request can start */
    pthread_mutex_unlock(&r->lock);
    double ms = (udfkit_seconds() - start) * 1e3;
    bool hit = false;
    if (a == UDFKIT_REMOTE_FOUND) {
        hit = take_entry(r, key, &entry, ms, file);
    } else if (a == UDFKIT_REMOTE_ABSENT) {
        atomic_fetch_add(&r->counts[MISSES], 1);
        udfkit_note("remote cache %s: GET %s: miss (%.1f ms)", r->cfg.shown, key, ms);
    }
    udfkit_buf_free(&entry);
    return hit;
}

static bool remotes_get(const char *key, udfkit_buf *file)
{
    for (size_t i = 0; i < nremotes; i++)
        if (!atomic_load(&remotes[i].off) && get_one(&remotes[i], key, file))
            return true;
    return false;
}

static void put_one(remote *r, const char *key, const udfkit_buf *entry)
{
    char *why = NULL;
    double start = udfkit_seconds();
    pthread_mutex_lock(&r->lock);
    bool again = udfkit_strset_has(&r->rebuilt, key);
    udfkit_remote_answer a = atomic_load(&r->off) || !connected(r)
                                 ? UDFKIT_REMOTE_ABSENT
                                 : r->backend->put(r->conn, key, entry->data, entry->size, again, &why);
    if (a == UDFKIT_REMOTE_FAILED)
        turn_off(r, "PUT", why);
    pthread_mutex_unlock(&r->lock);
    double ms = (udfkit_seconds() - start) * 1e3;
    if (a == UDFKIT_REMOTE_FOUND) {
        atomic_fetch_add(&r->counts[STORES], 1);
        atomic_fetch_add(&r->counts[BYTES_WRITTEN], (long long)entry->size);
        udfkit_note("remote cache %s: PUT %s: stored, %zu bytes (%.1f ms)", r->cfg.shown, key, entry->size, ms);
    } else if (!atomic_load(&r->off)) {
        udfkit_note("remote cache %s: PUT %s: there already (%.1f ms)", r->cfg.shown, key, ms);
    }
}

static void remotes_put(const char *key, const void *file, size_t size)
{
    udfkit_buf entry = UDFKIT_BUF_INIT;
    for (size_t i = 0; i < nremotes; i++) {
        remote *r = &remotes[i];
        if (r->cfg.read_only || atomic_load(&r->off))
            continue;
        if (size + UDFKIT_REMOTE_HEADER_SIZE > r->cfg.max_entry) {
            udfkit_note("remote cache %s: %s not stored: %zu bytes, over max-entry-size", r->cfg.shown, key, size);
            continue;
        }
        if (!entry.size)
            udfkit_remote_frame(key, file, size, &entry);
        put_one(r, key, &entry);
    }
    udfkit_buf_free(&entry);
}

/* ---- counts, kept in the local cache directory ---- */

static char *stats_path(const char *dir, const char *shown)
{
    udfkit_buf b = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&b, "%s/remotes/stats/%016llx", dir, (unsigned long long)XXH3_64bits(shown, strlen(shown)));
    return udfkit_buf_detach(&b);
}

/* "url <shown>\n" then "<count> <value>\n" lines. */
static bool parse_stats(const char *text, udfkit_remote_stats *s)
{
    const char *nl = strchr(text, '\n');
    if (strncmp(text, "url ", 4) != 0 || !nl)
        return false;
    s->url = strndup(text + 4, (size_t)(nl - text - 4));
    long long *fields[NCOUNTS] = {&s->hits, &s->misses, &s->stores, &s->errors, &s->bytes_read, &s->bytes_written};
    for (const char *line = nl + 1; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
        for (int i = 0; i < NCOUNTS; i++) {
            size_t len = strlen(count_names[i]);
            if (strncmp(line, count_names[i], len) == 0 && line[len] == ' ')
                *fields[i] = strtoll(line + len + 1, NULL, 10);
        }
    return true;
}

/* Adds this process's counts to the file, under a lock. */
static void flush_one(const char *dir, remote *r)
{
    long long add[NCOUNTS];
    bool any = false;
    for (int i = 0; i < NCOUNTS; i++)
        any |= (add[i] = atomic_exchange(&r->counts[i], 0)) != 0;
    char *path = stats_path(dir, r->cfg.shown);
    char *sub = udfkit_path_dirname(path);
    int fd = any && udfkit_make_dirs(sub) ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
    if (fd >= 0 && flock(fd, LOCK_EX) == 0) {
        char text[1024] = {0};
        ssize_t n = pread(fd, text, sizeof text - 1, 0);
        udfkit_remote_stats s = {0};
        if (n <= 0 || !parse_stats(text, &s))
            memset(&s, 0, sizeof s);
        long long totals[NCOUNTS] = {s.hits, s.misses, s.stores, s.errors, s.bytes_read, s.bytes_written};
        udfkit_buf b = UDFKIT_BUF_INIT;
        udfkit_buf_printf(&b, "url %s\n", r->cfg.shown);
        for (int i = 0; i < NCOUNTS; i++)
            udfkit_buf_printf(&b, "%s %lld\n", count_names[i], totals[i] + add[i]);
        if (pwrite(fd, b.data, b.size, 0) != (ssize_t)b.size || ftruncate(fd, (off_t)b.size) != 0)
            (void)0; /* counts are a report, never a reason to fail */
        udfkit_buf_free(&b);
        free(s.url);
    }
    if (fd >= 0)
        close(fd);
    free(sub);
    free(path);
}

static void at_exit(void)
{
    char *dir = udfkit_cache_directory();
    for (size_t i = 0; i < nremotes; i++) {
        if (dir)
            flush_one(dir, &remotes[i]);
        pthread_mutex_lock(&remotes[i].lock);
        if (remotes[i].conn)
            remotes[i].backend->close(remotes[i].conn);
        remotes[i].conn = NULL;
        pthread_mutex_unlock(&remotes[i].lock);
    }
    free(dir);
}

/* Each URL of UDFKIT_REMOTE_CACHE that parses; a warning for each one that does not. */
static size_t configured(udfkit_remote_config **out)
{
    const char *env = getenv("UDFKIT_REMOTE_CACHE");
    char *copy = strdup(env ? env : ""), *save = NULL;
    size_t n = 0, index = 0;
    *out = NULL;
    for (char *url = strtok_r(copy, " \t\n", &save); url; url = strtok_r(NULL, " \t\n", &save)) {
        char *why;
        udfkit_remote_config c;
        index++;
        if (!udfkit_remote_parse(url, &c, &why)) {
            udfkit_warn("UDFKIT_REMOTE_CACHE, URL %zu: %s; it is not used", index, why);
            free(why);
            continue;
        }
        *out = realloc(*out, (n + 1) * sizeof **out);
        (*out)[n++] = c;
    }
    free(copy);
    return n;
}

static void install_once(void)
{
    const char *off = getenv("UDFKIT_CACHE");
    if (off && (strcmp(off, "0") == 0 || strcmp(off, "off") == 0 || strcmp(off, "false") == 0))
        return;
    udfkit_remote_config *configs;
    size_t n = configured(&configs);
    if (!n)
        return;
    remotes = calloc(n, sizeof *remotes);
    for (size_t i = 0; i < n; i++) {
        remotes[i].cfg = configs[i];
        remotes[i].backend = configs[i].kind == UDFKIT_REMOTE_HTTP ? &udfkit_remote_http : &udfkit_remote_redis;
        pthread_mutex_init(&remotes[i].lock, NULL);
    }
    free(configs);
    nremotes = n;
    static const udfkit_cache_level level = {remotes_get, remotes_put};
    udfkit_cache_set_next_level(&level);
    atexit(at_exit);
}

void udfkit_remote_install(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_once);
}

/* ---- `udfkit cache stats` ---- */

static udfkit_remote_stats *find_or_add(udfkit_remote_stats **all, size_t *n, const char *url)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*all)[i].url, url) == 0)
            return &(*all)[i];
    *all = realloc(*all, (*n + 1) * sizeof **all);
    (*all)[*n] = (udfkit_remote_stats){.url = strdup(url)};
    return &(*all)[(*n)++];
}

size_t udfkit_remote_read_stats(const char *dir, udfkit_remote_stats **out)
{
    size_t n = 0;
    *out = NULL;
    udfkit_remote_config *configs;
    size_t nc = configured(&configs);
    for (size_t i = 0; i < nc; i++) {
        udfkit_remote_stats *s = find_or_add(out, &n, configs[i].shown);
        s->configured = true;
        s->read_only = configs[i].read_only;
        udfkit_remote_config_free(&configs[i]);
    }
    free(configs);
    char *sub = udfkit_path_join(dir, "remotes/stats");
    DIR *d = opendir(sub);
    for (struct dirent *e; d && (e = readdir(d));) {
        char *path = udfkit_path_join(sub, e->d_name);
        udfkit_buf text = UDFKIT_BUF_INIT;
        udfkit_remote_stats s = {0};
        if (e->d_name[0] != '.' && udfkit_read_file(path, &text) == UDFKIT_RC_OK && parse_stats(text.data, &s)) {
            udfkit_remote_stats *t = find_or_add(out, &n, s.url);
            t->hits = s.hits, t->misses = s.misses, t->stores = s.stores, t->errors = s.errors;
            t->bytes_read = s.bytes_read, t->bytes_written = s.bytes_written;
        }
        udfkit_diag_clear();
        free(s.url);
        udfkit_buf_free(&text);
        free(path);
    }
    if (d)
        closedir(d);
    free(sub);
    return n;
}

void udfkit_remote_stats_free(udfkit_remote_stats *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i].url);
    free(s);
}

/* ---- `udfkit doctor` ---- */

size_t udfkit_remote_probe_all(udfkit_remote_probe **out)
{
    udfkit_remote_config *configs;
    size_t n = configured(&configs);
    *out = n ? calloc(n, sizeof **out) : NULL;
    for (size_t i = 0; i < n; i++) {
        const udfkit_remote_backend *backend =
            configs[i].kind == UDFKIT_REMOTE_HTTP ? &udfkit_remote_http : &udfkit_remote_redis;
        udfkit_remote_probe *p = &(*out)[i];
        p->url = strdup(configs[i].shown);
        double start = udfkit_seconds();
        udfkit_remote_conn *conn = backend->connect(&configs[i], &p->why);
        if (conn) {
            /* A lookup of a key no entry has: a miss is the answer of a server that works. */
            udfkit_buf entry = UDFKIT_BUF_INIT;
            p->reachable = backend->get(conn, "00000000000000000000000000000000", &entry, &p->why) !=
                           UDFKIT_REMOTE_FAILED;
            udfkit_buf_free(&entry);
            backend->close(conn);
        }
        p->ms = (udfkit_seconds() - start) * 1e3;
        udfkit_remote_config_free(&configs[i]);
    }
    free(configs);
    return n;
}

void udfkit_remote_probe_free(udfkit_remote_probe *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(p[i].url);
        free(p[i].why);
    }
    free(p);
}
