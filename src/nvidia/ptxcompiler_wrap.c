#include "nvidia/ptxcompiler_wrap.h"

#include <nvPTXCompiler.h>
#include <stdio.h>

void udfkit_ptxcompiler_version(int *major, int *minor)
{
    unsigned ma = 0, mi = 0;
    if (nvPTXCompilerGetVersion(&ma, &mi) != NVPTXCOMPILE_SUCCESS)
        ma = mi = 0;
    *major = (int)ma;
    *minor = (int)mi;
}

static void copy_log(nvPTXCompilerHandle h, udfkit_buf *log)
{
    size_t size = 0;
    if (nvPTXCompilerGetErrorLogSize(h, &size) == NVPTXCOMPILE_SUCCESS && size > 1 && udfkit_buf_reserve(log, size)) {
        if (nvPTXCompilerGetErrorLog(h, log->data + log->size) == NVPTXCOMPILE_SUCCESS)
            log->size += size - 1;
        log->data[log->size] = '\0';
    }
}

bool udfkit_ptxcompiler_compile(const char *ptx, size_t size, const char *gpu_name, udfkit_buf *cubin, udfkit_buf *log)
{
    nvPTXCompilerHandle h = NULL;
    nvPTXCompileResult r = nvPTXCompilerCreate(&h, size, ptx);
    if (r != NVPTXCOMPILE_SUCCESS) {
        udfkit_buf_printf(log, "nvPTXCompilerCreate failed (%d)", (int)r);
        return false;
    }
    char option[64];
    snprintf(option, sizeof option, "--gpu-name=%s", gpu_name);
    const char *options[] = {option};
    bool ok = false;
    r = nvPTXCompilerCompile(h, 1, options);
    if (r != NVPTXCOMPILE_SUCCESS) {
        copy_log(h, log);
        if (!log->size)
            udfkit_buf_printf(log, "nvPTXCompilerCompile failed (%d)", (int)r);
        goto done;
    }
    size_t out = 0;
    if (nvPTXCompilerGetCompiledProgramSize(h, &out) != NVPTXCOMPILE_SUCCESS || !udfkit_buf_reserve(cubin, out) ||
        nvPTXCompilerGetCompiledProgram(h, cubin->data) != NVPTXCOMPILE_SUCCESS) {
        udfkit_buf_printf(log, "nvPTXCompiler: getting the compiled program failed");
        goto done;
    }
    cubin->size = out;
    ok = true;
done:
    nvPTXCompilerDestroy(&h);
    return ok;
}
