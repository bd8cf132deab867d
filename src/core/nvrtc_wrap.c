#include "nvrtc_wrap.h"

#include <nvrtc.h>
#include <stdlib.h>

static udfkit_rc nvrtc_fail(nvrtcResult r, const char *what)
{
    return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "NVRTC %s failed: %s", what, nvrtcGetErrorString(r));
}

udfkit_rc udfkit_nvrtc_compile(const udfkit_nvrtc_job *job, udfkit_buf *code, udfkit_buf *log)
{
    nvrtcProgram prog = NULL;
    nvrtcResult r = nvrtcCreateProgram(&prog, job->source, job->name, (int)job->nheaders,
                                       (const char *const *)job->header_texts, (const char *const *)job->header_names);
    if (r != NVRTC_SUCCESS)
        return nvrtc_fail(r, "nvrtcCreateProgram");

    udfkit_rc rc = UDFKIT_RC_OK;
    nvrtcResult compiled = nvrtcCompileProgram(prog, (int)job->noptions, (const char *const *)job->options);
    size_t size = 0;
    if (nvrtcGetProgramLogSize(prog, &size) == NVRTC_SUCCESS && size > 1 && udfkit_buf_reserve(log, size)) {
        if (nvrtcGetProgramLog(prog, log->data + log->size) == NVRTC_SUCCESS)
            log->size += size - 1;
        log->data[log->size] = '\0';
    }
    if (compiled == NVRTC_ERROR_COMPILATION) {
        rc = UDFKIT_RC_INPUT;
        goto done;
    }
    if (compiled != NVRTC_SUCCESS) {
        rc = udfkit_fail(UDFKIT_RC_INPUT, job->name, 0, "NVRTC rejected the compile: %s", nvrtcGetErrorString(compiled));
        udfkit_diag_append_log("NVRTC", log->data);
        goto done;
    }

    switch (job->kind) {
    case UDFKIT_CODE_LTOIR:
        r = nvrtcGetLTOIRSize(prog, &size);
        break;
    case UDFKIT_CODE_PTX:
        r = nvrtcGetPTXSize(prog, &size);
        break;
    case UDFKIT_CODE_CUBIN:
        r = nvrtcGetCUBINSize(prog, &size);
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
        r = nvrtcGetLTOIR(prog, code->data);
        break;
    case UDFKIT_CODE_PTX:
        r = nvrtcGetPTX(prog, code->data);
        if (size > 0)
            size--; /* PTX comes NUL-terminated; the artifact is the text alone */
        break;
    case UDFKIT_CODE_CUBIN:
        r = nvrtcGetCUBIN(prog, code->data);
        break;
    }
    if (r != NVRTC_SUCCESS) {
        rc = nvrtc_fail(r, "getting the code");
        goto done;
    }
    code->size = size;
    code->data[size] = '\0';
done:
    nvrtcDestroyProgram(&prog);
    return rc;
}

void udfkit_nvrtc_version(int *major, int *minor)
{
    if (nvrtcVersion(major, minor) != NVRTC_SUCCESS)
        *major = *minor = 0;
}

udfkit_rc udfkit_nvrtc_supported_archs(int **archs, size_t *count)
{
    int n = 0;
    if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "NVRTC does not report its architectures");
    *archs = malloc((size_t)n * sizeof **archs);
    if (!*archs)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    nvrtcGetSupportedArchs(*archs);
    *count = (size_t)n;
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_nvrtc_parse_archs(const char *text, udfkit_target_list *out)
{
    int *supported = NULL;
    size_t nsupported = 0;
    udfkit_rc rc = udfkit_nvrtc_supported_archs(&supported, &nsupported);
    if (!rc)
        rc = udfkit_arch_parse(text ? text : UDFKIT_DEFAULT_ARCHITECTURES, supported, nsupported, out);
    free(supported);
    return rc;
}
