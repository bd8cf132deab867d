/* `udfkit pack`: LTO-IR packed as it is, not linked, into one fatbin, so that a runtime
 * picks each group's entry for its device and links them with nvJitLink at load time.
 * Entries are named as artifact/package_id.h describes (udfkit_package_id_parse reads
 * them back); OUT.json is the fatbin's manifest, with "package": 1. */
#ifndef UDFKIT_PACK_H
#define UDFKIT_PACK_H

#include "base/diag.h"

#include <stddef.h>

typedef struct udfkit_pack_request {
    const char *const *inputs; /* udfkit manifests and .ltoir files */
    size_t ninputs;
    const char *arch;          /* CUDA_ARCHITECTURES syntax; NULL: every entry */
    const char *output;
    /* CUDA_ARCHITECTURES syntax, or NULL: of a SLOTS library's code, for each real
     * architecture of the list, the kernels that call no slot linked to SASS, its entry
     * naming the kernels it lacks (bound-kernel lines): a bind links only those. */
    const char *sass;
} udfkit_pack_request;

udfkit_rc udfkit_pack(const udfkit_pack_request *req);

#endif
