/* dladdr */
#define _GNU_SOURCE
#include "nvidia/cuda_libs.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef UDFKIT_NVRTC_LIBRARY_PATH
#define UDFKIT_NVRTC_LIBRARY_PATH ""
#endif
#ifndef UDFKIT_NVJITLINK_LIBRARY_PATH
#define UDFKIT_NVJITLINK_LIBRARY_PATH ""
#endif
#ifndef UDFKIT_NVFATBIN_LIBRARY_PATH
#define UDFKIT_NVFATBIN_LIBRARY_PATH ""
#endif

static const struct {
    const char *name, *env, *configured, *soname;
} parts[] = {
    [UDFKIT_PART_NVRTC] = {"NVRTC", "UDFKIT_NVRTC_LIBRARY", UDFKIT_NVRTC_LIBRARY_PATH, "libnvrtc.so.13"},
    [UDFKIT_PART_NVJITLINK] = {"nvJitLink", "UDFKIT_NVJITLINK_LIBRARY", UDFKIT_NVJITLINK_LIBRARY_PATH,
                               "libnvJitLink.so.13"},
    [UDFKIT_PART_NVFATBIN] = {"nvFatbin", "UDFKIT_NVFATBIN_LIBRARY", UDFKIT_NVFATBIN_LIBRARY_PATH, "libnvfatbin.so.13"},
};
#define NPARTS UDFKIT_PART_COUNT

static struct {
    pthread_mutex_t lock;
    bool tried[NPARTS];
    udfkit_rc rc[NPARTS];
    void *symbol[NPARTS]; /* one of the loaded library's, to find its file */
    char problem[NPARTS][1024];
} state = {.lock = PTHREAD_MUTEX_INITIALIZER};

const char *udfkit_cuda_part_name(udfkit_cuda_part part)
{
    return (unsigned)part < NPARTS ? parts[part].name : "?";
}

/* The file to load: the environment's, else the configured one where it exists; NULL
 * leaves the search to the loader. */
static const char *part_file(udfkit_cuda_part part)
{
    if ((unsigned)part >= NPARTS)
        return NULL;
    const char *env = getenv(parts[part].env);
    if (env && *env)
        return env;
    struct stat st;
    if (*parts[part].configured && stat(parts[part].configured, &st) == 0)
        return parts[part].configured;
    return NULL;
}

bool udfkit_cuda_part_stamp(udfkit_cuda_part part, char *out, size_t size)
{
    const char *file = part_file(part);
    char real[PATH_MAX];
    struct stat st;
    /* A bare name is found by the loader's search, not here: no stamp for it. */
    if (!file || !strchr(file, '/') || !realpath(file, real) || stat(real, &st) != 0)
        return false;
    snprintf(out, size, "%s:%lld:%lld.%09ld", real, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             st.st_mtim.tv_nsec);
    return true;
}

void udfkit_cuda_part_location(udfkit_cuda_part part, char *out, size_t size)
{
    const char *file = part_file(part);
    char real[PATH_MAX];
    if (file && strchr(file, '/') && realpath(file, real))
        snprintf(out, size, "%s", real);
    else
        snprintf(out, size, "%s (the loader's search path)", file ? file : parts[part].soname);
}

static udfkit_rc load(udfkit_cuda_part part, const udfkit_symbol *symbols, size_t count, char *problem, size_t size)
{
    const char *file = part_file(part);
    const char *shown = file ? file : parts[part].soname;
    void *lib = dlopen(shown, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(problem, size, "%s (%s) cannot be loaded: %s; %s, or name the library in %s", parts[part].name, shown,
                 dlerror(), "install the pinned CUDA 13.0 wheels: python3 -m pip install --no-deps " UDFKIT_PIP_CUDA_PINS,
                 parts[part].env);
        return UDFKIT_RC_ENV;
    }
    for (size_t i = 0; i < count; i++) {
        *symbols[i].slot = dlsym(lib, symbols[i].name);
        if (!*symbols[i].slot) {
            snprintf(problem, size, "%s (%s) lacks %s: it is not the CUDA 13 %s udfkit was built for; %s",
                     parts[part].name, shown, symbols[i].name, parts[part].name,
                     "install the pinned CUDA 13.0 wheels: python3 -m pip install --no-deps " UDFKIT_PIP_CUDA_PINS);
            return UDFKIT_RC_ENV;
        }
    }
    return UDFKIT_RC_OK;
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
    const char *file = part_file(part);
    char real[PATH_MAX];
    Dl_info info;
    /* Not loaded, the loader's search to find: loaded here (kept), to ask where from. */
    if (!symbol && (!file || !strchr(file, '/'))) {
        void *lib = dlopen(file ? file : parts[part].soname, RTLD_LAZY | RTLD_LOCAL);
        const char *probe[] = {[UDFKIT_PART_NVRTC] = "nvrtcVersion", [UDFKIT_PART_NVJITLINK] = "nvJitLinkVersion",
                               [UDFKIT_PART_NVFATBIN] = "nvFatbinVersion"};
        symbol = lib ? dlsym(lib, probe[part]) : NULL;
    }
    if (symbol && dladdr(symbol, &info) && info.dli_fname && realpath(info.dli_fname, real))
        file = real;
    else if (!file || !realpath(file, real))
        return false;
    snprintf(out, size, "%s", real);
    return true;
}
