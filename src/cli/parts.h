/* What the tool needs, part by part, as `udfkit --version` and `udfkit doctor` list it: each
 * part found (its version and the file it comes from) or missing (why, and how to get it).
 * The search is base/locate.h's. */
#ifndef UDFKIT_CLI_PARTS_H
#define UDFKIT_CLI_PARTS_H

#include "base/buf.h"
#include "nvidia/toolchain.h"

#include <stdbool.h>

typedef struct udfkit_parts {
    int missing;          /* required parts not found, or a toolchain that cannot work together */
    udfkit_buf names;     /* the missing parts' names, ", "-separated */
    bool loaded;          /* every CUDA library loaded: tc holds their versions */
    udfkit_toolchain tc;
} udfkit_parts;

/* Prints a row per part, missing ones with how to get them: the tool and its version, NVRTC,
 * nvJitLink, nvPTXCompiler, nvFatbin, CUDA's headers, the Python frontend of `python` (NULL:
 * the interpreter udfkit uses), and the remote caches configured. `verbose` adds where each
 * found part comes from. */
void udfkit_parts_list(const char *python, bool verbose, udfkit_parts *out);
void udfkit_parts_missing(udfkit_parts *p, const char *name);
void udfkit_parts_free(udfkit_parts *p);

/* Runs `python -c script arg...` and collects its standard output (and standard error, where
 * it fails); false where it cannot be started or exits non-zero. */
bool udfkit_parts_run_python(const char *python, const char *script, const char *arg, udfkit_buf *out);

/* A row: the part's name padded to the column of its detail. */
#define UDFKIT_PARTS_ROW "%-19s%s\n"

#endif
