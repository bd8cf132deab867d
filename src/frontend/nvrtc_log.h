/* Rewrites NVRTC's log into the shape IDEs and Ninja read ("file:line: error: ..."), and
 * turns errors inside udfkit's generated forwarders into messages about the user's
 * function: which one, its declared signature and what it actually is. */
#ifndef UDFKIT_NVRTC_LOG_H
#define UDFKIT_NVRTC_LOG_H

#include "base/buf.h"
#include "base/spec.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct udfkit_log_export {
    const udfkit_spec *spec;
    const char *file; /* where the function is defined, as shown to the user */
    int line;         /* 0 where unknown */
    bool pair;        /* a nullable spec whose source takes the C ABI pairs: indexes are the C ABI's */
} udfkit_log_export;

/* Writes the rewritten log to `out`. Returns whether it holds an error. */
bool udfkit_nvrtc_log_rewrite(const char *log, const udfkit_log_export *exports, size_t nexports, udfkit_buf *out);

/* For a confined compile: NVRTC says why a file cannot be opened ("cannot open source file
 * "x": Permission denied"), which tells a file the compile may not read from one that is
 * not there; every such reason is cut, in place, so that both read the same. */
void udfkit_nvrtc_log_hide_open_reasons(udfkit_buf *log);

#endif
