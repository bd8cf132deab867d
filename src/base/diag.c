#include "base/diag.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static _Thread_local char *message;

static void set_message(char *text)
{
    free(message);
    message = text;
}

udfkit_rc udfkit_vfail(udfkit_rc rc, const char *file, int line, const char *fmt, va_list ap)
{
    char prefix[4096 + 64];
    if (file && line > 0)
        snprintf(prefix, sizeof prefix, "%s:%d: error: ", file, line);
    else if (file)
        snprintf(prefix, sizeof prefix, "%s: error: ", file);
    else
        snprintf(prefix, sizeof prefix, "udfkit: error: ");

    va_list copy;
    va_copy(copy, ap);
    int body = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (body < 0)
        body = 0;
    size_t len = strlen(prefix) + (size_t)body + 1;
    char *text = malloc(len);
    if (!text)
        return rc;
    strcpy(text, prefix);
    vsnprintf(text + strlen(prefix), (size_t)body + 1, fmt, ap);
    set_message(text);
    return rc;
}

udfkit_rc udfkit_fail(udfkit_rc rc, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    udfkit_vfail(rc, file, line, fmt, ap);
    va_end(ap);
    return rc;
}

udfkit_rc udfkit_fail_text(udfkit_rc rc, const char *text)
{
    char *copy = strdup(text);
    if (copy)
        set_message(copy);
    return rc;
}

void udfkit_diag_append_log(const char *tool, const char *log)
{
    if (!log || !*log)
        return;
    size_t old = message ? strlen(message) : 0;
    /* Worst case every character is a newline that gains two spaces of indent. */
    size_t cap = old + strlen(tool) + 16 + 3 * strlen(log) + 2;
    char *text = malloc(cap);
    if (!text)
        return;
    size_t n = (size_t)snprintf(text, cap, "%s\n%s log:\n  ", message ? message : "", tool);
    for (const char *p = log; *p; p++) {
        text[n++] = *p;
        if (*p == '\n' && p[1]) {
            text[n++] = ' ';
            text[n++] = ' ';
        }
    }
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    text[n] = '\0';
    set_message(text);
}

const char *udfkit_diag_message(void)
{
    return message ? message : "";
}

void udfkit_diag_clear(void)
{
    set_message(NULL);
}

static atomic_bool verbose;

/* Where warnings and notes go: a sink set by the host (udfkit_log_set in the runtime), else
 * stderr. A library built with UDFKIT_DIAG_QUIET (the runtime) writes nothing to its host's
 * stderr unless UDFKIT_VERBOSE asks it to. */
static struct {
    pthread_mutex_t lock;
    udfkit_diag_sink fn;
    void *user;
} sink = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL};

void udfkit_diag_set_sink(udfkit_diag_sink fn, void *user)
{
    pthread_mutex_lock(&sink.lock);
    sink.fn = fn;
    sink.user = user;
    pthread_mutex_unlock(&sink.lock);
}

#ifdef UDFKIT_DIAG_QUIET
/* UDFKIT_VERBOSE set to anything but "" or "0". */
static bool env_verbose(void)
{
    const char *v = getenv("UDFKIT_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}
#endif

void udfkit_verbose_set(bool on)
{
    atomic_store(&verbose, on);
}

bool udfkit_verbose(void)
{
#ifdef UDFKIT_DIAG_QUIET
    return atomic_load(&verbose) || env_verbose();
#else
    return atomic_load(&verbose);
#endif
}

/* One line, handed over with one call (written with one call to stderr, so lines of
 * parallel threads do not mix). `line` ends without a newline. */
static void emit(udfkit_diag_level level, const char *prefix, const char *line)
{
    pthread_mutex_lock(&sink.lock);
    udfkit_diag_sink fn = sink.fn;
    void *user = sink.user;
    pthread_mutex_unlock(&sink.lock);
    if (fn) {
        fn((int)level, line, user);
        return;
    }
#ifdef UDFKIT_DIAG_QUIET
    if (!env_verbose())
        return;
#endif
    size_t n = strlen(prefix) + strlen(line) + 2;
    char *text = malloc(n);
    if (!text)
        return;
    snprintf(text, n, "%s%s\n", prefix, line);
    fputs(text, stderr);
    free(text);
}

static void say(udfkit_diag_level level, const char *prefix, const char *fmt, va_list ap)
{
    char line[4096];
    vsnprintf(line, sizeof line, fmt, ap);
    emit(level, prefix, line);
}

void udfkit_note(const char *fmt, ...)
{
    if (!udfkit_verbose())
        return;
    va_list ap;
    va_start(ap, fmt);
    say(UDFKIT_DIAG_NOTE, "udfkit: ", fmt, ap);
    va_end(ap);
}

void udfkit_progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(UDFKIT_DIAG_NOTE, "udfkit: ", fmt, ap);
    va_end(ap);
}

double udfkit_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void udfkit_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(UDFKIT_DIAG_WARNING, "udfkit: warning: ", fmt, ap);
    va_end(ap);
}
