/* The per-row pieces of the generated kernels: their column parameters (values, and under the
 * nullable_* templates a validity bitmap each), and the device functions that compute one row:
 * which inputs are valid, whether the UDF is called, what it returns and whether it failed. */
#ifndef UDFKIT_KERNEL_ROWS_H
#define UDFKIT_KERNEL_ROWS_H

#include "base/buf.h"
#include "codegen/kernel_entry.h"

#include <stdbool.h>

/* Whether the entry's columns carry validity bitmaps. */
bool udfkit_rows_nullable(udfkit_kernel_template tpl);

/* How many input columns: a map's leading value parameters, every parameter elsewhere. */
size_t udfkit_rows_input_count(const udfkit_kernel_entry *e);
/* The input columns: "const float *a1, udfkit_mask m1, ..." (C; CUDA spells the mask
 * udfkit_detail::mask and types as they cross the C ABI); without masks for dense templates. */
void udfkit_rows_inputs(const udfkit_kernel_entry *e, bool cuda, udfkit_buf *out);
/* "a1, m1, ..." and "&a1, &m1, ...". */
void udfkit_rows_input_args(const udfkit_kernel_entry *e, bool pointers, udfkit_buf *out);
/* nullable_map's kernel for columns without bitmaps: "a1, udfkit_detail::mask(), ..." (every
 * mask empty, so that the compiler drops the validity reads and tests); and the launcher's
 * test for that case, "m1.bits == NULL && ...". */
void udfkit_rows_dense_args(const udfkit_kernel_entry *e, udfkit_buf *out);
void udfkit_rows_no_bitmaps(const udfkit_kernel_entry *e, udfkit_buf *out);

/* A map's outputs: "float *out", or "O1 *out1, ..." for a function writing k outputs, each
 * followed by its bitmap under nullable_map ("uint8_t *out_bits"); and their count. */
void udfkit_rows_outputs(const udfkit_kernel_entry *e, bool cuda, udfkit_buf *out);
void udfkit_rows_output_args(const udfkit_kernel_entry *e, bool pointers, bool bits, udfkit_buf *out);
/* The output columns each from row `offset` on ("out + begin"): a map's tile stores its rows
 * through them with a 32-bit index. */
void udfkit_rows_output_args_at(const udfkit_kernel_entry *e, const char *offset, udfkit_buf *out);
size_t udfkit_rows_output_count(const udfkit_kernel_entry *e);

/* A row's inputs, `struct <prefix>_in`, and `void <prefix>_load(i, <inputs>, <prefix>_in *x)`
 * reading them all at once (and _load4, rows i..i+3); then, for filter and nullable_filter,
 * whether row i is kept: `bool <prefix>_keep(unsigned long long i, const <prefix>_in &x)`, as
 * the UDF says (the kernel drops the rows the UDF failed). */
void udfkit_rows_keep_function(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out);

/* map's and nullable_map's row: <prefix>_in and _load as above, and _load4 (rows i..i+3 with a
 * vector load per column), `struct <prefix>_row` of the outputs' values and their validity
 * bits, `void <prefix>_compute(i, const <prefix>_in &x, <prefix>_row *r)`, and
 * `void <prefix>_store(i, <outputs>, const <prefix>_row *r)` and _store4 (rows i..i+3). */
void udfkit_rows_map_functions(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out);

/* map's tile of rows in shared memory (map.cu.in): `struct <prefix>_staged` with the
 * columns' bases, stage(smem, begin, stride, <inputs>, issue, bar) placing each input's
 * tile at a 128-byte boundary (bulk copies issued where `issue`; returns their bytes) and
 * load(t, &x) reading tile row t. *row_bytes: the inputs' bytes a row. */
void udfkit_rows_map_staged(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out, size_t *row_bytes);

/* String results (docs/strings.md, the two launches), for map and nullable_map: whether output
 * j is a string (written through a builder), and whether any is. */
bool udfkit_rows_output_text(const udfkit_kernel_entry *e, size_t j);
bool udfkit_rows_text_results(const udfkit_kernel_entry *e);
/* The string outputs' offsets as the sizes launches write them: "<off> *out_offsets, ..." (off
 * "int64_t", "OFF", ...), or, with off NULL, "out_offsets, ..." ("&out_offsets" with pointers). */
void udfkit_rows_text_sizes(const udfkit_kernel_entry *e, const char *off, bool pointers, udfkit_buf *out);
/* The sizes kernels and the one write kernel take the string outputs' offsets as void pointers
 * (the write kernel a width too: narrow); the casts to a width: "(<off> *)out_offsets, ..." for
 * the sizes, or with places "(const <off> *)out_offsets, out_chars, ..." for the builders'
 * places. */
void udfkit_rows_text_cast(const udfkit_kernel_entry *e, const char *off, bool places, udfkit_buf *out);
/* The outputs as the write launches take them: a string's "const <off> *out_offsets, char
 * *out_chars", a value's "T *out<j>", each with its bitmap under nullable_map. */
void udfkit_rows_text_outputs(const udfkit_kernel_entry *e, bool cuda, const char *off, udfkit_buf *out);
/* Their arguments: every output's (plain, or &-pointers for a launch), or the stored values'
 * followed each by ", ". */
enum { UDFKIT_ROWS_PLAIN, UDFKIT_ROWS_POINTERS, UDFKIT_ROWS_STORED };
void udfkit_rows_text_output_args(const udfkit_kernel_entry *e, int which, udfkit_buf *out);

/* `name`, a device function taking and returning fn's values as the templates call an op or
 * a comparator, where fn's C ABI is expanded (a decimal128 is two halves, its result through
 * an out-parameter). */
void udfkit_rows_call_wrapper(const udfkit_spec *fn, const char *name, udfkit_buf *out);

/* filter's outputs by what it writes (udfkit_filter_output): "uint64_t *indices",
 * "uint32_t *indices" or each input's "T *out<i>" (C, or as CUDA spells them), the launcher's
 * kernel arguments for them, and for filter(p, values) `struct <prefix>_gather`, the output
 * iterator copying a kept row's values, with the expression that makes one. */
void udfkit_rows_filter_outputs(const udfkit_kernel_entry *e, bool cuda, udfkit_buf *out);
void udfkit_rows_filter_output_args(const udfkit_kernel_entry *e, udfkit_buf *out);
void udfkit_rows_gather(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out);
void udfkit_rows_gather_init(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out);

/* filter's stencil, `struct <prefix>_stencil`: an iterator whose row r is `<prefix>_item`, the
 * row's inputs (<prefix>_load) and r as row_t, and the expression that makes one from the
 * columns. */
void udfkit_rows_stencil(const char *prefix, const char *row_t, const udfkit_kernel_entry *e, udfkit_buf *out);
void udfkit_rows_stencil_init(const char *prefix, const udfkit_kernel_entry *e, udfkit_buf *out);

#endif
