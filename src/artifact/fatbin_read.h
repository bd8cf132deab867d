/* Reading CUDA fatbin containers: the entries they hold, without the CUDA driver.
 *
 * NVIDIA does not document the format; the layout below was checked against the output
 * of nvcc, fatbinary and nvFatbin from CUDA 13.0 (see fatbin_read.c), so every field is
 * bounds-checked and anything unexpected is an input error rather than a guess. */
#ifndef UDFKIT_FATBIN_READ_H
#define UDFKIT_FATBIN_READ_H

#include "base/arch.h"
#include "base/buf.h"
#include "base/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What an entry holds. udfkit_fatbin_kind (nvfatbin_wrap.h) is what udfkit puts in;
 * this also covers what other producers do. */
typedef enum udfkit_code_kind {
    UDFKIT_CODE_SASS,  /* a cubin (ELF) */
    UDFKIT_CODE_PTX,   /* PTX text */
    UDFKIT_CODE_LTOIR, /* NVVM LTO-IR */
    UDFKIT_CODE_OTHER  /* a kind this reader does not know; `kind_code` says which */
} udfkit_code_kind;

typedef enum udfkit_compression {
    UDFKIT_COMPRESSION_NONE,
    UDFKIT_COMPRESSION_LZ4,  /* nvcc --compress-mode=speed */
    UDFKIT_COMPRESSION_ZSTD, /* the CUDA 13 default for PTX, and for all entries with -compress-all */
    UDFKIT_COMPRESSION_OPAQUE /* compressed in a way udfkit cannot undo (LTO-IR, pre-CUDA 12 schemes) */
} udfkit_compression;

typedef struct udfkit_fatbin_entry_info {
    udfkit_code_kind kind;
    unsigned kind_code;   /* the raw kind field */
    udfkit_target target; /* sm_XX for SASS, compute_XX for PTX and LTO-IR, with a/f suffix */
    /* PTX: the ISA version (9.0); SASS: the cubin code version; LTO-IR: the NVVM IR version. */
    unsigned version_major, version_minor;
    udfkit_compression compression;
    const unsigned char *payload; /* the bytes as stored, inside the parsed buffer */
    size_t payload_size;          /* as stored; uncompressed payloads may carry padding */
    uint64_t uncompressed_size;   /* the code's size once decompressed; payload_size if not compressed */
    const char *name;             /* the identifier nvFatbin was given (not NUL-terminated), or NULL */
    size_t name_size;
} udfkit_fatbin_entry_info;

typedef struct udfkit_fatbin_contents {
    udfkit_fatbin_entry_info *entries;
    size_t count;
    size_t containers; /* how many fatbins were concatenated */
} udfkit_fatbin_contents;

/* Whether `data` starts with a fatbin container's magic number. */
bool udfkit_fatbin_sniff(const void *data, size_t size);

/* Lists the entries of one or more concatenated fatbin containers (zero padding between
 * them allowed, as in a host object's .nv_fatbin section). Entries point into `data`, which
 * must outlive `out`. `origin` names the input in errors, which are UDFKIT_RC_INPUT. */
udfkit_rc udfkit_fatbin_read(const void *data, size_t size, const char *origin, udfkit_fatbin_contents *out);
void udfkit_fatbin_contents_free(udfkit_fatbin_contents *c);

/* The entry's code, decompressed into `storage` where it is compressed, else pointing at the
 * payload. UDFKIT_RC_ENV where the decompressor is missing (zstd comes from libzstd.so.1 at
 * run time) or the compression is opaque; UDFKIT_RC_INPUT where the data is corrupt. */
udfkit_rc udfkit_fatbin_entry_code(const udfkit_fatbin_entry_info *e, const char *origin, udfkit_buf *storage,
                                   const unsigned char **code, size_t *size);

#endif
