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

/* A place the walk looked for an include and found nothing: were a file to appear there, a
 * compile would read it instead of the one it found (or instead of finding none). Kept as
 * the shortest missing prefix of the path looked at where one is missing (`missing`: nothing
 * is there), else the path itself (`missing` false: something that is not a file is there). */
typedef struct udfkit_include_absent {
    char *path;
    bool system;  /* below the CUDA include directory */
    bool missing;
} udfkit_include_absent;

typedef struct udfkit_include_set {
    udfkit_include_file *files; /* each file once, in the order a compile first reads them */
    size_t nfiles;
    udfkit_include_absent *absent; /* each once; for a cache key's check (cuda_build.c) */
    size_t nabsent;
} udfkit_include_set;

/* Follows includes of `source` (itself not listed), by the rules nvcc and NVRTC follow: a
 * quoted name first beside the file that includes it, then in the -I directories `dirs` in
 * order, then in `cuda_dir` (the CUDA headers' directory; may be NULL). Files are told apart
 * by their real paths, so no spelling of a path ("x/../y/../a.h") makes a cycle, and no
 * depth of includes grows the stack. */
udfkit_rc udfkit_includes_follow(const char *source, const char *const *dirs, size_t ndirs, const char *cuda_dir,
                                 udfkit_include_set *out);
/* The same for a source held in memory as `text`, named `source` (quoted includes are
 * looked for beside that name, as NVRTC does). */
udfkit_rc udfkit_includes_follow_text(const char *source, const char *text, const char *const *dirs, size_t ndirs,
                                      const char *cuda_dir, udfkit_include_set *out);
/* Where text a user wrote may include from (udfkit_compile_source's untrusted mode, udfkit
 * compile --untrusted): files below `roots` (real paths: the -I directories, those allowed
 * besides, CUDA's headers). */
typedef struct udfkit_include_roots {
    const char *const *roots;
    size_t nroots;
    bool source_dir; /* quoted includes of the source are looked for beside it (its directory is a root) */
} udfkit_include_roots;

/* As the two above (text NULL: read `source`), confined: a directive of the source or of a
 * header outside CUDA's that names an absolute path, that names a path with '..' (in the
 * source), that is an #include_next, or that leads to a file outside the roots (symbolic
 * links resolved) or to anything but a regular file is refused, UDFKIT_RC_INPUT
 * "file:line: error: ...", before the file is read. Every directive counts, whatever #if it
 * sits under. A name found nowhere is left to the compile, which reports it. */
udfkit_rc udfkit_includes_follow_confined(const char *source, const char *text, const char *const *dirs,
                                          size_t ndirs, const char *cuda_dir, const udfkit_include_roots *confine,
                                          udfkit_include_set *out);
void udfkit_include_set_free(udfkit_include_set *s);

#endif
