/* udfkit manifests: JSON that names exported functions and the artifacts beside it.
 * The format is documented in docs/manifest.md. */
#ifndef UDFKIT_MANIFEST_H
#define UDFKIT_MANIFEST_H

#include "artifact/manifest_read.h"
#include "base/arch.h"
#include "base/buf.h"
#include "base/diag.h"
#include "base/spec.h"
#include "nvidia/toolchain.h"

#include <jansson.h>
#include <stdbool.h>

/* A new manifest of `kind` ("udfs" from compile, "fatbin"/"cubin"/"ptx" from link) with
 * this udfkit's version and the producer versions given. */
json_t *udfkit_manifest_new(const char *kind);
void udfkit_manifest_set_producer(json_t *m, const char *name, const char *version);

/* Records a source the compile read (`path` relative to the manifest's directory) and the
 * functions it defines (as the source spells them), for merge's messages. */
void udfkit_manifest_add_source(json_t *m, const char *path, const char *const *defines, size_t ndefines);

/* Adds a function; `source` is a path relative to the manifest's directory. */
void udfkit_manifest_add_function(json_t *m, const udfkit_spec *spec, const char *language, const char *source,
                                  int line);
/* Adds an artifact (kind "ltoir", "ptx", "cubin", "fatbin") with the hash of its bytes;
 * arch is NULL for a fatbin, which holds several. */
json_t *udfkit_manifest_add_artifact(json_t *m, const char *kind, const char *arch, const char *path,
                                     const char *source, const void *data, size_t size);

/* Serializes with stable key order, two-space indent, and a final newline. */
void udfkit_manifest_dump(const json_t *m, udfkit_buf *out);

/* Reads and checks the manifest at `path` (udfkit_manifest_read with jansson's functions);
 * errors are input errors naming the file. */
udfkit_rc udfkit_manifest_load(const char *path, udfkit_manifest *out);
/* Whether the bytes look like a manifest (a JSON object with "udfkit_manifest"). */
bool udfkit_manifest_sniff(const void *data, size_t size);

/* A function entry read back: spec fields and where it was defined. */
udfkit_rc udfkit_manifest_function_spec(const udfkit_manifest *m, const json_t *fn, udfkit_spec *out);

#endif
