/* `udfkit link`: per real architecture one nvJitLink link to SASS, per virtual one linked
 * PTX (LTO-IR inputs only), in parallel threads; packed by nvFatbin on request. */
#ifndef UDFKIT_LINKER_H
#define UDFKIT_LINKER_H

#include "base/diag.h"
#include "nvidia/nvfatbin_wrap.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum udfkit_link_emit { UDFKIT_LINK_FATBIN, UDFKIT_LINK_CUBIN, UDFKIT_LINK_PTX } udfkit_link_emit;

typedef struct udfkit_link_request {
    const char *const *inputs; /* .ltoir .ptx .cubin .fatbin .o .a and manifests */
    size_t ninputs;
    const char *arch;
    udfkit_link_emit emit;
    bool keep_ltoir;
    udfkit_fatbin_compression compression; /* of a fatbin */
    const char *const *extra_options; /* passed to nvJitLink as they are */
    size_t nextra_options;
    const char *output;
    const char *units; /* NULL, or `udfkit kernels --units`'s file: link by units (docs/build-speed.md) */
} udfkit_link_request;

udfkit_rc udfkit_link(const udfkit_link_request *req);

/* Where --emit fatbin writes its manifest: "<output>.json". */
char *udfkit_link_manifest_path(const char *output);

#endif
