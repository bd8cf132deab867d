/* The `_arrow` launchers of map, nullable_map and filter entries (SPEC.md, "Arrow's C Device
 * Data Interface"; docs/arrow.md): each takes Arrow device arrays and their schemas, and runs
 * the entry's own launcher on their columns through the runtime's Arrow plumbing
 * (<udfkit/arrow.h>, src/runtime/arrow.c), which checks them and builds the result arrays. */
#ifndef UDFKIT_ARROW_GEN_H
#define UDFKIT_ARROW_GEN_H

#include "base/buf.h"
#include "base/diag.h"
#include "codegen/kernel_entry.h"

#include <stdbool.h>

/* Whether a bound entry gets an `_arrow` launcher: map and
 * nullable_map entries (string results large_utf8, in two launches),
 * filter entries (string columns' kept rows gathered as large_utf8: arrow_text.cu.in). */
bool udfkit_arrow_entry(const udfkit_kernel_entry *e);
/* Whether such an entry has a bool column. The library then has the kernels of
 * arrow_bits.cu.in (unpack, pack, gather), as where it has a filter's `_arrow` launcher, which
 * its `_arrow` launchers find at `bits_index` and the two after it. */
bool udfkit_arrow_has_bools(const udfkit_kernel_entry *e);

/* The entry's `_arrow` launcher: its documentation and prototype into decls, its definition
 * into defs. raw: the entry's launcher; masked: the launcher of the same UDF under
 * nullable_map (nullable_filter) that a map's (filter's) launcher runs where an input has
 * nulls; unused for nullable_map. values: a filter's without string columns, the launcher of
 * the same UDF under filter(p, values) that it runs where no input has nulls (the kept rows'
 * values written at once, no row numbers gathered); NULL otherwise. */
udfkit_rc udfkit_arrow_render(const char *lib, const udfkit_kernel_entry *e, const char *raw, const char *masked,
                              const char *values, const char *bits_index, bool slotted, udfkit_buf *decls,
                              udfkit_buf *defs);

#endif
