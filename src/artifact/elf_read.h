/* Reading ELF64 files: the functions a cubin defines, and sections of host objects
 * (where nvcc puts a fatbin in .nv_fatbin). Inputs are untrusted; every offset is checked. */
#ifndef UDFKIT_ELF_READ_H
#define UDFKIT_ELF_READ_H

#include "base/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UDFKIT_EM_CUDA 190

/* Whether `data` is a little-endian ELF64 file; its e_machine in *machine. */
bool udfkit_elf_sniff(const void *data, size_t size, unsigned *machine);

/* Names point into the ELF data given to udfkit_cubin_read, which must outlive them. */
typedef struct udfkit_name_list {
    const char **names;
    size_t count;
    size_t cap;
} udfkit_name_list;

typedef struct udfkit_cubin_info {
    /* The SM number (80, 90, 120). The a/f suffix is not in the ELF header (sm_90 and sm_90a
     * cubins carry the same e_flags); a fatbin entry's header has it. */
    unsigned sm;
    udfkit_name_list kernels;   /* __global__ functions */
    udfkit_name_list functions; /* other defined functions with external linkage */
} udfkit_cubin_info;

/* Reads a cubin (ELF64, EM_CUDA). Errors are UDFKIT_RC_INPUT naming `origin`. */
udfkit_rc udfkit_cubin_read(const void *data, size_t size, const char *origin, udfkit_cubin_info *out);
void udfkit_cubin_info_free(udfkit_cubin_info *info);

/* Finds section `name` in any ELF64 little-endian file. *found is false where there is none;
 * a malformed file is UDFKIT_RC_INPUT. */
udfkit_rc udfkit_elf_section(const void *data, size_t size, const char *origin, const char *name, bool *found,
                             const unsigned char **section, size_t *section_size);

#endif
