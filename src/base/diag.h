/* Errors inside the tool: a result code that is also the exit status, and a
 * thread-local message set where the failure happens. */
#ifndef UDFKIT_DIAG_H
#define UDFKIT_DIAG_H

#include <stdarg.h>
#include <stdbool.h>

/* The exit statuses SPEC.md fixes, used as return codes throughout the core. */
typedef enum udfkit_rc {
    UDFKIT_RC_OK = 0,
    UDFKIT_RC_INPUT = 1, /* an error in the user's input */
    UDFKIT_RC_USAGE = 2, /* a usage error */
    UDFKIT_RC_ENV = 3,   /* the environment lacks something or is inconsistent */
    UDFKIT_RC_INTERNAL = 4
} udfkit_rc;

#if defined(__GNUC__)
#define UDFKIT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define UDFKIT_PRINTF(f, a)
#endif

/* Sets this thread's message to "file:line: error: ..." (file NULL: "udfkit: error: ...",
 * line 0: "file: error: ...") and returns rc, so callers write `return udfkit_fail(...)`. */
udfkit_rc udfkit_fail(udfkit_rc rc, const char *file, int line, const char *fmt, ...) UDFKIT_PRINTF(4, 5);
udfkit_rc udfkit_vfail(udfkit_rc rc, const char *file, int line, const char *fmt, va_list ap);

/* Sets the message verbatim (already formatted diagnostics, such as a rewritten NVRTC log). */
udfkit_rc udfkit_fail_text(udfkit_rc rc, const char *text);

/* Appends a tool's log to the current message, each line indented, so it reads as detail. */
void udfkit_diag_append_log(const char *tool, const char *log);

/* This thread's message; never NULL. */
const char *udfkit_diag_message(void);
void udfkit_diag_clear(void);

/* Warnings and progress go to the sink at once (stderr where none is set); they never
 * change the result. A build with UDFKIT_DIAG_QUIET defined (the runtime: a library never
 * writes to its host's stderr unasked) drops them where no sink is set, unless the
 * environment's UDFKIT_VERBOSE is set (to anything but 0); it also turns notes on. */
void udfkit_warn(const char *fmt, ...) UDFKIT_PRINTF(1, 2);

typedef enum udfkit_diag_level { UDFKIT_DIAG_WARNING = 1, UDFKIT_DIAG_NOTE = 2 } udfkit_diag_level;
/* Gets each warning or note as one line, without its "udfkit: warning: " prefix or a
 * newline. Called from any thread; NULL restores the default. */
typedef void (*udfkit_diag_sink)(int level, const char *line, void *user); /* level: udfkit_diag_level */
void udfkit_diag_set_sink(udfkit_diag_sink fn, void *user);

/* -v / --verbose: every NVRTC, numba-cuda, nvJitLink and nvFatbin step is told on stderr
 * with its options and where its result came from ("udfkit: ..."), one line a step. */
void udfkit_verbose_set(bool on);
bool udfkit_verbose(void);
void udfkit_note(const char *fmt, ...) UDFKIT_PRINTF(1, 2); /* only when verbose */
void udfkit_progress(const char *fmt, ...) UDFKIT_PRINTF(1, 2); /* always */
/* Seconds on a monotonic clock, for timing steps. */
double udfkit_seconds(void);

#endif
