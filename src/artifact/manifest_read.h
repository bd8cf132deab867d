/* Reading a udfkit manifest (docs/manifest.md), for the tool and the runtime alike: the JSON
 * parsed and checked, the files it names found inside its directory, its artifacts read with
 * their size and hash checked. The tool links jansson; the runtime loads it at run time, so
 * that a program that never opens a manifest needs no JSON library. This reader therefore
 * calls jansson only through a table of its functions, which each side fills. */
#ifndef UDFKIT_MANIFEST_READ_H
#define UDFKIT_MANIFEST_READ_H

#include "base/buf.h"
#include "base/diag.h"

#include <jansson.h>
#include <stddef.h>

#define UDFKIT_MANIFEST_VERSION 1

/* Who reads, and the jansson functions it reads with. */
typedef struct udfkit_manifest_reader {
    const char *name; /* "udfkit", "runtime": what a newer format is too new for */
    json_t *(*loadb)(const char *buffer, size_t size, size_t flags, json_error_t *error);
    json_t *(*object_get)(const json_t *object, const char *key);
    size_t (*array_size)(const json_t *array);
    json_t *(*array_get)(const json_t *array, size_t index);
    const char *(*string_value)(const json_t *string);
    json_int_t (*integer_value)(const json_t *integer);
    void (*delete_)(json_t *json); /* json_delete, which json_decref calls */
} udfkit_manifest_reader;

/* A manifest read: the JSON, checked, and where it lives. */
typedef struct udfkit_manifest {
    char *path;
    char *dir;
    json_t *root;
    const udfkit_manifest_reader *reader;
} udfkit_manifest;

/* Parses the manifest at `path` (its bytes `text`) and checks it: its format version, its
 * "functions" (each with a c_name and a signature) and "artifacts" (each with a kind, a
 * path inside the manifest's directory as written, and an arch udfkit knows where it has
 * one). Errors are input errors naming the file; udfkit_manifest_free *out either way. */
udfkit_rc udfkit_manifest_read(const udfkit_manifest_reader *reader, const char *path, const void *text, size_t size,
                               udfkit_manifest *out);
void udfkit_manifest_free(udfkit_manifest *m);

/* A file a manifest names, relative to the manifest: refused (UDFKIT_RC_INPUT, naming the
 * manifest) where it is absolute or leaves the manifest's directory, as written or through
 * a symbolic link. A manifest may come from someone else; it names only its own files. */
udfkit_rc udfkit_manifest_resolve(const udfkit_manifest *m, const char *rel, char **path);

/* Reads an artifact a manifest names (its path into *path) and checks its size and hash
 * where the manifest records them. */
udfkit_rc udfkit_manifest_read_artifact(const udfkit_manifest *m, const json_t *artifact, char **path,
                                        udfkit_buf *data);

#endif
