#include "nvjitlink_wrap.h"

#include <nvJitLink.h>

static nvJitLinkInputType input_type(udfkit_input_kind k)
{
    switch (k) {
    case UDFKIT_INPUT_CUBIN:
        return NVJITLINK_INPUT_CUBIN;
    case UDFKIT_INPUT_PTX:
        return NVJITLINK_INPUT_PTX;
    case UDFKIT_INPUT_LTOIR:
        return NVJITLINK_INPUT_LTOIR;
    case UDFKIT_INPUT_FATBIN:
        return NVJITLINK_INPUT_FATBIN;
    case UDFKIT_INPUT_OBJECT:
        return NVJITLINK_INPUT_OBJECT;
    case UDFKIT_INPUT_LIBRARY:
        return NVJITLINK_INPUT_LIBRARY;
    }
    return NVJITLINK_INPUT_ANY;
}

static const char *result_string(nvJitLinkResult r)
{
    static const char *const names[] = {
        [NVJITLINK_SUCCESS] = "success",
        [NVJITLINK_ERROR_UNRECOGNIZED_OPTION] = "unrecognized option",
        [NVJITLINK_ERROR_MISSING_ARCH] = "missing -arch",
        [NVJITLINK_ERROR_INVALID_INPUT] = "invalid input",
        [NVJITLINK_ERROR_PTX_COMPILE] = "PTX compilation failed",
        [NVJITLINK_ERROR_NVVM_COMPILE] = "NVVM (LTO) compilation failed",
        [NVJITLINK_ERROR_INTERNAL] = "internal error",
        [NVJITLINK_ERROR_THREADPOOL] = "thread pool error",
        [NVJITLINK_ERROR_UNRECOGNIZED_INPUT] = "unrecognized input",
        [NVJITLINK_ERROR_FINALIZE] = "finalizer error",
        [NVJITLINK_ERROR_NULL_INPUT] = "null input",
        [NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS] = "incompatible options",
        [NVJITLINK_ERROR_INCORRECT_INPUT_TYPE] = "incorrect input type",
        [NVJITLINK_ERROR_ARCH_MISMATCH] = "architecture mismatch",
        [NVJITLINK_ERROR_OUTDATED_LIBRARY] = "the input is newer than this nvJitLink",
        [NVJITLINK_ERROR_MISSING_FATBIN] = "missing fatbin",
        [NVJITLINK_ERROR_UNRECOGNIZED_ARCH] = "unrecognized -arch value",
        [NVJITLINK_ERROR_UNSUPPORTED_ARCH] = "unsupported -arch value",
        [NVJITLINK_ERROR_LTO_NOT_ENABLED] = "LTO-IR input needs -lto",
    };
    if ((size_t)r < sizeof names / sizeof *names && names[r])
        return names[r];
    return "unknown nvJitLink error";
}

static void copy_log(nvJitLinkHandle h, udfkit_buf *log)
{
    size_t size = 0;
    if (nvJitLinkGetErrorLogSize(h, &size) == NVJITLINK_SUCCESS && size > 1 && udfkit_buf_reserve(log, size)) {
        if (nvJitLinkGetErrorLog(h, log->data + log->size) == NVJITLINK_SUCCESS)
            log->size += size - 1;
        log->data[log->size] = '\0';
    }
}

udfkit_rc udfkit_jitlink_run(const char *const *options, size_t noptions, const udfkit_link_input *inputs,
                             size_t ninputs, bool ptx, udfkit_buf *out, udfkit_buf *log)
{
    nvJitLinkHandle h = NULL;
    nvJitLinkResult r = nvJitLinkCreate(&h, (uint32_t)noptions, (const char **)options);
    if (r != NVJITLINK_SUCCESS)
        return udfkit_fail(r == NVJITLINK_ERROR_UNRECOGNIZED_OPTION ? UDFKIT_RC_USAGE : UDFKIT_RC_INTERNAL, NULL, 0,
                           "nvJitLink refused the options (%s): %s", result_string(r), options[0]);
    udfkit_rc rc = UDFKIT_RC_OK;
    for (size_t i = 0; i < ninputs; i++) {
        r = nvJitLinkAddData(h, input_type(inputs[i].kind), inputs[i].data, inputs[i].size, inputs[i].name);
        if (r != NVJITLINK_SUCCESS) {
            copy_log(h, log);
            if (!log->size)
                udfkit_buf_printf(log, "%s: %s\n", inputs[i].name, result_string(r));
            rc = UDFKIT_RC_INPUT;
            goto done;
        }
    }
    r = nvJitLinkComplete(h);
    if (r != NVJITLINK_SUCCESS) {
        copy_log(h, log);
        if (!log->size)
            udfkit_buf_printf(log, "%s\n", result_string(r));
        rc = UDFKIT_RC_INPUT;
        goto done;
    }
    size_t size = 0;
    r = ptx ? nvJitLinkGetLinkedPtxSize(h, &size) : nvJitLinkGetLinkedCubinSize(h, &size);
    if (r == NVJITLINK_SUCCESS && udfkit_buf_reserve(out, size)) {
        r = ptx ? nvJitLinkGetLinkedPtx(h, out->data) : nvJitLinkGetLinkedCubin(h, out->data);
        if (ptx && size > 0)
            size--; /* drop the terminating NUL */
        out->size = size;
        out->data[size] = '\0';
    }
    if (r != NVJITLINK_SUCCESS)
        rc = udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "nvJitLink: getting the linked code failed: %s", result_string(r));
done:
    nvJitLinkDestroy(&h);
    return rc;
}

void udfkit_jitlink_version(int *major, int *minor)
{
    unsigned ma = 0, mi = 0;
    if (nvJitLinkVersion(&ma, &mi) != NVJITLINK_SUCCESS)
        ma = mi = 0;
    *major = (int)ma;
    *minor = (int)mi;
}
