/* Checks that bytes are what they claim to be, before anything uses them: a result taken
 * from the cache (whose checksum says only that the entry is as stored, not what was
 * stored), and a package's LTO-IR before nvJitLink sees it. Each returns true, or false
 * with the reason in `why` ("is not LTO-IR: it starts with ...").
 *
 * LTO-IR is NVVM's IR container: a 24-byte header (magic 0x7f4e43ed, the container's
 * version 1.x, then the IR's, its debug info's and LLVM's versions, and the offsets of the
 * options, their data and the IR), which NVRTC, NVVM and nvcc -dlto all write. */
#ifndef UDFKIT_CODE_CHECK_H
#define UDFKIT_CODE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

bool udfkit_ltoir_check(const void *data, size_t size, char *why, size_t why_size);
/* PTX text: no NUL byte, a .version and a .target directive. */
bool udfkit_ptx_check(const void *data, size_t size, char *why, size_t why_size);
/* A cubin: ELF64 for EM_CUDA, every offset inside it (artifact/elf_read). */
bool udfkit_cubin_check(const void *data, size_t size, char *why, size_t why_size);
/* One or more fatbin containers, every entry inside them (artifact/fatbin_read). */
bool udfkit_fatbin_check(const void *data, size_t size, char *why, size_t why_size);

#endif
