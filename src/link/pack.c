#include "link/pack.h"

#include "artifact/inspect.h"
#include "artifact/manifest.h"
#include "artifact/package_id.h"
#include "base/arch.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/strset.h"
#include "link/function_table.h"
#include "link/linker.h"
#include "link/slot_kernels.h"
#include "nvidia/nvfatbin_wrap.h"
#include "nvidia/nvjitlink_wrap.h"
#include "nvidia/toolchain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One LTO-IR file to pack. */
typedef struct pack_entry {
    char *path;
    udfkit_buf data;
    bool has_arch; /* from a manifest: a raw .ltoir does not say which architecture it is for */
    udfkit_target arch;
    size_t group;
    const char *producer; /* "nvrtc", "nvvm", or NULL */
    udfkit_version version;
    bool link;
    bool kept;
} pack_entry;

/* Entries that are alternatives of each other: one source's code for several architectures. */
typedef struct pack_group {
    char *key;
    char *origin; /* the manifest or file, for messages */
    char *what;   /* "'udfs.cu'", "function 'add'", "link file 'x.ltoir'" */
} pack_group;

typedef struct pack_set {
    pack_entry *entries;
    size_t count;
    pack_group *groups;
    size_t ngroups;
    udfkit_strset hashes; /* the bytes packed already: the same file from two inputs goes in once */
    udfkit_function_table table; /* the inputs' functions, merged */
    json_t *producers;
} pack_set;

static udfkit_rc out_of_memory(void)
{
    return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
}

static size_t intern_group(pack_set *s, const char *key, const char *origin, const char *what)
{
    for (size_t g = 0; g < s->ngroups; g++)
        if (strcmp(s->groups[g].key, key) == 0)
            return g;
    pack_group *groups = realloc(s->groups, (s->ngroups + 1) * sizeof *groups);
    if (!groups)
        return SIZE_MAX;
    s->groups = groups;
    s->groups[s->ngroups] = (pack_group){strdup(key), strdup(origin), strdup(what)};
    return s->ngroups++;
}

/* Takes e's path and data. Groups without a key are of one file, by its bytes: support code
 * that each Python module brings its own copy of is one group. */
static udfkit_rc add_entry(pack_set *s, pack_entry *e, const char *key, const char *origin, const char *what)
{
    char hash[UDFKIT_HASH_HEX_SIZE];
    udfkit_hash_hex(e->data.data, e->data.size, hash);
    udfkit_rc rc = UDFKIT_RC_OK;
    if (!udfkit_strset_has(&s->hashes, hash)) {
        udfkit_buf by_content = UDFKIT_BUF_INIT;
        udfkit_buf_printf(&by_content, "link file\n%s", hash);
        pack_entry *entries = realloc(s->entries, (s->count + 1) * sizeof *entries);
        e->group = intern_group(s, key ? key : by_content.data, origin, what);
        if (entries)
            s->entries = entries;
        if (!entries || e->group == SIZE_MAX || !udfkit_strset_add(&s->hashes, hash))
            rc = out_of_memory();
        else
            s->entries[s->count++] = *e;
        udfkit_buf_free(&by_content);
        if (!rc)
            return rc;
    }
    free(e->path);
    udfkit_buf_free(&e->data);
    return rc;
}

static const char *kind_phrase(const char *kind)
{
    static const char *const phrases[][2] = {
        {"ptx", "PTX"},         {"cubin", "a cubin"},        {"fatbin", "a fatbin"},
        {"o", "a host object"}, {"object", "a host object"}, {"a", "an archive"},
        {"archive", "an archive"}, {"manifest", "a udfkit manifest"},
    };
    for (size_t i = 0; i < sizeof phrases / sizeof *phrases; i++)
        if (strcmp(kind, phrases[i][0]) == 0)
            return phrases[i][1];
    return kind;
}

/* A file given as an input (named_by NULL), or by a manifest's link list: LTO-IR, or for
 * an input also a manifest. */
static udfkit_rc add_manifest(pack_set *s, const char *path);

static udfkit_rc add_file(pack_set *s, const char *path, const udfkit_manifest *named_by)
{
    udfkit_buf data = UDFKIT_BUF_INIT;
    udfkit_rc rc = udfkit_read_file(path, &data);
    if (rc)
        return rc;
    bool manifest = strcmp(udfkit_path_extension(path), ".json") == 0 || udfkit_manifest_sniff(data.data, data.size);
    if (manifest && !named_by) {
        udfkit_buf_free(&data);
        return add_manifest(s, path);
    }
    json_t *desc = NULL;
    if (!(rc = udfkit_inspect_data(data.data, data.size, path, &desc))) {
        const char *kind = json_string_value(json_object_get(desc, "kind"));
        if (strcmp(kind, "ltoir") != 0)
            rc = udfkit_fail(UDFKIT_RC_INPUT, path, 0, "pack takes LTO-IR%s; this is %s: compile it with --emit ltoir",
                             named_by ? "" : " and udfkit manifests", kind_phrase(kind));
    }
    json_decref(desc);
    if (rc) {
        udfkit_buf_free(&data);
        return rc;
    }
    pack_entry e = {.path = strdup(path), .data = data, .link = named_by != NULL};
    udfkit_buf key = UDFKIT_BUF_INIT, what = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&key, "file\n%s", path);
    udfkit_buf_printf(&what, "%s'%s'", named_by ? "link file " : "", named_by ? udfkit_path_basename(path) : path);
    rc = add_entry(s, &e, named_by ? NULL : key.data, named_by ? named_by->path : path, what.data);
    udfkit_buf_free(&key);
    udfkit_buf_free(&what);
    return rc;
}

/* The tool that made an artifact, of those the manifest names: NVVM for a Python
 * function's, NVRTC for others, else whichever it has. */
static void pick_producer(pack_entry *e, const json_t *producers, bool python)
{
    const char *order[2] = {python ? "nvvm" : "nvrtc", python ? "nvrtc" : "nvvm"};
    for (size_t k = 0; k < 2 && !e->producer; k++) {
        const char *v = json_string_value(json_object_get(producers, order[k]));
        if (v && udfkit_version_parse(v, &e->version))
            e->producer = order[k];
    }
}

/* Every artifact: one group per CUDA source, per Python function, per link file. */
static udfkit_rc add_artifacts(pack_set *s, const udfkit_manifest *m)
{
    const json_t *producers = json_object_get(m->root, "producers");
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(m->root, "artifacts"), i, a)
    {
        const char *kind = json_string_value(json_object_get(a, "kind"));
        const char *rel = json_string_value(json_object_get(a, "path"));
        if (strcmp(kind, "ltoir") != 0)
            return udfkit_fail(UDFKIT_RC_INPUT, m->path, 0,
                               "pack takes LTO-IR; artifact '%s' is %s: compile with --emit ltoir "
                               "(add_ptx_udf OUTPUT LTOIR)",
                               rel, kind_phrase(kind));
        pack_entry e = {0};
        udfkit_rc rc = udfkit_manifest_read_artifact(m, a, &e.path, &e.data);
        if (rc) {
            free(e.path);
            udfkit_buf_free(&e.data);
            return rc;
        }
        const char *arch = json_string_value(json_object_get(a, "arch"));
        const char *function = json_string_value(json_object_get(a, "function"));
        const char *source = json_string_value(json_object_get(a, "source"));
        e.has_arch = arch && udfkit_target_parse_name(arch, &e.arch);
        e.arch.sass = false;
        e.link = json_object_get(a, "role") != NULL;
        pick_producer(&e, producers, function != NULL);
        udfkit_buf key = UDFKIT_BUF_INIT, what = UDFKIT_BUF_INIT;
        if (e.link) {
            udfkit_buf_printf(&what, "link file '%s'", rel);
        } else if (function) {
            udfkit_buf_printf(&key, "%s\nfunction %s", m->path, function);
            udfkit_buf_printf(&what, "function '%s'", function);
        } else {
            udfkit_buf_printf(&key, "%s\nsource %s", m->path, source ? source : rel);
            udfkit_buf_printf(&what, "'%s'", source ? source : rel);
        }
        rc = add_entry(s, &e, e.link ? NULL : key.data, m->path, what.data);
        udfkit_buf_free(&key);
        udfkit_buf_free(&what);
        if (rc)
            return rc;
    }
    return UDFKIT_RC_OK;
}

/* The functions' names and signatures go into identifiers: they must be what they say. */
static udfkit_rc check_functions(const udfkit_manifest *m)
{
    size_t i;
    json_t *fn;
    json_array_foreach(json_object_get(m->root, "functions"), i, fn)
    {
        udfkit_spec spec;
        udfkit_rc rc = udfkit_manifest_function_spec(m, fn, &spec);
        udfkit_spec_free(&spec);
        if (rc)
            return rc;
    }
    return UDFKIT_RC_OK;
}

/* Files the link list names by path; its records of artifacts are packed with the artifacts. */
static udfkit_rc add_link_files(pack_set *s, const udfkit_manifest *m)
{
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(m->root, "link"), i, item)
    {
        const char *rel = json_string_value(json_is_string(item) ? item : json_object_get(item, "path"));
        if (!rel)
            continue;
        char *file;
        udfkit_rc rc = udfkit_manifest_resolve(m, rel, &file);
        if (!rc)
            rc = add_file(s, file, m);
        free(file);
        if (rc)
            return rc;
    }
    return UDFKIT_RC_OK;
}

static udfkit_rc add_manifest(pack_set *s, const char *path)
{
    udfkit_manifest m;
    udfkit_rc rc = udfkit_manifest_load(path, &m);
    const char *const tools[] = {"nvrtc", "nvvm"};
    for (size_t t = 0; t < 2 && !rc; t++) {
        json_t *v = json_object_get(json_object_get(m.root, "producers"), tools[t]);
        if (json_is_string(v) && !json_object_get(s->producers, tools[t]))
            json_object_set(s->producers, tools[t], v);
    }
    if (!rc)
        rc = add_artifacts(s, &m);
    if (!rc)
        rc = check_functions(&m);
    if (!rc)
        rc = udfkit_function_table_add(&s->table, &m);
    if (!rc)
        rc = add_link_files(s, &m);
    udfkit_manifest_free(&m);
    return rc;
}

static udfkit_rc no_entry_for(const pack_set *s, size_t group, udfkit_target target)
{
    udfkit_buf has = UDFKIT_BUF_INIT;
    for (size_t i = 0; i < s->count; i++) {
        char name[32];
        udfkit_target_name(s->entries[i].arch, name, sizeof name);
        if (s->entries[i].group == group && s->entries[i].has_arch)
            udfkit_buf_printf(&has, "%s%s", has.size ? ", " : "", name);
    }
    char name[32];
    udfkit_target_name((udfkit_target){target.number, target.suffix, false}, name, sizeof name);
    const pack_group *g = &s->groups[group];
    udfkit_rc rc = udfkit_fail(UDFKIT_RC_INPUT, g->origin, 0, "%s has no LTO-IR for %s or lower (it has %s)", g->what,
                               name, has.data);
    udfkit_buf_free(&has);
    return rc;
}

/* --arch: of each group, for each architecture, the entry for the highest architecture it
 * takes; entries that do not say their architecture always go in. */
static udfkit_rc select_entries(pack_set *s, const udfkit_target_list *targets)
{
    for (size_t g = 0; g < s->ngroups; g++) {
        for (size_t t = 0; t < targets->count; t++) {
            pack_entry *best = NULL;
            bool any = false;
            for (size_t i = 0; i < s->count; i++) {
                pack_entry *e = &s->entries[i];
                if (e->group != g)
                    continue;
                e->kept |= !e->has_arch;
                any |= e->has_arch;
                if (e->has_arch && udfkit_target_accepts(targets->items[t], e->arch) &&
                    (!best || e->arch.number > best->arch.number))
                    best = e;
            }
            if (best)
                best->kept = true;
            else if (any)
                return no_entry_for(s, g, targets->items[t]);
        }
    }
    return UDFKIT_RC_OK;
}

/* The kept entries in input order, named as package_id.h says; the function table on the
 * first. `label`: the architecture given to entries that do not say theirs. */
static udfkit_rc pack_entries(const pack_set *s, udfkit_target label, const udfkit_fatbin_entry *sass,
                              size_t nsass, udfkit_buf *fatbin, json_t *listed, size_t *ngroups)
{
    size_t nfns = json_array_size(s->table.functions), n = 0;
    udfkit_package_id_function *fns = calloc(nfns + 1, sizeof *fns);
    udfkit_fatbin_entry *entries = calloc(s->count + nsass + 1, sizeof *entries);
    char (*archs)[16] = calloc(s->count + 1, sizeof *archs);
    udfkit_buf *names = calloc(s->count + 1, sizeof *names);
    bool *seen = calloc(s->ngroups + 1, sizeof *seen);
    udfkit_rc rc = fns && entries && archs && names && seen ? UDFKIT_RC_OK : out_of_memory();
    for (size_t i = 0; i < nfns && !rc; i++) {
        const json_t *fn = json_array_get(s->table.functions, i);
        fns[i] = (udfkit_package_id_function){json_string_value(json_object_get(fn, "c_name")),
                                           json_string_value(json_object_get(fn, "signature"))};
    }
    for (size_t i = 0; i < s->count && !rc; i++) {
        const pack_entry *e = &s->entries[i];
        if (!e->kept)
            continue;
        udfkit_target t = e->has_arch ? e->arch : label;
        char group[32], name[32];
        snprintf(group, sizeof group, "%zu", e->group);
        udfkit_target_number(t, archs[n], sizeof archs[n]);
        udfkit_package_id id = {.group = group,
                                .file = udfkit_path_basename(e->path),
                                .version = UDFKIT_PACKAGE_VERSION,
                                .producer = e->producer,
                                .producer_major = (unsigned)e->version.major,
                                .producer_minor = (unsigned)e->version.minor,
                                .link = e->link,
                                .functions = n ? NULL : fns,
                                .nfunctions = n ? 0 : nfns};
        if (!udfkit_package_id_format(&id, &names[n])) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, s->groups[e->group].origin, 0,
                             "cannot name '%s' in a package: its file name, or a c_name or signature, has a line break",
                             e->path);
            break;
        }
        entries[n] = (udfkit_fatbin_entry){UDFKIT_FATBIN_LTOIR, e->data.data, e->data.size, archs[n], names[n].data};
        udfkit_target_name(t, name, sizeof name);
        json_t *listing = json_object();
        json_object_set_new(listing, "kind", json_string("ltoir"));
        json_object_set_new(listing, "arch", json_string(name));
        json_object_set_new(listing, "source", json_string(udfkit_path_basename(e->path)));
        json_array_append_new(listed, listing);
        *ngroups += !seen[e->group];
        seen[e->group] = true;
        n++;
    }
    if (!rc && !n)
        rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "nothing to pack: the inputs hold no LTO-IR");
    for (size_t i = 0; i < nsass && !rc; i++) {
        entries[n++] = sass[i];
        json_t *listing = json_object();
        char name[32];
        snprintf(name, sizeof name, "sm_%s", sass[i].arch);
        json_object_set_new(listing, "kind", json_string("cubin"));
        json_object_set_new(listing, "arch", json_string(name));
        json_array_append_new(listed, listing);
    }
    /* Uncompressed: nvFatbin's compressed LTO-IR is in a form only NVIDIA's tools undo. */
    if (!rc)
        rc = udfkit_fatbin_build(entries, n, UDFKIT_COMPRESS_NONE, fatbin);
    for (size_t i = 0; names && i < s->count + 1; i++)
        udfkit_buf_free(&names[i]);
    free(names);
    free(archs);
    free(entries);
    free(fns);
    free(seen);
    return rc;
}

/* OUT.json: the fatbin's manifest, as `udfkit link` writes one, with "package": 1. */
static udfkit_rc write_manifest(const pack_set *s, const char *output, const char *path, const udfkit_buf *fatbin,
                                json_t *listed, const udfkit_toolchain *tc, udfkit_outputs *outputs)
{
    json_t *manifest = udfkit_manifest_new("fatbin");
    json_object_set_new(manifest, "package", json_integer(UDFKIT_PACKAGE_VERSION));
    json_object_update(json_object_get(manifest, "producers"), s->producers);
    char v[32];
    snprintf(v, sizeof v, "%d.%d", tc->nvfatbin.major, tc->nvfatbin.minor);
    udfkit_manifest_set_producer(manifest, "nvfatbin", v);
    json_object_set(manifest, "functions", s->table.functions);
    json_t *a = udfkit_manifest_add_artifact(manifest, "fatbin", NULL, udfkit_path_basename(output), NULL, fatbin->data,
                                             fatbin->size);
    json_object_set(a, "entries", listed);
    udfkit_buf text = UDFKIT_BUF_INIT;
    udfkit_manifest_dump(manifest, &text);
    udfkit_rc rc = udfkit_outputs_write(outputs, path, text.data, text.size);
    udfkit_buf_free(&text);
    json_decref(manifest);
    return rc;
}

static void pack_set_free(pack_set *s)
{
    for (size_t i = 0; i < s->count; i++) {
        free(s->entries[i].path);
        udfkit_buf_free(&s->entries[i].data);
    }
    for (size_t g = 0; g < s->ngroups; g++) {
        free(s->groups[g].key);
        free(s->groups[g].origin);
        free(s->groups[g].what);
    }
    free(s->entries);
    free(s->groups);
    udfkit_strset_free(&s->hashes);
    udfkit_function_table_free(&s->table);
    json_decref(s->producers);
}

/* --sass: for each real architecture, of each group the entry for the highest architecture
 * it takes, linked to PTX with the slots left undefined, to tell the kernels that call a slot
 * from the others; the others linked to SASS (whole, as a module of their own, with the UDF
 * error record and no variable no code uses), named by the kernels they lack. */
typedef struct sass_out {
    udfkit_buf code, name;
    char arch[16];
} sass_out;

static udfkit_rc link_sass(const pack_set *s, udfkit_target target, const char *output, sass_out *out)
{
    udfkit_link_input *inputs = calloc(s->ngroups + 1, sizeof *inputs);
    if (!inputs)
        return out_of_memory();
    size_t n = 0;
    udfkit_rc rc = UDFKIT_RC_OK;
    for (size_t g = 0; g < s->ngroups && !rc; g++) {
        const pack_entry *best = NULL;
        for (size_t i = 0; i < s->count; i++) {
            const pack_entry *e = &s->entries[i];
            if (e->group == g && (!e->has_arch || udfkit_target_accepts(target, e->arch)) &&
                (!best || (e->has_arch && best->has_arch && e->arch.number > best->arch.number)))
                best = e;
        }
        if (!best)
            rc = no_entry_for(s, g, target);
        else
            inputs[n++] = (udfkit_link_input){UDFKIT_INPUT_LTOIR, best->data.data, best->data.size, best->path};
    }
    char gpu[32], arch_opt[48];
    udfkit_target_name(target, gpu, sizeof gpu);
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s", gpu);
    udfkit_buf ptx = UDFKIT_BUF_INIT, log = UDFKIT_BUF_INIT;
    udfkit_slot_kernels kernels = {0};
    double start = udfkit_seconds();
    if (!rc) {
        const char *options[] = {arch_opt, "-lto", "-ptx"};
        if (udfkit_jitlink_run(options, 3, inputs, n, true, &ptx, &log))
            rc = udfkit_fail(UDFKIT_RC_INPUT, output, 0, "linking the library's LTO-IR for %s failed: %s", gpu,
                             log.data ? log.data : "no log");
    }
    if (!rc)
        rc = udfkit_slot_kernels_read(ptx.data, ptx.size, output, &kernels);
    size_t nbound = 0;
    for (size_t k = 0; k < kernels.count; k++)
        nbound += kernels.bound[k];
    const char **options = calloc(kernels.count + 5, sizeof *options);
    udfkit_buf *used = calloc(kernels.count + 1, sizeof *used);
    udfkit_package_id id = {.group = "sass", .file = udfkit_path_basename(output), .version = UDFKIT_PACKAGE_VERSION};
    id.bound_kernels = calloc(nbound + 1, sizeof *id.bound_kernels);
    id.kernel_calls = calloc(nbound + 1, sizeof *id.kernel_calls);
    udfkit_buf *calls = calloc(nbound + 1, sizeof *calls);
    if (!rc && (!options || !used || !id.bound_kernels || !id.kernel_calls || !calls))
        rc = out_of_memory();
    if (!rc) {
        size_t noptions = 0;
        options[noptions++] = arch_opt;
        options[noptions++] = "-lto";
        options[noptions++] = "-optimize-unused-variables";
        options[noptions++] = "-variables-used=udfkit_udf_error_record";
        for (size_t k = 0; k < kernels.count; k++) {
            if (kernels.bound[k]) {
                udfkit_buf_printf(&calls[id.nbound_kernels], "%s %s", kernels.names[k], kernels.calls[k]);
                id.kernel_calls[id.nkernel_calls++] = calls[id.nbound_kernels].data;
                id.bound_kernels[id.nbound_kernels++] = kernels.names[k];
                continue;
            }
            udfkit_buf_printf(&used[k], "-kernels-used=%s", kernels.names[k]);
            options[noptions++] = used[k].data;
        }
        /* Every kernel calls a slot: a module of the error record alone. */
        if (noptions == 4)
            options[noptions++] = "-kernels-used=udfkit_no_kernel_calls_no_slot";
        udfkit_buf_free(&log);
        log = (udfkit_buf)UDFKIT_BUF_INIT;
        if (udfkit_jitlink_run(options, noptions, inputs, n, false, &out->code, &log))
            rc = udfkit_fail(UDFKIT_RC_INPUT, output, 0, "linking the kernels that call no slot for %s failed: %s",
                             gpu, log.data ? log.data : "no log");
    }
    if (!rc && !udfkit_package_id_format(&id, &out->name))
        rc = udfkit_fail(UDFKIT_RC_INPUT, output, 0, "cannot name the SASS entry for %s: a name has a line break", gpu);
    if (!rc) {
        udfkit_target_number(target, out->arch, sizeof out->arch);
        udfkit_note("pack: %s: %zu of %zu kernels as SASS, %zu call slots (%.2f s)", gpu, kernels.count - nbound,
                    kernels.count, nbound, udfkit_seconds() - start);
    }
    for (size_t k = 0; used && k < kernels.count; k++)
        udfkit_buf_free(&used[k]);
    free(used);
    free(options);
    free(id.bound_kernels);
    for (size_t k = 0; calls && k < nbound; k++)
        udfkit_buf_free(&calls[k]);
    free(calls);
    free(id.kernel_calls);
    udfkit_slot_kernels_free(&kernels);
    udfkit_buf_free(&ptx);
    udfkit_buf_free(&log);
    free(inputs);
    return rc;
}

udfkit_rc udfkit_pack(const udfkit_pack_request *req)
{
    pack_set s = {.producers = json_object()};
    udfkit_function_table_init(&s.table, req->output);
    udfkit_outputs *outputs = udfkit_outputs_new();
    char *manifest_path = udfkit_link_manifest_path(req->output);
    json_t *listed = json_array();
    udfkit_buf fatbin = UDFKIT_BUF_INIT;
    udfkit_toolchain tc;
    udfkit_target_list targets;
    size_t ngroups = 0;
    double start = udfkit_seconds();
    udfkit_rc rc = udfkit_toolchain_query(&tc);
    if (!rc)
        rc = udfkit_outputs_claim(outputs, req->output);
    if (!rc)
        rc = udfkit_outputs_claim(outputs, manifest_path);
    if (!rc)
        rc = udfkit_outputs_inputs(outputs, req->inputs, req->ninputs);
    if (!rc && !req->ninputs)
        rc = udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "pack needs at least one input");
    if (!rc)
        rc = udfkit_toolchain_parse_archs(req->arch, &targets);
    for (size_t i = 0; i < req->ninputs && !rc; i++)
        rc = add_file(&s, req->inputs[i], NULL);
    for (size_t i = 0; i < s.count && !rc && !req->arch; i++)
        s.entries[i].kept = true;
    if (!rc && req->arch)
        rc = select_entries(&s, &targets);
    /* An entry that does not say its architecture is given the lowest asked for (or the
     * default's), as `udfkit link --keep-ltoir` gives it the first it links. */
    udfkit_target label = {0, '\0', false};
    for (size_t t = 0; !rc && t < targets.count; t++)
        if (!label.number || targets.items[t].number < label.number)
            label.number = targets.items[t].number;
    udfkit_target_list sass_targets = {0};
    sass_out *sass = NULL;
    udfkit_fatbin_entry *sass_entries = NULL;
    size_t nsass = 0;
    if (!rc && req->sass)
        rc = udfkit_toolchain_parse_archs(req->sass, &sass_targets);
    if (!rc && sass_targets.count) {
        sass = calloc(sass_targets.count, sizeof *sass);
        sass_entries = calloc(sass_targets.count, sizeof *sass_entries);
        if (!sass || !sass_entries)
            rc = out_of_memory();
    }
    for (size_t t = 0; t < sass_targets.count && !rc; t++) {
        if (!sass_targets.items[t].sass)
            continue;
        rc = link_sass(&s, sass_targets.items[t], req->output, &sass[nsass]);
        if (!rc) {
            sass_entries[nsass] = (udfkit_fatbin_entry){UDFKIT_FATBIN_CUBIN, sass[nsass].code.data,
                                                        sass[nsass].code.size, sass[nsass].arch,
                                                        sass[nsass].name.data};
            nsass++;
        }
    }
    if (!rc)
        rc = pack_entries(&s, label, sass_entries, nsass, &fatbin, listed, &ngroups);
    for (size_t t = 0; sass && t < sass_targets.count; t++) {
        udfkit_buf_free(&sass[t].code);
        udfkit_buf_free(&sass[t].name);
    }
    free(sass);
    free(sass_entries);
    if (!rc)
        rc = udfkit_outputs_write(outputs, req->output, fatbin.data, fatbin.size);
    if (!rc)
        rc = write_manifest(&s, req->output, manifest_path, &fatbin, listed, &tc, outputs);
    if (!rc)
        rc = udfkit_outputs_commit(outputs);
    if (!rc)
        udfkit_note("pack: %zu entries of %zu groups into %s (%zu bytes, %.2f s)", json_array_size(listed), ngroups,
                    req->output, fatbin.size, udfkit_seconds() - start);
    json_decref(listed);
    udfkit_buf_free(&fatbin);
    free(manifest_path);
    udfkit_outputs_free(outputs);
    pack_set_free(&s);
    return rc;
}
