/* UDF signatures in numba's type names, and the type model behind them: one descriptor per
 * type (udfkit_type: its kind, pointer, nullable and parameters) and one row per kind
 * (udfkit_kind_row: everything other code asks of a kind), so that the spec parser, the
 * exporter, the header writer, the Python worker and the kernel generator read one table. */
#ifndef UDFKIT_TYPES_H
#define UDFKIT_TYPES_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The rows of kind_rows in types.c, in this order. */
typedef enum udfkit_kind {
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
    UDFKIT_STRING,
    UDFKIT_DATE32,
    UDFKIT_DATE64,
    UDFKIT_TIMESTAMP,
    UDFKIT_DURATION,
    UDFKIT_DECIMAL32,
    UDFKIT_DECIMAL64,
    UDFKIT_DECIMAL128,
    UDFKIT_KIND_COUNT
} udfkit_kind;

/* A kind's properties (udfkit_kind_row.flags). */
enum {
    UDFKIT_KIND_VALUE = 1u << 0,   /* a value: a parameter, a return, a column (void is not) */
    UDFKIT_KIND_INTEGER = 1u << 1, /* an integer type (reduce_by_key's keys) */
    UDFKIT_KIND_SIGNED = 1u << 2,
    UDFKIT_KIND_FLOAT = 1u << 3,
    UDFKIT_KIND_TEXT = 1u << 4,    /* text of any length: a string column, results built in two launches */
    UDFKIT_KIND_KEY = 1u << 5,     /* compared for equality as a whole: reduce_by_key's keys */
    UDFKIT_KIND_TEMPORAL = 1u << 6, /* a date, time or duration (docs/decimals-and-dates.md) */
    UDFKIT_KIND_DECIMAL = 1u << 7,  /* an exact decimal of a precision and scale */
};

/* The parameters a kind takes in its spelling (udfkit_kind_row.params). */
typedef enum udfkit_kind_params {
    UDFKIT_PARAMS_NONE,
    UDFKIT_PARAMS_UNIT,     /* timestamp[us]: s, ms, us or ns */
    UDFKIT_PARAMS_DECIMAL   /* decimal128(15,2): precision and scale */
} udfkit_kind_params;

/* The units of timestamp[unit] and duration[unit] (udfkit_type.unit), coarsest first. */
typedef enum udfkit_unit { UDFKIT_UNIT_S, UDFKIT_UNIT_MS, UDFKIT_UNIT_US, UDFKIT_UNIT_NS } udfkit_unit;

/* One of the C parameters a value of a kind is, where it is more than one (a string is its
 * bytes and their size). The exporter checks each part as a value of `kind`. */
typedef struct udfkit_abi_part {
    const char *suffix; /* appended to the parameter's name: "", "_size" */
    const char *c;      /* its C type: "const char *", "int64_t" */
    const char *cuda;   /* the same in CUDA C++ without headers: "const char *", "long" */
    udfkit_kind kind;   /* the kind it is to the exporter's check, */
    bool pointer;       /*   and whether a pointer to it */
    const char *arg;    /* how a kernel passes it from a row's value x: "udfkit_detail::column_text(%s)" (printf, x's name) */
} udfkit_abi_part;

/* One C++ type that the exporter's check takes as a kind (the __udfkit_traits
 * specialisations of templates/export_prelude.cuh), with the line of comment before it. */
typedef struct udfkit_cxx_form {
    const char *type;    /* "long" */
    const char *kind;    /* the kind it is, as a C++ constant expression; NULL: the row's own */
    const char *comment; /* NULL, or a comment line written before it */
} udfkit_cxx_form;

/* Everything code asks of a kind. Adding a kind is adding an enumerator and a row (and the
 * code of its own where it truly differs); tests/unit/base/test_types.c checks each row. */
typedef struct udfkit_kind_row {
    const char *name;  /* the spec's spelling, "float32" */
    unsigned flags;    /* UDFKIT_KIND_* */
    size_t size;       /* bytes of one value in a column (and its alignment); 0 for void */
    const char *c;     /* the C ABI type in prototypes and launchers: "int64_t" (float16: "uint16_t") */
    const char *cuda;  /* the same in CUDA C++ without any header (NVRTC): "long" */
    unsigned c_params; /* how many C parameters a value of the kind is (0 for void) */
    const char *numba; /* numba.types' attribute: "int64", "boolean" */
    const char *arrow; /* the Arrow C data interface's format string; NULL: none */
    const char *cxx_kind;        /* the exporter's enumerator: "__UDFKIT_K_INT64" */
    const udfkit_cxx_form *cxx;  /* C++ types that are this kind; ends with {NULL} */
    const char *const *c_names;  /* C or numpy names written for it ("double", "f8"); ends with NULL */
    /* A kind crossing the C ABI as another's bits (float16 as uint16_t): the type CUDA C callers
     * get in the header's wrappers, and its conversions from and to the bits. */
    const char *bits_type, *from_bits, *to_bits;
    /* A value that is several C parameters: its parts (c_params of them); NULL: one, `c`. */
    const udfkit_abi_part *parts;
    /* A result of the kind is written through a leading out-parameter of `c` * (a string's
     * builder): the function returns void, or bool under `?`. T* of the kind is that builder. */
    bool result_out;
    /* In kernels: a row's value (a string: udfkit::string_view) and a column (a string:
     * udfkit_strings in launchers, udfkit::strings_column in kernels), where not T and T *. */
    const char *element_cuda, *column_c, *column_cuda;
    udfkit_kind_params params;  /* what its spelling takes */
    unsigned max_precision;     /* UDFKIT_PARAMS_DECIMAL: 9, 18, 38 */
    /* The kind a value is to the exporter's check where it is another's at the ABI (a date32
     * is an int32: a CUDA C UDF takes int for it); 0: the kind itself. */
    udfkit_kind abi_kind;
} udfkit_kind_row;

const udfkit_kind_row *udfkit_kind_info(udfkit_kind k);

typedef struct udfkit_type {
    udfkit_kind kind;
    bool pointer;  /* T* ; void only as a return type or behind a pointer */
    bool nullable; /* T? (a value that may be null), or with pointer T?* (an output that may
                    * be set to null); C ABI: two C parameters (SPEC.md, "Nulls") */
    uint8_t unit;              /* timestamp and duration: udfkit_unit */
    uint8_t precision, scale;  /* decimals */
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

/* "float32", "int64*", "timestamp[us]", "decimal128(15,2)?" */
void udfkit_type_name(udfkit_type t, udfkit_buf *out);
/* Arrow's format string of the type's column ("f", "tsu:", "d:15,2"); false where it has none. */
bool udfkit_type_arrow(udfkit_type t, udfkit_buf *out);
/* "float32(float32, int64*)", or "(float32)" with no return type */
void udfkit_signature_format(const udfkit_signature *s, udfkit_buf *out);

/* C ABI spelling: "float", "int64_t", "uint16_t" for float16, "float *". */
void udfkit_type_c(udfkit_type t, udfkit_buf *out);
/* "float name(float a0, int64_t *a1)" ; "void name(void)"; nullable types as their C ABI
 * pairs: "bool name(float *out, float a0, bool a0_valid, double *a1, bool *a1_valid)" */
void udfkit_signature_c_prototype(const udfkit_signature *s, const char *name, udfkit_buf *out);

const char *udfkit_kind_name(udfkit_kind k);
size_t udfkit_kind_size(udfkit_kind k);
/* The type's value: T of T, T?, T* and T?* (a column's element). */
udfkit_type udfkit_type_value(udfkit_type t);
/* Whether t is the kind k itself (not a pointer to it). */
bool udfkit_type_is(udfkit_type t, udfkit_kind k);
bool udfkit_type_equal(udfkit_type a, udfkit_type b);
/* Whether any parameter or the return is nullable. */
bool udfkit_signature_nullable(const udfkit_signature *s);
/* Whether the signature's C ABI is other than its declared parameters and return: nullable
 * types (pairs), kinds of several C parameters (a string), results through a builder. */
bool udfkit_signature_expanded(const udfkit_signature *s);
/* Whether any parameter or the return is of a kind with `flags` (UDFKIT_KIND_*). */
bool udfkit_signature_has(const udfkit_signature *s, unsigned flags);
/* The number of C parameters (a nullable parameter is two, a nullable return adds `out`). */
size_t udfkit_signature_c_arity(const udfkit_signature *s);

#endif
