/* NVRTC's log as udfkit rewrites it, errors inside the forwarders of two exported functions
 * (one with a c_name of its own) turned into messages about the user's functions. */
#include "base/diag.h"
#include "frontend/nvrtc_log.h"
#include "fuzz_common.h"

static udfkit_spec specs[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (udfkit_spec_parse("retd:float32(float32)", &specs[0]) != UDFKIT_RC_OK ||
        udfkit_spec_parse("clamp_i32=ops::clamp<int>:int32(int32, int32, int32)", &specs[1]) != UDFKIT_RC_OK)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *log = fuzz_string(data, size);
    const udfkit_log_export exports[] = {{&specs[0], "bad.cu", 3}, {&specs[1], "ops.cuh", 0}};
    udfkit_buf out = UDFKIT_BUF_INIT;
    udfkit_nvrtc_log_rewrite(log, exports, 2, &out);
    udfkit_buf_free(&out);
    free(log);
    return 0;
}
