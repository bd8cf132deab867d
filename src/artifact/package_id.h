/* The identifiers `udfkit pack` gives its fatbin entries, written and read back. The
 * runtime reads them too, so this is plain C on base/buf only (docs/manifest.md, "Package
 * fatbins"). Lines separated by '\n', no trailing newline:
 *
 *   <group>:<file>                 the group (the text before the first ':') and the file
 *   udfkit-package <version>
 *   producer <tool> <major>.<minor>    optional: nvrtc or nvvm
 *   role link                          optional: external code the functions need
 *   function <c_name> <signature>      on the fatbin's first entry, one per function
 *   bound-kernel <name>                on a SLOTS library's SASS entry (`udfkit pack --sass`),
 *                                      one per kernel it lacks: a kernel that calls a slot,
 *                                      which a bind links with the bound functions
 *   kernel-calls <name> <function>...  on that entry, one per bound kernel (version 1 readers
 *                                      before it skip it): the undefined functions (slots) the
 *                                      kernel reaches, so that a bind leaving an optional slot
 *                                      unbound knows which kernels it cannot link
 *
 * `udfkit link --keep-ltoir` names its LTO-IR entries with the first line alone. A reader
 * skips a line whose first word it does not know, so a later version may add lines. */
#ifndef UDFKIT_PACKAGE_ID_H
#define UDFKIT_PACKAGE_ID_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>

#define UDFKIT_PACKAGE_VERSION 1

typedef struct udfkit_package_id_function {
    const char *c_name;
    const char *signature; /* as the manifest writes it: "float32(float32, float32)" */
} udfkit_package_id_function;

typedef struct udfkit_package_id {
    const char *group;
    const char *file;
    unsigned version;      /* 0: a plain "<group>:<file>" (udfkit link --keep-ltoir) */
    const char *producer;  /* "nvrtc", "nvvm", or NULL where the line is absent */
    unsigned producer_major, producer_minor;
    bool link;             /* role link */
    udfkit_package_id_function *functions;
    size_t nfunctions;
    const char **bound_kernels; /* bound-kernel lines */
    size_t nbound_kernels;
    const char **kernel_calls;  /* kernel-calls lines: "<name> <function>..." */
    size_t nkernel_calls;
    char *storage_;        /* parsed: the strings above point into it */
} udfkit_package_id;

typedef enum udfkit_package_id_status {
    UDFKIT_PACKAGE_ID_OK,
    UDFKIT_PACKAGE_ID_FOREIGN,   /* no "<group>:" first line, or a second line not "udfkit-package": not udfkit's */
    UDFKIT_PACKAGE_ID_MALFORMED, /* a udfkit-package identifier with a line not as documented */
    UDFKIT_PACKAGE_ID_NO_MEMORY
} udfkit_package_id_status;

/* Reads an identifier of `size` bytes (a fatbin entry's name, not NUL-terminated). On OK,
 * free *out with udfkit_package_id_free; on anything else *out holds nothing to free. */
udfkit_package_id_status udfkit_package_id_parse(const char *text, size_t size, udfkit_package_id *out);
void udfkit_package_id_free(udfkit_package_id *id);

/* Appends the identifier's text (version, group and file required). False where a field
 * would not read back as written: a line break in any field, a ':' in the group, a blank
 * in a tool or c_name, or a field left empty. */
bool udfkit_package_id_format(const udfkit_package_id *id, udfkit_buf *out);

#endif
