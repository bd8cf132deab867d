#include "driver.h"

#include "base/diag.h"

#include <stdarg.h>
#include <stdio.h>

/* Room for a compile's diagnostics (udfkit_compile_source). */
static _Thread_local char message[8192];

udfkit_status udfkit_runtime_fail(udfkit_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return s;
}

udfkit_status udfkit_report(udfkit_status s, const char *text)
{
    return udfkit_runtime_fail(s, "%s", text ? text : "");
}

/* The callback is the diagnostics' sink itself (the same type; udfkit_log_level's numbers
 * are udfkit_diag_level's), so that a callback and its user pointer change together. */
_Static_assert(UDFKIT_LOG_WARNING == (int)UDFKIT_DIAG_WARNING && UDFKIT_LOG_NOTE == (int)UDFKIT_DIAG_NOTE,
               "log levels");

void udfkit_log_set(udfkit_log_fn fn, void *user)
{
    udfkit_diag_set_sink(fn, user);
}

const char *udfkit_last_error(void)
{
    return message;
}

const char *udfkit_status_string(udfkit_status s)
{
    switch (s) {
    case UDFKIT_OK:
        return "no error";
    case UDFKIT_ERROR_INVALID_ARGUMENT:
        return "invalid argument";
    case UDFKIT_ERROR_NO_DRIVER:
        return "no CUDA driver";
    case UDFKIT_ERROR_NO_DEVICE:
        return "no CUDA device";
    case UDFKIT_ERROR_NO_BINARY:
        return "no binary for this device";
    case UDFKIT_ERROR_BAD_IMAGE:
        return "invalid image";
    case UDFKIT_ERROR_NOT_FOUND:
        return "not found";
    case UDFKIT_ERROR_OUT_OF_MEMORY:
        return "out of memory";
    case UDFKIT_ERROR_LAUNCH:
        return "launch failed";
    case UDFKIT_ERROR_ABI_MISMATCH:
        return "ABI version mismatch";
    case UDFKIT_ERROR_DRIVER:
        return "CUDA driver error";
    case UDFKIT_ERROR_UDF:
        return "a UDF failed a row";
    case UDFKIT_ERROR_COMPILE:
        return "compile error";
    case UDFKIT_ERROR_TOOLCHAIN:
        return "CUDA toolchain library missing or too old";
    }
    return "unknown status";
}
