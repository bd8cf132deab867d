/* KERNELS entries of add_jit_library: "<template>(<c_name>)", a kernel made from a
 * template around one UDF, and the check that the UDF's signature fits the template. */
#ifndef UDFKIT_KERNEL_ENTRY_H
#define UDFKIT_KERNEL_ENTRY_H

#include "base/diag.h"
#include "base/spec.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum udfkit_kernel_template {
    UDFKIT_KERNEL_MAP,    /* f: R(A1..An)      out[i] = f(a1[i], ..., an[i]) */
    UDFKIT_KERNEL_FILTER, /* p: bool(A1..An)   the rows where p holds, ascending */
    UDFKIT_KERNEL_REDUCE, /* op: T(T, T)       init combined with every element, in order */
    /* The same over Arrow columns: each input with a validity bitmap (SPEC.md, "Nulls"). */
    UDFKIT_KERNEL_NULLABLE_MAP,    /* f: R(A1..An), T? allowed; out, out_bits, null_count */
    UDFKIT_KERNEL_NULLABLE_FILTER, /* p: bool(A1..An) or bool?(..); rows valid and true */
    UDFKIT_KERNEL_NULLABLE_REDUCE, /* op: T(T, T); nulls skipped, valid rows counted */
    /* Grouped and ordered operators (SPEC.md, "More kernel templates"). */
    UDFKIT_KERNEL_INCLUSIVE_SCAN, /* op: T(T, T)   out[i] = in[0] op ... op in[i] */
    UDFKIT_KERNEL_EXCLUSIVE_SCAN, /* op: T(T, T)   out[i] = init op in[0] op ... op in[i - 1] */
    UDFKIT_KERNEL_REDUCE_BY_KEY,  /* op: T(T, T), K an integer type: one value per run of equal keys */
    UDFKIT_KERNEL_TRANSFORM_REDUCE, /* f: T(A1..An), op: T(T, T)   init op f(row 0) op ... op f(row n-1) */
    UDFKIT_KERNEL_SEGMENTED_REDUCE, /* op: T(T, T)   per segment [offsets[s], offsets[s+1]) as reduce */
    UDFKIT_KERNEL_SORT              /* less: bool(T, T)   a stable sort, optionally with the permutation */
} udfkit_kernel_template;

/* Templates whose UDF is an associative op T(T, T), combining rows in order. */
#define UDFKIT_KERNEL_IS_OP(t)                                                                                    \
    ((t) == UDFKIT_KERNEL_REDUCE || (t) == UDFKIT_KERNEL_NULLABLE_REDUCE || (t) == UDFKIT_KERNEL_INCLUSIVE_SCAN ||     \
     (t) == UDFKIT_KERNEL_EXCLUSIVE_SCAN || (t) == UDFKIT_KERNEL_REDUCE_BY_KEY || (t) == UDFKIT_KERNEL_SEGMENTED_REDUCE)

/* What a filter writes: SPEC.md's 64-bit row numbers, 32-bit ones (filter(p, indices32)) or
 * the kept rows' values of every input (filter(p, values)). */
typedef enum udfkit_filter_output {
    UDFKIT_FILTER_INDICES,
    UDFKIT_FILTER_INDICES32,
    UDFKIT_FILTER_VALUES
} udfkit_filter_output;

typedef struct udfkit_kernel_entry {
    char *text;   /* as given, for messages */
    udfkit_kernel_template tpl;
    char *c_name; /* the UDF */
    bool nullify; /* nullable_map(f, nullify): a row the UDF fails is null, not an error */
    udfkit_filter_output filter_out; /* filter(p[, indices32 | values]) */
    udfkit_scalar key; /* reduce_by_key(op, K): K */
    char *op_name;     /* transform_reduce(f, op): op, */
    const udfkit_spec *op; /* and its spec, set by udfkit_kernel_entry_bind */
    const udfkit_spec *fn; /* set by udfkit_kernel_entry_bind */
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
#define UDFKIT_MAP_HAS_OUTPUTS(sig) ((sig)->has_return && (sig)->ret.scalar == UDFKIT_VOID && !(sig)->ret.pointer)

udfkit_rc udfkit_kernel_entry_bind(udfkit_kernel_entry *e, const udfkit_spec *fns, size_t count,
                                   bool return_may_be_unknown);
void udfkit_kernel_entry_free(udfkit_kernel_entry *e);

/* What follows "<template>_" in the entry's launcher and kernel names: the UDF's c_name, and
 * for reduce_by_key "<op>_by_<K>", for transform_reduce "<f>_<op>", for filter's other
 * outputs "<p>_indices32" and "<p>_values". */
void udfkit_kernel_entry_suffix(const udfkit_kernel_entry *e, udfkit_buf *out);

/* "map", "filter", "reduce", "nullable_map", ... */
const char *udfkit_kernel_template_name(udfkit_kernel_template t);

#endif
