/* nvJitLink, wrapped once. */
#ifndef UDFKIT_NVJITLINK_WRAP_H
#define UDFKIT_NVJITLINK_WRAP_H

#include "base/buf.h"
#include "base/diag.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum udfkit_input_kind {
    UDFKIT_INPUT_CUBIN,
    UDFKIT_INPUT_PTX,
    UDFKIT_INPUT_LTOIR,
    UDFKIT_INPUT_FATBIN,
    UDFKIT_INPUT_OBJECT,
    UDFKIT_INPUT_LIBRARY
} udfkit_input_kind;

typedef struct udfkit_link_input {
    udfkit_input_kind kind;
    const void *data;
    size_t size;
    const char *name; /* for the log */
} udfkit_link_input;

/* One link. `ptx` asks for linked PTX (every input LTO-IR) rather than a cubin.
 * On failure returns UDFKIT_RC_INPUT with nvJitLink's error log in `log`; no message set. */
udfkit_rc udfkit_jitlink_run(const char *const *options, size_t noptions, const udfkit_link_input *inputs,
                             size_t ninputs, bool ptx, udfkit_buf *out, udfkit_buf *log);

/* Loads nvJitLink (if not yet) and asks for its version; 0.0 where it does not say.
 * Callers want udfkit_toolchain_query, which remembers it per library file. */
udfkit_rc udfkit_jitlink_version(int *major, int *minor);

#endif
