/* dladdr, pipe2-free socketpair flags, poll */
#define _GNU_SOURCE
#include "nvidia/sandbox.h"

#include "nvidia/cuda_libs.h"
#include "nvidia/nvjitlink_wrap.h"
#include "nvidia/nvrtc_wrap.h"
#include "nvidia/sandbox_wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef UDFKIT_SANDBOX_INSTALL_PATH
#define UDFKIT_SANDBOX_INSTALL_PATH ""
#endif

/* An answer larger than this is not read: a helper is never asked for that much. */
#define MAX_ANSWER (1ull << 30)

static char helper_path[PATH_MAX];
static pthread_once_t helper_once = PTHREAD_ONCE_INIT;

static bool executable(const char *path)
{
    struct stat st;
    return path && *path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static void find_helper(void)
{
    const char *env = getenv("UDFKIT_SANDBOX");
    if (env && *env) {
        snprintf(helper_path, sizeof helper_path, "%s", env);
        return;
    }
    Dl_info info;
    char dir[PATH_MAX], candidate[PATH_MAX + 64];
    if (dladdr((void *)find_helper, &info) && info.dli_fname && realpath(info.dli_fname, dir)) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        const char *beside[] = {"%s/udfkit-sandbox", "%s/../libexec/udfkit/udfkit-sandbox"};
        for (size_t i = 0; i < 2; i++) {
            snprintf(candidate, sizeof candidate, beside[i], dir);
            if (executable(candidate) && realpath(candidate, helper_path))
                return;
        }
    }
    if (executable(UDFKIT_SANDBOX_INSTALL_PATH))
        snprintf(helper_path, sizeof helper_path, "%s", UDFKIT_SANDBOX_INSTALL_PATH);
}

const char *udfkit_sandbox_helper(void)
{
    pthread_once(&helper_once, find_helper);
    return helper_path[0] ? helper_path : NULL;
}

/* Starts the helper with `sock` as its standard input (both ways); its output and errors go
 * nowhere, its environment is empty and its signals are the defaults. */
static udfkit_rc spawn_helper(const udfkit_sandbox *sb, int sock, pid_t *pid)
{
    const char *helper = udfkit_sandbox_helper();
    if (!helper)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0,
                           "the sandbox helper udfkit-sandbox cannot be found (beside the program or library, "
                           "in its ../libexec/udfkit, or where it was installed): install it, or name it in UDFKIT_SANDBOX");
    char memory[32], cpu[32];
    snprintf(memory, sizeof memory, "%llu", (unsigned long long)sb->memory);
    /* The CPU time limit is a backstop behind the deadline, which this process watches. */
    snprintf(cpu, sizeof cpu, "%llu", sb->seconds > 0 ? (unsigned long long)sb->seconds + 2 : 0ull);
    char *argv[] = {(char *)helper, "--memory", memory, "--cpu-seconds", cpu, NULL};
    char *envp[] = {NULL};
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sock, STDIN_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int err = posix_spawn(pid, helper, &actions, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (err)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "the sandbox helper %s cannot be started: %s", helper,
                           strerror(err));
    return UDFKIT_RC_OK;
}

typedef enum stop { RAN, TIMED_OUT, CANCELLED, BROKEN } stop;

static bool cancelled(const udfkit_sandbox *sb)
{
    for (size_t i = 0; i < sb->ncancel; i++) {
        struct pollfd p = {sb->cancel_fds[i], POLLIN, 0};
        if (poll(&p, 1, 0) > 0 && (p.revents & POLLIN))
            return true;
    }
    return false;
}

/* Milliseconds to the deadline for poll (-1: none), at most a second so that a cancel
 * descriptor closed under us cannot keep the wait going. */
static int wait_ms(const udfkit_sandbox *sb)
{
    if (sb->deadline <= 0)
        return 1000;
    double left = sb->deadline - udfkit_seconds();
    return left <= 0 ? 0 : left > 1.0 ? 1000 : (int)(left * 1000.0) + 1;
}

/* Sends the request and reads the answer until the helper closes its end, watching the
 * deadline and the cancel descriptors. */
static stop exchange(const udfkit_sandbox *sb, int sock, const udfkit_buf *request, udfkit_buf *answer)
{
    size_t sent = 0;
    bool sending = true;
    struct pollfd fds[1 + 16];
    size_t ncancel = sb->ncancel < 16 ? sb->ncancel : 16;
    for (;;) {
        if (cancelled(sb))
            return CANCELLED;
        if (sb->deadline > 0 && udfkit_seconds() >= sb->deadline)
            return TIMED_OUT;
        fds[0] = (struct pollfd){sock, (short)(POLLIN | (sending ? POLLOUT : 0)), 0};
        for (size_t i = 0; i < ncancel; i++)
            fds[1 + i] = (struct pollfd){sb->cancel_fds[i], POLLIN, 0};
        int n = poll(fds, (nfds_t)(1 + ncancel), wait_ms(sb));
        if (n < 0 && errno != EINTR)
            return BROKEN;
        if (n <= 0)
            continue;
        if (sending && (fds[0].revents & POLLOUT)) {
            ssize_t k = send(sock, request->data + sent, request->size - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (k > 0 && (sent += (size_t)k) == request->size) {
                shutdown(sock, SHUT_WR);
                sending = false;
            } else if (k < 0 && errno != EAGAIN && errno != EINTR) {
                sending = false; /* the helper is gone; its status says why */
            }
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            char chunk[65536];
            ssize_t k = recv(sock, chunk, sizeof chunk, MSG_DONTWAIT);
            if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
                return RAN;
            if (k > 0 && (answer->size + (size_t)k > MAX_ANSWER || !udfkit_buf_append(answer, chunk, (size_t)k)))
                return BROKEN;
        }
    }
}

/* A descriptor of the helper itself (Linux 5.3), taken while it waits for its job and so
 * cannot have ended: killing through it never reaches another process that got its pid
 * after a SIGCHLD handler of the caller's reaped it. -1 where the kernel has none. */
static int pid_descriptor(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

static void kill_helper(pid_t pid, int pidfd)
{
#ifdef SYS_pidfd_send_signal
    if (pidfd >= 0) {
        syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
        return;
    }
#endif
    (void)pidfd;
    kill(pid, SIGKILL);
}

/* Waits for the helper to end: at once where it was stopped, else until the deadline (it
 * has closed its socket and is exiting), then stops it. */
static int reap(const udfkit_sandbox *sb, pid_t pid, int pidfd, bool kill_now)
{
    int status = 0;
    double until = sb->deadline > 0 ? sb->deadline : udfkit_seconds() + 30.0;
    while (!kill_now) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            return 0;
        if (udfkit_seconds() >= until || cancelled(sb))
            break;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    kill_helper(pid, pidfd);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

/* What ended a job that gave no answer. */
static udfkit_rc stopped(const udfkit_sandbox *sb, const char *what, stop how, int status)
{
    if (how == CANCELLED)
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "%s stopped: it was cancelled", what);
    if (how == TIMED_OUT || (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU))
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "%s stopped: it ran past its time limit of %g s", what,
                           sb->seconds);
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    /* Out of address space, NVRTC and nvJitLink abort (an uncaught std::bad_alloc) or fault. */
    if (sb->memory && (sig == SIGABRT || sig == SIGSEGV || sig == SIGBUS || sig == SIGKILL))
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                           "%s stopped: it ran out of its memory limit of %llu MiB (the sandboxed compiler ended "
                           "with signal %d, %s)",
                           what, (unsigned long long)(sb->memory >> 20), sig, strsignal(sig));
    if (sig)
        return udfkit_fail(UDFKIT_RC_INPUT, NULL, 0, "%s failed: the sandboxed compiler ended with signal %d (%s)",
                           what, sig, strsignal(sig));
    return udfkit_fail(UDFKIT_RC_ENV, NULL, 0,
                       "%s failed: the sandbox helper %s exited with status %d without an answer (a helper of another "
                       "udfkit version, or one that cannot start here)",
                       what, udfkit_sandbox_helper(), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* The helper's answer: its result code, code, log and message. */
static udfkit_rc read_answer(const udfkit_buf *answer, const char *what, udfkit_buf *code, udfkit_buf *log,
                             bool *complete)
{
    udfkit_wire_reader r = udfkit_wire_read(answer->data, answer->size, UDFKIT_WIRE_ANSWER);
    char tag;
    const unsigned char *data;
    size_t size;
    uint32_t rc = UDFKIT_RC_INTERNAL;
    const char *message = NULL;
    size_t message_size = 0;
    *complete = false;
    while (udfkit_wire_next(&r, &tag, &data, &size)) {
        if (tag == UDFKIT_WIRE_RC && udfkit_wire_u32(data, size, &rc))
            *complete = true;
        else if (tag == UDFKIT_WIRE_CODE)
            udfkit_buf_append(code, data, size);
        else if (tag == UDFKIT_WIRE_LOG)
            udfkit_buf_append(log, data, size);
        else if (tag == UDFKIT_WIRE_MESSAGE)
            message = (const char *)data, message_size = size;
    }
    if (r.bad || !*complete) {
        *complete = false;
        return UDFKIT_RC_INTERNAL;
    }
    if (rc > UDFKIT_RC_INTERNAL)
        rc = UDFKIT_RC_INTERNAL;
    if (rc && message_size)
        udfkit_fail((udfkit_rc)rc, NULL, 0, "%s: %.*s", what, (int)(message_size < 8192 ? message_size : 8192),
                    message);
    return (udfkit_rc)rc;
}

/* One job in a helper: spawn, exchange, wait, answer. */
static udfkit_rc run(const udfkit_sandbox *sb, const char *what, const udfkit_buf *request, udfkit_buf *code,
                     udfkit_buf *log)
{
    if (cancelled(sb))
        return stopped(sb, what, CANCELLED, 0);
    int socks[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, socks) != 0)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "%s: cannot make a socket pair for the sandbox helper: %s", what,
                           strerror(errno));
    pid_t pid;
    udfkit_rc rc = spawn_helper(sb, socks[1], &pid);
    close(socks[1]);
    if (rc) {
        close(socks[0]);
        return rc;
    }
    int pidfd = pid_descriptor(pid);
    udfkit_buf answer = UDFKIT_BUF_INIT;
    stop how = exchange(sb, socks[0], request, &answer);
    close(socks[0]);
    int status = reap(sb, pid, pidfd, how != RAN);
    if (pidfd >= 0)
        close(pidfd);
    bool complete = false;
    if (how == RAN)
        rc = read_answer(&answer, what, code, log, &complete);
    if (!complete) {
        code->size = 0;
        log->size = 0;
        rc = stopped(sb, what, how, status);
    }
    udfkit_buf_free(&answer);
    return rc;
}

static void put_roots(const udfkit_sandbox *sb, udfkit_buf *req)
{
    if (sb->confine)
        udfkit_wire_put(req, UDFKIT_WIRE_CONFINE, "", 0);
    for (size_t i = 0; sb->confine && i < sb->nroots; i++)
        udfkit_wire_put_str(req, UDFKIT_WIRE_ROOT, sb->roots[i]);
}

udfkit_rc udfkit_sandbox_nvrtc(const udfkit_sandbox *sb, const udfkit_nvrtc_job *job, udfkit_buf *code,
                               udfkit_buf *log)
{
    char library[PATH_MAX];
    if (!udfkit_cuda_part_file(UDFKIT_PART_NVRTC, library, sizeof library))
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "NVRTC cannot be found for the sandbox helper to load it");
    udfkit_buf req = UDFKIT_BUF_INIT, what = UDFKIT_BUF_INIT;
    udfkit_buf_append(&req, UDFKIT_WIRE_REQUEST, 8);
    udfkit_wire_put_str(&req, UDFKIT_WIRE_JOB, "nvrtc");
    udfkit_wire_put_str(&req, UDFKIT_WIRE_LIBRARY, library);
    put_roots(sb, &req);
    udfkit_wire_put_str(&req, UDFKIT_WIRE_NAME, job->name);
    udfkit_wire_put_str(&req, UDFKIT_WIRE_SOURCE, job->source);
    for (size_t i = 0; i < job->noptions; i++)
        udfkit_wire_put_str(&req, UDFKIT_WIRE_OPTION, job->options[i]);
    for (size_t i = 0; i < job->nheaders; i++) {
        udfkit_wire_put_str(&req, UDFKIT_WIRE_HEADER, job->header_names[i]);
        udfkit_wire_put_str(&req, UDFKIT_WIRE_HEADER, job->header_texts[i]);
    }
    udfkit_wire_put_u32(&req, UDFKIT_WIRE_KIND, (uint32_t)job->kind);
    const char *arch = "";
    for (size_t i = 0; i < job->noptions; i++)
        if (strncmp(job->options[i], "-arch=", 6) == 0)
            arch = job->options[i] + 6;
    udfkit_buf_printf(&what, "the compile of %s%s%s", job->name, *arch ? " for " : "", arch);
    udfkit_rc rc = run(sb, what.data, &req, code, log);
    /* NVRTC says "out of memory" where it met the limit: the log says which limit. */
    if (rc == UDFKIT_RC_INPUT && sb->memory && log->data && strstr(log->data, "error: out of memory"))
        udfkit_buf_printf(log, "%s: note: the compile ran out of its memory limit of %llu MiB\n", job->name,
                          (unsigned long long)(sb->memory >> 20));
    udfkit_buf_free(&req);
    udfkit_buf_free(&what);
    return rc;
}

udfkit_rc udfkit_sandbox_jitlink(const udfkit_sandbox *sb, const char *library, const char *const *options,
                                 size_t noptions, const udfkit_link_input *inputs, size_t ninputs, bool ptx,
                                 udfkit_buf *out, udfkit_buf *log)
{
    udfkit_buf req = UDFKIT_BUF_INIT, what = UDFKIT_BUF_INIT;
    udfkit_buf_append(&req, UDFKIT_WIRE_REQUEST, 8);
    udfkit_wire_put_str(&req, UDFKIT_WIRE_JOB, "nvjitlink");
    udfkit_wire_put_str(&req, UDFKIT_WIRE_LIBRARY, library);
    put_roots(sb, &req);
    for (size_t i = 0; i < noptions; i++)
        udfkit_wire_put_str(&req, UDFKIT_WIRE_OPTION, options[i]);
    udfkit_wire_put_u32(&req, UDFKIT_WIRE_KIND, ptx);
    bool ok = true;
    for (size_t i = 0; ok && i < ninputs; i++) {
        udfkit_buf input = UDFKIT_BUF_INIT;
        uint32_t kind = (uint32_t)inputs[i].kind;
        unsigned char k[4] = {(unsigned char)kind, (unsigned char)(kind >> 8), (unsigned char)(kind >> 16),
                              (unsigned char)(kind >> 24)};
        ok = udfkit_buf_append(&input, k, 4) && udfkit_buf_append(&input, inputs[i].data, inputs[i].size) &&
             udfkit_wire_put(&req, UDFKIT_WIRE_INPUT, input.data, input.size);
        udfkit_buf_free(&input);
    }
    udfkit_buf_printf(&what, "the link%s%s", noptions ? " for " : "", noptions ? options[0] : "");
    udfkit_rc rc = ok ? run(sb, what.data, &req, out, log) : udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    udfkit_buf_free(&req);
    udfkit_buf_free(&what);
    return rc;
}
