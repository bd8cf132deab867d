#include "base/diag.h"

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

void udfkit_verbose_set(bool on)
{
    atomic_store(&verbose, on);
}

bool udfkit_verbose(void)
{
    return atomic_load(&verbose);
}

/* One line, written with one call, so lines of parallel threads do not mix. */
static void say(const char *fmt, va_list ap)
{
    char line[4096];
    int n = snprintf(line, sizeof line, "udfkit: ");
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    strcat(line, "\n");
    fputs(line, stderr);
}

void udfkit_note(const char *fmt, ...)
{
    if (!udfkit_verbose())
        return;
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
}

void udfkit_progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
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
    fputs("udfkit: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
