#include "driver.h"

int udfkit_runtime_abi_version(void)
{
    return UDFKIT_RUNTIME_ABI_VERSION;
}

udfkit_status udfkit_runtime_check_abi(int version, const char *what)
{
    if (version == UDFKIT_RUNTIME_ABI_VERSION)
        return UDFKIT_OK;
    return udfkit_runtime_fail(UDFKIT_ERROR_ABI_MISMATCH,
                               "%s was generated for udfkit runtime ABI version %d, but this runtime has ABI version %d; "
                               "generate it again with the udfkit that matches the runtime",
                               what ? what : "generated code", version, UDFKIT_RUNTIME_ABI_VERSION);
}
