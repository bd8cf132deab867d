/* `udfkit header`: the UDF header of SPEC.md, from manifests. Every name in it is a
 * validated identifier and every type is re-spelled from the parsed signature, so no
 * path or name in a manifest can put text of its own into the header. */
#ifndef UDFKIT_HEADER_GEN_H
#define UDFKIT_HEADER_GEN_H

#include "base/buf.h"
#include "base/diag.h"

#include <stddef.h>

/* The functions of the manifests and the declared `specs` (with return types). `name` is
 * the C identifier the table accessor and guard derive from; NULL: from `output`. */
udfkit_rc udfkit_header_generate(const char *const *manifests, size_t count, const char *const *specs, size_t nspecs,
                                 const char *name, const char *output);

/* Turns any text into a C identifier: other characters become '_', a leading digit gets '_'. */
char *udfkit_identifier_from(const char *text);

/* "UDFKIT_<KIND>_<NAME>_H", NAME made an upper-case identifier: a generated file's guard. */
char *udfkit_include_guard(const char *kind, const char *name);

#endif
