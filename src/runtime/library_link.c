#include "cache/cache.h"
#include "artifact/code_check.h"
#include "artifact/fatbin_read.h"
#include "driver.h"
#include "jitlink.h"
#include "package.h"
#include "ptx_jit.h"

#include <stdlib.h>
#include <string.h>

static bool is_ltoir(const unsigned char *p, size_t size)
{
    /* NVRTC's and NVVM's LTO-IR container */
    return size >= 4 && p[0] == 0xed && p[1] == 0x43 && p[2] == 0x4e && p[3] == 0x7f;
}

/* A fatbin entry's name is "<group>:<file>" (udfkit link --keep-ltoir): the group. */
static size_t group_length(const udfkit_fatbin_entry_info *e)
{
    const char *colon = e->name ? memchr(e->name, ':', e->name_size) : NULL;
    return colon ? (size_t)(colon - e->name) : 0;
}

static bool same_group(const udfkit_fatbin_entry_info *a, const udfkit_fatbin_entry_info *b)
{
    size_t la = group_length(a), lb = group_length(b);
    if (!la || !lb)
        return a == b;
    return la == lb && memcmp(a->name, b->name, la) == 0;
}

static bool usable(const udfkit_fatbin_entry_info *e, int arch)
{
    return e->kind == UDFKIT_CODE_LTOIR && udfkit_runtime_code_runs(e->target, arch);
}

/* Adds a fatbin's LTO-IR: of each group, the entry for the highest architecture the device takes. */
static udfkit_status add_fatbin(const void *data, size_t size, int arch, udfkit_jit_part **parts, size_t *n,
                                udfkit_fatbin_contents *keep)
{
    if (udfkit_fatbin_read(data, size, "part", keep) != UDFKIT_RC_OK) {
        udfkit_status s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "a fatbin part is malformed: %s", udfkit_diag_message());
        udfkit_diag_clear();
        return s;
    }
    size_t added = 0;
    for (size_t i = 0; i < keep->count; i++) {
        const udfkit_fatbin_entry_info *e = &keep->entries[i];
        if (!usable(e, arch) || e->compression != UDFKIT_COMPRESSION_NONE)
            continue;
        bool better_exists = false;
        for (size_t k = 0; k < keep->count && !better_exists; k++) {
            const udfkit_fatbin_entry_info *o = &keep->entries[k];
            better_exists = k != i && usable(o, arch) && same_group(e, o) && o->target.number > e->target.number;
        }
        if (better_exists)
            continue;
        char why[256];
        if (!udfkit_ltoir_check(e->payload, e->payload_size, why, sizeof why))
            return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "udfkit_library_link: a fatbin part's entry %zu %s", i,
                                       why);
        udfkit_jit_part *grown = realloc(*parts, (*n + 1) * sizeof *grown);
        if (!grown)
            return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_link: out of memory");
        *parts = grown;
        (*parts)[(*n)++] = (udfkit_jit_part){UDFKIT_JIT_LTOIR, e->payload, e->payload_size};
        added++;
    }
    if (!added)
        return udfkit_runtime_fail(UDFKIT_ERROR_NO_BINARY,
                                   "a fatbin part holds no LTO-IR for sm_%d: build it with add_jit_library(... KEEP_LTOIR) "
                                   "or udfkit link --keep-ltoir for this architecture or a lower one",
                                   arch);
    return UDFKIT_OK;
}

udfkit_status udfkit_library_link(const udfkit_image *images, size_t count, udfkit_library **out)
{
    if (!images || !count || !out)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_library_link: no parts given");
    *out = NULL;
    const udfkit_driver *d;
    udfkit_status s = udfkit_driver_enter(&d);
    int arch = 0;
    if (!s)
        s = udfkit_runtime_device_arch(d, &arch);
    if (s)
        return s;

    udfkit_jit_part *parts = NULL;
    size_t n = 0;
    udfkit_fatbin_contents *fatbins = calloc(count, sizeof *fatbins);
    for (size_t i = 0; i < count && !s; i++) {
        const unsigned char *p = images[i].data;
        size_t size = images[i].size;
        udfkit_jit_input kind;
        if (!p || !size) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_library_link: part %zu is empty", i);
            break;
        }
        if (udfkit_fatbin_sniff(p, size)) {
            s = add_fatbin(p, size, arch, &parts, &n, &fatbins[i]);
            continue;
        }
        char why[256];
        if (is_ltoir(p, size) && !udfkit_ltoir_check(p, size, why, sizeof why)) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "udfkit_library_link: part %zu %s", i, why);
            break;
        }
        if (is_ltoir(p, size))
            kind = UDFKIT_JIT_LTOIR;
        else if (size > 4 && memcmp(p, "\177ELF", 4) == 0)
            kind = UDFKIT_JIT_CUBIN;
        else if (memchr(p, '\0', size < 4096 ? size : 4096) == NULL || p[size - 1] == '\0')
            kind = UDFKIT_JIT_PTX;
        else {
            s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "udfkit_library_link: part %zu is not LTO-IR, PTX, a cubin or a fatbin", i);
            break;
        }
        udfkit_jit_part *grown = realloc(parts, (n + 1) * sizeof *grown);
        if (!grown) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_link: out of memory");
            break;
        }
        parts = grown;
        parts[n++] = (udfkit_jit_part){kind, p, size};
    }

    /* The linked cubin depends on the parts and the device's architecture. It is the same
     * code whichever nvJitLink 13 links it, so a hit needs no nvJitLink loaded (which takes
     * longer than loading the cubin). */
    udfkit_buf cubin = UDFKIT_BUF_INIT;
    udfkit_cache *cache = s ? NULL : udfkit_cache_open();
    char key[UDFKIT_CACHE_KEY_SIZE];
    bool cached = false;
    if (cache) {
        udfkit_hasher *h = udfkit_hasher_new("load-time-link-2");
        udfkit_hasher_add(h, &arch, sizeof arch);
        udfkit_hasher_add_str(h, "nvJitLink 13");
        for (size_t i = 0; i < n; i++) {
            udfkit_hasher_add(h, &parts[i].kind, sizeof parts[i].kind);
            udfkit_hasher_add(h, parts[i].data, parts[i].size);
        }
        udfkit_hasher_finish(h, key);
        cached = udfkit_jitlink_cached(cache, key, &cubin);
    }
    if (!s && !cached && !(s = udfkit_jitlink_cubin(parts, n, arch, NULL, 0, NULL, &cubin)))
        udfkit_jitlink_keep(cache, key, &cubin);
    if (!s)
        s = udfkit_library_load(cubin.data, cubin.size, out);
    udfkit_cache_close(cache);
    udfkit_diag_clear();
    udfkit_buf_free(&cubin);
    for (size_t i = 0; i < count; i++)
        udfkit_fatbin_contents_free(&fatbins[i]);
    free(fatbins);
    free(parts);
    return s;
}
