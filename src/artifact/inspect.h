/* `udfkit inspect`: what an artifact is, judged by its content rather than its name, and
 * what it holds. The description is JSON, printed as such by --json and as text otherwise:
 *
 *   {"path", "kind": "fatbin|cubin|ptx|ltoir|object|archive|manifest", "size",
 *    "arch" (cubin, ptx), "ptx_isa" (ptx), "manifest_kind" (manifest), "note" (optional),
 *    "entries": [{"kind": "sass|ptx|ltoir|unknown", "arch": "sm_80|compute_90a",
 *                 "compressed", "size" (bytes as stored), "compression" and
 *                 "uncompressed_size" (compressed only), "ptx_isa" (ptx), "member" (archive),
 *                 "section" (object, archive: .nv_fatbin or __nv_relfatbin),
 *                 "path" (manifest artifacts), "kernels", "functions", "note"}],
 *    "kernels": [...], "functions": [...]}    (the union over the entries)
 *
 * An object or archive lists the fatbin entries of its .nv_fatbin and __nv_relfatbin
 * sections; a manifest its artifacts and exported functions. Anything else is an input
 * error. */
#ifndef UDFKIT_INSPECT_H
#define UDFKIT_INSPECT_H

#include "base/diag.h"

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

udfkit_rc udfkit_inspect_file(const char *path, json_t **out);

/* The same for bytes already in memory; `path` is what the description and errors name. */
udfkit_rc udfkit_inspect_data(const void *data, size_t size, const char *path, json_t **out);

/* A header line with path, kind and size, then one line per entry. */
void udfkit_inspect_print(const json_t *desc, FILE *f);

#endif
