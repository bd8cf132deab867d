/* UDF signatures in numba's type names, and their C spellings. */
#ifndef UDFKIT_TYPES_H
#define UDFKIT_TYPES_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum udfkit_scalar {
    UDFKIT_VOID,
    UDFKIT_BOOL,
    UDFKIT_INT8,
    UDFKIT_INT16,
    UDFKIT_INT32,
    UDFKIT_INT64,
    UDFKIT_UINT8,
    UDFKIT_UINT16,
    UDFKIT_UINT32,
    UDFKIT_UINT64,
    UDFKIT_FLOAT16,
    UDFKIT_FLOAT32,
    UDFKIT_FLOAT64,
    UDFKIT_SCALAR_COUNT
} udfkit_scalar;

typedef struct udfkit_type {
    udfkit_scalar scalar;
    bool pointer;  /* T* ; void only as a return type or behind a pointer */
    bool nullable; /* T? (a value that may be null), or with pointer T?* (an output that may
                    * be set to null); C ABI: two C parameters (SPEC.md, "Nulls") */
} udfkit_type;

#define UDFKIT_MAX_PARAMS 32

typedef struct udfkit_signature {
    bool has_return; /* false: left out, to be inferred (Python sources only) */
    udfkit_type ret;
    size_t nparams;
    udfkit_type params[UDFKIT_MAX_PARAMS];
} udfkit_signature;

/* Parses "float32(float32, int64*)" or "(float64, float64)". On failure returns false and
 * writes a reason (without location) into why. */
bool udfkit_signature_parse(const char *text, udfkit_signature *out, char *why, size_t why_size);
bool udfkit_type_parse(const char *text, udfkit_type *out); /* false for NULL */

/* "float32", "int64*" */
void udfkit_type_name(udfkit_type t, udfkit_buf *out);
/* "float32(float32, int64*)", or "(float32)" with no return type */
void udfkit_signature_format(const udfkit_signature *s, udfkit_buf *out);

/* C ABI spelling: "float", "int64_t", "uint16_t" for float16, "float *". */
void udfkit_type_c(udfkit_type t, udfkit_buf *out);
/* "float name(float a0, int64_t *a1)" ; "void name(void)"; nullable types as their C ABI
 * pairs: "bool name(float *out, float a0, bool a0_valid, double *a1, bool *a1_valid)" */
void udfkit_signature_c_prototype(const udfkit_signature *s, const char *name, udfkit_buf *out);

const char *udfkit_scalar_name(udfkit_scalar s);
size_t udfkit_scalar_size(udfkit_scalar s);
bool udfkit_type_equal(udfkit_type a, udfkit_type b);
/* Whether any parameter or the return is nullable. */
bool udfkit_signature_nullable(const udfkit_signature *s);
/* The number of C parameters (a nullable parameter is two, a nullable return adds `out`). */
size_t udfkit_signature_c_arity(const udfkit_signature *s);

#endif
