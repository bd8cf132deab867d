/* Generated code comes from the files in templates/ with @NAME@ placeholders. */
#ifndef UDFKIT_TEMPLATE_H
#define UDFKIT_TEMPLATE_H

#include "base/buf.h"
#include "base/diag.h"

#include <stddef.h>

typedef struct udfkit_template_var {
    const char *name;
    const char *value;
} udfkit_template_var;

/* Replaces every @NAME@ with its value; an unknown placeholder, or one two vars name, is an
 * internal error. */
udfkit_rc udfkit_template_render(const char *tpl, const udfkit_template_var *vars, size_t nvars, udfkit_buf *out);

#endif
