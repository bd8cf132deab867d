#include "nvidia/nvjitlink_wrap.h"

#include "nvidia/cuda_libs.h"

#include <nvJitLink.h>

/* nvJitLink's entry points, from the library loaded on first use (cuda_libs.h). Its header
 * versions them (nvJitLinkCreate calls __nvJitLinkCreate_13_0); the 13.0 names are what
 * every 13.x library provides. */
static struct {
    nvJitLinkResult (*create)(nvJitLinkHandle *, uint32_t, const char **);
    nvJitLinkResult (*destroy)(nvJitLinkHandle *);
    nvJitLinkResult (*add_data)(nvJitLinkHandle, nvJitLinkInputType, const void *, size_t, const char *);
    nvJitLinkResult (*complete)(nvJitLinkHandle);
    nvJitLinkResult (*cubin_size)(nvJitLinkHandle, size_t *);
    nvJitLinkResult (*cubin)(nvJitLinkHandle, void *);
    nvJitLinkResult (*ptx_size)(nvJitLinkHandle, size_t *);
    nvJitLinkResult (*ptx)(nvJitLinkHandle, char *);
    nvJitLinkResult (*error_log_size)(nvJitLinkHandle, size_t *);
    nvJitLinkResult (*error_log)(nvJitLinkHandle, char *);
    nvJitLinkResult (*version)(unsigned *, unsigned *);
} api;

static udfkit_rc load_nvjitlink(void)
{
    const udfkit_symbol symbols[] = {
        {"__nvJitLinkCreate_13_0", (void **)&api.create},
        {"__nvJitLinkDestroy_13_0", (void **)&api.destroy},
        {"__nvJitLinkAddData_13_0", (void **)&api.add_data},
        {"__nvJitLinkComplete_13_0", (void **)&api.complete},
        {"__nvJitLinkGetLinkedCubinSize_13_0", (void **)&api.cubin_size},
        {"__nvJitLinkGetLinkedCubin_13_0", (void **)&api.cubin},
        {"__nvJitLinkGetLinkedPtxSize_13_0", (void **)&api.ptx_size},
        {"__nvJitLinkGetLinkedPtx_13_0", (void **)&api.ptx},
        {"__nvJitLinkGetErrorLogSize_13_0", (void **)&api.error_log_size},
        {"__nvJitLinkGetErrorLog_13_0", (void **)&api.error_log},
        {"nvJitLinkVersion", (void **)&api.version},
    };
    return udfkit_cuda_part_load(UDFKIT_PART_NVJITLINK, symbols, sizeof symbols / sizeof *symbols);
}

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
    if (api.error_log_size(h, &size) == NVJITLINK_SUCCESS && size > 1 && udfkit_buf_reserve(log, size)) {
        if (api.error_log(h, log->data + log->size) == NVJITLINK_SUCCESS)
            log->size += size - 1;
        log->data[log->size] = '\0';
    }
}

/* nvJitLink says that an option is unknown, not which: each is tried beside the first
 * (the architecture), so the message names the one the user got wrong. */
static udfkit_rc unrecognized_option(const char *const *options, size_t noptions)
{
    for (size_t i = 1; i < noptions; i++) {
        const char *pair[] = {options[0], options[i]};
        nvJitLinkHandle h = NULL;
        nvJitLinkResult r = api.create(&h, 2, pair);
        if (h)
            api.destroy(&h);
        if (r == NVJITLINK_ERROR_UNRECOGNIZED_OPTION)
            return udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "nvJitLink does not recognize the option '%s'", options[i]);
    }
    return udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "nvJitLink does not recognize its options together: %s",
                       options[0]);
}

udfkit_rc udfkit_jitlink_run(const char *const *options, size_t noptions, const udfkit_link_input *inputs,
                             size_t ninputs, bool ptx, udfkit_buf *out, udfkit_buf *log)
{
    udfkit_rc rc = load_nvjitlink();
    if (rc)
        return rc;
    nvJitLinkHandle h = NULL;
    nvJitLinkResult r = api.create(&h, (uint32_t)noptions, (const char **)options);
    if (r != NVJITLINK_SUCCESS && h)
        api.destroy(&h); /* a refused handle still holds what nvJitLink allocated for it */
    if (r == NVJITLINK_ERROR_UNRECOGNIZED_OPTION)
        return unrecognized_option(options, noptions);
    if (r != NVJITLINK_SUCCESS)
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "nvJitLink refused the options (%s): %s", result_string(r),
                           options[0]);
    for (size_t i = 0; i < ninputs; i++) {
        r = api.add_data(h, input_type(inputs[i].kind), inputs[i].data, inputs[i].size, inputs[i].name);
        if (r != NVJITLINK_SUCCESS) {
            copy_log(h, log);
            if (!log->size)
                udfkit_buf_printf(log, "%s: %s\n", inputs[i].name, result_string(r));
            rc = UDFKIT_RC_INPUT;
            goto done;
        }
    }
    r = api.complete(h);
    if (r != NVJITLINK_SUCCESS) {
        copy_log(h, log);
        if (!log->size)
            udfkit_buf_printf(log, "%s\n", result_string(r));
        rc = UDFKIT_RC_INPUT;
        goto done;
    }
    size_t size = 0;
    r = ptx ? api.ptx_size(h, &size) : api.cubin_size(h, &size);
    if (r == NVJITLINK_SUCCESS && udfkit_buf_reserve(out, size)) {
        r = ptx ? api.ptx(h, out->data) : api.cubin(h, out->data);
        if (ptx && size > 0)
            size--; /* drop the terminating NUL */
        out->size = size;
        out->data[size] = '\0';
    }
    if (r != NVJITLINK_SUCCESS)
        rc = udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "nvJitLink: getting the linked code failed: %s", result_string(r));
done:
    api.destroy(&h);
    return rc;
}

udfkit_rc udfkit_jitlink_version(int *major, int *minor)
{
    udfkit_rc rc = load_nvjitlink();
    if (rc)
        return rc;
    unsigned ma = 0, mi = 0;
    if (api.version(&ma, &mi) != NVJITLINK_SUCCESS)
        ma = mi = 0;
    *major = (int)ma;
    *minor = (int)mi;
    return UDFKIT_RC_OK;
}
