/* NVRTC, nvJitLink and nvFatbin are large (over 200 MB together) and slow to map and
 * initialize: udfkit loads each on first use, so a command answered from the cache or one
 * that needs none of them starts in a few milliseconds.
 *
 * Each part is loaded from the first place base/locate.h's search finds it: its environment
 * variable (UDFKIT_NVRTC_LIBRARY, UDFKIT_NVJITLINK_LIBRARY, UDFKIT_NVFATBIN_LIBRARY), the
 * build tree's record (the tool run from its build tree), the Python environment (the tool),
 * a CUDA toolkit, then its soname through the loader's search path. */
#ifndef UDFKIT_CUDA_LIBS_H
#define UDFKIT_CUDA_LIBS_H

#include "base/diag.h"
#include "base/locate.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum udfkit_cuda_part {
    UDFKIT_PART_NVRTC,
    UDFKIT_PART_NVJITLINK,
    UDFKIT_PART_NVFATBIN,
    UDFKIT_PART_COUNT
} udfkit_cuda_part;

typedef struct udfkit_symbol {
    const char *name;
    void **slot;
} udfkit_symbol;

/* Loads the part (once per process, thread-safe) and fills every slot; UDFKIT_RC_ENV with
 * a message naming the library and how to fix it where it cannot be loaded or lacks a
 * symbol. Later calls return the first result. */
udfkit_rc udfkit_cuda_part_load(udfkit_cuda_part part, const udfkit_symbol *symbols, size_t count);

/* What identifies the part's library without loading it: its real path, size and
 * modification time (as ccache identifies a compiler). False where that file cannot be
 * found without the loader's search. */
bool udfkit_cuda_part_stamp(udfkit_cuda_part part, char *out, size_t size);

const char *udfkit_cuda_part_name(udfkit_cuda_part part);
/* The environment variable that names the part's library ("UDFKIT_NVRTC_LIBRARY"). */
const char *udfkit_cuda_part_env(udfkit_cuda_part part);
/* Which step of the search gives the part's library (without loading it). */
udfkit_found udfkit_cuda_part_found(udfkit_cuda_part part);

/* Where the part is loaded from: its library file's real path, or, where the loader's search
 * finds it, the soname and "(the loader's search path)". */
void udfkit_cuda_part_location(udfkit_cuda_part part, char *out, size_t size);

/* The real path of the file the part is loaded from, or would be: what a sandboxed compile
 * loads too. False where there is none. */
bool udfkit_cuda_part_file(udfkit_cuda_part part, char *out, size_t size);

/* The command that installs a consistent set, for messages. */
#define UDFKIT_FIX_TOOLCHAIN_HINT \
    "install one consistent CUDA 13.0 set: python3 -m pip install --no-deps " UDFKIT_PIP_CUDA_PINS

#endif
