#include "nvidia/nvrtc_wrap.h"

#include "nvidia/cuda_libs.h"

#include <nvrtc.h>
#include <stdlib.h>

/* NVRTC's entry points, from the library loaded on first use (cuda_libs.h). */
static struct {
    nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *);
    nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*log_size)(nvrtcProgram, size_t *);
    nvrtcResult (*log)(nvrtcProgram, char *);
    nvrtcResult (*ltoir_size)(nvrtcProgram, size_t *);
    nvrtcResult (*ltoir)(nvrtcProgram, char *);
    nvrtcResult (*ptx_size)(nvrtcProgram, size_t *);
    nvrtcResult (*ptx)(nvrtcProgram, char *);
    nvrtcResult (*cubin_size)(nvrtcProgram, size_t *);
    nvrtcResult (*cubin)(nvrtcProgram, char *);
    nvrtcResult (*destroy)(nvrtcProgram *);
    const char *(*error_string)(nvrtcResult);
    nvrtcResult (*version)(int *, int *);
    nvrtcResult (*num_archs)(int *);
    nvrtcResult (*archs)(int *);
} api;

static udfkit_rc load_nvrtc(void)
{
    const udfkit_symbol symbols[] = {
        {"nvrtcCreateProgram", (void **)&api.create},
        {"nvrtcCompileProgram", (void **)&api.compile},
        {"nvrtcGetProgramLogSize", (void **)&api.log_size},
        {"nvrtcGetProgramLog", (void **)&api.log},
        {"nvrtcGetLTOIRSize", (void **)&api.ltoir_size},
        {"nvrtcGetLTOIR", (void **)&api.ltoir},
        {"nvrtcGetPTXSize", (void **)&api.ptx_size},
        {"nvrtcGetPTX", (void **)&api.ptx},
        {"nvrtcGetCUBINSize", (void **)&api.cubin_size},
        {"nvrtcGetCUBIN", (void **)&api.cubin},
        {"nvrtcDestroyProgram", (void **)&api.destroy},
        {"nvrtcGetErrorString", (void **)&api.error_string},
        {"nvrtcVersion", (void **)&api.version},
        {"nvrtcGetNumSupportedArchs", (void **)&api.num_archs},
        {"nvrtcGetSupportedArchs", (void **)&api.archs},
    };
    return udfkit_cuda_part_load(UDFKIT_PART_NVRTC, symbols, sizeof symbols / sizeof *symbols);
}

static udfkit_rc nvrtc_fail(nvrtcResult r, const char *what)
{
    return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "NVRTC %s failed: %s", what, api.error_string(r));
}

udfkit_rc udfkit_nvrtc_compile(const udfkit_nvrtc_job *job, udfkit_buf *code, udfkit_buf *log)
{
    udfkit_rc rc = load_nvrtc();
    if (rc)
        return rc;
    nvrtcProgram prog = NULL;
    nvrtcResult r = api.create(&prog, job->source, job->name, (int)job->nheaders,
                                       (const char *const *)job->header_texts, (const char *const *)job->header_names);
    if (r != NVRTC_SUCCESS)
        return nvrtc_fail(r, "nvrtcCreateProgram");

    nvrtcResult compiled = api.compile(prog, (int)job->noptions, (const char *const *)job->options);
    size_t size = 0;
    if (api.log_size(prog, &size) == NVRTC_SUCCESS && size > 1 && udfkit_buf_reserve(log, size)) {
        if (api.log(prog, log->data + log->size) == NVRTC_SUCCESS)
            log->size += size - 1;
        log->data[log->size] = '\0';
    }
    if (compiled == NVRTC_ERROR_COMPILATION) {
        rc = UDFKIT_RC_INPUT;
        goto done;
    }
    if (compiled != NVRTC_SUCCESS) {
        rc = udfkit_fail(UDFKIT_RC_INPUT, job->name, 0, "NVRTC rejected the compile: %s", api.error_string(compiled));
        udfkit_diag_append_log("NVRTC", log->data);
        goto done;
    }

    switch (job->kind) {
    case UDFKIT_CODE_LTOIR:
        r = api.ltoir_size(prog, &size);
        break;
    case UDFKIT_CODE_PTX:
        r = api.ptx_size(prog, &size);
        break;
    case UDFKIT_CODE_CUBIN:
        r = api.cubin_size(prog, &size);
        break;
    }
    if (r != NVRTC_SUCCESS) {
        rc = nvrtc_fail(r, "getting the code size");
        goto done;
    }
    code->size = 0;
    if (!udfkit_buf_reserve(code, size)) {
        rc = udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
        goto done;
    }
    switch (job->kind) {
    case UDFKIT_CODE_LTOIR:
        r = api.ltoir(prog, code->data);
        break;
    case UDFKIT_CODE_PTX:
        r = api.ptx(prog, code->data);
        if (size > 0)
            size--; /* PTX comes NUL-terminated; the artifact is the text alone */
        break;
    case UDFKIT_CODE_CUBIN:
        r = api.cubin(prog, code->data);
        break;
    }
    if (r != NVRTC_SUCCESS) {
        rc = nvrtc_fail(r, "getting the code");
        goto done;
    }
    code->size = size;
    code->data[size] = '\0';
done:
    api.destroy(&prog);
    return rc;
}

udfkit_rc udfkit_nvrtc_query(int *major, int *minor, int **archs, size_t *count)
{
    udfkit_rc rc = load_nvrtc();
    if (rc)
        return rc;
    int n = 0;
    if (api.version(major, minor) != NVRTC_SUCCESS || api.num_archs(&n) != NVRTC_SUCCESS || n <= 0)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "NVRTC does not report its version and architectures; %s",
                           UDFKIT_FIX_TOOLCHAIN_HINT);
    *archs = malloc((size_t)n * sizeof **archs);
    if (!*archs)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    api.archs(*archs);
    *count = (size_t)n;
    return UDFKIT_RC_OK;
}
