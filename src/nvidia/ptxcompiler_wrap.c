#include "nvidia/ptxcompiler_wrap.h"

#include <nvPTXCompiler.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void udfkit_ptxcompiler_version(int *major, int *minor)
{
    unsigned ma = 0, mi = 0;
    if (nvPTXCompilerGetVersion(&ma, &mi) != NVPTXCOMPILE_SUCCESS)
        ma = mi = 0;
    *major = (int)ma;
    *minor = (int)mi;
}

static char *message(const char *text, int result)
{
    char *m = malloc(strlen(text) + 32);
    if (m)
        sprintf(m, "%s (%d)", text, result);
    return m;
}

static char *error_log(nvPTXCompilerHandle h)
{
    size_t size = 0;
    char *log = NULL;
    if (nvPTXCompilerGetErrorLogSize(h, &size) == NVPTXCOMPILE_SUCCESS && size > 1 && (log = malloc(size))) {
        if (nvPTXCompilerGetErrorLog(h, log) == NVPTXCOMPILE_SUCCESS) {
            log[size - 1] = '\0';
            return log;
        }
        free(log);
    }
    return NULL;
}

bool udfkit_ptxcompiler_compile(const char *ptx, size_t size, const char *gpu_name, void **cubin, size_t *cubin_size,
                                char **log)
{
    return udfkit_ptxcompiler_compile_with(ptx, size, gpu_name, NULL, 0, cubin, cubin_size, log);
}

bool udfkit_ptxcompiler_compile_with(const char *ptx, size_t size, const char *gpu_name, const char *const *more,
                                     size_t nmore, void **cubin, size_t *cubin_size, char **log)
{
    *cubin = NULL;
    *cubin_size = 0;
    *log = NULL;
    nvPTXCompilerHandle h = NULL;
    nvPTXCompileResult r = nvPTXCompilerCreate(&h, size, ptx);
    if (r != NVPTXCOMPILE_SUCCESS) {
        *log = message("nvPTXCompilerCreate failed", (int)r);
        return false;
    }
    char option[64];
    snprintf(option, sizeof option, "--gpu-name=%s", gpu_name);
    const char *options[9] = {option};
    int noptions = 1;
    for (size_t i = 0; i < nmore && noptions < 9; i++)
        options[noptions++] = more[i];
    bool ok = false;
    r = nvPTXCompilerCompile(h, noptions, options);
    if (r != NVPTXCOMPILE_SUCCESS) {
        *log = error_log(h);
        if (!*log)
            *log = message("nvPTXCompilerCompile failed", (int)r);
        goto done;
    }
    size_t out = 0;
    void *data = NULL;
    if (nvPTXCompilerGetCompiledProgramSize(h, &out) != NVPTXCOMPILE_SUCCESS || !(data = malloc(out ? out : 1)) ||
        nvPTXCompilerGetCompiledProgram(h, data) != NVPTXCOMPILE_SUCCESS) {
        free(data);
        *log = message("nvPTXCompiler: getting the compiled program failed", (int)r);
        goto done;
    }
    *cubin = data;
    *cubin_size = out;
    ok = true;
done:
    nvPTXCompilerDestroy(&h);
    return ok;
}
