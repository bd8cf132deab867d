/* dladdr */
#define _GNU_SOURCE
#include "nvidia/cuda_libs.h"

#include "base/buf.h"
#include "base/locate.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
    const char *name, *env, *key, *soname;
} parts[] = {
    [UDFKIT_PART_NVRTC] = {"NVRTC", "UDFKIT_NVRTC_LIBRARY", "nvrtc", "libnvrtc.so.13"},
    [UDFKIT_PART_NVJITLINK] = {"nvJitLink", "UDFKIT_NVJITLINK_LIBRARY", "nvjitlink", "libnvJitLink.so.13"},
    [UDFKIT_PART_NVFATBIN] = {"nvFatbin", "UDFKIT_NVFATBIN_LIBRARY", "nvfatbin", "libnvfatbin.so.13"},
};
#define NPARTS UDFKIT_PART_COUNT

static struct {
    pthread_mutex_t lock;
    bool tried[NPARTS];
    udfkit_rc rc[NPARTS];
    void *symbol[NPARTS]; /* one of the loaded library's, to find its file */
    char problem[NPARTS][4096];
} state = {.lock = PTHREAD_MUTEX_INITIALIZER};

const char *udfkit_cuda_part_name(udfkit_cuda_part part)
{
    return (unsigned)part < NPARTS ? parts[part].name : "?";
}

const char *udfkit_cuda_part_env(udfkit_cuda_part part)
{
    return (unsigned)part < NPARTS ? parts[part].env : "?";
}

/* The file to load, in base/locate.h's order: a path, or the soname where the loader's
 * search is left. */
static udfkit_found part_file(udfkit_cuda_part part, char *out, size_t size)
{
    if ((unsigned)part >= NPARTS) {
        snprintf(out, size, "?");
        return UDFKIT_FOUND_NOWHERE;
    }
    return udfkit_locate_library(parts[part].env, parts[part].key, parts[part].soname, out, size);
}

udfkit_found udfkit_cuda_part_found(udfkit_cuda_part part)
{
    char file[PATH_MAX];
    return part_file(part, file, sizeof file);
}

bool udfkit_cuda_part_stamp(udfkit_cuda_part part, char *out, size_t size)
{
    char file[PATH_MAX], real[PATH_MAX];
    struct stat st;
    part_file(part, file, sizeof file);
    /* A bare name is found by the loader's search, not here: no stamp for it. */
    if (!strchr(file, '/') || !realpath(file, real) || stat(real, &st) != 0)
        return false;
    snprintf(out, size, "%s:%lld:%lld.%09ld", real, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             st.st_mtim.tv_nsec);
    return true;
}

void udfkit_cuda_part_location(udfkit_cuda_part part, char *out, size_t size)
{
    char file[PATH_MAX], real[PATH_MAX];
    part_file(part, file, sizeof file);
    if (strchr(file, '/') && realpath(file, real))
        snprintf(out, size, "%s", real);
    else
        snprintf(out, size, "%s (the loader's search path)", file);
}

/* How to get a part, for messages: the tool's own environment first. */
static void fix_hint(udfkit_cuda_part part, char *out, size_t size)
{
    char searched[2048];
    udfkit_locate_searched(parts[part].env, searched, sizeof searched);
    if (udfkit_locate_is_tool())
        snprintf(out, size,
                 "searched %s; run `udfkit setup-python` (the pinned CUDA 13.0 wheels in udfkit's own Python "
                 "environment), or name the library in %s",
                 searched, parts[part].env);
    else
        snprintf(out, size,
                 "searched %s; install the pinned CUDA 13.0 wheels: python3 -m pip install --no-deps %s, or name "
                 "the library in %s",
                 searched, UDFKIT_PIP_CUDA_PINS, parts[part].env);
}

static udfkit_rc load(udfkit_cuda_part part, const udfkit_symbol *symbols, size_t count, char *problem, size_t size)
{
    char shown[PATH_MAX], hint[4096];
    part_file(part, shown, sizeof shown);
    udfkit_buf why = UDFKIT_BUF_INIT;
    void *lib = dlopen(shown, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fix_hint(part, hint, sizeof hint);
        udfkit_buf_printf(&why, "%s (%s) cannot be loaded: %s; %s", parts[part].name, shown, dlerror(), hint);
    }
    for (size_t i = 0; lib && !why.data && i < count; i++) {
        *symbols[i].slot = dlsym(lib, symbols[i].name);
        if (!*symbols[i].slot)
            udfkit_buf_printf(&why, "%s (%s) lacks %s: it is not the CUDA 13 %s udfkit was built for; %s",
                              parts[part].name, shown, symbols[i].name, parts[part].name,
                              "install the pinned CUDA 13.0 wheels: python3 -m pip install --no-deps "
                              UDFKIT_PIP_CUDA_PINS);
    }
    bool failed = why.data != NULL;
    if (failed)
        snprintf(problem, size, "%s", why.data);
    udfkit_buf_free(&why);
    return failed ? UDFKIT_RC_ENV : UDFKIT_RC_OK;
}

udfkit_rc udfkit_cuda_part_load(udfkit_cuda_part part, const udfkit_symbol *symbols, size_t count)
{
    if ((unsigned)part >= NPARTS)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "no such CUDA part: %d", (int)part);
    pthread_mutex_lock(&state.lock);
    if (!state.tried[part]) {
        state.rc[part] = load(part, symbols, count, state.problem[part], sizeof state.problem[part]);
        state.tried[part] = true;
        state.symbol[part] = !state.rc[part] && count ? *symbols[0].slot : NULL;
    }
    udfkit_rc rc = state.rc[part];
    pthread_mutex_unlock(&state.lock);
    if (rc)
        return udfkit_fail(rc, NULL, 0, "%s", state.problem[part]);
    return UDFKIT_RC_OK;
}

bool udfkit_cuda_part_file(udfkit_cuda_part part, char *out, size_t size)
{
    if ((unsigned)part >= NPARTS)
        return false;
    pthread_mutex_lock(&state.lock);
    void *symbol = state.symbol[part];
    pthread_mutex_unlock(&state.lock);
    char found[PATH_MAX];
    part_file(part, found, sizeof found);
    const char *file = found;
    char real[PATH_MAX];
    Dl_info info;
    /* Not loaded, the loader's search to find: loaded here (kept), to ask where from. */
    if (!symbol && !strchr(file, '/')) {
        void *lib = dlopen(file, RTLD_LAZY | RTLD_LOCAL);
        const char *probe[] = {[UDFKIT_PART_NVRTC] = "nvrtcVersion", [UDFKIT_PART_NVJITLINK] = "nvJitLinkVersion",
                               [UDFKIT_PART_NVFATBIN] = "nvFatbinVersion"};
        symbol = lib ? dlsym(lib, probe[part]) : NULL;
    }
    if (symbol && dladdr(symbol, &info) && info.dli_fname && realpath(info.dli_fname, real))
        file = real;
    else if (!strchr(file, '/') || !realpath(file, real))
        return false;
    snprintf(out, size, "%s", real);
    return true;
}
