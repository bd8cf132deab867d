#include "base/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

udfkit_rc udfkit_run_program(char *const argv[], const char *input, size_t input_size, udfkit_buf *output,
                             const char *stderr_path, int *status)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1};
    if (pipe(in) != 0 || pipe(out) != 0)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "cannot create a pipe: %s", strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    pid_t pid;
    int err = strchr(argv[0], '/') ? posix_spawn(&pid, argv[0], &actions, NULL, argv, environ)
                                   : posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    if (err != 0) {
        close(in[1]);
        close(out[0]);
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "cannot run %s: %s", argv[0], strerror(err));
    }
    /* Feed input and drain output together, so neither side blocks on a full pipe. */
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    size_t written = 0;
    if (input_size == 0) {
        close(in[1]);
        in[1] = -1;
    }
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    for (;;) {
        struct pollfd fds[2] = {{out[0], POLLIN, 0}, {in[1], POLLOUT, 0}};
        int nfds = in[1] >= 0 ? 2 : 1;
        if (poll(fds, (nfds_t)nfds, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (nfds == 2 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = write(in[1], input + written, input_size - written);
            if (n > 0)
                written += (size_t)n;
            if (n < 0 || written == input_size) {
                close(in[1]);
                in[1] = -1;
            }
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            char chunk[65536];
            ssize_t n = read(out[0], chunk, sizeof chunk);
            if (n > 0)
                udfkit_buf_append(output, chunk, (size_t)n);
            else if (n == 0 || (errno != EAGAIN && errno != EINTR))
                break;
        }
    }
    if (in[1] >= 0)
        close(in[1]);
    close(out[0]);
    signal(SIGPIPE, old_pipe);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + (WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
    if (!output->data)
        udfkit_buf_append(output, "", 0);
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_run_program_attached(char *const argv[], int *status)
{
    pid_t pid;
    int err = strchr(argv[0], '/') ? posix_spawn(&pid, argv[0], NULL, NULL, argv, environ)
                                   : posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    if (err != 0)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "cannot run %s: %s", argv[0], strerror(err));
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + (WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
    return UDFKIT_RC_OK;
}
