#define _GNU_SOURCE /* POSIX_SPAWN_SETSID */
#include "python_server.h"

#include "subprocess.h"
#include "templates.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

extern char **environ;

#define DEFAULT_IDLE_SECONDS 120
#define START_TIMEOUT_SECONDS 120 /* importing numba on a loaded machine */

static long idle_seconds(void)
{
    const char *env = getenv("UDFKIT_PYTHON_SERVER_IDLE");
    if (!env || !*env)
        return DEFAULT_IDLE_SECONDS;
    char *end;
    long v = strtol(env, &end, 10);
    return *end || v < 0 ? DEFAULT_IDLE_SECONDS : v;
}

/* A directory that is this user's alone, or false. */
static bool private_dir(char *out, size_t size)
{
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    int n = runtime && runtime[0] == '/' ? snprintf(out, size, "%s/udfkit", runtime)
                                         : snprintf(out, size, "/tmp/udfkit-%u", (unsigned)getuid());
    if (n < 0 || (size_t)n >= size)
        return false;
    if (mkdir(out, 0700) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    return lstat(out, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() && (st.st_mode & 077) == 0;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The socket of the server for this interpreter, frontend, udfkit and environment. */
static bool socket_path(const char *python, char *out, size_t size)
{
    char dir[sizeof ((struct sockaddr_un *)0)->sun_path];
    if (!private_dir(dir, sizeof dir))
        return false;
    XXH3_state_t *h = XXH3_createState();
    XXH3_64bits_reset(h);
    const char *parts[] = {python, udfkit_py_worker, UDFKIT_VERSION_STRING};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        XXH3_64bits_update(h, parts[i], strlen(parts[i]) + 1);
    size_t n = 0;
    while (environ[n])
        n++;
    const char **env = malloc((n + 1) * sizeof *env);
    memcpy(env, environ, n * sizeof *env);
    qsort(env, n, sizeof *env, by_string);
    for (size_t i = 0; i < n; i++)
        XXH3_64bits_update(h, env[i], strlen(env[i]) + 1);
    free(env);
    unsigned long long key = (unsigned long long)XXH3_64bits_digest(h);
    XXH3_freeState(h);
    int len = snprintf(out, size, "%s/py-%016llx.sock", dir, key);
    return len > 0 && (size_t)len < size;
}

static int connect_to(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* In a session of its own, with nothing of ours open: Ninja and ctest wait for every
 * holder of a command's output pipe, and the server outlives the command. */
static pid_t start_server(const char *python, const char *path, long idle)
{
    char idle_text[32];
    snprintf(idle_text, sizeof idle_text, "%ld", idle);
    char *argv[] = {(char *)python, "-c", (char *)udfkit_py_worker, "--serve", (char *)path, idle_text, NULL};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    for (int fd = 0; fd < 3; fd++)
        posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd ? O_WRONLY : O_RDONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    pid_t pid;
    int err = strchr(python, '/') ? posix_spawn(&pid, python, &actions, &attr, argv, environ)
                                  : posix_spawnp(&pid, python, &actions, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    return err == 0 ? pid : -1;
}

/* Whether no server holds (or is starting under) the lock. */
static bool nobody_serving(const char *path)
{
    char lock[PATH_MAX + 8];
    snprintf(lock, sizeof lock, "%s.lock", path);
    int fd = open(lock, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return true;
    bool free_ = flock(fd, LOCK_SH | LOCK_NB) == 0;
    close(fd);
    return free_;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A connection to a running server, starting one where none runs; -1 where none can be had. */
static int server_connection(const char *python, const char *path, long idle)
{
    int fd = connect_to(path);
    if (fd >= 0)
        return fd;
    pid_t pid = start_server(python, path, idle);
    if (pid < 0)
        return -1;
    double deadline = now_seconds() + START_TIMEOUT_SECONDS;
    while (now_seconds() < deadline) {
        nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
        if ((fd = connect_to(path)) >= 0)
            return fd;
        if (pid > 0) {
            int st;
            if (waitpid(pid, &st, WNOHANG) == pid) {
                pid = 0;
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                    return -1; /* it could not import numba: a worker will say why */
            }
        }
        if (pid == 0 && nobody_serving(path))
            return -1; /* ours lost the race to a server that then stopped */
    }
    return -1;
}

static bool send_all(int fd, const char *data, size_t size)
{
    while (size) {
        ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= (size_t)n;
    }
    return true;
}

/* One request through the server; false (and nothing in output) where it gave no answer. */
static bool ask_server(int fd, const char *request, const char *stderr_path, udfkit_buf *output)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return false;
    json_t *cwd_json = json_string(cwd), *stderr_json = json_string(stderr_path);
    char *cwd_text = json_dumps(cwd_json, JSON_ENCODE_ANY), *stderr_text = json_dumps(stderr_json, JSON_ENCODE_ANY);
    udfkit_buf message = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&message, "{\"cwd\": %s, \"stderr\": %s, \"request\": ", cwd_text, stderr_text);
    udfkit_buf_append(&message, request, strlen(request));
    udfkit_buf_append(&message, "}", 1);
    free(cwd_text);
    free(stderr_text);
    json_decref(cwd_json);
    json_decref(stderr_json);
    bool ok = send_all(fd, message.data, message.size) && shutdown(fd, SHUT_WR) == 0;
    udfkit_buf_free(&message);
    while (ok) {
        char chunk[65536];
        ssize_t n = recv(fd, chunk, sizeof chunk, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ok = n == 0;
            break;
        }
        udfkit_buf_append(output, chunk, (size_t)n);
    }
    json_t *answer = ok ? json_loadb(output->data, output->size, 0, NULL) : NULL;
    const char *kind = json_string_value(json_object_get(answer, "kind"));
    ok = answer && !(kind && strcmp(kind, "stale") == 0); /* an upgraded toolchain: a new server next time */
    json_decref(answer);
    if (!ok)
        output->size = 0;
    return ok;
}

udfkit_rc udfkit_python_run(const char *python, const char *request, udfkit_buf *output, const char *stderr_path,
                            int *status)
{
    long idle = idle_seconds();
    char path[PATH_MAX];
    if (idle > 0 && socket_path(python, path, sizeof path)) {
        int fd = server_connection(python, path, idle);
        if (fd >= 0) {
            bool answered = ask_server(fd, request, stderr_path, output);
            close(fd);
            if (answered) {
                *status = 0;
                return UDFKIT_RC_OK;
            }
        }
    }
    char *argv[] = {(char *)python, "-c", (char *)udfkit_py_worker, NULL};
    return udfkit_run_program(argv, request, strlen(request), output, stderr_path, status);
}
