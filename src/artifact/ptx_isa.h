/* The PTX ISA version a PTX image declares, read as the runtime reads it before handing the
 * image to the driver or nvPTXCompiler. */
#ifndef UDFKIT_PTX_ISA_H
#define UDFKIT_PTX_ISA_H

#include <stddef.h>

/* "major.minor" after ".version" within the first 4 KiB, as 10 * major + minor (9.0 -> 90);
 * 0 where there is none. Reads only the `size` bytes given: an image need not end in NUL. */
int udfkit_ptx_isa(const char *text, size_t size);

#endif
