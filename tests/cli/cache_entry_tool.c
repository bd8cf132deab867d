/* Rewrites an entry of udfkit's cache (UDFKIT_CACHE_DIR) through the cache's own API, so
 * that tests can plant a well-formed entry whose contents are hostile:
 *   cache_entry_tool names KEY               prints the entry's blob names, one a line
 *   cache_entry_tool get KEY NAME            prints blob NAME
 *   cache_entry_tool rename KEY FROM TO      renames blob FROM to TO
 *   cache_entry_tool set KEY NAME FILE       sets blob NAME to FILE's bytes
 *   cache_entry_tool frame KEY FILE          prints FILE (an entry file) framed as a remote
 *                                            cache stores it under KEY (cache/remote.h) */
#include "base/fs.h"
#include "cache/cache.h"
#include "cache/remote.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    if (strcmp(argv[1], "frame") == 0 && argc == 4) {
        udfkit_buf file = UDFKIT_BUF_INIT, entry = UDFKIT_BUF_INIT;
        if (udfkit_read_file(argv[3], &file) != UDFKIT_RC_OK) {
            fprintf(stderr, "%s\n", udfkit_diag_message());
            return 1;
        }
        udfkit_remote_frame(argv[2], file.data, file.size, &entry);
        fwrite(entry.data, 1, entry.size, stdout);
        udfkit_buf_free(&file);
        udfkit_buf_free(&entry);
        return 0;
    }
    udfkit_cache *c = udfkit_cache_open();
    udfkit_cache_entry e = {0};
    if (!c || !udfkit_cache_get(c, argv[2], &e)) {
        fprintf(stderr, "cache_entry_tool: no entry %s\n", argv[2]);
        udfkit_cache_close(c);
        return 1;
    }
    int rc = 0;
    if (strcmp(argv[1], "names") == 0) {
        for (size_t i = 0; i < e.count; i++)
            puts(e.blobs[i].name);
    } else if (strcmp(argv[1], "get") == 0 && argc == 4) {
        const udfkit_buf *b = udfkit_cache_entry_find(&e, argv[3]);
        if (b)
            fwrite(b->data, 1, b->size, stdout);
        rc = b ? 0 : 1;
    } else if (strcmp(argv[1], "rename") == 0 && argc == 5) {
        udfkit_cache_entry out = {0};
        for (size_t i = 0; i < e.count; i++)
            udfkit_cache_entry_add(&out, strcmp(e.blobs[i].name, argv[3]) == 0 ? argv[4] : e.blobs[i].name,
                                   e.blobs[i].data.data, e.blobs[i].data.size);
        udfkit_cache_put(c, argv[2], &out);
        udfkit_cache_entry_free(&out);
    } else if (strcmp(argv[1], "set") == 0 && argc == 5) {
        udfkit_buf data = UDFKIT_BUF_INIT;
        if (udfkit_read_file(argv[4], &data) != UDFKIT_RC_OK)
            return 1;
        udfkit_cache_entry out = {0};
        for (size_t i = 0; i < e.count; i++)
            if (strcmp(e.blobs[i].name, argv[3]) != 0)
                udfkit_cache_entry_add(&out, e.blobs[i].name, e.blobs[i].data.data, e.blobs[i].data.size);
        udfkit_cache_entry_add(&out, argv[3], data.data, data.size);
        udfkit_cache_put(c, argv[2], &out);
        udfkit_cache_entry_free(&out);
        udfkit_buf_free(&data);
    } else {
        rc = 2;
    }
    udfkit_cache_entry_free(&e);
    udfkit_cache_close(c);
    return rc;
}
