#define _GNU_SOURCE /* POSIX_SPAWN_SETSID, SO_PEERCRED */
#include "frontend/server.h"

#include "cache/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_IDLE_SECONDS 120

long udfkit_server_idle_seconds(void)
{
    const char *env = getenv("UDFKIT_SERVER_IDLE");
    if (!env || !*env)
        return DEFAULT_IDLE_SECONDS;
    char *end;
    long v = strtol(env, &end, 10);
    return *end || v < 0 ? DEFAULT_IDLE_SECONDS : v;
}

/* Whether `dir` is (made) a directory of this user's alone, with room for a name. */
static bool owned_dir(const char *dir, int n, size_t size, size_t room)
{
    if (n < 0 || (size_t)n + room >= size)
        return false;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() && (st.st_mode & 077) == 0;
}

/* A directory that is this user's alone, or false: $XDG_RUNTIME_DIR/udfkit, else (where
 * that cannot be had, or a socket's name would not fit a socket address there)
 * /tmp/udfkit-<uid>. */
static bool private_dir(char *out, size_t size, size_t room)
{
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (runtime && runtime[0] == '/' && owned_dir(out, snprintf(out, size, "%s/udfkit", runtime), size, room))
        return true;
    return owned_dir(out, snprintf(out, size, "/tmp/udfkit-%u", (unsigned)getuid()), size, room);
}

bool udfkit_server_socket(const char *kind, const char *const *identity, size_t count, char *out, size_t size)
{
    char dir[sizeof ((struct sockaddr_un *)0)->sun_path];
    /* "/<kind>-<key>.sock.lock" must fit beside it */
    if (!private_dir(dir, sizeof dir, strlen(kind) + UDFKIT_CACHE_KEY_SIZE + 11))
        return false;
    /* The cache's key builder: each part length-prefixed, udfkit's version included. */
    udfkit_hasher *h = udfkit_hasher_new("server");
    udfkit_hasher_add_str(h, kind);
    for (size_t i = 0; i < count; i++)
        udfkit_hasher_add_str(h, identity[i]);
    char key[UDFKIT_CACHE_KEY_SIZE];
    udfkit_hasher_finish(h, key);
    int len = snprintf(out, size, "%s/%s-%s.sock", dir, kind, key);
    return len > 0 && (size_t)len + 5 < size && (size_t)len < sizeof dir;
}

int udfkit_server_connect(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct ucred peer;
    socklen_t len = sizeof peer;
    /* Only a server of this user's is trusted with a request (and its answer). */
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 || peer.uid != getuid()) {
        close(fd);
        return -1;
    }
    return fd;
}

pid_t udfkit_server_spawn(char *const argv[])
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    for (int fd = 0; fd < 3; fd++)
        posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd ? O_WRONLY : O_RDONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    pid_t pid;
    int err = strchr(argv[0], '/') ? posix_spawn(&pid, argv[0], &actions, &attr, argv, environ)
                                   : posix_spawnp(&pid, argv[0], &actions, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    return err == 0 ? pid : -1;
}

bool udfkit_server_busy(const char *path)
{
    char lock[PATH_MAX];
    snprintf(lock, sizeof lock, "%s.lock", path);
    int fd = open(lock, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool busy = flock(fd, LOCK_SH | LOCK_NB) != 0;
    close(fd);
    return busy;
}

bool udfkit_server_send(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= (size_t)n;
    }
    return true;
}
