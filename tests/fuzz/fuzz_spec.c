/* Function specs ("[c_name=]source_name[@file]:signature") and signatures alone. */
#include "base/diag.h"
#include "base/spec.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    udfkit_spec spec;
    if (udfkit_spec_parse(text, &spec) == UDFKIT_RC_OK) {
        udfkit_buf out = UDFKIT_BUF_INIT;
        udfkit_signature_format(&spec.sig, &out);
        udfkit_buf_free(&out);
        udfkit_spec_free(&spec);
    }
    udfkit_signature sig;
    char why[128];
    udfkit_signature_parse(text, &sig, why, sizeof why);
    free(text);
    udfkit_diag_clear();
    return 0;
}
