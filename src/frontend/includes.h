/* Follows #include directives from a CUDA C++ source, since NVRTC reports no
 * dependencies. Every directive is followed whatever #if it sits under, so the set
 * over-approximates what the compile reads, which is what a depfile wants. */
#ifndef UDFKIT_INCLUDES_H
#define UDFKIT_INCLUDES_H

#include "base/diag.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct udfkit_include_file {
    char *path;     /* as found: the search directory joined with the name */
    bool system;    /* found in the CUDA include directory */
} udfkit_include_file;

/* An include name as written, mapped to the one file it resolved to everywhere it was
 * written (names that resolve to different files from different includers are left
 * out and found by NVRTC through -I). */
typedef struct udfkit_include_name {
    char *name;
    char *path;
} udfkit_include_name;

typedef struct udfkit_include_set {
    udfkit_include_file *files;
    size_t nfiles;
    udfkit_include_name *names;
    size_t nnames;
} udfkit_include_set;

/* Follows includes of `source` (itself not listed). `dirs` are the -I directories in
 * order, `cuda_dir` the CUDA headers' directory (may be NULL). */
udfkit_rc udfkit_includes_follow(const char *source, const char *const *dirs, size_t ndirs, const char *cuda_dir,
                                 udfkit_include_set *out);
void udfkit_include_set_free(udfkit_include_set *s);

#endif
