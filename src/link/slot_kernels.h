/* Which kernels of a SLOTS library call its slots: read from the PTX that nvJitLink makes of
 * the library's LTO-IR with the slots left undefined (`.extern .func`), by the calls (and
 * addresses taken) of each kernel and of the functions it reaches. `udfkit pack --sass`
 * links the others to SASS at build time; a bind links these with the bound functions. */
#ifndef UDFKIT_SLOT_KERNELS_H
#define UDFKIT_SLOT_KERNELS_H

#include "base/diag.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct udfkit_slot_kernels {
    char **names;  /* every kernel (.entry), in the PTX's order */
    bool *bound;   /* per kernel: it reaches an undefined function, or calls through a pointer
                      where the PTX has undefined functions */
    char **calls;  /* per kernel: the undefined functions it reaches, separated by blanks (every
                      undefined function where it calls through a pointer); "" where none */
    size_t count;
} udfkit_slot_kernels;

/* UDFKIT_RC_INPUT naming `origin` where the PTX's braces do not balance. */
udfkit_rc udfkit_slot_kernels_read(const char *ptx, size_t size, const char *origin, udfkit_slot_kernels *out);
void udfkit_slot_kernels_free(udfkit_slot_kernels *k);

#endif
