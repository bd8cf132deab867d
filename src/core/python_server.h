/* Runs requests of the Python frontend (src/python/udfkit_worker.py).
 *
 * Importing numba and its first compile take about a second, which every `udfkit compile`
 * of a Python source would pay again. So requests go to a server of this user's that has
 * done both once: it forks a fresh child per request (no request sees another's modules)
 * and exits after UDFKIT_PYTHON_SERVER_IDLE seconds without one (default 120; 0: no
 * server, a worker per request). The first request starts it. A server is shared only by
 * requests with the same interpreter, frontend, udfkit version and environment; its
 * socket lives in a directory only this user can enter ($XDG_RUNTIME_DIR/udfkit, else
 * /tmp/udfkit-<uid>), and it answers only this user. Where no server can be used, a
 * worker of its own answers, so a failure to start one costs time, never a result. */
#ifndef UDFKIT_PYTHON_SERVER_H
#define UDFKIT_PYTHON_SERVER_H

#include "buf.h"
#include "diag.h"

/* Answers `request` (JSON text) into `output`; the frontend's standard error goes to
 * `stderr_path`. *status is the worker's exit status (0 from a server). UDFKIT_RC_ENV
 * where the interpreter cannot be started. */
udfkit_rc udfkit_python_run(const char *python, const char *request, udfkit_buf *output, const char *stderr_path,
                            int *status);

#endif
