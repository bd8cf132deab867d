/* `udfkit compile` for Python sources: one worker per call (see src/frontend/udfkit_worker.py)
 * with the Python frontend asked (numba-cuda, numba-cuda-mlir, or auto: numba-cuda where it
 * is installed), every function compiled with the C ABI at the lowest architecture asked,
 * the code it links recorded and shipped beside the manifest. */
#ifndef UDFKIT_PYTHON_COMPILE_H
#define UDFKIT_PYTHON_COMPILE_H

#include "base/diag.h"
#include "frontend/request.h"

#include <stdbool.h>

udfkit_rc udfkit_python_compile(const udfkit_compile_request *req);

/* The interpreter used: req's, else base/locate.h's (UDFKIT_PYTHON, the build tree's, the
 * install's Python environment, python3). */
const char *udfkit_python_interpreter(const char *requested);

/* The Python frontend asked: `requested`, or "auto" where it is NULL or empty. */
const char *udfkit_python_frontend(const char *requested);

/* Whether `name` is numba-cuda, numba-cuda-mlir or auto. */
bool udfkit_python_frontend_known(const char *name);

#endif
