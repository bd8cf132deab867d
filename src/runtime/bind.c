/* udfkit_library_bind: a SLOTS library's LTO-IR linked with package functions for the
 * current device. Everything about the binding is checked before anything is linked; the
 * linked code is kept on disk and in the process (a table of loaded libraries by key, each
 * shared by every bind of the same code). */
#include "artifact/fatbin_read.h"
#include "artifact/package_id.h"
#include "base/fs.h"
#include "base/spec.h"
#include "base/types.h"
#include "cache/cache.h"
#include "compile_source.h"
#include "frontend/exporter.h"
#include "jitlink.h"
#include "library_internal.h"
#include "package.h"
#include "ptx_jit.h"
#include "sandbox_options.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the process's table of bound libraries ---- */

/* Libraries no instance uses any more stay loaded, up to this many, for the next bind. */
#define IDLE_KEPT 16

typedef struct bound_entry {
    char key[UDFKIT_CACHE_KEY_SIZE];
    udfkit_library *lib;
    unsigned refs;
    unsigned long long released; /* when refs last fell to 0, for eviction */
} bound_entry;

static struct {
    pthread_mutex_t lock;
    bound_entry *items;
    size_t count;
    unsigned long long clock;
} table = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* With the lock held. */
static bound_entry *table_find(const char *key)
{
    for (size_t i = 0; i < table.count; i++)
        if (strcmp(table.items[i].key, key) == 0)
            return &table.items[i];
    return NULL;
}

/* With the lock held: the idle libraries beyond IDLE_KEPT, oldest first, out of the table
 * into `drop` (unloaded by the caller, after the lock). */
static size_t table_trim(udfkit_library **drop, size_t max)
{
    size_t idle = 0, dropped = 0;
    for (size_t i = 0; i < table.count; i++)
        idle += table.items[i].refs == 0;
    while (idle > IDLE_KEPT && dropped < max) {
        size_t oldest = SIZE_MAX;
        for (size_t i = 0; i < table.count; i++)
            if (table.items[i].refs == 0 && (oldest == SIZE_MAX || table.items[i].released < table.items[oldest].released))
                oldest = i;
        drop[dropped++] = table.items[oldest].lib;
        table.items[oldest] = table.items[--table.count];
        idle--;
    }
    return dropped;
}

/* For tests: how many bound libraries the process holds, in use or idle. */
size_t udfkit_bound_library_count(void);
size_t udfkit_bound_library_count(void)
{
    pthread_mutex_lock(&table.lock);
    size_t n = table.count;
    pthread_mutex_unlock(&table.lock);
    return n;
}

static void bound_release(udfkit_library *lib)
{
    udfkit_library *drop[4];
    size_t ndrop = 0;
    bool known = false;
    pthread_mutex_lock(&table.lock);
    for (size_t i = 0; i < table.count; i++) {
        bound_entry *e = &table.items[i];
        if (e->lib != lib)
            continue;
        known = true;
        if (e->refs && --e->refs == 0)
            e->released = ++table.clock;
        ndrop = table_trim(drop, sizeof drop / sizeof *drop);
        break;
    }
    pthread_mutex_unlock(&table.lock);
    for (size_t i = 0; i < ndrop; i++)
        udfkit_library_destroy(drop[i]);
    if (!known)
        udfkit_library_destroy(lib); /* never made it into the table */
}

/* Puts a freshly loaded library in the table, or, where another thread put the same code
 * in meanwhile, takes that one and unloads this. */
static udfkit_library *table_add(const char *key, udfkit_library *lib)
{
    udfkit_library *duplicate = NULL, *result = lib;
    pthread_mutex_lock(&table.lock);
    bound_entry *e = table_find(key);
    if (e) {
        e->refs++;
        duplicate = lib;
        result = e->lib;
    } else {
        bound_entry *grown = realloc(table.items, (table.count + 1) * sizeof *grown);
        if (grown) {
            table.items = grown;
            e = &grown[table.count++];
            memset(e, 0, sizeof *e);
            memcpy(e->key, key, UDFKIT_CACHE_KEY_SIZE);
            e->lib = lib;
            e->refs = 1;
        } else {
            lib->release = NULL; /* not shared: unloaded by the one reference */
        }
    }
    pthread_mutex_unlock(&table.lock);
    if (duplicate)
        udfkit_library_destroy(duplicate);
    return result;
}

/* ---- checking the bindings ---- */

static char *canonical_signature(const char *text)
{
    udfkit_signature sig;
    char why[256];
    if (!text || !udfkit_signature_parse(text, &sig, why, sizeof why) || !sig.has_return)
        return NULL;
    udfkit_buf out = UDFKIT_BUF_INIT;
    udfkit_signature_format(&sig, &out);
    return udfkit_buf_detach(&out);
}

typedef struct binding_plan {
    size_t nslots;
    const udfkit_slot *slots;
    char **slot_sigs;                 /* canonical */
    const udfkit_package **package;   /* per slot */
    const char **function;            /* per slot: the function's c_name; NULL: an optional slot left
                                         unbound (package NULL too) */
    const udfkit_package **distinct;  /* the packages linked, each once (by their hash) */
    size_t ndistinct;
} binding_plan;

static void plan_free(binding_plan *p)
{
    for (size_t i = 0; p->slot_sigs && i < p->nslots; i++)
        free(p->slot_sigs[i]);
    free(p->slot_sigs);
    free(p->package);
    free(p->function);
    free(p->distinct);
}

static void list_slots(const udfkit_slot *slots, size_t n, udfkit_buf *out)
{
    for (size_t i = 0; i < n; i++)
        udfkit_buf_printf(out, "%s%s", i ? ", " : "", slots[i].name);
    if (!n)
        udfkit_buf_puts(out, "none");
}

static udfkit_status check_bindings(binding_plan *p, const udfkit_slot *slots, size_t nslots,
                                    const unsigned char *optional, const udfkit_slot_binding *bindings, size_t count)
{
    p->nslots = nslots;
    p->slots = slots;
    p->slot_sigs = calloc(nslots + 1, sizeof *p->slot_sigs);
    p->package = calloc(nslots + 1, sizeof *p->package);
    p->function = calloc(nslots + 1, sizeof *p->function);
    p->distinct = calloc(count + 1, sizeof *p->distinct);
    size_t *given_by = calloc(nslots + 1, sizeof *given_by);
    udfkit_status s = UDFKIT_OK;
    if (!p->slot_sigs || !p->package || !p->function || !p->distinct || !given_by)
        s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_bind: out of memory");
    for (size_t k = 0; !s && k < nslots; k++) {
        if (!slots[k].name || !(p->slot_sigs[k] = canonical_signature(slots[k].signature)))
            s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_library_bind: slot %zu ('%s') has no valid "
                                                                   "name and signature",
                                    k, slots[k].name ? slots[k].name : "");
    }
    for (size_t i = 0; !s && i < count; i++) {
        const udfkit_slot_binding *b = &bindings[i];
        size_t k = SIZE_MAX;
        for (size_t j = 0; b->slot && j < nslots; j++)
            if (strcmp(slots[j].name, b->slot) == 0)
                k = j;
        if (k == SIZE_MAX) {
            udfkit_buf names = UDFKIT_BUF_INIT;
            list_slots(slots, nslots, &names);
            s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                    "binding %zu names the slot '%s', which the library does not have (its slots: %s)",
                                    i, b->slot ? b->slot : "(NULL)", names.data);
            udfkit_buf_free(&names);
            break;
        }
        if (p->package[k]) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "slot '%s' is bound twice (bindings %zu and %zu)",
                                    b->slot, given_by[k], i);
            break;
        }
        if (!b->package) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "binding %zu of slot '%s' gives no package", i,
                                    b->slot);
            break;
        }
        const char *name = b->function ? b->function : b->slot;
        size_t f;
        if (!udfkit_package_find(b->package, name, &f)) {
            udfkit_buf names = UDFKIT_BUF_INIT;
            for (size_t j = 0; j < b->package->nfunctions; j++)
                udfkit_buf_printf(&names, "%s%s", j ? ", " : "", b->package->names[j]);
            s = udfkit_runtime_fail(UDFKIT_ERROR_NOT_FOUND,
                                    "slot '%s' is bound to '%s', which %s does not export (it exports %s)", b->slot,
                                    name, b->package->origin, names.size ? names.data : "nothing");
            udfkit_buf_free(&names);
            break;
        }
        if (strcmp(b->package->signatures[f], p->slot_sigs[k]) != 0) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                    "slot '%s' is %s, but '%s' of %s is %s: a slot takes a function of its own "
                                    "signature",
                                    b->slot, p->slot_sigs[k], name, b->package->origin, b->package->signatures[f]);
            break;
        }
        p->package[k] = b->package;
        p->function[k] = b->package->names[f];
        given_by[k] = i;
        bool seen = false;
        for (size_t d = 0; d < p->ndistinct; d++)
            seen |= strcmp(p->distinct[d]->hash, b->package->hash) == 0;
        if (!seen)
            p->distinct[p->ndistinct++] = b->package;
    }
    for (size_t k = 0; !s && k < nslots; k++)
        if (!p->package[k] && !(optional && optional[k]))
            s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                    "slot '%s' (%s) is not bound: every slot of the library but its optional ones "
                                    "needs a function",
                                    slots[k].name, p->slot_sigs[k]);
    /* Everything linked together defines each C name once. */
    for (size_t a = 0; !s && a < p->ndistinct; a++)
        for (size_t f = 0; !s && f < p->distinct[a]->nfunctions; f++) {
            const char *name = p->distinct[a]->names[f];
            size_t at;
            for (size_t b = a + 1; !s && b < p->ndistinct; b++)
                if (udfkit_package_find(p->distinct[b], name, &at))
                    s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                            "%s and %s both define '%s', and both are linked: a C name must be unique "
                                            "across everything linked together",
                                            p->distinct[a]->origin, p->distinct[b]->origin, name);
            /* An optional slot left unbound may share a package function's name: no kernel
             * that calls it is linked (unbound_call). */
            for (size_t k = 0; !s && k < nslots; k++)
                if (strcmp(slots[k].name, name) == 0 && p->function[k] &&
                    (strcmp(p->function[k], name) != 0 || strcmp(p->package[k]->hash, p->distinct[a]->hash) != 0))
                    s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                            "slot '%s' is bound to '%s' of %s, but %s, which is linked too, defines a "
                                            "function '%s' itself",
                                            slots[k].name, p->function[k], p->package[k]->origin,
                                            p->distinct[a]->origin, name);
        }
    free(given_by);
    return s;
}

/* ---- linking ---- */

/* For each slot bound to a function of another name, a forwarder `slot` -> `function`, at
 * the C ABI both share (their signatures are equal). */
static void forwarders(const binding_plan *p, udfkit_buf *out)
{
    udfkit_buf_puts(out, "/* udfkit_library_bind: slots bound to functions of other names. */\n");
    for (size_t k = 0; k < p->nslots; k++) {
        if (!p->function[k] || strcmp(p->slots[k].name, p->function[k]) == 0)
            continue;
        udfkit_signature sig;
        char why[256];
        udfkit_signature_parse(p->slot_sigs[k], &sig, why, sizeof why);
        udfkit_buf decl = UDFKIT_BUF_INIT, slot = UDFKIT_BUF_INIT, args = UDFKIT_BUF_INIT;
        udfkit_exporter_declaration(&sig, p->function[k], &decl);
        udfkit_exporter_declaration(&sig, p->slots[k].name, &slot);
        udfkit_exporter_abi_params(&sig, "", false, &args);
        bool is_void = udfkit_type_is(udfkit_exporter_c_abi(&sig).ret, UDFKIT_VOID);
        udfkit_buf_printf(out, "extern \"C\" __device__ %s;\n", decl.data);
        udfkit_buf_printf(out, "extern \"C\" __device__ %s\n{\n    %s%s(%s);\n}\n", slot.data, is_void ? "" : "return ",
                          p->function[k], args.data ? args.data : "");
        udfkit_buf_free(&decl);
        udfkit_buf_free(&slot);
        udfkit_buf_free(&args);
    }
}

/* Adds a package's parts for `arch` to the link, link files once by their bytes. */
static udfkit_status add_parts(const udfkit_package *pkg, int arch, udfkit_jit_part **parts, size_t *n,
                               char (**link_hashes)[UDFKIT_HASH_HEX_SIZE], size_t *nlinks)
{
    size_t *chosen = NULL, count = 0;
    udfkit_status s = udfkit_package_choose(pkg, arch, &chosen, &count);
    for (size_t i = 0; !s && i < count; i++) {
        const udfkit_package_part *p = &pkg->parts[chosen[i]];
        if (p->link) {
            bool seen = false;
            for (size_t k = 0; k < *nlinks; k++)
                seen |= strcmp((*link_hashes)[k], p->hash) == 0;
            if (seen)
                continue;
            char(*grown)[UDFKIT_HASH_HEX_SIZE] = realloc(*link_hashes, (*nlinks + 1) * sizeof *grown);
            if (!grown) {
                s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_bind: out of memory");
                break;
            }
            *link_hashes = grown;
            memcpy(grown[(*nlinks)++], p->hash, UDFKIT_HASH_HEX_SIZE);
        }
        udfkit_jit_part *grown = realloc(*parts, (*n + 1) * sizeof *grown);
        if (!grown) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_bind: out of memory");
            break;
        }
        *parts = grown;
        grown[(*n)++] = (udfkit_jit_part){UDFKIT_JIT_LTOIR, p->data, p->size};
    }
    free(chosen);
    return s;
}

/* Where a bound package asks for the sandbox (udfkit_package_set_options), the link runs there:
 * under the strictest of the packages' limits, cancelled by any of their tokens, reading no
 * file at all where one is untrusted. */
#define MAX_TOKENS 16

static bool bind_sandbox(const binding_plan *p, udfkit_sandbox *sb, int fds[MAX_TOKENS])
{
    bool isolated = false;
    *sb = (udfkit_sandbox){.cancel_fds = fds};
    for (size_t d = 0; d < p->ndistinct; d++) {
        const udfkit_package *pkg = p->distinct[d];
        udfkit_sandbox one;
        int fd = -1;
        bool asks = false;
        if (!pkg->isolated || udfkit_runtime_sandbox(&pkg->options, &one, &fd, &asks) || !asks)
            continue;
        isolated = true;
        if (one.seconds > 0 && (sb->seconds <= 0 || one.seconds < sb->seconds))
            sb->seconds = one.seconds;
        if (one.memory && (!sb->memory || one.memory < sb->memory))
            sb->memory = one.memory;
        if (fd >= 0 && sb->ncancel < MAX_TOKENS)
            fds[sb->ncancel++] = fd;
        sb->confine |= pkg->options.untrusted != 0;
    }
    if (sb->seconds > 0)
        sb->deadline = udfkit_seconds() + sb->seconds;
    return isolated;
}

/* The engine's image read as a package (its LTO-IR and the functions of its UDFS), and the
 * names those functions take from every bound package: checked before any device is asked. */
static udfkit_status read_engine(const udfkit_image *image, const binding_plan *p, udfkit_package **out)
{
    *out = NULL;
    udfkit_package *engine = udfkit_package_new("the library's LTO-IR");
    udfkit_status s = UDFKIT_OK;
    if (!engine)
        s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_bind: out of memory");
    if (!s)
        s = udfkit_package_read_fatbin(engine, image->data, image->size, false);
    if (!s && !engine->nparts)
        s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                                "the library's image holds no LTO-IR to bind: it is not a SLOTS library's (udfkit pack)");
    /* UDFs linked into the library itself are names its slots' functions must not reuse. */
    for (size_t f = 0; !s && f < engine->nfunctions; f++)
        for (size_t d = 0; !s && d < p->ndistinct; d++) {
            size_t at;
            if (udfkit_package_find(p->distinct[d], engine->names[f], &at))
                s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                        "%s defines '%s', which the library defines itself: a C name must be unique "
                                        "across everything linked together",
                                        p->distinct[d]->origin, engine->names[f]);
        }
    if (s)
        udfkit_package_close(engine);
    else
        *out = engine;
    return s;
}

/* nvJitLink's options for a bind beyond -arch and -lto: variables no device code uses are
 * dropped (CUB's and libcu++'s inline variables, thousands in an engine with sorts and
 * scans, each otherwise kept, laid out and relocated), except the UDF error record, which
 * the runtime reads by name; and the link runs on several threads (-split-compile:
 * UDFKIT_LINK_THREADS, default every processor; 1 is one thread). */
static size_t bind_link_options(char threads[40], const char *options[3])
{
    const char *env = getenv("UDFKIT_LINK_THREADS");
    char *end = NULL;
    long n = env && *env ? strtol(env, &end, 10) : 0;
    if (!end || *end || n < 0 || n > 4096)
        n = 0;
    snprintf(threads, 40, "-split-compile=%ld", n);
    options[0] = "-optimize-unused-variables";
    options[1] = "-variables-used=udfkit_udf_error_record";
    options[2] = threads;
    return 3;
}

/* Everything a bind links for sm_<arch>, gathered without nvJitLink: the library's LTO-IR and
 * the bound packages' (link files once), the text of the forwarders of slots bound to
 * functions of other names (compiled with NVRTC when linked), and the newest producer of
 * all that code (nvJitLink must be at least as new). */
typedef struct link_plan {
    udfkit_jit_part *parts;
    size_t n;
    char *forwarders;        /* NULL: every slot bound to a function of its name */
    const char *producer;    /* a literal ("NVRTC", "NVVM"), or NULL */
    int producer_major, producer_minor;
    char *producer_origin;
    udfkit_buf *bytes;       /* copies the parts point into (a lazy bind's), or NULL */
    udfkit_package *shims;   /* the compiled forwarders, once linked */
} link_plan;

static void link_plan_free(link_plan *lp)
{
    for (size_t i = 0; lp->bytes && i < lp->n; i++)
        udfkit_buf_free(&lp->bytes[i]);
    free(lp->bytes);
    free(lp->parts);
    free(lp->forwarders);
    free(lp->producer_origin);
    udfkit_package_close(lp->shims);
    memset(lp, 0, sizeof *lp);
}

static void note_newest(link_plan *lp, const udfkit_package *pkg)
{
    if (!pkg->producer || (lp->producer && (pkg->producer_major < lp->producer_major ||
                                            (pkg->producer_major == lp->producer_major &&
                                             pkg->producer_minor <= lp->producer_minor))))
        return;
    free(lp->producer_origin);
    lp->producer_origin = strdup(pkg->origin);
    lp->producer = pkg->producer;
    lp->producer_major = pkg->producer_major;
    lp->producer_minor = pkg->producer_minor;
}

static size_t renamed_slots(const binding_plan *p)
{
    size_t n = 0;
    for (size_t k = 0; k < p->nslots; k++)
        n += p->function[k] && strcmp(p->slots[k].name, p->function[k]) != 0;
    return n;
}

/* A link of every kernel at once cannot leave a slot undefined: where an optional one is
 * unbound, the bind is refused (`how` says why it links every kernel). */
static udfkit_status refuse_unbound(const binding_plan *p, const char *how)
{
    for (size_t k = 0; k < p->nslots; k++)
        if (!p->function[k])
            return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                       "the optional slot '%s' is left unbound, but this bind links every kernel at "
                                       "once (%s), which needs every slot bound: bind it, or bind where the library's "
                                       "kernels that call slots are linked on first use",
                                       p->slots[k].name, how);
    return UDFKIT_OK;
}

static udfkit_status plan_link(const udfkit_package *engine, const binding_plan *p, int arch, link_plan *lp)
{
    memset(lp, 0, sizeof *lp);
    size_t nlinks = 0;
    char(*link_hashes)[UDFKIT_HASH_HEX_SIZE] = NULL;
    udfkit_status s = UDFKIT_OK;
    for (size_t d = 0; !s && d < p->ndistinct; d++)
        if (!p->distinct[d]->nparts)
            s = udfkit_runtime_fail(UDFKIT_ERROR_NO_BINARY,
                                    "%s holds no LTO-IR (its code is PTX or SASS, which cannot be linked with the "
                                    "library's LTO-IR): build it as LTO-IR (add_ptx_udf's default, udfkit compile "
                                    "--emit ltoir)",
                                    p->distinct[d]->origin);
    if (!s) {
        note_newest(lp, engine);
        s = add_parts(engine, arch, &lp->parts, &lp->n, &link_hashes, &nlinks);
    }
    for (size_t d = 0; !s && d < p->ndistinct; d++) {
        note_newest(lp, p->distinct[d]);
        s = add_parts(p->distinct[d], arch, &lp->parts, &lp->n, &link_hashes, &nlinks);
    }
    if (!s && renamed_slots(p)) {
        udfkit_buf text = UDFKIT_BUF_INIT;
        forwarders(p, &text);
        if (!(lp->forwarders = udfkit_buf_detach(&text)))
            s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    free(link_hashes);
    if (s)
        link_plan_free(lp);
    return s;
}

/* nvJitLink new enough for the code (LTO-IR made by a newer NVRTC or NVVM cannot be read by
 * it): loaded to ask its version, or, with `only_where_needed`, only where the code is newer
 * than 13.0, which every nvJitLink 13 reads (a bind that links nothing loads no nvJitLink). */
static udfkit_status check_newest(const link_plan *lp, bool only_where_needed)
{
    if (only_where_needed && (!lp->producer || lp->producer_major < 13 ||
                              (lp->producer_major == 13 && lp->producer_minor == 0)))
        return UDFKIT_OK;
    unsigned major = 0, minor = 0;
    udfkit_status s = udfkit_jitlink_load(&major, &minor);
    if (s)
        return s;
    if (lp->producer && (lp->producer_major > (int)major ||
                         (lp->producer_major == (int)major && lp->producer_minor > (int)minor)))
        return udfkit_runtime_fail(UDFKIT_ERROR_TOOLCHAIN,
                                   "%s was made by %s %d.%d, newer than this nvJitLink %u.%u (libnvJitLink.so.%u), "
                                   "which cannot link it: install nvJitLink %d.%d or newer, or rebuild it with CUDA "
                                   "%u.%u",
                                   lp->producer_origin, lp->producer, lp->producer_major, lp->producer_minor, major,
                                   minor, major, lp->producer_major, lp->producer_minor, major, minor);
    return UDFKIT_OK;
}

/* Before a link: nvJitLink loaded and new enough for the code, the forwarders compiled. */
static udfkit_status prepare_link(link_plan *lp, int arch)
{
    udfkit_status s = check_newest(lp, false);
    if (s)
        return s;
    if (!lp->forwarders || lp->shims)
        return UDFKIT_OK;
    char arch_text[16];
    snprintf(arch_text, sizeof arch_text, "%d", arch);
    s = udfkit_runtime_compile("udfkit-slot-forwarders.cu", lp->forwarders, NULL, 0, NULL, 0, arch_text, NULL,
                               &lp->shims);
    if (s) {
        /* The message is copied out first: the result goes to the same buffer. */
        char *why = strdup(udfkit_last_error());
        s = udfkit_runtime_fail(s == UDFKIT_ERROR_COMPILE ? UDFKIT_ERROR_TOOLCHAIN : s,
                                "a slot bound to a function of another name is reached through a forwarder "
                                "compiled with NVRTC, which failed: %.7000s",
                                why ? why : "out of memory");
        free(why);
        return s;
    }
    size_t nlinks = 0;
    char(*link_hashes)[UDFKIT_HASH_HEX_SIZE] = NULL;
    size_t before = lp->n;
    s = add_parts(lp->shims, arch, &lp->parts, &lp->n, &link_hashes, &nlinks);
    free(link_hashes);
    /* A lazy bind's copies: one (empty) per forwarder part, which the package keeps. */
    if (!s && lp->bytes) {
        udfkit_buf *grown = realloc(lp->bytes, (lp->n + 1) * sizeof *grown);
        if (!grown)
            return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
        lp->bytes = grown;
        for (size_t i = before; i < lp->n; i++)
            grown[i] = (udfkit_buf)UDFKIT_BUF_INIT;
    }
    return s;
}

static udfkit_status link_bound(const udfkit_package *engine, const binding_plan *p, int arch, const char *how,
                                udfkit_buf *cubin)
{
    link_plan lp;
    udfkit_status s = refuse_unbound(p, how);
    if (!s)
        s = plan_link(engine, p, arch, &lp);
    if (s)
        return s;
    s = prepare_link(&lp, arch);
    udfkit_sandbox sb;
    int fds[MAX_TOKENS];
    bool isolated = bind_sandbox(p, &sb, fds);
    char threads[40];
    const char *options[3];
    size_t noptions = bind_link_options(threads, options);
    if (!s)
        s = udfkit_jitlink_cubin(lp.parts, lp.n, arch, options, noptions, isolated ? &sb : NULL, cubin);
    link_plan_free(&lp);
    return s;
}

struct lazy_link;
static size_t lazy_bound_count(const struct lazy_link *l);

udfkit_status udfkit_library_bind_info(udfkit_library *lib, udfkit_bind_info *out)
{
    if (!lib || !out || !lib->bound)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_library_bind_info: %s",
                                   !lib || !out ? "missing argument" : "the library is not a bound one");
    *out = (udfkit_bind_info){.arch = lib->bound_arch,
                              .whole = lib->bound_whole,
                              .from_cache = lib->bound_from_cache,
                              .forwarders = lib->bound_forwarders};
    if (lib->link_kernel) {
        const struct lazy_link *l = lib->lazy;
        pthread_mutex_lock(&lib->link_lock);
        out->kernels_to_link = lazy_bound_count(l);
        out->kernels_linked = lib->nlinked;
        out->kernels_from_cache = lib->bound_from_cache_kernels;
        pthread_mutex_unlock(&lib->link_lock);
    }
    return UDFKIT_OK;
}

/* ---- kernels that call slots, linked on first use ---- */

/* A SLOTS library packed with --sass holds, for each real architecture, its kernels that call
 * no slot as SASS, named by the kernels it lacks. */
typedef struct sass_module {
    const unsigned char *code;
    size_t size;
    char **bound; /* the kernels that call slots */
    char **calls; /* per bound kernel: " <slot> <slot> ", the slots it reaches; NULL where the
                     image does not say (packed before kernel-calls lines) */
    size_t nbound;
} sass_module;

static void sass_module_free(sass_module *m)
{
    for (size_t i = 0; i < m->nbound; i++) {
        free(m->bound[i]);
        free(m->calls ? m->calls[i] : NULL);
    }
    free(m->bound);
    free(m->calls);
    memset(m, 0, sizeof *m);
}

/* The engine's SASS for sm_<arch> exactly (SASS of another architecture is not linked with
 * code for this one): false where it has none (a bind then links the whole). */
static bool find_sass(const udfkit_package *engine, int arch, sass_module *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; engine->fatbin && i < engine->fatbin->count; i++) {
        const udfkit_fatbin_entry_info *e = &engine->fatbin->entries[i];
        if (e->kind != UDFKIT_CODE_SASS || e->target.number != (unsigned)arch || e->target.suffix ||
            e->compression != UDFKIT_COMPRESSION_NONE || !e->name)
            continue;
        udfkit_package_id id;
        if (udfkit_package_id_parse(e->name, e->name_size, &id) != UDFKIT_PACKAGE_ID_OK)
            continue;
        bool ours = strcmp(id.group, "sass") == 0 && id.version > 0;
        out->bound = ours ? calloc(id.nbound_kernels + 1, sizeof *out->bound) : NULL;
        out->calls = ours ? calloc(id.nbound_kernels + 1, sizeof *out->calls) : NULL;
        for (size_t k = 0; out->bound && out->calls && k < id.nbound_kernels; k++)
            if ((out->bound[out->nbound] = strdup(id.bound_kernels[k])))
                out->nbound++;
        bool ok = out->bound && out->calls && out->nbound == id.nbound_kernels;
        /* "<kernel> <slot>...": kept as " <slot>... " to find " <slot> " in. */
        for (size_t c = 0; ok && c < id.nkernel_calls; c++) {
            const char *line = id.kernel_calls[c], *blank = strchr(line, ' ');
            size_t len = blank ? (size_t)(blank - line) : strlen(line);
            for (size_t k = 0; ok && k < out->nbound; k++) {
                if (out->calls[k] || strlen(out->bound[k]) != len || strncmp(out->bound[k], line, len) != 0)
                    continue;
                udfkit_buf text = UDFKIT_BUF_INIT;
                ok = udfkit_buf_printf(&text, "%s ", blank ? blank : " ");
                out->calls[k] = udfkit_buf_detach(&text);
                ok &= out->calls[k] != NULL;
            }
        }
        udfkit_package_id_free(&id);
        if (!ok) {
            sass_module_free(out);
            continue;
        }
        out->code = e->payload;
        out->size = e->payload_size;
        return true;
    }
    return false;
}

/* What a bound library keeps to link a kernel on first use: the plan of the link, its parts
 * copied (the packages may be closed once bound), the bind's key, the kernels it may link. */
typedef struct lazy_link {
    link_plan plan;
    int arch;
    char key[UDFKIT_CACHE_KEY_SIZE];
    sass_module sass;
} lazy_link;

static size_t lazy_bound_count(const lazy_link *l)
{
    return l->sass.nbound;
}

static void lazy_free(void *p)
{
    lazy_link *l = p;
    if (!l)
        return;
    link_plan_free(&l->plan);
    sass_module_free(&l->sass);
    free(l);
}

/* A kernel that reaches an optional slot the bind left unbound cannot be linked: refused
 * before any link, by the slots the image records it reaching (every slot where it records
 * none). */
static udfkit_status unbound_call(const udfkit_library *lib, const lazy_link *l, const char *name)
{
    const char *calls = NULL;
    for (size_t i = 0; i < l->sass.nbound; i++)
        if (strcmp(l->sass.bound[i], name) == 0)
            calls = l->sass.calls[i];
    for (size_t k = 0; k < lib->nslots; k++) {
        if (lib->slot_bound[k])
            continue;
        char needle[520];
        snprintf(needle, sizeof needle, " %s ", lib->slot_names[k]);
        if (calls && !strstr(calls, needle))
            continue;
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                   calls ? "kernel '%s' calls the optional slot '%s', which this instance leaves "
                                           "unbound: nothing was launched; bind a function to '%s' to launch it"
                                         : "kernel '%s' calls a slot, and the library's image (packed by an older "
                                           "udfkit) does not say which, while the optional slot '%s' is left "
                                           "unbound: nothing was launched; bind '%s', or pack the library again",
                                   name, lib->slot_names[k], lib->slot_names[k]);
    }
    return UDFKIT_OK;
}

/* lib->link_kernel: with `out` NULL, whether `name` is a kernel it links (no message);
 * else the kernel linked (or found in the cache) and loaded. Called under lib->link_lock. */
static udfkit_status link_kernel(udfkit_library *lib, const char *name, udfkit_library **out)
{
    lazy_link *l = lib->lazy;
    bool known = false;
    for (size_t i = 0; i < l->sass.nbound && !known; i++)
        known = strcmp(l->sass.bound[i], name) == 0;
    if (!out)
        return known ? UDFKIT_OK : UDFKIT_ERROR_NOT_FOUND;
    *out = NULL;
    if (!known)
        return udfkit_runtime_fail(UDFKIT_ERROR_NOT_FOUND, "the library has no kernel named '%s'", name);
    udfkit_status s = unbound_call(lib, l, name);
    if (s)
        return s;
    udfkit_cache *cache = udfkit_cache_open();
    char disk_key[UDFKIT_CACHE_KEY_SIZE];
    udfkit_buf cubin = UDFKIT_BUF_INIT;
    bool cached = false;
    if (cache) {
        /* As for a whole bind: a hit loads no nvJitLink. */
        udfkit_hasher *h = udfkit_hasher_new("udfkit-bind-kernel-1");
        udfkit_hasher_add_str(h, l->key);
        udfkit_hasher_add_str(h, name);
        udfkit_hasher_add_str(h, "nvJitLink 13");
        udfkit_hasher_finish(h, disk_key);
        cached = udfkit_jitlink_cached(cache, disk_key, &cubin);
    }
    s = cached ? UDFKIT_OK : prepare_link(&l->plan, l->arch);
    if (!s && !cached) {
        char threads[40];
        const char *options[5];
        size_t noptions = bind_link_options(threads, options);
        udfkit_buf used = UDFKIT_BUF_INIT;
        udfkit_buf_printf(&used, "-kernels-used=%s", name);
        options[noptions++] = used.data;
        /* The marker of code that waits for the pass before (compute_90 and later), so that
         * the kernel is started early as the library's others are (library_devices.c). */
        options[noptions++] = "-kernels-used=udfkit_dependent_launch";
        double start = udfkit_seconds();
        s = used.data ? udfkit_jitlink_cubin(l->plan.parts, l->plan.n, l->arch, options, noptions, NULL, &cubin)
                      : udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
        if (!s) {
            udfkit_note("bind: kernel %s linked for sm_%d on its first use (%.3f s)", name, l->arch,
                        udfkit_seconds() - start);
            udfkit_jitlink_keep(cache, disk_key, &cubin);
        }
        udfkit_buf_free(&used);
    }
    if (!s)
        s = udfkit_library_load(cubin.data, cubin.size, out);
    if (!s && cached)
        lib->bound_from_cache_kernels++;
    udfkit_cache_close(cache);
    udfkit_buf_free(&cubin);
    return s;
}

/* The bound library: the SASS module loaded now, the kernels that call slots linked on first
 * use, from copies of the parts. No nvJitLink, no NVRTC here. */
static udfkit_status bind_lazily(const udfkit_package *engine, const binding_plan *p, int arch, const char *key,
                                 sass_module *sass, udfkit_library **out)
{
    lazy_link *l = calloc(1, sizeof *l);
    if (!l)
        return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    l->arch = arch;
    memcpy(l->key, key, UDFKIT_CACHE_KEY_SIZE);
    l->sass = *sass;
    memset(sass, 0, sizeof *sass);
    udfkit_status s = plan_link(engine, p, arch, &l->plan);
    if (!s)
        s = check_newest(&l->plan, true);
    if (!s && !(l->plan.bytes = calloc(l->plan.n + 1, sizeof *l->plan.bytes)))
        s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; !s && i < l->plan.n; i++) {
        if (!udfkit_buf_append(&l->plan.bytes[i], l->plan.parts[i].data, l->plan.parts[i].size))
            s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
        l->plan.parts[i].data = l->plan.bytes[i].data;
    }
    udfkit_library *lib = NULL;
    if (!s)
        s = udfkit_library_load(l->sass.code, l->sass.size, &lib);
    if (s) {
        lazy_free(l);
        return s;
    }
    pthread_mutex_init(&lib->link_lock, NULL);
    lib->lazy = l;
    lib->lazy_free = lazy_free;
    lib->link_kernel = link_kernel;
    *out = lib;
    return UDFKIT_OK;
}

/* For tests: the link a bind makes for sm_<arch>, without a device (no cache, nothing loaded). */
udfkit_status udfkit_library_bind_link(const udfkit_image *image, const udfkit_slot *slots, size_t slot_count,
                                       const udfkit_slot_binding *bindings, size_t count, int arch, void **cubin,
                                       size_t *cubin_size);
udfkit_status udfkit_library_bind_link(const udfkit_image *image, const udfkit_slot *slots, size_t slot_count,
                                       const udfkit_slot_binding *bindings, size_t count, int arch, void **cubin,
                                       size_t *cubin_size)
{
    binding_plan plan = {0};
    udfkit_package *engine = NULL;
    udfkit_buf out = UDFKIT_BUF_INIT;
    udfkit_status s = check_bindings(&plan, slots, slot_count, NULL, bindings, count);
    if (!s)
        s = read_engine(image, &plan, &engine);
    if (!s)
        s = link_bound(engine, &plan, arch, "a link for tests", &out);
    *cubin_size = s ? 0 : out.size;
    *cubin = NULL;
    if (s)
        udfkit_buf_free(&out);
    else
        *cubin = udfkit_buf_detach(&out);
    udfkit_package_close(engine);
    plan_free(&plan);
    return s;
}

/* ---- udfkit_library_bind ---- */

/* The slots of a bound library and whether each is bound, for udfkit_library_slot_bound and
 * the kernels linked on first use. */
static udfkit_status keep_slots(udfkit_library *lib, const binding_plan *p)
{
    lib->slot_names = calloc(p->nslots + 1, sizeof *lib->slot_names);
    lib->slot_bound = calloc(p->nslots + 1, sizeof *lib->slot_bound);
    if (!lib->slot_names || !lib->slot_bound)
        return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_bind: out of memory");
    for (; lib->nslots < p->nslots; lib->nslots++) {
        if (!(lib->slot_names[lib->nslots] = strdup(p->slots[lib->nslots].name)))
            return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_bind: out of memory");
        lib->slot_bound[lib->nslots] = p->function[lib->nslots] != NULL;
    }
    return UDFKIT_OK;
}

udfkit_status udfkit_library_slot_bound(udfkit_library *lib, const char *slot, int *bound)
{
    if (!lib || !slot || !bound || !lib->bound)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_library_slot_bound: %s",
                                   !lib || !slot || !bound ? "missing argument" : "the library is not a bound one");
    udfkit_buf names = UDFKIT_BUF_INIT;
    for (size_t k = 0; k < lib->nslots; k++) {
        if (strcmp(lib->slot_names[k], slot) == 0) {
            *bound = lib->slot_bound[k];
            udfkit_buf_free(&names);
            return UDFKIT_OK;
        }
        udfkit_buf_printf(&names, "%s%s", k ? ", " : "", lib->slot_names[k]);
    }
    udfkit_status s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                          "udfkit_library_slot_bound: the library has no slot '%s' (its slots: %s)",
                                          slot, names.size ? names.data : "none");
    udfkit_buf_free(&names);
    return s;
}

static void bind_key(const char *image_hash, const binding_plan *p, int arch, char key[UDFKIT_CACHE_KEY_SIZE])
{
    udfkit_hasher *h = udfkit_hasher_new("udfkit-bind-1");
    udfkit_hasher_add_str(h, UDFKIT_VERSION_STRING);
    udfkit_hasher_add_str(h, image_hash);
    udfkit_hasher_add(h, &arch, sizeof arch);
    for (size_t k = 0; k < p->nslots; k++) {
        udfkit_hasher_add_str(h, p->slots[k].name);
        udfkit_hasher_add_str(h, p->slot_sigs[k]);
        /* An optional slot left unbound: no package, and a function no C name can be. */
        udfkit_hasher_add_str(h, p->package[k] ? p->package[k]->hash : "");
        udfkit_hasher_add_str(h, p->function[k] ? p->function[k] : " unbound");
    }
    udfkit_hasher_finish(h, key);
}

udfkit_status udfkit_library_bind(const udfkit_image *image, const char *image_hash, const udfkit_slot *slots,
                                  size_t slot_count, const udfkit_slot_binding *bindings, size_t count,
                                  udfkit_library **out)
{
    return udfkit_library_bind_with_optional(image, image_hash, slots, slot_count, NULL, bindings, count, out);
}

udfkit_status udfkit_library_bind_with_optional(const udfkit_image *image, const char *image_hash,
                                                const udfkit_slot *slots, size_t slot_count,
                                                const unsigned char *optional, const udfkit_slot_binding *bindings,
                                                size_t count, udfkit_library **out)
{
    if (out)
        *out = NULL;
    if (!image || !image->data || !image->size || !out || (slot_count && !slots) || (count && !bindings))
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_library_bind: %s",
                                   !image || !image->data || !image->size ? "no image given"
                                   : !out                                 ? "no output pointer"
                                                                          : "a count without its array");
    binding_plan plan = {0};
    udfkit_package *engine = NULL;
    udfkit_status s = check_bindings(&plan, slots, slot_count, optional, bindings, count);
    const udfkit_driver *d = NULL;
    int arch = 0;
    bool checked = !s;
    if (!s && !(s = udfkit_driver_enter(&d)))
        s = udfkit_runtime_device_arch(d, &arch);
    if (s && checked) {
        /* Without a device, the checks that need none answer first: the library's own C
         * names too (read from its image, which a bound library found in the process or the
         * cache does not need). The device's message is kept where they pass. */
        char *why = strdup(udfkit_last_error());
        udfkit_status device = s;
        s = read_engine(image, &plan, &engine);
        if (!s)
            s = udfkit_runtime_fail(device, "%s", why ? why : "no device");
        free(why);
    }
    char hash[UDFKIT_HASH_HEX_SIZE], key[UDFKIT_CACHE_KEY_SIZE];
    if (!s) {
        if (!image_hash)
            udfkit_hash_hex(image->data, image->size, hash);
        bind_key(image_hash ? image_hash : hash, &plan, arch, key);
        pthread_mutex_lock(&table.lock);
        bound_entry *e = table_find(key);
        if (e) {
            e->refs++;
            *out = e->lib;
        }
        pthread_mutex_unlock(&table.lock);
        if (*out) {
            udfkit_package_close(engine);
            plan_free(&plan);
            return UDFKIT_OK;
        }
    }
    udfkit_buf cubin = UDFKIT_BUF_INIT;
    udfkit_cache *cache = s ? NULL : udfkit_cache_open();
    char disk_key[UDFKIT_CACHE_KEY_SIZE];
    bool cached = false;
    if (cache) {
        /* The cubin is the same whichever nvJitLink 13 links it: a hit loads no nvJitLink. */
        udfkit_hasher *h = udfkit_hasher_new("udfkit-bind-cubin-2");
        udfkit_hasher_add_str(h, key);
        udfkit_hasher_add_str(h, "nvJitLink 13");
        udfkit_hasher_finish(h, disk_key);
        cached = udfkit_jitlink_cached(cache, disk_key, &cubin);
    }
    udfkit_library *lib = NULL;
    sass_module sass = {0};
    bool isolated = false;
    for (size_t i = 0; i < plan.ndistinct; i++)
        isolated |= plan.distinct[i]->isolated;
    /* Where the library has SASS for this device, only its kernels that call slots are
     * linked, each on its first use; a package that asks for the sandbox is linked whole,
     * now, there, and UDFKIT_BIND_WHOLE=1 links every kernel now, as on a device without
     * SASS. A whole link found in the cache is loaded either way. */
    const char *whole = getenv("UDFKIT_BIND_WHOLE");
    bool whole_asked = whole && strcmp(whole, "1") == 0, lazy = !isolated && !whole_asked;
    char no_sass[64];
    snprintf(no_sass, sizeof no_sass, "the library holds no SASS for sm_%d", arch);
    const char *how = isolated ? "a bound package asks for the sandbox" : whole_asked ? "UDFKIT_BIND_WHOLE=1" : no_sass;
    if (!s && !cached && lazy && !(s = read_engine(image, &plan, &engine)) &&
        find_sass(engine, arch, &sass))
        s = bind_lazily(engine, &plan, arch, key, &sass, &lib);
    else if (!s && !cached && (engine || !(s = read_engine(image, &plan, &engine))) &&
             !(s = link_bound(engine, &plan, arch, how, &cubin)))
        udfkit_jitlink_keep(cache, disk_key, &cubin);
    sass_module_free(&sass);
    if (!s && !lib)
        s = udfkit_library_load(cubin.data, cubin.size, &lib);
    if (!s && (s = keep_slots(lib, &plan))) {
        udfkit_library_destroy(lib);
        lib = NULL;
    }
    if (!s) {
        lib->release = bound_release;
        lib->bound = 1;
        lib->bound_arch = arch;
        lib->bound_whole = !lib->link_kernel;
        lib->bound_from_cache = cached;
        lib->bound_forwarders = renamed_slots(&plan);
        *out = table_add(key, lib);
    }
    udfkit_cache_close(cache);
    udfkit_diag_clear();
    udfkit_buf_free(&cubin);
    udfkit_package_close(engine);
    plan_free(&plan);
    return s;
}
