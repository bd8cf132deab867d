/* The files a compile's includes reach, remembered with their stat data so that a later
 * compile of the same text with the same include path knows them, and a key over their
 * bytes, without reading them again: ccache's direct mode (its "manifest"), for the cache
 * keys of cuda_build.c.
 *
 * An entry, in the cache's section "includes", is keyed by the source's name and text, the
 * -I directories, the CUDA include directory and the working directory (what decides where
 * each include is found). It holds, one line each ("udfkit-includes-2"), the directories
 * of the files read (each by its name in the one above it), each file read (its name in its
 * directory, size, mtime and ctime in ns, inode, device, whether it is CUDA's) with the hash
 * of all their bytes, and each place the walk looked in vain (udfkit_include_absent). It is
 * used only where every file still stats the same and nothing has appeared where the walk
 * found nothing. The check opens each directory once, from the one above it, and stats each
 * file by its name there (fstatat): in a new process the path walks, not the calls, cost.
 * A place found empty whose directory exists is checked by that directory's stat (mtime,
 * ctime, inode, device): a name cannot appear in a directory, or leave it, without changing
 * its mtime and ctime; any other such place is checked alone. A file or such a directory
 * modified within the second before the walk began keeps the entry from being stored (a
 * later change in the same time stamp could not be seen). CUDA's headers are checked file
 * by file like the user's (no signature of the toolkit stays right when one of its headers
 * is edited in place: that changes no directory), on an entry's first use in a process, not
 * again in that process. `udfkit cache clear` removes the entries with the results. */
#ifndef UDFKIT_INCLUDE_CHECK_H
#define UDFKIT_INCLUDE_CHECK_H

#include "cache/cache.h"
#include "frontend/includes.h"

#include <stdbool.h>

/* The key of the entry for a source: its name, its text, the -I directories and the CUDA
 * include directory (may be NULL), and the working directory. */
void udfkit_include_check_key(const char *source, const char *text, size_t text_size, const char *const *dirs,
                              size_t ndirs, const char *cuda_dir, char key[UDFKIT_CACHE_KEY_SIZE]);

/* Where `cache` holds an entry for `key` that still holds: true, with the files into *out
 * (the places looked at in vain left out: checking them is the entry's business) and the
 * hash of the files' bytes into files_key. */
bool udfkit_include_check_find(udfkit_cache *cache, const char *key, udfkit_include_set *out,
                               char files_key[UDFKIT_CACHE_KEY_SIZE]);

/* The hash of the bytes of every file of `set` (with their paths) into files_key, and, with a
 * cache, the entry for `key` stored (where no file changed within the last second).
 * `started`: CLOCK_REALTIME seconds when the walk that made `set` began. */
void udfkit_include_check_store(udfkit_cache *cache, const char *key, const udfkit_include_set *set, double started,
                                char files_key[UDFKIT_CACHE_KEY_SIZE]);

/* CLOCK_REALTIME, in seconds, as file time stamps are. */
double udfkit_include_check_now(void);

#endif
