/* The versions of every CUDA part udfkit uses, and whether they can work together. */
#ifndef UDFKIT_TOOLCHAIN_H
#define UDFKIT_TOOLCHAIN_H

#include "diag.h"

#include <stdbool.h>

typedef struct udfkit_version {
    int major, minor;
} udfkit_version;

typedef struct udfkit_toolchain {
    udfkit_version nvrtc, nvjitlink, nvptxcompiler, nvfatbin;
} udfkit_toolchain;

void udfkit_toolchain_query(udfkit_toolchain *tc);

/* nvJitLink must be at least as new as every producer of LTO-IR it links, and all parts
 * must share a major release. Returns UDFKIT_RC_ENV with a message that says how to fix it. */
udfkit_rc udfkit_toolchain_check(const udfkit_toolchain *tc);

/* Checks that LTO-IR made by `producer` at `v` can be linked by this nvJitLink;
 * `what` names the artifact in the message. */
udfkit_rc udfkit_toolchain_check_producer(const udfkit_toolchain *tc, const char *producer, udfkit_version v,
                                          const char *what);

int udfkit_version_compare(udfkit_version a, udfkit_version b);
/* Parses "13.0" (and ignores a patch level). */
bool udfkit_version_parse(const char *text, udfkit_version *out);

/* The command that installs a consistent set, for messages. */
#define UDFKIT_FIX_TOOLCHAIN_HINT \
    "install one consistent CUDA 13.0 set: python3 -m pip install -r requirements.txt (udfkit's pinned wheels)"

#endif
