/* `udfkit compile`: one request, handed to the frontend of its sources' language. */
#ifndef UDFKIT_COMPILE_H
#define UDFKIT_COMPILE_H

#include "base/diag.h"
#include "frontend/request.h"

/* Compiles CUDA C++ sources or Python sources (not both in one call). */
udfkit_rc udfkit_compile(const udfkit_compile_request *req);

#endif
