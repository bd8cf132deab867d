/* udfkit_package_open: a package fatbin, or a manifest and its artifacts. The manifest is
 * JSON, read with jansson, which is loaded at run time (libjansson.so.4) like the driver:
 * a program that never opens a manifest needs no JSON library. */
#include "package.h"

#include "artifact/fatbin_read.h"
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

static struct {
    json_t *(*loadb)(const char *, size_t, size_t, json_error_t *);
    json_t *(*object_get)(const json_t *, const char *);
    size_t (*array_size)(const json_t *);
    json_t *(*array_get)(const json_t *, size_t);
    const char *(*string_value)(const json_t *);
    json_int_t (*integer_value)(const json_t *);
    void (*delete_)(json_t *);
    char problem[512];
} js;
static pthread_once_t js_once = PTHREAD_ONCE_INIT;

static void js_load(void)
{
    void *lib = dlopen("libjansson.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(js.problem, sizeof js.problem,
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
        snprintf(js.problem, sizeof js.problem, "libjansson.so.4 lacks functions of jansson 2.x");
}

/* jansson's json_decref, through the loaded json_delete. */
static void js_decref(json_t *j)
{
    if (j && j->refcount != (size_t)-1 && __atomic_sub_fetch(&j->refcount, 1, __ATOMIC_RELEASE) == 0)
        js.delete_(j);
}

static const char *str(const json_t *o, const char *key)
{
    return js.string_value(js.object_get(o, key));
}

static udfkit_status bad(const char *path, const char *what)
{
    return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: %s", path, what);
}

/* Reads `rel` (relative to the manifest's directory `dir`, never outside it) and checks
 * it against the manifest's size and hash. */
static udfkit_status read_artifact(const char *path, const char *dir, const json_t *a, udfkit_buf *data)
{
    const char *rel = str(a, "path");
    if (!rel || !udfkit_path_stays_inside(rel))
        return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                                   "%s: names the artifact '%s', which is not a file beside the manifest", path,
                                   rel ? rel : "(no path)");
    char *file = udfkit_path_join(dir, rel);
    udfkit_status s = UDFKIT_OK;
    if (udfkit_file_exists(file) && !udfkit_path_resolves_inside(file, dir))
        s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                                "%s: names the artifact '%s', a symbolic link that leads out of its directory", path,
                                rel);
    else if (udfkit_read_file(file, data) != UDFKIT_RC_OK)
        s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: names the artifact '%s', which cannot be read: %s", path,
                                rel, udfkit_diag_message());
    udfkit_diag_clear();
    const json_t *size = js.object_get(a, "size");
    const char *expected = str(a, "xxh3_128");
    if (!s && size && (json_int_t)data->size != js.integer_value(size))
        s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                                "%s: the artifact '%s' has %zu bytes where the manifest says %lld: it is truncated "
                                "or was changed; rebuild the package",
                                path, rel, data->size, (long long)js.integer_value(size));
    if (!s && expected) {
        char actual[UDFKIT_HASH_HEX_SIZE];
        udfkit_hash_hex(data->data ? data->data : "", data->size, actual);
        if (strcmp(actual, expected) != 0)
            s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                                    "%s: the artifact '%s' does not match the manifest's hash: it was changed; "
                                    "rebuild the package",
                                    path, rel);
    }
    free(file);
    return s;
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
static udfkit_status add_link_file(udfkit_package *pkg, const char *dir, const char *rel)
{
    if (!udfkit_path_stays_inside(rel))
        return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: its link list names '%s', which is not beside it",
                                   pkg->origin, rel);
    if (strcmp(udfkit_path_extension(rel), ".ltoir") != 0)
        return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                                   "%s: its link list names '%s', which is not LTO-IR: only LTO-IR is linked at run "
                                   "time",
                                   pkg->origin, rel);
    char *file = udfkit_path_join(dir, rel);
    udfkit_buf data = UDFKIT_BUF_INIT;
    udfkit_status s = UDFKIT_OK;
    if (!udfkit_path_resolves_inside(file, dir) || udfkit_read_file(file, &data) != UDFKIT_RC_OK)
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
static udfkit_status add_artifacts(udfkit_package *pkg, const char *path, const char *dir, const json_t *artifacts)
{
    udfkit_status s = UDFKIT_OK;
    char **keys = calloc(js.array_size(artifacts) + 1, sizeof *keys);
    size_t *key_group = calloc(js.array_size(artifacts) + 1, sizeof *key_group), nkeys = 0;
    if (!keys || !key_group)
        s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory reading %s", path);
    for (size_t i = 0; !s && i < js.array_size(artifacts); i++) {
        const json_t *a = js.array_get(artifacts, i);
        const char *akind = str(a, "kind"), *arch = str(a, "arch"), *source = str(a, "source");
        const char *function = str(a, "function"), *hash = str(a, "xxh3_128");
        bool link = js.object_get(a, "role") != NULL;
        if (!akind || strcmp(akind, "ltoir") != 0)
            continue; /* PTX and cubins cannot be linked with LTO: udfkit_package_choose says so */
        udfkit_target t;
        if (!arch || !udfkit_target_parse_name(arch, &t) || t.sass) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: artifact %zu has no compute_ architecture", path, i);
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
        if (!(s = read_artifact(path, dir, a, &data)) && group == SIZE_MAX) {
            const char *shown = function ? function : source ? udfkit_path_basename(source) : str(a, "path");
            if (!(s = udfkit_package_add_group(pkg, shown ? shown : "an artifact", &group))) {
                keys[nkeys] = udfkit_buf_detach(&key);
                key_group[nkeys++] = group;
            }
        }
        udfkit_buf_free(&key);
        udfkit_buf *kept = s ? NULL : udfkit_package_keep(pkg, &data);
        if (!s && !kept)
            s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory reading %s", path);
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

static udfkit_status open_manifest(udfkit_package *pkg, const char *path, const udfkit_buf *text)
{
    pthread_once(&js_once, js_load);
    if (js.problem[0])
        return udfkit_runtime_fail(UDFKIT_ERROR_TOOLCHAIN, "%s", js.problem);
    json_error_t err;
    json_t *root = js.loadb(text->data, text->size, 0, &err);
    if (!root)
        return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s:%d: error: the manifest is not valid JSON: %s", path,
                                   err.line, err.text);
    char *dir = udfkit_path_dirname(path);
    udfkit_status s = UDFKIT_OK;
    const json_t *version = js.object_get(root, "udfkit_manifest");
    const char *kind = str(root, "kind");
    if (!version || !json_is_integer(version))
        s = bad(path, "is not a udfkit manifest (no \"udfkit_manifest\" version)");
    else if (js.integer_value(version) > 1)
        s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE,
                                "%s: is a manifest of format %lld, newer than this runtime reads (1): update the "
                                "udfkit runtime",
                                path, (long long)js.integer_value(version));
    else if (!kind || (strcmp(kind, "udfs") != 0 && strcmp(kind, "fatbin") != 0))
        s = bad(path, "is not the manifest of a UDF package (its kind is neither \"udfs\" nor \"fatbin\")");
    const json_t *artifacts = js.object_get(root, "artifacts");
    if (!s && strcmp(kind, "fatbin") == 0) {
        /* `udfkit pack`'s manifest beside its fatbin: the package is the fatbin. */
        const json_t *a = js.array_get(artifacts, 0);
        const json_t *package = js.object_get(root, "package");
        udfkit_buf bytes = UDFKIT_BUF_INIT;
        if (!package || !a)
            s = bad(path, "is the manifest of a linked fatbin (udfkit link), which holds no LTO-IR package: bind to "
                          "the UDFs' own manifest, or to a fatbin made by `udfkit pack`");
        else if (!(s = read_artifact(path, dir, a, &bytes)))
            s = open_fatbin(pkg, &bytes);
        udfkit_buf_free(&bytes);
        goto done;
    }
    const json_t *functions = js.object_get(root, "functions");
    for (size_t i = 0; !s && i < js.array_size(functions); i++) {
        const json_t *f = js.array_get(functions, i);
        const char *c_name = str(f, "c_name"), *signature = str(f, "signature");
        if (!c_name || !signature)
            s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s: function %zu has no c_name or signature", path, i);
        else
            s = udfkit_package_add_function(pkg, c_name, signature);
    }
    if (!s && !pkg->nfunctions)
        s = bad(path, "exports no function");
    const json_t *producers = js.object_get(root, "producers");
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
        s = add_artifacts(pkg, path, dir, artifacts);
    /* Link files the manifest names by path (an object with "artifact" is one of the artifacts above). */
    const json_t *links = js.object_get(root, "link");
    for (size_t i = 0; !s && i < js.array_size(links); i++) {
        const json_t *l = js.array_get(links, i);
        if (json_is_object(l) && js.object_get(l, "artifact"))
            continue;
        const char *rel = json_is_string(l) ? js.string_value(l) : str(l, "path");
        if (rel)
            s = add_link_file(pkg, dir, rel);
    }
done:
    js_decref(root);
    free(dir);
    return s;
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
