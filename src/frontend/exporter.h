/* The C-ABI forwarders appended to a CUDA C++ source: for each spec an
 * extern "C" __device__ <c_name> that calls <source_name>, type-checked by the compiler. */
#ifndef UDFKIT_EXPORTER_H
#define UDFKIT_EXPORTER_H

#include "base/buf.h"
#include "base/spec.h"

#include <stdbool.h>

/* The file name the forwarder of `c_name` carries in diagnostics ("udfkit-export:<c_name>"). */
#define UDFKIT_EXPORT_FILE_PREFIX "udfkit-export:"

typedef struct udfkit_export {
    const udfkit_spec *spec;
    /* The source function already has C linkage under c_name: only the check is emitted. */
    bool check_only;
    /* A spec with nullable (T?) types or strings whose source function takes the C ABI
     * itself (bool f(T *out, T a, bool a_valid, ...), void f(udfkit_string_out *out, const
     * char *a, long long a_size)); otherwise it takes and returns cuda::std::optional<T> and
     * udfkit::string_view. */
    bool pair;
    /* A string result that the source builds through the builder it takes first
     * (udfkit::string_out &, or udfkit_string_out *), where it does not return a view. */
    bool builder;
} udfkit_export;

/* The C ABI of a signature with nullable types or strings, as plain types: a T? return becomes
 * a leading T* and a bool return, a T? parameter T and bool, a T?* parameter T* and bool*; a
 * string parameter its parts (int8* and int64, as the exporter checks them), a string result a
 * leading string* (the builder) and a void or bool return. */
udfkit_signature udfkit_exporter_c_abi(const udfkit_signature *s);

/* The C ABI's parameters in CUDA C++ ("const char *a0, long a0_size, bool a0_valid", a leading
 * "T *out" or "udfkit_string_out *out"), their names prefixed; with `types` false, the names
 * alone, as a call passes them on. */
void udfkit_exporter_abi_params(const udfkit_signature *sig, const char *prefix, bool types, udfkit_buf *out);
/* "RET name(<the C ABI's parameters>)": the function's device declaration. */
void udfkit_exporter_declaration(const udfkit_signature *sig, const char *name, udfkit_buf *out);

/* Appends the prelude and one forwarder per export to `out`. */
void udfkit_exporter_emit(const udfkit_export *exports, size_t count, udfkit_buf *out);

/* The C++ spelling of a type at the ABI ("long", "unsigned short", "float *"). */
void udfkit_exporter_abi_type(udfkit_type t, udfkit_buf *out);

#endif
