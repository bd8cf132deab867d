/* Runs a program (never through a shell) with posix_spawn, feeding it standard input and
 * collecting its standard output; standard error goes to a file the caller names. */
#ifndef UDFKIT_SUBPROCESS_H
#define UDFKIT_SUBPROCESS_H

#include "base/buf.h"
#include "base/diag.h"

/* Returns UDFKIT_RC_ENV where the program cannot be started; *status is its exit status
 * (or 128 + signal). The program is looked up on PATH when argv[0] has no '/'. */
udfkit_rc udfkit_run_program(char *const argv[], const char *input, size_t input_size, udfkit_buf *output,
                             const char *stderr_path, int *status);

/* Runs a program with this process's standard streams, so that what it prints reaches the
 * user as it happens; *status as above. */
udfkit_rc udfkit_run_program_attached(char *const argv[], int *status);

#endif
