/* The plumbing of udfkit's background server (python_server.h): where its socket lives,
 * how it is started, found and talked to. Kept apart from what it serves.
 *
 * A server belongs to one user: its socket is in a directory only that user can enter
 * ($XDG_RUNTIME_DIR/udfkit, else /tmp/udfkit-<uid>), and it answers only that user. The
 * socket's name hashes everything that could change an answer, so a server is shared only
 * by requests it would answer as a fresh process would. A lock beside the socket keeps
 * one server per name, starting or running. Servers leave after UDFKIT_SERVER_IDLE
 * seconds without a request (default 120); UDFKIT_SERVER_IDLE=0 turns them off. Where no
 * server can be used the work is done by the asking command itself, so a server never
 * decides a result. */
#ifndef UDFKIT_SERVER_H
#define UDFKIT_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Seconds a server waits for its next request; 0: servers are off. */
long udfkit_server_idle_seconds(void);

/* The socket path for a server of `kind` ("py") whose answers depend on `identity`
 * (and this udfkit's version); false where no private directory can be had. */
bool udfkit_server_socket(const char *kind, const char *const *identity, size_t count, char *out, size_t size);

/* A connection to the server at `path`, or -1. */
int udfkit_server_connect(const char *path);

/* Starts `argv` in a session of its own with nothing of ours open: Ninja and ctest wait
 * for every holder of a command's output pipe, and a server outlives the command. */
pid_t udfkit_server_spawn(char *const argv[]);

/* Whether a server holds (starting or running) the lock of `path`, "<path>.lock" (the
 * server takes it with flock before it starts). */
bool udfkit_server_busy(const char *path);

/* Whole-message output on a stream socket (the answer is read by the server's client,
 * which knows what its server says first: python_server.c). */
bool udfkit_server_send(int fd, const void *data, size_t size);

#endif
