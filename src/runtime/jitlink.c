/* dladdr */
#define _GNU_SOURCE
#include "jitlink.h"

#include "artifact/code_check.h"
#include "base/locate.h"
#include "driver.h"
#include "nvidia/nvjitlink_wrap.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* nvJitLink versions its entry points in its header (nvJitLinkCreate calls
 * __nvJitLinkCreate_13_0); the 13.0 names are what every 13.x library provides. */
typedef int (*create_fn)(void **, uint32_t, const char **);
typedef int (*destroy_fn)(void **);
typedef int (*add_data_fn)(void *, int, const void *, size_t, const char *);
typedef int (*complete_fn)(void *);
typedef int (*size_fn)(void *, size_t *);
typedef int (*get_fn)(void *, void *);
typedef int (*log_fn)(void *, char *);
typedef int (*version_fn)(unsigned *, unsigned *);

static struct {
    create_fn create;
    destroy_fn destroy;
    add_data_fn add_data;
    complete_fn complete;
    size_fn cubin_size;
    get_fn cubin;
    size_fn error_log_size;
    log_fn error_log;
    version_fn version;
    char problem[PATH_MAX + 512];
} jl;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Where NVRTC is looked for too (base/locate.h, the runtime's order): the file
 * UDFKIT_NVJITLINK_LIBRARY names, else a CUDA toolkit's ($CUDA_HOME, $CUDA_PATH,
 * /usr/local/cuda), else libnvJitLink.so.13 through the loader's search. */
static void load(void)
{
    char file[PATH_MAX];
    udfkit_locate_library("UDFKIT_NVJITLINK_LIBRARY", "nvjitlink", "libnvJitLink.so.13", file, sizeof file);
    void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(jl.problem, sizeof jl.problem,
                 "load-time linking needs nvJitLink 13 (%s), which cannot be loaded: %.200s; name it in "
                 "UDFKIT_NVJITLINK_LIBRARY, or install a CUDA 13 toolkit or libnvjitlink",
                 file, dlerror());
        return;
    }
    *(void **)&jl.create = dlsym(lib, "__nvJitLinkCreate_13_0");
    *(void **)&jl.destroy = dlsym(lib, "__nvJitLinkDestroy_13_0");
    *(void **)&jl.add_data = dlsym(lib, "__nvJitLinkAddData_13_0");
    *(void **)&jl.complete = dlsym(lib, "__nvJitLinkComplete_13_0");
    *(void **)&jl.cubin_size = dlsym(lib, "__nvJitLinkGetLinkedCubinSize_13_0");
    *(void **)&jl.cubin = dlsym(lib, "__nvJitLinkGetLinkedCubin_13_0");
    *(void **)&jl.error_log_size = dlsym(lib, "__nvJitLinkGetErrorLogSize_13_0");
    *(void **)&jl.error_log = dlsym(lib, "__nvJitLinkGetErrorLog_13_0");
    *(void **)&jl.version = dlsym(lib, "nvJitLinkVersion");
    if (!jl.create || !jl.destroy || !jl.add_data || !jl.complete || !jl.cubin_size || !jl.cubin ||
        !jl.error_log_size || !jl.error_log || !jl.version)
        snprintf(jl.problem, sizeof jl.problem, "libnvJitLink.so.13 lacks the 13.0 entry points");
}

udfkit_status udfkit_jitlink_load(unsigned *major, unsigned *minor)
{
    pthread_once(&once, load);
    if (jl.problem[0])
        return udfkit_runtime_fail(UDFKIT_ERROR_TOOLCHAIN, "%s", jl.problem);
    jl.version(major, minor);
    return UDFKIT_OK;
}

/* The link in the sandbox helper, with the nvJitLink loaded here. */
static udfkit_status cubin_sandboxed(const udfkit_jit_part *parts, size_t count, int arch, const char *const *options,
                                     size_t noptions, const udfkit_sandbox *sb, udfkit_buf *cubin)
{
    Dl_info info;
    char library[PATH_MAX];
    if (!dladdr(*(void **)&jl.create, &info) || !info.dli_fname || !realpath(info.dli_fname, library))
        return udfkit_runtime_fail(UDFKIT_ERROR_TOOLCHAIN, "cannot tell which file nvJitLink was loaded from, which "
                                                          "the sandbox helper must load too");
    udfkit_link_input *inputs = calloc(count + 1, sizeof *inputs);
    if (!inputs)
        return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < count; i++)
        inputs[i] = (udfkit_link_input){parts[i].kind == UDFKIT_JIT_LTOIR  ? UDFKIT_INPUT_LTOIR
                                        : parts[i].kind == UDFKIT_JIT_PTX ? UDFKIT_INPUT_PTX
                                                                          : UDFKIT_INPUT_CUBIN,
                                        parts[i].data, parts[i].size, "part"};
    udfkit_buf log = UDFKIT_BUF_INIT;
    udfkit_rc rc = udfkit_sandbox_jitlink(sb, library, options, noptions, inputs, count, false, cubin, &log);
    free(inputs);
    udfkit_status s = UDFKIT_OK;
    if (rc == UDFKIT_RC_INPUT && log.size)
        s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "linking for sm_%d at load time failed (nvJitLink, in the "
                                                        "sandbox): %s",
                                arch, log.data);
    else if (rc) /* stopped by a limit or cancelled (a compile error), or no helper to run */
        s = udfkit_runtime_fail(rc == UDFKIT_RC_INPUT ? UDFKIT_ERROR_COMPILE
                                : rc == UDFKIT_RC_ENV ? UDFKIT_ERROR_TOOLCHAIN
                                                      : UDFKIT_ERROR_DRIVER,
                                "%s", udfkit_diag_message());
    udfkit_diag_clear();
    udfkit_buf_free(&log);
    return s;
}

static udfkit_status jitlink_run(const udfkit_jit_part *parts, size_t count, int arch, const char **options,
                                 uint32_t noptions, unsigned major, unsigned minor, const udfkit_sandbox *sb,
                                 udfkit_buf *cubin);

udfkit_status udfkit_jitlink_cubin(const udfkit_jit_part *parts, size_t count, int arch, const char *const *extra,
                                   size_t nextra, const udfkit_sandbox *sb, udfkit_buf *cubin)
{
    unsigned major, minor;
    udfkit_status s = udfkit_jitlink_load(&major, &minor);
    if (s)
        return s;
    char arch_option[32];
    snprintf(arch_option, sizeof arch_option, "-arch=sm_%d", arch);
    const char **options = calloc(nextra + 2, sizeof *options);
    if (!options)
        return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    uint32_t noptions = 0;
    options[noptions++] = arch_option;
    bool lto = false;
    for (size_t i = 0; i < count; i++)
        lto |= parts[i].kind == UDFKIT_JIT_LTOIR;
    if (lto)
        options[noptions++] = "-lto";
    for (size_t i = 0; i < nextra; i++)
        options[noptions++] = extra[i];
    s = jitlink_run(parts, count, arch, options, noptions, major, minor, sb, cubin);
    free(options);
    return s;
}

static udfkit_status jitlink_run(const udfkit_jit_part *parts, size_t count, int arch, const char **options,
                                 uint32_t noptions, unsigned major, unsigned minor, const udfkit_sandbox *sb,
                                 udfkit_buf *cubin)
{
    udfkit_status s = UDFKIT_OK;
    const char *arch_option = options[0];
    if (sb)
        return cubin_sandboxed(parts, count, arch, options, noptions, sb, cubin);
    void *h = NULL;
    int r = jl.create(&h, noptions, options);
    if (r != 0)
        return udfkit_runtime_fail(UDFKIT_ERROR_DRIVER, "nvJitLinkCreate failed (%d) for %s", r, arch_option);
    for (size_t i = 0; i < count && r == 0; i++) {
        char name[32];
        snprintf(name, sizeof name, "part%zu", i);
        r = jl.add_data(h, (int)parts[i].kind, parts[i].data, parts[i].size, name);
    }
    if (r == 0)
        r = jl.complete(h);
    if (r != 0) {
        size_t size = 0;
        udfkit_buf log = UDFKIT_BUF_INIT;
        if (jl.error_log_size(h, &size) == 0 && size > 1 && udfkit_buf_reserve(&log, size) && jl.error_log(h, log.data) == 0)
            log.size = size - 1;
        s = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "linking for sm_%d at load time failed (nvJitLink %u.%u): %s", arch,
                                major, minor, log.size ? log.data : "no log");
        udfkit_buf_free(&log);
    } else {
        size_t size = 0;
        if (jl.cubin_size(h, &size) != 0 || !udfkit_buf_reserve(cubin, size) || jl.cubin(h, cubin->data) != 0)
            s = udfkit_runtime_fail(UDFKIT_ERROR_DRIVER, "nvJitLink: getting the linked cubin failed");
        else
            cubin->size = size;
    }
    jl.destroy(&h);
    return s;
}

bool udfkit_jitlink_cached(udfkit_cache *cache, const char *key, udfkit_buf *cubin)
{
    if (!cache)
        return false;
    udfkit_cache_entry hit = {0};
    const udfkit_buf *code;
    char why[256];
    bool found = udfkit_cache_get(cache, key, &hit) && (code = udfkit_cache_entry_find(&hit, "cubin"));
    /* The entry's checksum says that it is as stored, not what was stored. */
    if (found && !(found = udfkit_cubin_check(code->data, code->size, why, sizeof why)))
        udfkit_warn("the cache entry %s is not used: the code in it %s; the code is linked again", key, why);
    if (found)
        udfkit_buf_append(cubin, code->data, code->size);
    udfkit_cache_record(cache, &hit, found);
    udfkit_cache_entry_free(&hit);
    return found;
}

void udfkit_jitlink_keep(udfkit_cache *cache, const char *key, const udfkit_buf *cubin)
{
    if (!cache)
        return;
    udfkit_cache_entry entry = {0};
    udfkit_cache_entry_add(&entry, "cubin", cubin->data, cubin->size);
    udfkit_cache_put(cache, key, &entry);
    udfkit_cache_entry_free(&entry);
}
