#include "artifact/inspect.h"

#include "artifact/elf_read.h"
#include "artifact/fatbin_read.h"
#include "artifact/manifest.h"
#include "artifact/package_id.h"
#include "base/arch.h"
#include "base/buf.h"
#include "base/fs.h"
#include "base/strset.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* NVRTC -dlto output and the LTO-IR inside nvcc's fatbins both start with these bytes;
 * this is NVVM's own container, not LLVM bitcode. */
static const unsigned char ltoir_magic[4] = {0xed, 0x43, 0x4e, 0x7f};

#define AR_MAGIC "!<arch>\n"
#define AR_HEADER_SIZE 60

/* The LTO-IR format is NVIDIA's and undocumented; udfkit's manifests record what it exports. */
#define LTOIR_NOTE "LTO-IR symbols are listed in the manifest"

/* Names are collected as they come and made unique once, at the end (unique_names): a
 * search per name would make a PTX of many thousand kernels cost quadratic time. */
static void add_name(json_t *list, const char *name)
{
    json_array_append_new(list, json_string(name));
}

/* Keeps the first of each name, in order. */
static void unique_names(json_t *list)
{
    udfkit_strset seen = UDFKIT_STRSET_INIT;
    json_t *kept = json_array();
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
    {
        if (udfkit_strset_add(&seen, json_string_value(item)))
            json_array_append(kept, item);
    }
    json_array_clear(list);
    json_array_extend(list, kept);
    json_decref(kept);
    udfkit_strset_free(&seen);
}

/* ---- PTX ---- */

typedef struct ptx_summary {
    bool has_version, has_target;
    unsigned major, minor;
    udfkit_target target;
} ptx_summary;

static bool ptx_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%';
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* Whether the line at p starts with `word` followed by a blank. */
static bool starts_word(const char *p, const char *end, const char *word, const char **after)
{
    size_t n = strlen(word);
    if ((size_t)(end - p) <= n || memcmp(p, word, n) != 0 || (p[n] != ' ' && p[n] != '\t'))
        return false;
    *after = skip_blanks(p + n, end);
    return true;
}

static void add_name_span(json_t *list, const char *p, const char *end)
{
    const char *q = p;
    while (q < end && ptx_ident_char(*q))
        q++;
    if (q == p || q - p > 4096)
        return;
    char name[4097];
    memcpy(name, p, (size_t)(q - p));
    name[q - p] = '\0';
    add_name(list, name);
}

/* `.visible`/`.weak` functions are the ones another module can reach; `.extern` ones are
 * declarations and unmarked ones are internal. nvcc, NVRTC and numba keep each function's
 * linkage, kind and name on one line, so a line-by-line reading suffices. */
static void ptx_scan_line(const char *p, const char *end, ptx_summary *s, json_t *kernels, json_t *functions)
{
    const char *rest;
    if (starts_word(p, end, ".version", &rest)) {
        unsigned major = 0, minor = 0;
        const char *q = rest;
        while (q < end && isdigit((unsigned char)*q) && major < 1000)
            major = major * 10 + (unsigned)(*q++ - '0');
        if (q < end && *q == '.' && q > rest) {
            const char *digits = ++q;
            while (q < end && isdigit((unsigned char)*q) && minor < 1000)
                minor = minor * 10 + (unsigned)(*q++ - '0');
            if (q > digits && !s->has_version) {
                s->has_version = true;
                s->major = major;
                s->minor = minor;
            }
        }
        return;
    }
    if (starts_word(p, end, ".target", &rest)) {
        char name[32];
        size_t n = 0;
        while (rest + n < end && n + 1 < sizeof name && ptx_ident_char(rest[n]))
            n++;
        memcpy(name, rest, n);
        name[n] = '\0';
        if (!s->has_target && udfkit_target_parse_name(name, &s->target)) {
            s->target.sass = false; /* a PTX target names the virtual architecture it was written for */
            s->has_target = true;
        }
        return;
    }
    if (!starts_word(p, end, ".visible", &rest) && !starts_word(p, end, ".weak", &rest))
        return;
    const char *name;
    if (starts_word(rest, end, ".entry", &name)) {
        add_name_span(kernels, name, end);
    } else if (starts_word(rest, end, ".func", &name)) {
        if (name < end && *name == '(') { /* the return value's parameter list */
            const char *close = memchr(name, ')', (size_t)(end - name));
            if (!close)
                return;
            name = skip_blanks(close + 1, end);
        }
        add_name_span(functions, name, end);
    }
}

/* Reads up to the first NUL: PTX inside fatbins is NUL-terminated and padded. */
static void ptx_scan(const char *text, size_t size, ptx_summary *s, json_t *kernels, json_t *functions)
{
    const char *nul = memchr(text, '\0', size);
    const char *end = nul ? nul : text + size;
    memset(s, 0, sizeof *s);
    for (const char *p = text; p < end;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = eol ? eol : end;
        const char *start = skip_blanks(p, line_end);
        ptx_scan_line(start, line_end, s, kernels, functions);
        p = eol ? eol + 1 : end;
    }
}

/* PTX must open with .version (PTX ISA, "PTX Module Directives"); only comments and blank
 * lines may come first. */
static bool ptx_sniff(const unsigned char *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        while (p < end && isspace((unsigned char)*p))
            p++;
        if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
            const char *eol = memchr(p, '\n', (size_t)(end - p));
            p = eol ? eol + 1 : end;
            continue;
        }
        const char *rest;
        return starts_word(p, end, ".version", &rest);
    }
    return false;
}

/* ---- entries ---- */

static json_t *new_entry(const char *kind, const char *arch, size_t size)
{
    json_t *e = json_object();
    json_object_set_new(e, "kind", json_string(kind));
    if (arch)
        json_object_set_new(e, "arch", json_string(arch));
    json_object_set_new(e, "compressed", json_false());
    json_object_set_new(e, "size", json_integer((json_int_t)size));
    json_object_set_new(e, "kernels", json_array());
    json_object_set_new(e, "functions", json_array());
    return e;
}

static udfkit_rc cubin_symbols(const unsigned char *code, size_t size, const char *origin, json_t *entry,
                               unsigned *sm)
{
    udfkit_cubin_info info;
    udfkit_rc rc = udfkit_cubin_read(code, size, origin, &info);
    if (rc)
        return rc;
    for (size_t i = 0; i < info.kernels.count; i++)
        add_name(json_object_get(entry, "kernels"), info.kernels.names[i]);
    for (size_t i = 0; i < info.functions.count; i++)
        add_name(json_object_get(entry, "functions"), info.functions.names[i]);
    if (sm)
        *sm = info.sm;
    udfkit_cubin_info_free(&info);
    return UDFKIT_RC_OK;
}

static const char *code_kind_name(udfkit_code_kind k)
{
    switch (k) {
    case UDFKIT_CODE_SASS:
        return "sass";
    case UDFKIT_CODE_PTX:
        return "ptx";
    case UDFKIT_CODE_LTOIR:
        return "ltoir";
    default:
        return "unknown";
    }
}

static const char *compression_name(udfkit_compression c)
{
    switch (c) {
    case UDFKIT_COMPRESSION_LZ4:
        return "lz4";
    case UDFKIT_COMPRESSION_ZSTD:
        return "zstd";
    default:
        return "unknown";
    }
}

/* Lists what an entry exports, decompressing it first where needed. A missing decompressor
 * only leaves the symbols out; corrupt data is an error. */
static udfkit_rc entry_symbols(const udfkit_fatbin_entry_info *e, const char *origin, json_t *entry,
                               udfkit_buf *storage)
{
    if (e->kind == UDFKIT_CODE_LTOIR) {
        json_object_set_new(entry, "note", json_string(LTOIR_NOTE));
        return UDFKIT_RC_OK;
    }
    if (e->kind == UDFKIT_CODE_OTHER) {
        json_object_set_new(entry, "note", json_string("an entry kind udfkit does not know"));
        return UDFKIT_RC_OK;
    }
    const unsigned char *code;
    size_t size;
    udfkit_rc rc = udfkit_fatbin_entry_code(e, origin, storage, &code, &size);
    if (rc == UDFKIT_RC_ENV) {
        json_object_set_new(entry, "note",
                            json_string(e->compression == UDFKIT_COMPRESSION_ZSTD
                                            ? "zstd-compressed and libzstd.so.1 is not available: symbols not listed"
                                            : "compressed in a form udfkit cannot read: symbols not listed"));
        udfkit_diag_clear();
        return UDFKIT_RC_OK;
    }
    if (rc)
        return rc;
    if (e->kind == UDFKIT_CODE_SASS)
        return cubin_symbols(code, size, origin, entry, NULL);
    ptx_summary s;
    ptx_scan((const char *)code, size, &s, json_object_get(entry, "kernels"), json_object_get(entry, "functions"));
    return UDFKIT_RC_OK;
}

/* An entry named by `udfkit pack`: its group, producer, role, and on the first the
 * functions of the package. */
static void describe_package_id(const udfkit_fatbin_entry_info *e, json_t *entry)
{
    udfkit_package_id id;
    if (!e->name || udfkit_package_id_parse(e->name, e->name_size, &id) != UDFKIT_PACKAGE_ID_OK)
        return;
    if (id.version) {
        json_t *package = json_object(), *functions = json_array();
        json_object_set_new(package, "version", json_integer(id.version));
        json_object_set_new(package, "group", json_string(id.group));
        json_object_set_new(package, "file", json_string(id.file));
        if (id.producer) {
            char producer[64];
            snprintf(producer, sizeof producer, "%.32s %u.%u", id.producer, id.producer_major, id.producer_minor);
            json_object_set_new(package, "producer", json_string(producer));
        }
        if (id.link)
            json_object_set_new(package, "role", json_string("link"));
        for (size_t i = 0; i < id.nfunctions; i++) {
            json_t *fn = json_object();
            json_object_set_new(fn, "c_name", json_string(id.functions[i].c_name));
            json_object_set_new(fn, "signature", json_string(id.functions[i].signature));
            json_array_append_new(functions, fn);
        }
        json_object_set_new(package, "functions", functions);
        if (id.nbound_kernels) {
            json_t *bound = json_array();
            for (size_t i = 0; i < id.nbound_kernels; i++)
                json_array_append_new(bound, json_string(id.bound_kernels[i]));
            json_object_set_new(package, "bound_kernels", bound);
        }
        if (id.nkernel_calls) {
            /* "<kernel> <slot>...": {"<kernel>": ["<slot>", ...]} */
            json_t *calls = json_object();
            for (size_t i = 0; i < id.nkernel_calls; i++) {
                char *line = strdup(id.kernel_calls[i]), *save = NULL;
                const char *kernel = line ? strtok_r(line, " ", &save) : NULL;
                json_t *slots = json_array();
                for (const char *slot; kernel && (slot = strtok_r(NULL, " ", &save));)
                    json_array_append_new(slots, json_string(slot));
                if (kernel)
                    json_object_set_new(calls, kernel, slots);
                else
                    json_decref(slots);
                free(line);
            }
            json_object_set_new(package, "kernel_calls", calls);
        }
        json_object_set_new(entry, "package", package);
    }
    udfkit_package_id_free(&id);
}

static udfkit_rc describe_fatbin(const unsigned char *data, size_t size, const char *origin, const char *member,
                                 json_t *entries)
{
    udfkit_fatbin_contents c;
    udfkit_rc rc = udfkit_fatbin_read(data, size, origin, &c);
    if (rc)
        return rc;
    udfkit_buf storage = UDFKIT_BUF_INIT;
    for (size_t i = 0; i < c.count && !rc; i++) {
        const udfkit_fatbin_entry_info *e = &c.entries[i];
        char arch[32];
        udfkit_target_name(e->target, arch, sizeof arch);
        json_t *entry = new_entry(code_kind_name(e->kind), arch, e->payload_size);
        if (e->kind == UDFKIT_CODE_OTHER)
            json_object_set_new(entry, "kind_code", json_integer(e->kind_code));
        if (e->compression != UDFKIT_COMPRESSION_NONE) {
            json_object_set_new(entry, "compressed", json_true());
            json_object_set_new(entry, "compression", json_string(compression_name(e->compression)));
            json_object_set_new(entry, "uncompressed_size", json_integer((json_int_t)e->uncompressed_size));
        }
        if (e->kind == UDFKIT_CODE_PTX) {
            char isa[32];
            snprintf(isa, sizeof isa, "%u.%u", e->version_major, e->version_minor);
            json_object_set_new(entry, "ptx_isa", json_string(isa));
        }
        if (member)
            json_object_set_new(entry, "member", json_string(member));
        describe_package_id(e, entry);
        rc = entry_symbols(e, origin, entry, &storage);
        json_array_append_new(entries, entry);
    }
    udfkit_buf_free(&storage);
    udfkit_fatbin_contents_free(&c);
    return rc;
}

/* ---- host objects and archives ---- */

/* nvcc puts whole-program device code in .nv_fatbin and relocatable device code (-rdc, -dc,
 * -dlto) in __nv_relfatbin; a linked program can have both. */
/* Fatbins a program or library carries as data (`udfkit embed`, or a fatbin linked in by
 * any other means) rather than in nvcc's sections: every 8-byte aligned container that
 * reads whole. Their entries are marked "embedded", since nvJitLink does not link them. */
static void describe_embedded(const unsigned char *data, size_t size, const char *origin, const char *member,
                              json_t *entries)
{
    for (size_t at = 0; size >= 16 && at <= size - 16; at += 8) {
        if (!udfkit_fatbin_sniff(data + at, size - at))
            continue;
        uint64_t header = (uint64_t)data[at + 6] | (uint64_t)data[at + 7] << 8, body = 0;
        for (int k = 7; k >= 0; k--)
            body = body << 8 | data[at + 8 + (size_t)k];
        if (header < 16 || header > size - at || body > size - at - header)
            continue;
        size_t length = (size_t)(header + body), before = json_array_size(entries);
        if (describe_fatbin(data + at, length, origin, member, entries) != UDFKIT_RC_OK) {
            udfkit_diag_clear(); /* bytes that only look like a container */
            continue;
        }
        for (size_t j = before; j < json_array_size(entries); j++) {
            json_object_set_new(json_array_get(entries, j), "embedded", json_true());
            json_object_set_new(json_array_get(entries, j), "offset", json_integer((json_int_t)at));
        }
        at += (length + 7) / 8 * 8 - 8;
    }
}

static udfkit_rc describe_host_elf(const unsigned char *data, size_t size, const char *origin, const char *member,
                                   json_t *entries)
{
    static const char *const sections[] = {".nv_fatbin", "__nv_relfatbin"};
    udfkit_rc rc = UDFKIT_RC_OK;
    size_t first = json_array_size(entries);
    for (size_t i = 0; i < sizeof sections / sizeof *sections && !rc; i++) {
        bool found;
        const unsigned char *section;
        size_t section_size, before = json_array_size(entries);
        rc = udfkit_elf_section(data, size, origin, sections[i], &found, &section, &section_size);
        if (!rc && found)
            rc = describe_fatbin(section, section_size, origin, member, entries);
        for (size_t j = before; j < json_array_size(entries); j++)
            json_object_set_new(json_array_get(entries, j), "section", json_string(sections[i]));
    }
    if (!rc && json_array_size(entries) == first)
        describe_embedded(data, size, origin, member, entries);
    return rc;
}

static size_t ar_decimal(const unsigned char *field, size_t width, bool *ok)
{
    size_t value = 0, i = 0;
    while (i < width && field[i] == ' ')
        i++;
    size_t digits = i;
    for (; i < width && isdigit(field[i]); i++) {
        if (value > (SIZE_MAX - 9) / 10)
            *ok = false;
        value = value * 10 + (size_t)(field[i] - '0');
    }
    for (size_t j = i; j < width; j++)
        if (field[j] != ' ')
            *ok = false;
    if (i == digits)
        *ok = false;
    return value;
}

/* A member's name: "name/" in the header, or "/N", an offset into the "//" table (GNU ar). */
static void ar_member_name(const unsigned char *h, const unsigned char *names, size_t names_size, char *out,
                           size_t out_size)
{
    size_t n = 0;
    if (h[0] == '/' && isdigit(h[1]) && names) {
        bool ok = true;
        size_t at = ar_decimal(h + 1, 15, &ok);
        for (; ok && at < names_size && names[at] != '/' && names[at] != '\n' && n + 1 < out_size; at++)
            out[n++] = (char)names[at];
    } else {
        for (; n < 16 && n + 1 < out_size && h[n] != '/' && h[n] != ' '; n++)
            out[n] = (char)h[n];
    }
    out[n] = '\0';
}

static udfkit_rc describe_archive(const unsigned char *data, size_t size, const char *path, json_t *entries)
{
    const unsigned char *names = NULL;
    size_t names_size = 0;
    size_t at = strlen(AR_MAGIC);
    udfkit_rc rc = UDFKIT_RC_OK;
    while (at < size && !rc) {
        if (size - at < AR_HEADER_SIZE)
            return udfkit_fail(UDFKIT_RC_INPUT, path, 0, "archive member header at offset %zu is truncated", at);
        const unsigned char *h = data + at;
        bool ok = h[58] == '`' && h[59] == '\n';
        size_t member_size = ar_decimal(h + 48, 10, &ok);
        if (!ok || member_size > size - at - AR_HEADER_SIZE)
            return udfkit_fail(UDFKIT_RC_INPUT, path, 0, "archive member header at offset %zu is malformed", at);
        const unsigned char *body = h + AR_HEADER_SIZE;
        unsigned machine;
        if (memcmp(h, "// ", 3) == 0) {
            names = body;
            names_size = member_size;
        } else if (udfkit_elf_sniff(body, member_size, &machine)) {
            char member[256], origin[4096 + 300];
            ar_member_name(h, names, names_size, member, sizeof member);
            snprintf(origin, sizeof origin, "%s(%s)", path, member);
            rc = describe_host_elf(body, member_size, origin, member, entries);
        }
        at += AR_HEADER_SIZE + member_size + (member_size & 1); /* members are 2-byte aligned */
    }
    return rc;
}

/* ---- manifests ---- */

static udfkit_rc describe_manifest(const void *data, size_t size, const char *path, json_t *desc)
{
    json_error_t err;
    json_t *m = json_loadb(data, size, 0, &err);
    if (!m)
        return udfkit_fail(UDFKIT_RC_INPUT, path, err.line, "malformed JSON: %s", err.text);
    json_t *kind = json_object_get(m, "kind");
    if (json_is_string(kind))
        json_object_set(desc, "manifest_kind", kind);
    json_t *entries = json_object_get(desc, "entries");
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(m, "artifacts"), i, item)
    {
        json_t *akind = json_object_get(item, "kind"), *arch = json_object_get(item, "arch");
        json_t *entry = json_object();
        json_object_set_new(entry, "kind", json_string(json_is_string(akind) ? json_string_value(akind) : "unknown"));
        if (json_is_string(arch))
            json_object_set(entry, "arch", arch);
        if (json_is_integer(json_object_get(item, "size")))
            json_object_set(entry, "size", json_object_get(item, "size"));
        if (json_is_string(json_object_get(item, "path")))
            json_object_set(entry, "path", json_object_get(item, "path"));
        json_array_append_new(entries, entry);
    }
    json_array_foreach(json_object_get(m, "functions"), i, item)
    {
        json_t *name = json_object_get(item, "c_name");
        if (json_is_string(name))
            add_name(json_object_get(desc, "functions"), json_string_value(name));
    }
    json_decref(m);
    return UDFKIT_RC_OK;
}

/* ---- the whole file ---- */

static udfkit_rc describe(const unsigned char *data, size_t size, const char *path, json_t *desc)
{
    json_t *entries = json_object_get(desc, "entries");
    unsigned machine;
    if (udfkit_fatbin_sniff(data, size)) {
        json_object_set_new(desc, "kind", json_string("fatbin"));
        return describe_fatbin(data, size, path, NULL, entries);
    }
    if (udfkit_elf_sniff(data, size, &machine) && machine == UDFKIT_EM_CUDA) {
        unsigned sm = 0;
        char arch[32];
        json_t *entry = new_entry("sass", NULL, size);
        json_array_append_new(entries, entry);
        json_object_set_new(desc, "kind", json_string("cubin"));
        udfkit_rc rc = cubin_symbols(data, size, path, entry, &sm);
        if (rc)
            return rc;
        udfkit_target_name((udfkit_target){sm, '\0', true}, arch, sizeof arch);
        json_object_set_new(entry, "arch", json_string(arch));
        json_object_set_new(desc, "arch", json_string(arch));
        return UDFKIT_RC_OK;
    }
    if (udfkit_elf_sniff(data, size, &machine)) {
        json_object_set_new(desc, "kind", json_string("object"));
        return describe_host_elf(data, size, path, NULL, entries);
    }
    if (size >= strlen(AR_MAGIC) && memcmp(data, AR_MAGIC, strlen(AR_MAGIC)) == 0) {
        json_object_set_new(desc, "kind", json_string("archive"));
        return describe_archive(data, size, path, entries);
    }
    if (size >= sizeof ltoir_magic && memcmp(data, ltoir_magic, sizeof ltoir_magic) == 0) {
        json_t *entry = new_entry("ltoir", NULL, size);
        json_object_set_new(entry, "note", json_string(LTOIR_NOTE));
        json_array_append_new(entries, entry);
        json_object_set_new(desc, "kind", json_string("ltoir"));
        json_object_set_new(desc, "note", json_string(LTOIR_NOTE));
        return UDFKIT_RC_OK;
    }
    if (udfkit_manifest_sniff(data, size)) {
        json_object_set_new(desc, "kind", json_string("manifest"));
        return describe_manifest(data, size, path, desc);
    }
    if (ptx_sniff(data, size)) {
        ptx_summary s;
        json_t *entry = new_entry("ptx", NULL, size);
        json_array_append_new(entries, entry);
        json_object_set_new(desc, "kind", json_string("ptx"));
        ptx_scan((const char *)data, size, &s, json_object_get(entry, "kernels"), json_object_get(entry, "functions"));
        if (s.has_target) {
            char arch[32];
            udfkit_target_name(s.target, arch, sizeof arch);
            json_object_set_new(entry, "arch", json_string(arch));
            json_object_set_new(desc, "arch", json_string(arch));
        }
        if (s.has_version) {
            char isa[32];
            snprintf(isa, sizeof isa, "%u.%u", s.major, s.minor);
            json_object_set_new(entry, "ptx_isa", json_string(isa));
            json_object_set_new(desc, "ptx_isa", json_string(isa));
        }
        return UDFKIT_RC_OK;
    }
    return udfkit_fail(UDFKIT_RC_INPUT, path, 0,
                       "not a fatbin, cubin, PTX, LTO-IR, host object, archive or udfkit manifest");
}

udfkit_rc udfkit_inspect_data(const void *data, size_t size, const char *path, json_t **out)
{
    *out = NULL;
    json_t *desc = json_object();
    json_object_set_new(desc, "path", json_string(path));
    json_object_set_new(desc, "kind", json_string("unknown"));
    json_object_set_new(desc, "size", json_integer((json_int_t)size));
    json_object_set_new(desc, "entries", json_array());
    json_object_set_new(desc, "kernels", json_array());
    json_object_set_new(desc, "functions", json_array());
    udfkit_rc rc = describe(data, size, path, desc);
    if (rc) {
        json_decref(desc);
        return rc;
    }
    const char *kind = json_string_value(json_object_get(desc, "kind"));
    json_t *entries = json_object_get(desc, "entries");
    if ((strcmp(kind, "object") == 0 || strcmp(kind, "archive") == 0) && json_array_size(entries) == 0)
        json_object_set_new(desc, "note", json_string("no device code (no .nv_fatbin or __nv_relfatbin section)"));
    for (size_t i = 0; i < json_array_size(entries); i++) {
        json_t *e = json_array_get(entries, i);
        unique_names(json_object_get(e, "kernels"));
        unique_names(json_object_get(e, "functions"));
        json_array_extend(json_object_get(desc, "kernels"), json_object_get(e, "kernels"));
        json_array_extend(json_object_get(desc, "functions"), json_object_get(e, "functions"));
        /* A package's functions are what its fatbin exports, whichever entry defines them. */
        size_t k;
        json_t *fn;
        json_array_foreach(json_object_get(json_object_get(e, "package"), "functions"), k, fn)
            add_name(json_object_get(desc, "functions"), json_string_value(json_object_get(fn, "c_name")));
    }
    unique_names(json_object_get(desc, "kernels"));
    unique_names(json_object_get(desc, "functions"));
    *out = desc;
    return UDFKIT_RC_OK;
}

/* `udfkit link` writes <fatbin>.json beside a fatbin: its functions are the UDFs the
 * kernels were linked with, which LTO inlines and so no longer appear as symbols. */
static void add_linked_udfs(const char *path, json_t *desc)
{
    udfkit_buf name = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&name, "%s.json", path);
    udfkit_manifest m = {0};
    if (udfkit_file_exists(name.data) && udfkit_manifest_load(name.data, &m) == UDFKIT_RC_OK) {
        json_t *udfs = json_array();
        size_t i;
        json_t *fn;
        json_array_foreach(json_object_get(m.root, "functions"), i, fn)
        {
            json_t *c_name = json_object_get(fn, "c_name");
            if (json_is_string(c_name))
                json_array_append(udfs, c_name);
        }
        json_object_set_new(desc, "udfs", udfs);
        json_object_set_new(desc, "udf_manifest", json_string(name.data));
    }
    udfkit_diag_clear();
    udfkit_manifest_free(&m);
    udfkit_buf_free(&name);
}

udfkit_rc udfkit_inspect_file(const char *path, json_t **out)
{
    udfkit_buf data = UDFKIT_BUF_INIT;
    udfkit_rc rc = udfkit_read_file(path, &data);
    if (!rc)
        rc = udfkit_inspect_data(data.data, data.size, path, out);
    if (!rc && strcmp(json_string_value(json_object_get(*out, "kind")), "manifest") != 0)
        add_linked_udfs(path, *out);
    udfkit_buf_free(&data);
    return rc;
}

/* ---- text ---- */

static void print_names(FILE *f, const char *label, const json_t *names)
{
    if (json_array_size(names) == 0)
        return;
    fprintf(f, "  %s: ", label);
    for (size_t i = 0; i < json_array_size(names); i++)
        fprintf(f, "%s%s", i ? ", " : "", json_string_value(json_array_get(names, i)));
}

static const char *str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

/* "  group 0, nvrtc 13.0, role link"; then, on lines of their own, the package's functions. */
static void print_package(FILE *f, const json_t *package)
{
    if (!package)
        return;
    fprintf(f, "  group %s", str(package, "group"));
    if (str(package, "producer"))
        fprintf(f, ", %s", str(package, "producer"));
    if (str(package, "role"))
        fprintf(f, ", role %s", str(package, "role"));
}

static void print_package_functions(FILE *f, const json_t *package)
{
    const json_t *bound = json_object_get(package, "bound_kernels");
    if (json_array_size(bound)) {
        fprintf(f, "\n    kernels that call slots, linked at bind time: ");
        for (size_t i = 0; i < json_array_size(bound); i++)
            fprintf(f, "%s%s", i ? ", " : "", json_string_value(json_array_get(bound, i)));
    }
    const char *kernel;
    const json_t *slots;
    json_object_foreach((json_t *)json_object_get(package, "kernel_calls"), kernel, slots) {
        fprintf(f, "\n    kernel %s calls ", kernel);
        for (size_t i = 0; i < json_array_size(slots); i++)
            fprintf(f, "%s%s", i ? ", " : "", json_string_value(json_array_get(slots, i)));
    }
    const json_t *functions = json_object_get(package, "functions");
    for (size_t i = 0; i < json_array_size(functions); i++) {
        const json_t *fn = json_array_get(functions, i);
        fprintf(f, "\n    package function %s %s", str(fn, "c_name"), str(fn, "signature"));
    }
}

void udfkit_inspect_print(const json_t *desc, FILE *f)
{
    fprintf(f, "%s: %s, %lld bytes", str(desc, "path"), str(desc, "kind"),
            (long long)json_integer_value(json_object_get(desc, "size")));
    if (str(desc, "arch"))
        fprintf(f, ", %s", str(desc, "arch"));
    if (str(desc, "ptx_isa"))
        fprintf(f, ", PTX ISA %s", str(desc, "ptx_isa"));
    if (str(desc, "manifest_kind"))
        fprintf(f, ", %s manifest", str(desc, "manifest_kind"));
    fputc('\n', f);
    const json_t *entries = json_object_get(desc, "entries");
    for (size_t i = 0; i < json_array_size(entries); i++) {
        const json_t *e = json_array_get(entries, i);
        fprintf(f, "  %-5s  %-12s", str(e, "kind"), str(e, "arch") ? str(e, "arch") : "-");
        if (json_object_get(e, "size"))
            fprintf(f, "  %8lld bytes", (long long)json_integer_value(json_object_get(e, "size")));
        if (json_is_true(json_object_get(e, "compressed")))
            fprintf(f, " (compressed: %s, %lld bytes uncompressed)", str(e, "compression"),
                    (long long)json_integer_value(json_object_get(e, "uncompressed_size")));
        if (str(e, "ptx_isa"))
            fprintf(f, "  PTX ISA %s", str(e, "ptx_isa"));
        if (str(e, "member"))
            fprintf(f, "  in %s", str(e, "member"));
        if (json_is_true(json_object_get(e, "embedded")))
            fprintf(f, "  embedded at offset %lld", (long long)json_integer_value(json_object_get(e, "offset")));
        if (str(e, "path"))
            fprintf(f, "  %s", str(e, "path"));
        print_names(f, "kernels", json_object_get(e, "kernels"));
        print_names(f, "functions", json_object_get(e, "functions"));
        print_package(f, json_object_get(e, "package"));
        if (str(e, "note"))
            fprintf(f, "  (%s)", str(e, "note"));
        print_package_functions(f, json_object_get(e, "package"));
        fputc('\n', f);
    }
    if (strcmp(str(desc, "kind"), "manifest") == 0) {
        print_names(f, "functions", json_object_get(desc, "functions"));
        if (json_array_size(json_object_get(desc, "functions")))
            fputc('\n', f);
    }
    if (str(desc, "note") && json_array_size(entries) == 0)
        fprintf(f, "  (%s)\n", str(desc, "note"));
    if (json_array_size(json_object_get(desc, "udfs"))) {
        print_names(f, "exported UDFs", json_object_get(desc, "udfs"));
        fprintf(f, " (from %s)\n", str(desc, "udf_manifest"));
    }
}
