/* What a remote cache server answers for a key, as udfkit takes it: the input is the entry a
 * server gave (remote.h's framing around a local entry file); it is checked (magic, version,
 * key, size, XXH3-128), then parsed as the local cache parses its files and stored there. The
 * remote level here hands the input over as a server would; a bad entry is a miss. Warnings
 * go to stderr: run it with -close_fd_mask=2 (CTest does). Inputs that start with "url " are
 * an UDFKIT_REMOTE_CACHE URL with its attributes instead. */
#include "base/diag.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "fuzz_common.h"

#define KEY "0123456789abcdef0123456789abcdef"

static udfkit_cache *cache;
static const uint8_t *answer;
static size_t answer_size;

static bool server_get(const char *key, udfkit_buf *file)
{
    udfkit_buf entry = UDFKIT_BUF_INIT;
    udfkit_buf_append(&entry, answer, answer_size);
    const char *content, *why;
    size_t size;
    bool ok = udfkit_remote_unframe(key, &entry, &content, &size, &why);
    if (ok)
        udfkit_buf_append(file, content, size);
    udfkit_buf_free(&entry);
    return ok;
}

static void server_put(const char *key, const void *file, size_t size)
{
    (void)key;
    (void)file;
    (void)size;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_make_dir();
    setenv("UDFKIT_CACHE_DIR", fuzz_dir, 1);
    static const udfkit_cache_level server = {server_get, server_put};
    udfkit_cache_set_next_level(&server);
    cache = udfkit_cache_open();
    if (!cache)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 4 && memcmp(data, "url ", 4) == 0) {
        char *text = fuzz_string(data + 4, size - 4);
        udfkit_remote_config c;
        char *why = NULL;
        if (udfkit_remote_parse(text, &c, &why)) {
            fuzz_touch(c.shown, strlen(c.shown));
            udfkit_remote_config_free(&c);
        } else {
            fuzz_touch(why, strlen(why));
            free(why);
        }
        free(text);
        return 0;
    }
    answer = data;
    answer_size = size;
    udfkit_cache_entry e = {0};
    if (udfkit_cache_get(cache, KEY, &e)) {
        for (size_t i = 0; i < e.count; i++) {
            fuzz_touch(e.blobs[i].name, strlen(e.blobs[i].name));
            fuzz_touch(e.blobs[i].data.data, e.blobs[i].data.size);
        }
        udfkit_cache_entry_free(&e);
        /* A hit filled the local cache: empty it, so the next input asks the server again. */
        char entries[128];
        snprintf(entries, sizeof entries, "%s/entries", fuzz_dir);
        fuzz_remove_tree(entries);
    }
    udfkit_diag_clear();
    return 0;
}
