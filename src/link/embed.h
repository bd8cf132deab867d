/* `udfkit embed`: a C source that puts a file's bytes under a symbol. */
#ifndef UDFKIT_EMBED_H
#define UDFKIT_EMBED_H

#include "base/diag.h"

udfkit_rc udfkit_embed(const char *input, const char *symbol, const char *output_c, const char *output_h);

#endif
