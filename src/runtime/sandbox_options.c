#include "sandbox_options.h"

#include "driver.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A pipe that is made readable once: what the sandbox's wait polls (nvidia/sandbox.c). */
struct udfkit_cancel {
    int fds[2];
    atomic_bool triggered;
};

udfkit_status udfkit_cancel_create(udfkit_cancel **out)
{
    if (!out)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_cancel_create: no output pointer");
    *out = NULL;
    udfkit_cancel *c = calloc(1, sizeof *c);
    if (!c)
        return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_cancel_create: out of memory");
    if (pipe(c->fds) != 0) {
        int err = errno;
        free(c);
        return udfkit_runtime_fail(err == EMFILE || err == ENFILE ? UDFKIT_ERROR_OUT_OF_MEMORY : UDFKIT_ERROR_DRIVER,
                                   "udfkit_cancel_create: no pipe: %s", strerror(err));
    }
    for (int i = 0; i < 2; i++) {
        fcntl(c->fds[i], F_SETFD, FD_CLOEXEC);
        fcntl(c->fds[i], F_SETFL, O_NONBLOCK);
    }
    atomic_init(&c->triggered, false);
    *out = c;
    return UDFKIT_OK;
}

void udfkit_cancel_trigger(udfkit_cancel *c)
{
    /* write() and an atomic exchange only: safe in a signal handler. */
    if (c && !atomic_exchange(&c->triggered, true)) {
        ssize_t n = write(c->fds[1], "x", 1);
        (void)n;
    }
}

void udfkit_cancel_destroy(udfkit_cancel *c)
{
    if (!c)
        return;
    close(c->fds[0]);
    close(c->fds[1]);
    free(c);
}

int udfkit_cancel_fd(const udfkit_cancel *c)
{
    return c->fds[0];
}

udfkit_status udfkit_runtime_sandbox(const udfkit_compile_options *copts, udfkit_sandbox *sb, int *cancel_fd,
                                     bool *isolated)
{
    *sb = (udfkit_sandbox){0};
    *isolated = false;
    if (!copts)
        return UDFKIT_OK;
    if (copts->version != UDFKIT_COMPILE_OPTIONS_VERSION)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                   "udfkit_compile_options: version %u, where this runtime knows %d (set it with "
                                   "UDFKIT_COMPILE_OPTIONS_INIT)",
                                   copts->version, UDFKIT_COMPILE_OPTIONS_VERSION);
    if (!(copts->time_limit >= 0) || copts->time_limit > 1e7)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                   "udfkit_compile_options: the time limit is %g s; 0 (none) or more, in seconds",
                                   copts->time_limit);
    if (copts->memory_limit && copts->memory_limit < (64ull << 20))
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                   "udfkit_compile_options: a memory limit of %llu bytes is less than NVRTC needs to "
                                   "start (64 MiB at least; NVRTC takes about 0.3 GiB)",
                                   (unsigned long long)copts->memory_limit);
    *isolated = copts->untrusted || copts->time_limit > 0 || copts->memory_limit || copts->cancel;
    sb->seconds = copts->time_limit > 0 ? copts->time_limit : copts->untrusted ? UDFKIT_SANDBOX_DEFAULT_SECONDS : 0;
    sb->memory = copts->memory_limit ? copts->memory_limit : copts->untrusted ? UDFKIT_SANDBOX_DEFAULT_MEMORY : 0;
    if (copts->cancel) {
        *cancel_fd = udfkit_cancel_fd(copts->cancel);
        sb->cancel_fds = cancel_fd;
        sb->ncancel = 1;
    }
    return UDFKIT_OK;
}
