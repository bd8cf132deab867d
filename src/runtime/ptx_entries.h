/* The kernels a PTX text defines, by name: how a library's code compiled again for another
 * device (library.c) finds the kernel that stands for each of the first one's. */
#ifndef UDFKIT_RUNTIME_PTX_ENTRIES_H
#define UDFKIT_RUNTIME_PTX_ENTRIES_H

#include <stddef.h>

/* The `.entry <name>(` names of `ptx`, in order, written as consecutive NUL-terminated
 * strings into `names` (at most `size` bytes; a name that does not fit, and every one after
 * it, is left out); returns how many were written. */
size_t udfkit_ptx_entry_names(const char *ptx, size_t ptx_size, char *names, size_t size);

#endif
