/* nvPTXCompiler (statically linked), wrapped once. */
#ifndef UDFKIT_PTXCOMPILER_WRAP_H
#define UDFKIT_PTXCOMPILER_WRAP_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>

void udfkit_ptxcompiler_version(int *major, int *minor);

/* Compiles PTX to a cubin for `gpu_name` ("sm_90"). On failure returns false with the
 * compiler's log (or the failing step) in `log`. */
bool udfkit_ptxcompiler_compile(const char *ptx, size_t size, const char *gpu_name, udfkit_buf *cubin, udfkit_buf *log);

#endif
