/* nvFatbin, wrapped once. */
#ifndef UDFKIT_NVFATBIN_WRAP_H
#define UDFKIT_NVFATBIN_WRAP_H

#include "base/buf.h"
#include "base/diag.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum udfkit_fatbin_kind { UDFKIT_FATBIN_CUBIN, UDFKIT_FATBIN_PTX, UDFKIT_FATBIN_LTOIR } udfkit_fatbin_kind;

typedef struct udfkit_fatbin_entry {
    udfkit_fatbin_kind kind;
    const void *data;
    size_t size;
    const char *arch; /* "80", "90a" */
    const char *name;
} udfkit_fatbin_entry;

/* nvFatbin's compression modes: none, or zstd tuned for decompression speed, a balance, or
 * size; every entry is compressed (-compress-all), LTO-IR included. */
typedef enum udfkit_fatbin_compression {
    UDFKIT_COMPRESS_NONE,
    UDFKIT_COMPRESS_SPEED,
    UDFKIT_COMPRESS_BALANCE,
    UDFKIT_COMPRESS_SIZE
} udfkit_fatbin_compression;

/* Parses "none", "speed", "balance", "size"; false for anything else. */
bool udfkit_fatbin_compression_parse(const char *text, udfkit_fatbin_compression *out);
const char *udfkit_fatbin_compression_name(udfkit_fatbin_compression c);

udfkit_rc udfkit_fatbin_build(const udfkit_fatbin_entry *entries, size_t count, udfkit_fatbin_compression compression,
                              udfkit_buf *out);
/* Loads nvFatbin (if not yet) and asks for its version; 0.0 where it does not say.
 * Callers want udfkit_toolchain_query, which remembers it per library file. */
udfkit_rc udfkit_fatbin_version(int *major, int *minor);

#endif
