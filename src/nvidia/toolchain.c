#include "nvidia/toolchain.h"

#include "nvidia/nvfatbin_wrap.h"
#include "nvidia/nvjitlink_wrap.h"
#include "nvidia/nvrtc_wrap.h"
#include "nvptxcompiler_version.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- facts about each part, remembered per library file ----
 *
 * Asking NVRTC for its version means loading it (about 10 ms of mapping and initializing).
 * The answers depend only on the library file, so they are kept in udfkit's cache under
 * the file's stamp (real path, size, modification time), and in memory for the process. */

typedef struct part_facts {
    bool known;
    udfkit_version version;
    int *archs; /* NVRTC's real architectures */
    size_t narchs;
    char *stamp; /* the library file's stamp; NULL where it has none */
} part_facts;

static struct {
    pthread_mutex_t lock;
    part_facts parts[UDFKIT_PART_COUNT];
} facts = {.lock = PTHREAD_MUTEX_INITIALIZER};

static udfkit_rc ask_part(udfkit_cuda_part part, part_facts *f)
{
    switch (part) {
    case UDFKIT_PART_NVRTC:
        return udfkit_nvrtc_query(&f->version.major, &f->version.minor, &f->archs, &f->narchs);
    case UDFKIT_PART_NVJITLINK:
        return udfkit_jitlink_version(&f->version.major, &f->version.minor);
    case UDFKIT_PART_NVFATBIN:
        return udfkit_fatbin_version(&f->version.major, &f->version.minor);
    case UDFKIT_PART_COUNT:
        break;
    }
    return UDFKIT_RC_INTERNAL;
}

/* "13 0\n75 80 86 ..." */
static void facts_text(const part_facts *f, udfkit_buf *out)
{
    udfkit_buf_printf(out, "%d %d\n", f->version.major, f->version.minor);
    for (size_t i = 0; i < f->narchs; i++)
        udfkit_buf_printf(out, "%s%d", i ? " " : "", f->archs[i]);
}

static bool parse_facts(const udfkit_buf *text, part_facts *f)
{
    char *copy = strndup(text->data ? text->data : "", text->size);
    int used = 0;
    bool ok = copy && sscanf(copy, "%d %d%n", &f->version.major, &f->version.minor, &used) == 2;
    for (char *p = copy + (ok ? used : 0), *end; ok && *p; p = end) {
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        int *grown = realloc(f->archs, (f->narchs + 1) * sizeof *grown);
        if (!grown) {
            ok = false;
            break;
        }
        f->archs = grown;
        f->archs[f->narchs++] = (int)v;
    }
    free(copy);
    return ok && f->version.major > 0;
}

static udfkit_rc part_facts_get(udfkit_cuda_part part, const part_facts **out)
{
    if ((unsigned)part >= UDFKIT_PART_COUNT)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "no such CUDA part: %d", (int)part);
    pthread_mutex_lock(&facts.lock);
    part_facts *f = facts.parts + (size_t)part;
    udfkit_rc rc = UDFKIT_RC_OK;
    if (!f->known) {
        char stamp[4200], key[UDFKIT_CACHE_KEY_SIZE];
        bool stamped = udfkit_cuda_part_stamp(part, stamp, sizeof stamp);
        udfkit_cache *cache = stamped ? udfkit_cache_open_section("toolchain") : NULL;
        udfkit_cache_entry hit = {0};
        const udfkit_buf *text;
        if (cache) {
            udfkit_hasher *h = udfkit_hasher_new("toolchain-facts");
            udfkit_hasher_add_str(h, udfkit_cuda_part_name(part));
            udfkit_hasher_add_str(h, stamp);
            udfkit_hasher_finish(h, key);
        }
        if (cache && udfkit_cache_get(cache, key, &hit) && (text = udfkit_cache_entry_find(&hit, "facts")) &&
            parse_facts(text, f)) {
            f->known = true;
        } else {
            free(f->archs);
            free(f->stamp);
            *f = (part_facts){0};
            rc = ask_part(part, f);
            f->known = rc == UDFKIT_RC_OK;
            if (f->known && cache && f->version.major > 0) {
                udfkit_buf t = UDFKIT_BUF_INIT;
                facts_text(f, &t);
                udfkit_cache_entry entry = {0};
                udfkit_cache_entry_add(&entry, "facts", t.data, t.size);
                udfkit_cache_put(cache, key, &entry);
                udfkit_cache_entry_free(&entry);
                udfkit_buf_free(&t);
            }
        }
        if (f->known && stamped)
            f->stamp = strdup(stamp);
        udfkit_cache_entry_free(&hit);
        udfkit_cache_close(cache);
    }
    pthread_mutex_unlock(&facts.lock);
    *out = f;
    return rc;
}

udfkit_rc udfkit_toolchain_query(udfkit_toolchain *tc)
{
    const part_facts *nvrtc, *nvjitlink, *nvfatbin;
    udfkit_rc rc;
    if ((rc = part_facts_get(UDFKIT_PART_NVRTC, &nvrtc)) || (rc = part_facts_get(UDFKIT_PART_NVJITLINK, &nvjitlink)) ||
        (rc = part_facts_get(UDFKIT_PART_NVFATBIN, &nvfatbin)))
        return rc;
    tc->nvrtc = nvrtc->version;
    tc->nvjitlink = nvjitlink->version;
    tc->nvfatbin = nvfatbin->version;
    /* The tool never runs nvPTXCompiler; the runtime links it statically, and this is the
     * version it links (read when udfkit was built). */
    tc->nvptxcompiler = udfkit_toolchain_nvptxcompiler();
    return UDFKIT_RC_OK;
}

udfkit_version udfkit_toolchain_nvptxcompiler(void)
{
    return (udfkit_version){UDFKIT_NVPTXCOMPILER_MAJOR, UDFKIT_NVPTXCOMPILER_MINOR};
}

udfkit_rc udfkit_toolchain_part_version(udfkit_cuda_part part, udfkit_version *out)
{
    const part_facts *f;
    udfkit_rc rc = part_facts_get(part, &f);
    if (!rc)
        *out = f->version;
    return rc;
}

udfkit_rc udfkit_toolchain_nvrtc_archs(const int **archs, size_t *count)
{
    const part_facts *f;
    udfkit_rc rc = part_facts_get(UDFKIT_PART_NVRTC, &f);
    if (rc)
        return rc;
    if (!f->narchs)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "NVRTC does not report its architectures; %s",
                           UDFKIT_FIX_TOOLCHAIN_HINT);
    *archs = f->archs;
    *count = f->narchs;
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_toolchain_parse_archs(const char *text, udfkit_target_list *out)
{
    const int *supported = NULL;
    size_t nsupported = 0;
    udfkit_rc rc = udfkit_toolchain_nvrtc_archs(&supported, &nsupported);
    if (!rc)
        rc = udfkit_arch_parse(text ? text : UDFKIT_DEFAULT_ARCHITECTURES, supported, nsupported, out);
    return rc;
}

/* The stamp comes from the facts, found once per process: keys are made per job. */
void udfkit_toolchain_key(udfkit_hasher *h, udfkit_cuda_part part)
{
    const part_facts *f;
    if (part_facts_get(part, &f) == UDFKIT_RC_OK) {
        udfkit_hasher_add(h, &f->version, sizeof f->version);
        udfkit_hasher_add_str(h, f->stamp);
        return;
    }
    udfkit_diag_clear();
    char stamp[4200];
    udfkit_hasher_add_str(h, udfkit_cuda_part_stamp(part, stamp, sizeof stamp) ? stamp : "");
}

int udfkit_version_compare(udfkit_version a, udfkit_version b)
{
    if (a.major != b.major)
        return a.major < b.major ? -1 : 1;
    if (a.minor != b.minor)
        return a.minor < b.minor ? -1 : 1;
    return 0;
}

bool udfkit_version_parse(const char *text, udfkit_version *out)
{
    return text && sscanf(text, "%d.%d", &out->major, &out->minor) == 2;
}

udfkit_rc udfkit_toolchain_check_producer(const udfkit_toolchain *tc, const char *producer, udfkit_version v,
                                          const char *what)
{
    if (udfkit_version_compare(tc->nvjitlink, v) >= 0)
        return UDFKIT_RC_OK;
    return udfkit_fail(UDFKIT_RC_ENV, what, 0,
                       "made by %s %d.%d, newer than this nvJitLink %d.%d, which cannot link it; %s, "
                       "then rebuild it",
                       producer, v.major, v.minor, tc->nvjitlink.major, tc->nvjitlink.minor, UDFKIT_FIX_TOOLCHAIN_HINT);
}

udfkit_rc udfkit_toolchain_check(const udfkit_toolchain *tc)
{
    const struct {
        const char *name;
        udfkit_version v;
    } parts[] = {{"NVRTC", tc->nvrtc}, {"nvJitLink", tc->nvjitlink}, {"nvPTXCompiler", tc->nvptxcompiler},
                 {"nvFatbin", tc->nvfatbin}};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (parts[i].v.major == 0)
            return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "%s does not report its version; %s", parts[i].name,
                               UDFKIT_FIX_TOOLCHAIN_HINT);
    for (size_t i = 1; i < sizeof parts / sizeof *parts; i++)
        if (parts[i].v.major != parts[0].v.major)
            return udfkit_fail(UDFKIT_RC_ENV, NULL, 0,
                               "%s %d.%d and %s %d.%d are from different CUDA major releases and cannot work "
                               "together; %s",
                               parts[0].name, parts[0].v.major, parts[0].v.minor, parts[i].name, parts[i].v.major,
                               parts[i].v.minor, UDFKIT_FIX_TOOLCHAIN_HINT);
    if (udfkit_version_compare(tc->nvjitlink, tc->nvrtc) < 0)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0,
                           "nvJitLink %d.%d is older than NVRTC %d.%d and cannot link the LTO-IR it produces; %s",
                           tc->nvjitlink.major, tc->nvjitlink.minor, tc->nvrtc.major, tc->nvrtc.minor,
                           UDFKIT_FIX_TOOLCHAIN_HINT);
    return UDFKIT_RC_OK;
}
