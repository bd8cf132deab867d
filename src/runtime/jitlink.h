/* nvJitLink for load-time linking, loaded at run time (libnvJitLink.so.13): programs that
 * never link at load time do not need it installed. */
#ifndef UDFKIT_RUNTIME_JITLINK_H
#define UDFKIT_RUNTIME_JITLINK_H

#include "base/buf.h"
#include "cache/cache.h"
#include "nvidia/sandbox.h"
#include "udfkit/runtime.h"

#include <stddef.h>

typedef enum udfkit_jit_input { UDFKIT_JIT_CUBIN = 1, UDFKIT_JIT_PTX = 2, UDFKIT_JIT_LTOIR = 3 } udfkit_jit_input;

typedef struct udfkit_jit_part {
    udfkit_jit_input kind;
    const void *data;
    size_t size;
} udfkit_jit_part;

/* nvJitLink's version, or an error where it cannot be loaded. */
udfkit_status udfkit_jitlink_load(unsigned *major, unsigned *minor);

/* A linked cubin kept in udfkit's cache under `key` (udfkit_library_link, udfkit_library_bind):
 * whether it was there (appended to *cubin; the hit or miss counted), and storing one. */
bool udfkit_jitlink_cached(udfkit_cache *cache, const char *key, udfkit_buf *cubin);
void udfkit_jitlink_keep(udfkit_cache *cache, const char *key, const udfkit_buf *cubin);

/* Links for sm_<arch> (with -lto where a part is LTO-IR, and the `nextra` options after)
 * into a cubin: in this process, or, with `sb`, in the sandbox helper under its limits
 * (stopped or cancelled: UDFKIT_ERROR_COMPILE naming why). */
udfkit_status udfkit_jitlink_cubin(const udfkit_jit_part *parts, size_t count, int arch, const char *const *extra,
                                   size_t nextra, const udfkit_sandbox *sb, udfkit_buf *cubin);

#endif
