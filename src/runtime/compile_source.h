/* The runtime's side of `udfkit compile`: CUDA C/C++ text to a package of LTO-IR. */
#ifndef UDFKIT_RUNTIME_COMPILE_SOURCE_H
#define UDFKIT_RUNTIME_COMPILE_SOURCE_H

#include "base/diag.h"
#include "udfkit/runtime.h"

#include <stddef.h>

/* udfkit_compile_source_with, for the architectures `arch` (CMake's syntax; NULL: an --arch=
 * option, else the current device's). */
udfkit_status udfkit_runtime_compile(const char *name, const char *source, const char *const *specs, size_t nspecs,
                                     const char *const *options, size_t noptions, const char *arch,
                                     const udfkit_compile_options *copts, udfkit_package **out);

/* The tool core's failure (its message) as a status: `input` for input errors. */
udfkit_status udfkit_runtime_from_rc(udfkit_rc rc, udfkit_status input);

#endif
