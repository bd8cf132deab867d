/* A cache entry file as udfkit reads it back: planted where udfkit_cache_get looks for one
 * key (UDFKIT_CACHE_DIR points into the scratch directory), then read; a bad one is a miss.
 * Every corrupt entry is warned about on stderr: run it with -close_fd_mask=2 (CTest does). */
#include "base/diag.h"
#include "cache/cache.h"
#include "fuzz_common.h"

#include <sys/stat.h>

#define KEY "0123456789abcdef0123456789abcdef"

static udfkit_cache *cache;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_make_dir();
    setenv("UDFKIT_CACHE_DIR", fuzz_dir, 1);
    cache = udfkit_cache_open();
    char path[4096];
    snprintf(path, sizeof path, "%s/entries/01", fuzz_dir);
    if (!cache || mkdir(path, 0700) != 0)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write("entries/01/" KEY ".entry", data, size);
    udfkit_cache_entry e = {0};
    if (udfkit_cache_get(cache, KEY, &e)) {
        for (size_t i = 0; i < e.count; i++) {
            fuzz_touch(e.blobs[i].name, strlen(e.blobs[i].name));
            fuzz_touch(e.blobs[i].data.data, e.blobs[i].data.size);
        }
        udfkit_cache_entry_free(&e);
    }
    udfkit_diag_clear();
    return 0;
}
