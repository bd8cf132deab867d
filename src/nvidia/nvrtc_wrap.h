/* NVRTC, wrapped once: udfkit's buffers and result codes, the log copied out. */
#ifndef UDFKIT_NVRTC_WRAP_H
#define UDFKIT_NVRTC_WRAP_H

#include "base/arch.h"
#include "base/buf.h"
#include "base/diag.h"

#include <stddef.h>

typedef enum udfkit_code_kind { UDFKIT_CODE_LTOIR, UDFKIT_CODE_PTX, UDFKIT_CODE_CUBIN } udfkit_code_kind;

typedef struct udfkit_nvrtc_job {
    const char *source;       /* the text to compile */
    const char *name;         /* its name in diagnostics */
    const char *const *options;
    size_t noptions;
    const char *const *header_texts; /* in-memory headers */
    const char *const *header_names; /* their include names */
    size_t nheaders;
    udfkit_code_kind kind;
} udfkit_nvrtc_job;

/* Compiles; on a compile error returns UDFKIT_RC_INPUT with NVRTC's log in `log` and no
 * message set (the caller rewrites the log); other failures set the message. */
udfkit_rc udfkit_nvrtc_compile(const udfkit_nvrtc_job *job, udfkit_buf *code, udfkit_buf *log);

/* Loads NVRTC (if not yet) and asks it for its version and the real architectures it
 * compiles for, ascending (malloc'd). Callers want udfkit_toolchain_query and
 * udfkit_toolchain_nvrtc_archs, which remember these per library file. */
udfkit_rc udfkit_nvrtc_query(int *major, int *minor, int **archs, size_t *count);

#endif
