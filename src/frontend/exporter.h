/* The C-ABI forwarders appended to a CUDA C++ source: for each spec an
 * extern "C" __device__ <c_name> that calls <source_name>, type-checked by the compiler. */
#ifndef UDFKIT_EXPORTER_H
#define UDFKIT_EXPORTER_H

#include "base/buf.h"
#include "base/spec.h"

#include <stdbool.h>

/* The file name the forwarder of `c_name` carries in diagnostics ("udfkit-export:<c_name>"). */
#define UDFKIT_EXPORT_FILE_PREFIX "udfkit-export:"

typedef struct udfkit_export {
    const udfkit_spec *spec;
    /* The source function already has C linkage under c_name: only the check is emitted. */
    bool check_only;
} udfkit_export;

/* Appends the prelude and one forwarder per export to `out`. */
void udfkit_exporter_emit(const udfkit_export *exports, size_t count, udfkit_buf *out);

/* The C++ spelling of a type at the ABI ("long", "unsigned short", "float *"). */
void udfkit_exporter_abi_type(udfkit_type t, udfkit_buf *out);

#endif
