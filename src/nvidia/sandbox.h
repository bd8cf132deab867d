/* NVRTC and nvJitLink out of this process, in udfkit's sandbox helper (udfkit-sandbox,
 * src/tools/sandbox.c), for code that must not run in the caller's process: text from
 * users, packages handed over by them, or any compile given a time or memory limit or a
 * way to cancel (NVRTC and nvJitLink can be neither stopped nor bounded in the process).
 *
 * The helper is started with posix_spawn (a fresh program: no state of this process, an
 * empty environment, no descriptor but its socket), limits its own address space and CPU
 * time (RLIMIT_AS, RLIMIT_CPU; no core file), loads the library the request names, runs a
 * warm-up job so that the library has loaded what it loads lazily, and then, where asked,
 * confines itself: Landlock lets it read files only below the request's roots and nowhere
 * else (no /proc, no device, no write anywhere), and seccomp refuses it new programs,
 * sockets and tracing. This process waits for its answer while polling the cancel
 * descriptors and the deadline, and kills it (SIGKILL, then waits for it: nothing is left
 * running) on either. */
#ifndef UDFKIT_SANDBOX_H
#define UDFKIT_SANDBOX_H

#include "base/buf.h"
#include "base/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What untrusted code gets where no limit is asked for: a minute, and 4 GiB of address space
 * (NVRTC takes about 0.3 GiB for a small UDF with cuda::std::optional). */
#define UDFKIT_SANDBOX_DEFAULT_SECONDS 60.0
#define UDFKIT_SANDBOX_DEFAULT_MEMORY (4ull << 30)

typedef struct udfkit_sandbox {
    double deadline;       /* udfkit_seconds() by which the job must have ended; 0: none */
    double seconds;        /* the time limit the deadline comes from, for messages */
    uint64_t memory;       /* the helper's address space, in bytes (its libraries included); 0: none */
    const int *cancel_fds; /* the job is cancelled once any of these is readable */
    size_t ncancel;
    bool confine;          /* reads only below `roots`; an error where the kernel cannot confine */
    const char *const *roots;
    size_t nroots;
} udfkit_sandbox;

/* As udfkit_nvrtc_compile, in the helper. A job stopped by its limits or cancelled is
 * UDFKIT_RC_INPUT with a message naming what stopped it; a helper that cannot be found or
 * started, or cannot confine itself, UDFKIT_RC_ENV. */
/* (nvrtc_wrap.h and nvjitlink_wrap.h declare the jobs: this header stays includable where
 * the fatbin reader's udfkit_code_kind is, as in the runtime.) */
struct udfkit_nvrtc_job;
struct udfkit_link_input;

udfkit_rc udfkit_sandbox_nvrtc(const udfkit_sandbox *sb, const struct udfkit_nvrtc_job *job, udfkit_buf *code,
                               udfkit_buf *log);

/* As udfkit_jitlink_run, in the helper, with the nvJitLink at `library` (a path). */
udfkit_rc udfkit_sandbox_jitlink(const udfkit_sandbox *sb, const char *library, const char *const *options,
                                 size_t noptions, const struct udfkit_link_input *inputs, size_t ninputs, bool ptx,
                                 udfkit_buf *out, udfkit_buf *log);

/* The helper's path: UDFKIT_SANDBOX where set, else udfkit-sandbox beside the program or
 * library holding this code, or in its ../libexec/udfkit, else where it was installed (the
 * configured prefix's libexec/udfkit; no path of the build tree is compiled in). NULL where
 * there is none. */
const char *udfkit_sandbox_helper(void);

#endif
