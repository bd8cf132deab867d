#include "frontend/python_server.h"

#include "base/fs.h"
#include "base/subprocess.h"
#include "base/templates.h"
#include "frontend/server.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define START_TIMEOUT_SECONDS 120 /* importing numba on a loaded machine */

static int by_string(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Variables a shell sets that cannot change an answer: the working directory goes with
 * each request, and the rest say where a shell has been. */
static bool irrelevant(const char *var)
{
    static const char *const names[] = {"PWD=", "OLDPWD=", "_=", "SHLVL="};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strncmp(var, names[i], strlen(names[i])) == 0)
            return true;
    return false;
}

/* The socket of the server for this interpreter, Python frontend, worker and environment
 * (all of it but what cannot change an answer: numba reads its settings from it at import). */
static bool socket_path(const char *python, const char *frontend, char *out, size_t size)
{
    size_t count = 0;
    while (environ[count])
        count++;
    const char **identity = malloc((count + 3) * sizeof *identity);
    if (!identity)
        return false;
    identity[0] = python;
    identity[1] = frontend;
    identity[2] = udfkit_py_worker;
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (!irrelevant(environ[i]))
            identity[3 + n++] = environ[i];
    qsort(identity + 3, n, sizeof *identity, by_string);
    bool ok = udfkit_server_socket("py", identity, n + 3, out, size);
    free(identity);
    return ok;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A connection to a running server, starting one where none runs and waiting for it;
 * -1 where none can be had. */
static int server_connection(const char *python, const char *frontend, const char *path, long idle)
{
    int fd = udfkit_server_connect(path);
    if (fd >= 0)
        return fd;
    char idle_text[32];
    snprintf(idle_text, sizeof idle_text, "%ld", idle);
    char *argv[] = {(char *)python, "-c", (char *)udfkit_py_worker, "--serve", (char *)path, idle_text,
                    (char *)frontend, NULL};
    pid_t pid = udfkit_server_spawn(argv);
    if (pid < 0)
        return -1;
    double deadline = now_seconds() + START_TIMEOUT_SECONDS;
    while (now_seconds() < deadline) {
        nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
        if ((fd = udfkit_server_connect(path)) >= 0)
            return fd;
        if (pid > 0) {
            int st;
            if (waitpid(pid, &st, WNOHANG) == pid) {
                pid = 0;
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                    return -1; /* it could not import its frontend: a worker will say why */
            }
        }
        if (pid == 0 && !udfkit_server_busy(path))
            return -1; /* ours lost the race to a server that then stopped */
    }
    return -1;
}

/* Seconds a server has to say that a child took a request: one that does not is stopped or
 * wedged. UDFKIT_SERVER_TIMEOUT, default 10. */
static double ack_timeout(void)
{
    const char *env = getenv("UDFKIT_SERVER_TIMEOUT");
    double s = env && *env ? strtod(env, NULL) : 10.0;
    return s > 0 ? s : 10.0;
}

/* Whether process `pid` is stopped (SIGSTOP, a debugger) or gone. */
static bool stopped_or_gone(long pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *close = strrchr(text, ')'); /* the name may hold anything; the state follows it */
    return !close || close[1] != ' ' || close[2] == 'T' || close[2] == 't' || close[2] == 'Z' || close[2] == 'X';
}

/* Reads the answer. The server's child first says who it is ("udfkit-child <pid>\n") and
 * then answers, however long the compile takes, while it lives and runs; a server that says
 * nothing within ack_timeout(), or a child that stops or dies, gives no answer (false). A
 * message without the line (a stale server's) is the answer itself. */
static bool receive_answer(int fd, udfkit_buf *out)
{
    double deadline = now_seconds() + ack_timeout();
    long child = 0;
    for (;;) {
        int wait_ms = child ? 1000 : (int)((deadline - now_seconds()) * 1000);
        if (!child && wait_ms <= 0)
            return false;
        struct pollfd p = {fd, POLLIN, 0};
        int ready = poll(&p, 1, wait_ms);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0)
            return false;
        if (ready == 0) {
            if (child && stopped_or_gone(child))
                return false;
            continue;
        }
        char chunk[65536];
        ssize_t n = recv(fd, chunk, sizeof chunk, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        if (n == 0)
            return true;
        udfkit_buf_append(out, chunk, (size_t)n);
        const char *line_end = child ? NULL : memchr(out->data, '\n', out->size);
        if (line_end && strncmp(out->data, "udfkit-child ", 13) == 0) {
            child = strtol(out->data + 13, NULL, 10);
            size_t header = (size_t)(line_end + 1 - out->data);
            memmove(out->data, out->data + header, out->size - header + 1);
            out->size -= header;
        }
    }
}

/* One request through the server; false (and nothing in output) where it gave no answer. */
static bool ask_server(int fd, const char *request, const char *stderr_path, udfkit_buf *output)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return false;
    json_t *cwd_json = json_string(cwd), *stderr_json = json_string(stderr_path);
    if (!cwd_json || !stderr_json) { /* not UTF-8: a worker of our own takes it */
        json_decref(cwd_json);
        json_decref(stderr_json);
        return false;
    }
    char *cwd_text = json_dumps(cwd_json, JSON_ENCODE_ANY), *stderr_text = json_dumps(stderr_json, JSON_ENCODE_ANY);
    udfkit_buf message = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&message, "{\"cwd\": %s, \"stderr\": %s, \"request\": ", cwd_text, stderr_text);
    udfkit_buf_append(&message, request, strlen(request));
    udfkit_buf_append(&message, "}", 1);
    free(cwd_text);
    free(stderr_text);
    json_decref(cwd_json);
    json_decref(stderr_json);
    /* A stopped server would never take a large request off the socket. */
    struct timeval limit = {(time_t)ack_timeout(), 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    bool ok = udfkit_server_send(fd, message.data, message.size) && shutdown(fd, SHUT_WR) == 0 &&
              receive_answer(fd, output);
    udfkit_buf_free(&message);
    json_t *answer = ok ? json_loadb(output->data, output->size, 0, NULL) : NULL;
    const char *kind = json_string_value(json_object_get(answer, "kind"));
    /* An upgraded toolchain (a new server next time), or a failure the server's state may
     * have caused: a worker of our own answers instead. */
    ok = answer && !(kind && (strcmp(kind, "stale") == 0 || strcmp(kind, "internal") == 0));
    json_decref(answer);
    if (!ok)
        output->size = 0;
    return ok;
}

udfkit_rc udfkit_python_run(const char *python, const char *frontend, const char *request, udfkit_buf *output,
                            const char *stderr_path, int *status)
{
    long idle = udfkit_server_idle_seconds();
    char path[PATH_MAX];
    /* A relative interpreter path names another interpreter in another directory: the
     * server is found by the absolute one (not resolved: a venv's python is a link). */
    char *absolute = strchr(python, '/') ? udfkit_path_absolute(python) : NULL;
    const char *server_python = absolute ? absolute : python;
    if (idle > 0 && socket_path(server_python, frontend, path, sizeof path)) {
        int fd = server_connection(server_python, frontend, path, idle);
        bool answered = fd >= 0 && ask_server(fd, request, stderr_path, output);
        if (fd >= 0)
            close(fd);
        if (answered) {
            free(absolute);
            *status = 0;
            return UDFKIT_RC_OK;
        }
    }
    free(absolute);
    char *argv[] = {(char *)python, "-c", (char *)udfkit_py_worker, NULL};
    return udfkit_run_program(argv, request, strlen(request), output, stderr_path, status);
}
