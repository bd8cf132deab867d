/* `udfkit compile` for Python sources: one numba-cuda worker per call (see
 * src/frontend/udfkit_worker.py), every function compiled with the C ABI at the lowest
 * architecture asked, the code it links recorded and shipped beside the manifest. */
#ifndef UDFKIT_PYTHON_COMPILE_H
#define UDFKIT_PYTHON_COMPILE_H

#include "base/diag.h"
#include "frontend/request.h"

udfkit_rc udfkit_python_compile(const udfkit_compile_request *req);

/* The interpreter used: req's, else the one udfkit was built with, else python3. */
const char *udfkit_python_interpreter(const char *requested);

#endif
