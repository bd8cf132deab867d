/* udfkit inspect on any bytes: fatbins, cubins, host objects, archives, PTX (its header and
 * every .entry/.func line), LTO-IR and manifests, nested as they come. */
#include "artifact/inspect.h"
#include "base/diag.h"
#include "fuzz_common.h"

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *desc = NULL;
    if (udfkit_inspect_data(data, size, "fuzz", &desc) == UDFKIT_RC_OK)
        json_decref(desc);
    udfkit_diag_clear();
    return 0;
}
