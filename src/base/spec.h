/* Function specs: [<c_name>=]<source_name>[@<file>]:<signature> (SPEC.md). */
#ifndef UDFKIT_SPEC_H
#define UDFKIT_SPEC_H

#include "base/diag.h"
#include "base/types.h"

#include <stdbool.h>

typedef struct udfkit_spec {
    char *text;        /* as given, for messages */
    char *c_name;      /* the exported C symbol */
    char *source_name; /* a Python name or a C++ id-expression */
    char *file;        /* from @<file>, or NULL */
    udfkit_signature sig;
} udfkit_spec;

/* Parses and validates one spec; errors are input errors that quote the spec, and leave
 * nothing in *out to free. */
udfkit_rc udfkit_spec_parse(const char *text, udfkit_spec *out);
void udfkit_spec_free(udfkit_spec *s);

/* Checks a list of specs together: c_names unique. */
udfkit_rc udfkit_specs_check_unique(const udfkit_spec *specs, size_t count);

bool udfkit_is_c_identifier(const char *s);
/* Why `name` cannot be an exported C name, or NULL where it can. */
const char *udfkit_c_name_reserved(const char *name);

#endif
