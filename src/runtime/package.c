#include "package.h"

#include "artifact/code_check.h"
#include "artifact/fatbin_read.h"
#include "artifact/package_id.h"
#include "base/arch.h"
#include "base/fs.h"
#include "base/spec.h"
#include "base/types.h"
#include "driver.h"
#include "sandbox_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

udfkit_package *udfkit_package_new(const char *origin)
{
    udfkit_package *pkg = calloc(1, sizeof *pkg);
    if (pkg && !(pkg->origin = strdup(origin ? origin : "a package"))) {
        free(pkg);
        pkg = NULL;
    }
    return pkg;
}

udfkit_buf *udfkit_package_keep(udfkit_package *pkg, udfkit_buf *bytes)
{
    udfkit_buf *grown = realloc(pkg->storage, (pkg->nstorage + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    pkg->storage = grown;
    grown[pkg->nstorage] = *bytes;
    *bytes = (udfkit_buf)UDFKIT_BUF_INIT;
    return &grown[pkg->nstorage++];
}

static udfkit_status no_memory(void)
{
    return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory reading a UDF package");
}

udfkit_status udfkit_package_add_function(udfkit_package *pkg, const char *c_name, const char *signature)
{
    for (size_t i = 0; i < pkg->nfunctions; i++)
        if (strcmp(pkg->names[i], c_name) == 0)
            return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: function '%s' is listed twice", pkg->origin,
                                       c_name);
    /* A signature that does not parse cannot be matched to a slot: the package is damaged. */
    udfkit_signature sig;
    char why[256];
    if (!udfkit_is_c_identifier(c_name) || !udfkit_signature_parse(signature, &sig, why, sizeof why))
        return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: function '%s' has the signature '%s', which is not one",
                                   pkg->origin, c_name, signature);
    char **names = realloc(pkg->names, (pkg->nfunctions + 1) * sizeof *names);
    if (names)
        pkg->names = names;
    char **sigs = realloc(pkg->signatures, (pkg->nfunctions + 1) * sizeof *sigs);
    if (sigs)
        pkg->signatures = sigs;
    udfkit_buf canonical = UDFKIT_BUF_INIT;
    udfkit_signature_format(&sig, &canonical);
    char *name = strdup(c_name);
    if (!names || !sigs || !name || !canonical.data) {
        free(name);
        udfkit_buf_free(&canonical);
        return no_memory();
    }
    pkg->names[pkg->nfunctions] = name;
    pkg->signatures[pkg->nfunctions] = udfkit_buf_detach(&canonical);
    pkg->nfunctions++;
    return UDFKIT_OK;
}

udfkit_status udfkit_package_add_group(udfkit_package *pkg, const char *name, size_t *group)
{
    char **grown = realloc(pkg->group_names, (pkg->ngroups + 1) * sizeof *grown);
    if (!grown)
        return no_memory();
    pkg->group_names = grown;
    if (!(grown[pkg->ngroups] = strdup(name)))
        return no_memory();
    *group = pkg->ngroups++;
    return UDFKIT_OK;
}

udfkit_status udfkit_package_add_part(udfkit_package *pkg, udfkit_package_part part)
{
    /* Damaged code is refused here, before nvJitLink ever sees it: nvJitLink keeps memory
     * of a link it refuses, and some damaged inputs make it ask for many gigabytes. */
    char why[256], what[64];
    if (!udfkit_ltoir_check(part.data, part.size, why, sizeof why)) {
        if (part.link)
            snprintf(what, sizeof what, "link file");
        else
            snprintf(what, sizeof what, "code for compute_%u%.1s", part.arch, part.suffix ? &part.suffix : "");
        return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: its %s (%s) %s: the package is damaged", pkg->origin,
                                   what, part.group < pkg->ngroups ? pkg->group_names[part.group] : "?", why);
    }
    udfkit_package_part *grown = realloc(pkg->parts, (pkg->nparts + 1) * sizeof *grown);
    if (!grown)
        return no_memory();
    pkg->parts = grown;
    if (part.link)
        udfkit_hash_hex(part.data, part.size, part.hash);
    grown[pkg->nparts++] = part;
    return UDFKIT_OK;
}

void udfkit_package_seal(udfkit_package *pkg)
{
    udfkit_buf all = UDFKIT_BUF_INIT;
    /* The producer too: it decides whether this nvJitLink may link the code at all. */
    udfkit_buf_printf(&all, "udfkit-package\nproducer %s %d.%d\n", pkg->producer ? pkg->producer : "-",
                      pkg->producer_major, pkg->producer_minor);
    for (size_t i = 0; i < pkg->nfunctions; i++)
        udfkit_buf_printf(&all, "function %s %s\n", pkg->names[i], pkg->signatures[i]);
    for (size_t i = 0; i < pkg->nparts; i++) {
        const udfkit_package_part *p = &pkg->parts[i];
        char h[UDFKIT_HASH_HEX_SIZE];
        udfkit_hash_hex(p->data, p->size, h);
        udfkit_buf_printf(&all, "part %zu %u%c %d %s\n", p->group, p->arch, p->suffix ? p->suffix : '-', p->link, h);
    }
    udfkit_hash_hex(all.data ? all.data : "", all.size, pkg->hash);
    udfkit_buf_free(&all);
}

void udfkit_package_close(udfkit_package *pkg)
{
    if (!pkg)
        return;
    for (size_t i = 0; i < pkg->nfunctions; i++) {
        free(pkg->names[i]);
        free(pkg->signatures[i]);
    }
    free(pkg->names);
    free(pkg->signatures);
    for (size_t i = 0; i < pkg->ngroups; i++)
        free(pkg->group_names[i]);
    free(pkg->group_names);
    free(pkg->parts);
    if (pkg->fatbin)
        udfkit_fatbin_contents_free(pkg->fatbin);
    free(pkg->fatbin);
    for (size_t i = 0; i < pkg->nstorage; i++)
        udfkit_buf_free(&pkg->storage[i]);
    free(pkg->storage);
    free(pkg->origin);
    free(pkg);
}

udfkit_status udfkit_package_set_options(udfkit_package *pkg, const udfkit_compile_options *copts)
{
    if (!pkg)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_package_set_options: no package");
    udfkit_sandbox sb;
    int fd;
    bool isolated;
    udfkit_status s = udfkit_runtime_sandbox(copts, &sb, &fd, &isolated);
    if (s)
        return s;
    pkg->isolated = isolated;
    pkg->options = isolated ? *copts : (udfkit_compile_options)UDFKIT_COMPILE_OPTIONS_INIT;
    return UDFKIT_OK;
}

size_t udfkit_package_function_count(const udfkit_package *pkg)
{
    return pkg ? pkg->nfunctions : 0;
}

udfkit_status udfkit_package_function(const udfkit_package *pkg, size_t i, const char **c_name, const char **signature)
{
    if (!pkg || i >= pkg->nfunctions)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_package_function: %s",
                                   pkg ? "no such function" : "no package");
    if (c_name)
        *c_name = pkg->names[i];
    if (signature)
        *signature = pkg->signatures[i];
    return UDFKIT_OK;
}

bool udfkit_package_find(const udfkit_package *pkg, const char *c_name, size_t *index)
{
    for (size_t i = 0; i < pkg->nfunctions; i++)
        if (strcmp(pkg->names[i], c_name) == 0) {
            *index = i;
            return true;
        }
    return false;
}

static const char *producer_literal(const char *tool)
{
    if (!tool)
        return NULL;
    if (strcmp(tool, "nvrtc") == 0)
        return "NVRTC";
    if (strcmp(tool, "nvvm") == 0)
        return "NVVM";
    return NULL;
}

/* The producer that made the newest code: what nvJitLink must be at least as new as. */
static void note_producer(udfkit_package *pkg, const char *tool, int major, int minor)
{
    const char *literal = producer_literal(tool);
    if (!literal)
        return;
    if (!pkg->producer || major > pkg->producer_major || (major == pkg->producer_major && minor > pkg->producer_minor)) {
        pkg->producer = literal;
        pkg->producer_major = major;
        pkg->producer_minor = minor;
    }
}

udfkit_status udfkit_package_read_fatbin(udfkit_package *pkg, const void *data, size_t size, bool need_package)
{
    if (pkg->fatbin || !(pkg->fatbin = calloc(1, sizeof *pkg->fatbin)))
        return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory reading %s", pkg->origin);
    if (udfkit_fatbin_read(data, size, pkg->origin, pkg->fatbin) != UDFKIT_RC_OK) {
        udfkit_status s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s", udfkit_diag_message());
        udfkit_diag_clear();
        return s;
    }
    /* Groups by the text before each identifier's first ':'; entries without one (nvcc's
     * own fatbins) are a group each. */
    char **seen = calloc(pkg->fatbin->count + 1, sizeof *seen);
    size_t *seen_group = calloc(pkg->fatbin->count + 1, sizeof *seen_group);
    size_t nseen = 0;
    bool any_package = false;
    udfkit_status s = seen && seen_group ? UDFKIT_OK : no_memory();
    for (size_t i = 0; i < pkg->fatbin->count && !s; i++) {
        const udfkit_fatbin_entry_info *e = &pkg->fatbin->entries[i];
        if (e->kind != UDFKIT_CODE_LTOIR)
            continue;
        if (e->compression != UDFKIT_COMPRESSION_NONE) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                                    "%s: entry %zu is compressed LTO-IR, which only NVIDIA's tools undo: pack it "
                                    "uncompressed (udfkit pack, or udfkit link --keep-ltoir --compress none)",
                                    pkg->origin, i);
            break;
        }
        udfkit_package_id id = {0};
        udfkit_package_id_status st =
            e->name ? udfkit_package_id_parse(e->name, e->name_size, &id) : UDFKIT_PACKAGE_ID_FOREIGN;
        if (st == UDFKIT_PACKAGE_ID_MALFORMED) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: entry %zu has a malformed udfkit package identifier",
                                    pkg->origin, i);
            break;
        }
        if (st == UDFKIT_PACKAGE_ID_NO_MEMORY) {
            s = no_memory();
            break;
        }
        bool ok = st == UDFKIT_PACKAGE_ID_OK;
        any_package |= ok && id.version > 0;
        if (ok && id.version > UDFKIT_PACKAGE_VERSION) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                                    "%s: entry %zu is of package format %u, newer than this runtime reads (%d): "
                                    "update the udfkit runtime",
                                    pkg->origin, i, id.version, UDFKIT_PACKAGE_VERSION);
            udfkit_package_id_free(&id);
            break;
        }
        char fallback[32];
        snprintf(fallback, sizeof fallback, "entry %zu", i);
        const char *group_text = ok ? id.group : fallback;
        size_t group = SIZE_MAX;
        for (size_t k = 0; k < nseen; k++)
            if (strcmp(seen[k], group_text) == 0)
                group = seen_group[k];
        if (group == SIZE_MAX) {
            udfkit_buf name = UDFKIT_BUF_INIT;
            udfkit_buf_printf(&name, "%s", ok && id.file ? id.file : fallback);
            if (!(s = udfkit_package_add_group(pkg, name.data, &group))) {
                seen[nseen] = strdup(group_text);
                seen_group[nseen++] = group;
            }
            udfkit_buf_free(&name);
        }
        for (size_t f = 0; ok && !s && f < id.nfunctions; f++)
            s = udfkit_package_add_function(pkg, id.functions[f].c_name, id.functions[f].signature);
        if (ok)
            note_producer(pkg, id.producer, (int)id.producer_major, (int)id.producer_minor);
        if (!s)
            s = udfkit_package_add_part(pkg, (udfkit_package_part){group, e->target.number, e->target.suffix,
                                                                    e->payload, e->payload_size, ok && id.link, ""});
        udfkit_package_id_free(&id);
    }
    for (size_t k = 0; k < nseen; k++)
        free(seen[k]);
    free(seen);
    free(seen_group);
    if (!s && need_package && !any_package)
        s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                                "%s is a fatbin without a udfkit package's function table: make the package with "
                                "`udfkit pack` (udfkit_install_udf(... FATBIN))",
                                pkg->origin);
    return s;
}

static bool runs(const udfkit_package_part *p, int arch)
{
    return udfkit_runtime_code_runs((udfkit_target){p->arch, p->suffix, false}, arch);
}

udfkit_status udfkit_package_choose(const udfkit_package *pkg, int arch, size_t **chosen, size_t *count)
{
    *chosen = calloc(pkg->ngroups + 1, sizeof **chosen);
    *count = 0;
    if (!*chosen)
        return no_memory();
    for (size_t g = 0; g < pkg->ngroups; g++) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < pkg->nparts; i++) {
            const udfkit_package_part *p = &pkg->parts[i];
            if (p->group != g || !runs(p, arch))
                continue;
            /* Of equal numbers the specific code: it was built for this very device. */
            if (best == SIZE_MAX || p->arch > pkg->parts[best].arch ||
                (p->arch == pkg->parts[best].arch && p->suffix && !pkg->parts[best].suffix))
                best = i;
        }
        if (best != SIZE_MAX) {
            (*chosen)[(*count)++] = best;
            continue;
        }
        udfkit_buf has = UDFKIT_BUF_INIT;
        for (size_t i = 0; i < pkg->nparts; i++)
            if (pkg->parts[i].group == g)
                udfkit_buf_printf(&has, "%scompute_%u%s", has.size ? ", " : "", pkg->parts[i].arch,
                                  pkg->parts[i].suffix == 'a' ? "a" : pkg->parts[i].suffix == 'f' ? "f" : "");
        udfkit_status s = udfkit_runtime_fail(
            UDFKIT_ERROR_NO_BINARY, "%s: %s has no LTO-IR this device (sm_%d) can use (it has %s): build it for "
                                    "compute_%d or lower",
            pkg->origin, pkg->group_names[g], arch, has.size ? has.data : "none", arch);
        udfkit_buf_free(&has);
        free(*chosen);
        *chosen = NULL;
        *count = 0;
        return s;
    }
    return UDFKIT_OK;
}
