/* Code from users (runtime.h): udfkit_compile_options as the sandbox's limits
 * (nvidia/sandbox.h), and the cancel tokens that stop it. */
#ifndef UDFKIT_RUNTIME_SANDBOX_OPTIONS_H
#define UDFKIT_RUNTIME_SANDBOX_OPTIONS_H

#include "nvidia/sandbox.h"
#include "udfkit/runtime.h"

#include <stdbool.h>

/* Checks copts (NULL: none) and says whether it asks for the sandbox (*isolated); *sb gets
 * its limits (untrusted: the defaults where it gives none) and the token's descriptor,
 * which *cancel_fd holds. The deadline is left to the caller. */
udfkit_status udfkit_runtime_sandbox(const udfkit_compile_options *copts, udfkit_sandbox *sb, int *cancel_fd,
                                     bool *isolated);

/* The descriptor that is readable once c is triggered. */
int udfkit_cancel_fd(const udfkit_cancel *c);

#endif
