/* The versions of every CUDA part udfkit uses, and whether they can work together. */
#ifndef UDFKIT_TOOLCHAIN_H
#define UDFKIT_TOOLCHAIN_H

#include "base/arch.h"
#include "base/diag.h"
#include "cache/cache.h"
#include "nvidia/cuda_libs.h"

#include <stdbool.h>

typedef struct udfkit_version {
    int major, minor;
} udfkit_version;

typedef struct udfkit_toolchain {
    udfkit_version nvrtc, nvjitlink, nvptxcompiler, nvfatbin;
} udfkit_toolchain;

/* Every part's version. Parts are loaded only where udfkit's cache does not already know
 * the answer for their library file; UDFKIT_RC_ENV where one cannot be loaded. */
udfkit_rc udfkit_toolchain_query(udfkit_toolchain *tc);

/* The version of the nvPTXCompiler that udfkit::runtime_ptx links statically (read when
 * udfkit was built). */
udfkit_version udfkit_toolchain_nvptxcompiler(void);

/* One part's version, loading it only where the cache does not know its library file. */
udfkit_rc udfkit_toolchain_part_version(udfkit_cuda_part part, udfkit_version *out);

/* NVRTC's real architectures, ascending; owned by udfkit. */
udfkit_rc udfkit_toolchain_nvrtc_archs(const int **archs, size_t *count);

/* Parses an architecture list (NULL: the default) against what this NVRTC supports. */
udfkit_rc udfkit_toolchain_parse_archs(const char *text, udfkit_target_list *out);

/* Adds what identifies a part to a cache key: its version and its library file's stamp. */
void udfkit_toolchain_key(udfkit_hasher *h, udfkit_cuda_part part);

/* nvJitLink must be at least as new as every producer of LTO-IR it links, and all parts
 * must share a major release. Returns UDFKIT_RC_ENV with a message that says how to fix it. */
udfkit_rc udfkit_toolchain_check(const udfkit_toolchain *tc);

/* Checks that LTO-IR made by `producer` at `v` can be linked by this nvJitLink;
 * `what` names the artifact in the message. */
udfkit_rc udfkit_toolchain_check_producer(const udfkit_toolchain *tc, const char *producer, udfkit_version v,
                                          const char *what);

int udfkit_version_compare(udfkit_version a, udfkit_version b);
/* Parses "13.0" (and ignores a patch level). */
bool udfkit_version_parse(const char *text, udfkit_version *out);

#endif
