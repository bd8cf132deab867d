/* KERNELS entries of add_jit_library: "<template>(<c_name>)", a kernel made from a
 * template around one UDF, and the check that the UDF's signature fits the template. */
#ifndef UDFKIT_KERNEL_ENTRY_H
#define UDFKIT_KERNEL_ENTRY_H

#include "base/diag.h"
#include "base/spec.h"
#include "codegen/kernel_templates.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct udfkit_kernel_entry {
    char *text;   /* as given, for messages */
    udfkit_kernel_template tpl;
    const udfkit_template_row *row; /* the template's row, or the variant bind chose for the UDF */
    char *c_name; /* the UDF */
    const udfkit_template_word *word; /* the option word given, or NULL */
    bool nullify; /* nullable_map(f, nullify): a row the UDF fails is null, not an error */
    udfkit_filter_output filter_out; /* filter(p[, indices32 | values]) */
    udfkit_kind key; /* reduce_by_key(op, K): K */
    char *op_name;     /* transform_reduce(f, op): op, */
    const udfkit_spec *op; /* and its spec, set by udfkit_kernel_entry_bind */
    const udfkit_spec *fn; /* set by udfkit_kernel_entry_bind */
    bool hidden; /* the generator's own: a static launcher, neither declared nor marked (the
                    nullable_map kernels a map's `_arrow` launcher runs where inputs have nulls) */
} udfkit_kernel_entry;

/* Parses "map(f)" (spaces allowed around the parts), "nullable_map(f, nullify)",
 * "filter(p, indices32)", "filter(p, values)", "reduce_by_key(op, K)" and
 * "transform_reduce(f, op)". Input errors quote the entry. */
udfkit_rc udfkit_kernel_entry_parse(const char *text, udfkit_kernel_entry *out);
/* Finds the entry's function among `fns` and checks that its signature fits the template;
 * errors name the entry and the function. With `return_may_be_unknown`, a signature without
 * a return type (a Python function's, inferred when it compiles) is checked by its
 * parameters only: configure-time checks know no more, and build time checks the rest. */
/* A map function's inputs: its leading value parameters. A map returning void writes its
 * other parameters, pointers, as that many output columns (void(A1..An, O1*, ..., Ok*)). */
size_t udfkit_kernel_map_inputs(const udfkit_signature *s);
/* Whether a bound map entry writes outputs through pointer parameters rather than returning. */
#define UDFKIT_MAP_HAS_OUTPUTS(sig) ((sig)->has_return && (sig)->ret.kind == UDFKIT_VOID && !(sig)->ret.pointer)

udfkit_rc udfkit_kernel_entry_bind(udfkit_kernel_entry *e, const udfkit_spec *fns, size_t count,
                                   bool return_may_be_unknown);
void udfkit_kernel_entry_free(udfkit_kernel_entry *e);

/* What follows "<template>_" in the entry's launcher and kernel names: the UDF's c_name, and
 * for reduce_by_key "<op>_by_<K>", for transform_reduce "<f>_<op>", for filter's other
 * outputs "<p>_indices32" and "<p>_values". */
void udfkit_kernel_entry_suffix(const udfkit_kernel_entry *e, udfkit_buf *out);

/* "map", "filter", "reduce", "nullable_map", ... */
const char *udfkit_kernel_template_name(udfkit_kernel_template t);
/* The entry's template row (the variant of its template that its UDF takes, once bound). */
const udfkit_template_row *udfkit_kernel_entry_row(const udfkit_kernel_entry *e);

#endif
