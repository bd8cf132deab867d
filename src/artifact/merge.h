/* `udfkit merge`: one manifest for a UDF target from the manifests of its compiles (one per
 * CUDA source, one for its Python sources), its precompiled .ptx/.ltoir sources and its
 * LINK files. Checks that every function spec is exported exactly once, by a source whose
 * signature agrees; copies precompiled code and link files beside the result, so that the
 * directory is a package that can move. */
#ifndef UDFKIT_MERGE_H
#define UDFKIT_MERGE_H

#include "base/diag.h"

#include <stddef.h>

typedef struct udfkit_merge_request {
    const char *const *inputs; /* manifests, .ptx, .ltoir */
    size_t ninputs;
    const char *const *functions;
    size_t nfunctions;
    const char *const *links; /* external code the functions need */
    size_t nlinks;
    const char *output;
} udfkit_merge_request;

udfkit_rc udfkit_merge(const udfkit_merge_request *req);

#endif
