/* Makefile-syntax dependency files, as Ninja's `deps = gcc` and CMake's DEPFILE read them. */
#ifndef UDFKIT_DEPFILE_H
#define UDFKIT_DEPFILE_H

#include "base/buf.h"

#include <stddef.h>

/* "target: dep1 dep2 ..." quoted as GCC quotes depfiles (blanks, '#', ':', '$'). The
 * target is written as given (Ninja wants its own spelling of the output); every
 * dependency is made absolute, since Ninja reads relative ones against its own directory,
 * not the command's, and listed once. A path with a line break cannot be written in a
 * depfile and is left out. */
void udfkit_depfile_format(const char *target, const char *const *deps, size_t ndeps, udfkit_buf *out);

#endif
