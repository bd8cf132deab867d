/* Benchmarks that time a step in a fresh process (bench_link.c, bench_bind.c): this program
 * run again as a child, which prints the step's time in ms on its standard output. */
#ifndef BENCH_CHILD_H
#define BENCH_CHILD_H

#include "bench_common.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs /proc/self/exe with `args` (NULL-terminated), storing the time it printed in *ms.
 * Returns 0, BENCH_SKIPPED where the child found no GPU (its message printed), or 1 where it
 * failed (`what` names it). */
/* The second number the last child printed, or -1 where it printed one. */
static double bench_child_second = -1;

static inline int bench_run_child(char **args, const char *what, double *ms)
{
    int fds[2];
    if (pipe(fds) != 0) {
        fprintf(stderr, "FAILED: pipe: %s\n", strerror(errno));
        return 1;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "FAILED: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], STDOUT_FILENO) < 0)
            _exit(1);
        close(fds[1]);
        execv("/proc/self/exe", args);
        fprintf(stderr, "FAILED: exec /proc/self/exe: %s\n", strerror(errno));
        _exit(1);
    }
    close(fds[1]);
    char text[4096];
    size_t used = 0;
    ssize_t got;
    while ((got = read(fds[0], text + used, sizeof text - 1 - used)) > 0 || (got < 0 && errno == EINTR))
        used += got > 0 ? (size_t)got : 0;
    close(fds[0]);
    text[used] = '\0';
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code == BENCH_SKIPPED) {
        printf("%s", text);
        return BENCH_SKIPPED;
    }
    char *end = NULL;
    *ms = strtod(text, &end);
    /* A second number, where the child prints one (bind: its first launch after the bind). */
    char *second_end = NULL;
    bench_child_second = end ? strtod(end, &second_end) : 0;
    if (!second_end || second_end == end)
        bench_child_second = -1;
    if (code != 0 || end == text) {
        fprintf(stderr, "FAILED: the %s process exited with %d, printing '%s'\n", what, code, text);
        return 1;
    }
    return 0;
}

#endif
