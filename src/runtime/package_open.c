/* udfkit_package_open: a package fatbin, or a manifest and its artifacts. The manifest is
 * read and checked as the tool reads it (artifact/manifest_read.h), with jansson loaded at
 * run time (libjansson.so.4) like the driver: a program that never opens a manifest needs
 * no JSON library. */
#include "package.h"

#include "artifact/fatbin_read.h"
#include "artifact/manifest_read.h"
#include "base/arch.h"
#include "base/fs.h"
#include "driver.h"

#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static udfkit_manifest_reader js = {.name = "runtime"};
static char js_problem[512];
static pthread_once_t js_once = PTHREAD_ONCE_INIT;

static void js_load(void)
{
    void *lib = dlopen("libjansson.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(js_problem, sizeof js_problem,
                 "reading a manifest needs jansson (libjansson.so.4), which cannot be loaded: %s; install it (Debian: "
                 "libjansson4), or open the package as one fatbin (udfkit pack, udfkit_install_udf(... FATBIN))",
                 dlerror());
        return;
    }
    *(void **)&js.loadb = dlsym(lib, "json_loadb");
    *(void **)&js.object_get = dlsym(lib, "json_object_get");
    *(void **)&js.array_size = dlsym(lib, "json_array_size");
    *(void **)&js.array_get = dlsym(lib, "json_array_get");
    *(void **)&js.string_value = dlsym(lib, "json_string_value");
    *(void **)&js.integer_value = dlsym(lib, "json_integer_value");
    *(void **)&js.delete_ = dlsym(lib, "json_delete");
    if (!js.loadb || !js.object_get || !js.array_size || !js.array_get || !js.string_value || !js.integer_value ||
        !js.delete_)
        snprintf(js_problem, sizeof js_problem, "libjansson.so.4 lacks functions of jansson 2.x");
}

static const char *str(const json_t *o, const char *key)
{
    return js.string_value(js.object_get(o, key));
}

static udfkit_status bad(const char *path, const char *what)
{
    return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: %s", path, what);
}

/* The manifest reader's failure (its message in base/diag) as the runtime's. */
static udfkit_status reader_failed(udfkit_rc rc)
{
    udfkit_status s = udfkit_runtime_fail(rc == UDFKIT_RC_INTERNAL ? UDFKIT_ERROR_OUT_OF_MEMORY
                                                                   : UDFKIT_ERROR_BAD_IMAGE,
                                          "%s", udfkit_diag_message());
    udfkit_diag_clear();
    return s;
}

/* An artifact the manifest names, its size and hash checked. */
static udfkit_status read_artifact(const udfkit_manifest *m, const json_t *a, udfkit_buf *data)
{
    char *file = NULL;
    udfkit_rc rc = udfkit_manifest_read_artifact(m, a, &file, data);
    free(file);
    return rc ? reader_failed(rc) : UDFKIT_OK;
}

static udfkit_status open_fatbin(udfkit_package *pkg, udfkit_buf *bytes)
{
    udfkit_buf *kept = udfkit_package_keep(pkg, bytes);
    if (!kept)
        return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory reading %s", pkg->origin);
    udfkit_status s = udfkit_package_read_fatbin(pkg, kept->data, kept->size, true);
    if (!s && !pkg->nfunctions)
        s = bad(pkg->origin, "the package exports no function");
    return s;
}

/* A link file of the manifest's link list (a path beside it), where it is LTO-IR. */
static udfkit_status add_link_file(udfkit_package *pkg, const udfkit_manifest *m, const char *rel)
{
    char *file = NULL;
    udfkit_rc rc = udfkit_manifest_resolve(m, rel, &file);
    if (rc) {
        free(file);
        return reader_failed(rc);
    }
    udfkit_buf data = UDFKIT_BUF_INIT;
    udfkit_status s = UDFKIT_OK;
    if (strcmp(udfkit_path_extension(rel), ".ltoir") != 0)
        s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                                "%s: its link list names '%s', which is not LTO-IR: only LTO-IR is linked at run time",
                                pkg->origin, rel);
    else if (udfkit_read_file(file, &data) != UDFKIT_RC_OK)
        s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: its link file '%s' cannot be read", pkg->origin, rel);
    udfkit_diag_clear();
    free(file);
    udfkit_buf *kept = s ? NULL : udfkit_package_keep(pkg, &data);
    size_t group = 0;
    if (!s && !kept)
        s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory reading %s", pkg->origin);
    if (!s)
        s = udfkit_package_add_group(pkg, rel, &group);
    /* Link files carry no architecture of their own: one part for every device. */
    if (!s)
        s = udfkit_package_add_part(pkg, (udfkit_package_part){group, 0, 0, (const unsigned char *)kept->data,
                                                                kept->size, true, ""});
    udfkit_buf_free(&data);
    return s;
}

/* The manifest's LTO-IR artifacts, each read and checked, in groups: a CUDA source's code for
 * several architectures, a Python function's, a link file. */
static udfkit_status add_artifacts(udfkit_package *pkg, const udfkit_manifest *m)
{
    const json_t *artifacts = js.object_get(m->root, "artifacts");
    udfkit_status s = UDFKIT_OK;
    char **keys = calloc(js.array_size(artifacts) + 1, sizeof *keys);
    size_t *key_group = calloc(js.array_size(artifacts) + 1, sizeof *key_group), nkeys = 0;
    if (!keys || !key_group)
        s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory reading %s", m->path);
    for (size_t i = 0; !s && i < js.array_size(artifacts); i++) {
        const json_t *a = js.array_get(artifacts, i);
        const char *akind = str(a, "kind"), *arch = str(a, "arch"), *source = str(a, "source");
        const char *function = str(a, "function"), *hash = str(a, "xxh3_128");
        bool link = js.object_get(a, "role") != NULL;
        if (strcmp(akind, "ltoir") != 0)
            continue; /* PTX and cubins cannot be linked with LTO: udfkit_package_choose says so */
        udfkit_target t;
        if (!arch || !udfkit_target_parse_name(arch, &t) || t.sass) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: artifact %zu has no compute_ architecture", m->path,
                                    i);
            break;
        }
        udfkit_buf key = UDFKIT_BUF_INIT;
        if (link)
            udfkit_buf_printf(&key, "link %s", hash ? hash : str(a, "path"));
        else if (function)
            udfkit_buf_printf(&key, "function %s", function);
        else
            udfkit_buf_printf(&key, "source %s", source ? source : str(a, "path"));
        size_t group = SIZE_MAX;
        for (size_t k = 0; k < nkeys; k++)
            if (strcmp(keys[k], key.data) == 0)
                group = key_group[k];
        udfkit_buf data = UDFKIT_BUF_INIT;
        if (!(s = read_artifact(m, a, &data)) && group == SIZE_MAX) {
            const char *shown = function ? function : source ? udfkit_path_basename(source) : str(a, "path");
            if (!(s = udfkit_package_add_group(pkg, shown, &group))) {
                keys[nkeys] = udfkit_buf_detach(&key);
                key_group[nkeys++] = group;
            }
        }
        udfkit_buf_free(&key);
        udfkit_buf *kept = s ? NULL : udfkit_package_keep(pkg, &data);
        if (!s && !kept)
            s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory reading %s", m->path);
        if (!s)
            s = udfkit_package_add_part(pkg, (udfkit_package_part){group, t.number, t.suffix,
                                                                    (const unsigned char *)kept->data, kept->size,
                                                                    link, ""});
        udfkit_buf_free(&data);
    }
    for (size_t k = 0; k < nkeys; k++)
        free(keys[k]);
    free(keys);
    free(key_group);
    return s;
}

/* `udfkit pack`'s manifest beside its fatbin: the package is the fatbin. */
static udfkit_status open_packed(udfkit_package *pkg, const udfkit_manifest *m)
{
    const json_t *a = js.array_get(js.object_get(m->root, "artifacts"), 0);
    if (!js.object_get(m->root, "package") || !a)
        return bad(m->path, "is the manifest of a linked fatbin (udfkit link), which holds no LTO-IR package: bind to "
                            "the UDFs' own manifest, or to a fatbin made by `udfkit pack`");
    udfkit_buf bytes = UDFKIT_BUF_INIT;
    udfkit_status s = read_artifact(m, a, &bytes);
    if (!s)
        s = open_fatbin(pkg, &bytes);
    udfkit_buf_free(&bytes);
    return s;
}

/* `udfkit compile`'s manifest: its functions, and its LTO-IR and link files as parts. */
static udfkit_status open_udfs(udfkit_package *pkg, const udfkit_manifest *m)
{
    udfkit_status s = UDFKIT_OK;
    const json_t *functions = js.object_get(m->root, "functions");
    for (size_t i = 0; !s && i < js.array_size(functions); i++) {
        const json_t *f = js.array_get(functions, i);
        s = udfkit_package_add_function(pkg, str(f, "c_name"), str(f, "signature"));
    }
    if (!s && !pkg->nfunctions)
        s = bad(m->path, "exports no function");
    const json_t *producers = js.object_get(m->root, "producers");
    const char *tools[] = {"nvrtc", "nvvm"}, *literals[] = {"NVRTC", "NVVM"};
    for (size_t t = 0; !s && t < 2; t++) {
        const char *v = str(producers, tools[t]);
        int major, minor;
        if (v && sscanf(v, "%d.%d", &major, &minor) == 2 &&
            (!pkg->producer || major > pkg->producer_major ||
             (major == pkg->producer_major && minor > pkg->producer_minor))) {
            pkg->producer = literals[t];
            pkg->producer_major = major;
            pkg->producer_minor = minor;
        }
    }
    if (!s)
        s = add_artifacts(pkg, m);
    /* Link files the manifest names by path (an object with "artifact" is one of the artifacts above). */
    const json_t *links = js.object_get(m->root, "link");
    for (size_t i = 0; !s && i < js.array_size(links); i++) {
        const json_t *l = js.array_get(links, i);
        if (json_is_object(l) && js.object_get(l, "artifact"))
            continue;
        const char *rel = json_is_string(l) ? js.string_value(l) : str(l, "path");
        if (rel)
            s = add_link_file(pkg, m, rel);
    }
    return s;
}

/* The manifest read and checked as the tool reads it (artifact/manifest_read.h), then by its kind. */
static udfkit_status open_manifest(udfkit_package *pkg, const char *path, const udfkit_buf *text)
{
    pthread_once(&js_once, js_load);
    if (js_problem[0])
        return udfkit_runtime_fail(UDFKIT_ERROR_TOOLCHAIN, "%s", js_problem);
    udfkit_manifest m;
    udfkit_rc rc = udfkit_manifest_read(&js, path, text->data, text->size, &m);
    const char *kind = rc ? NULL : str(m.root, "kind");
    udfkit_status s;
    if (rc)
        s = reader_failed(rc);
    else if (kind && strcmp(kind, "udfs") == 0)
        s = open_udfs(pkg, &m);
    else if (kind && strcmp(kind, "fatbin") == 0)
        s = open_packed(pkg, &m);
    else
        s = bad(path, "is not the manifest of a UDF package (its kind is neither \"udfs\" nor \"fatbin\")");
    udfkit_manifest_free(&m);
    return s;
}

static udfkit_status open_directory(const char *dir, udfkit_package **out)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    size_t base = len;
    while (base > 0 && dir[base - 1] != '/')
        base--;
    static const char *const kinds[] = {".fatbin", ".json"};
    for (size_t k = 0; k < 2 && len > base; k++) {
        udfkit_buf file = UDFKIT_BUF_INIT;
        udfkit_buf_printf(&file, "%.*s/%.*s%s", (int)len, dir, (int)(len - base), dir + base, kinds[k]);
        struct stat st;
        bool there = file.data && stat(file.data, &st) == 0 && S_ISREG(st.st_mode);
        udfkit_status s = there ? udfkit_package_open(file.data, out) : UDFKIT_OK;
        udfkit_buf_free(&file);
        if (there)
            return s;
    }
    return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                               "%s is a directory without %.*s.fatbin or %.*s.json: give a package's fatbin or "
                               "manifest, or the directory udfkit_install_udf installs it in (<dir>/<target>/)",
                               dir, (int)(len - base), dir + base, (int)(len - base), dir + base);
}

udfkit_status udfkit_package_open(const char *path, udfkit_package **out)
{
    if (!path || !out)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_package_open: %s",
                                   !path ? "no path given" : "no output pointer");
    *out = NULL;
    /* Only a path that names nothing is NOT_FOUND: a directory, FIFO or device is there, and
     * not a package (udfkit_read_file refuses it without blocking). */
    struct stat st;
    if (stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
        return udfkit_runtime_fail(UDFKIT_ERROR_NOT_FOUND, "%s: no such package (file not found)", path);
    /* An installed package's directory (udfkit_install_udf: <dir>/<target>/): its
     * <target>.fatbin, else its manifest <target>.json. */
    if (S_ISDIR(st.st_mode))
        return open_directory(path, out);
    udfkit_buf bytes = UDFKIT_BUF_INIT;
    if (udfkit_read_file(path, &bytes) != UDFKIT_RC_OK) {
        udfkit_status s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s", udfkit_diag_message());
        udfkit_diag_clear();
        return s;
    }
    udfkit_package *pkg = udfkit_package_new(path);
    udfkit_status s = pkg ? UDFKIT_OK : udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    size_t first = 0;
    while (first < bytes.size && (bytes.data[first] == ' ' || bytes.data[first] == '\n' || bytes.data[first] == '\t' ||
                                  bytes.data[first] == '\r'))
        first++;
    if (!s && udfkit_fatbin_sniff(bytes.data, bytes.size))
        s = open_fatbin(pkg, &bytes);
    else if (!s && first < bytes.size && bytes.data[first] == '{')
        s = open_manifest(pkg, path, &bytes);
    else if (!s)
        s = bad(path, "is neither a udfkit manifest nor a package fatbin");
    udfkit_buf_free(&bytes);
    if (!s)
        udfkit_package_seal(pkg);
    if (s) {
        udfkit_package_close(pkg);
        return s;
    }
    *out = pkg;
    return UDFKIT_OK;
}
