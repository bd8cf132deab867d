/* Runs requests of the Python frontend (src/frontend/udfkit_worker.py).
 *
 * Importing numba and its first compile take about a second, which every `udfkit compile`
 * of a Python source would pay again. So requests go to a server (server.h) that has done
 * both once and forks a fresh child per request, so that no request sees another's
 * modules. The first request starts it and waits for it. A server is shared by requests
 * with the same interpreter, Python frontend (numba-cuda, numba-cuda-mlir or auto: one warm
 * interpreter each), udfkit worker and environment; where none can be used, a worker of the
 * request's own answers. */
#ifndef UDFKIT_PYTHON_SERVER_H
#define UDFKIT_PYTHON_SERVER_H

#include "base/buf.h"
#include "base/diag.h"

/* Answers `request` (JSON text, asking for Python frontend `frontend`) into `output`; the
 * frontend's standard error goes to `stderr_path`. *status is the worker's exit status (0
 * from a server). UDFKIT_RC_ENV where the interpreter cannot be started. */
udfkit_rc udfkit_python_run(const char *python, const char *frontend, const char *request, udfkit_buf *output,
                            const char *stderr_path, int *status);

#endif
