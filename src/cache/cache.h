/* The on-disk cache of compile and link results, keyed by a strong hash of every input's
 * bytes, the options and the toolchain versions (like ccache's direct mode: a hit runs
 * neither NVRTC nor Python nor nvJitLink).
 *
 * Location: UDFKIT_CACHE_DIR, else $XDG_CACHE_HOME/udfkit, else ~/.cache/udfkit.
 * UDFKIT_CACHE=0 turns it off; UDFKIT_CACHE_SIZE (bytes, K/M/G suffixes) bounds it, default
 * 2G, least recently used entries evicted first. Entries appear atomically (written aside,
 * renamed), are verified on read (a corrupt one is removed with a warning and rebuilt), and
 * a cache that cannot be written degrades to no cache with one warning; so does one that
 * other users could plant entries in (owned by another user than the process's or root, or
 * writable by everyone; writable by its group: used, with a warning). The entries' total
 * size is counted in the file "size": every rename into place, eviction and removal is made
 * under a lock on that file together with the count, so the count is exact whatever number
 * of processes store, look up and evict at once (the invariant is in cache.c). */
#ifndef UDFKIT_CACHE_H
#define UDFKIT_CACHE_H

#include "base/buf.h"
#include "base/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UDFKIT_CACHE_KEY_SIZE 33

/* Building a key: everything that can change a result goes in, each part length-prefixed. */
typedef struct udfkit_hasher udfkit_hasher;
udfkit_hasher *udfkit_hasher_new(const char *purpose);
void udfkit_hasher_add(udfkit_hasher *h, const void *data, size_t size);
void udfkit_hasher_add_str(udfkit_hasher *h, const char *s);
/* Adds a file's path and bytes; returns false where it cannot be read. */
bool udfkit_hasher_add_file(udfkit_hasher *h, const char *path);
void udfkit_hasher_finish(udfkit_hasher *h, char key[UDFKIT_CACHE_KEY_SIZE]); /* and frees */

/* One result: named blobs. */
typedef struct udfkit_cache_blob {
    char *name;
    udfkit_buf data;
} udfkit_cache_blob;

typedef struct udfkit_cache_entry {
    udfkit_cache_blob *blobs;
    size_t count;
    bool from_remote; /* udfkit_cache_get found it behind the local cache, in a remote */
} udfkit_cache_entry;

void udfkit_cache_entry_add(udfkit_cache_entry *e, const char *name, const void *data, size_t size);
const udfkit_buf *udfkit_cache_entry_find(const udfkit_cache_entry *e, const char *name);
void udfkit_cache_entry_free(udfkit_cache_entry *e);

typedef struct udfkit_cache udfkit_cache;

/* NULL where the cache is off or unusable (said once, as a warning). Thread-safe. */
udfkit_cache *udfkit_cache_open(void);
/* The same store for facts that are not results (toolchain.c's versions per library
 * file): kept apart, so they are neither counted nor evicted with results. */
udfkit_cache *udfkit_cache_open_section(const char *section);
void udfkit_cache_close(udfkit_cache *c);
bool udfkit_cache_get(udfkit_cache *c, const char *key, udfkit_cache_entry *out);
/* Counts a hit or a miss of the local level for `udfkit cache stats`, once the caller knows
 * which it was: `hit` is whether the entry udfkit_cache_get gave (`e`) was used; one that
 * came from a remote counts as a local miss (the remote counts its own hits). */
void udfkit_cache_record(udfkit_cache *c, const udfkit_cache_entry *e, bool hit);
void udfkit_cache_put(udfkit_cache *c, const char *key, const udfkit_cache_entry *e);

/* A level behind the local store of results (section "entries"): cache/remote.c puts the
 * remote caches there in the tool; the runtime links no remote. Each function takes and
 * gives the bytes of an entry file as the local store writes them. */
typedef struct udfkit_cache_level {
    bool (*get)(const char *key, udfkit_buf *file); /* after a local miss */
    void (*put)(const char *key, const void *file, size_t size); /* a result built after a miss */
} udfkit_cache_level;
void udfkit_cache_set_next_level(const udfkit_cache_level *level);

/* The local cache's directory (malloc'd), or NULL where none can be named. */
char *udfkit_cache_directory(void);

/* `udfkit cache stats|clear` */
typedef struct udfkit_cache_stats {
    char *dir;
    bool off; /* UDFKIT_CACHE=0 */
    size_t entries, orphans;
    uint64_t bytes, orphan_bytes, limit;
    long long hits, misses;
    bool exact; /* listed under the count's lock, as no store changes it (else an estimate) */
} udfkit_cache_stats;
udfkit_rc udfkit_cache_read_stats(udfkit_cache_stats *out); /* free out->dir */
udfkit_rc udfkit_cache_clear(void);

#endif
