/* The remote levels behind the local cache: UDFKIT_REMOTE_CACHE (SPEC.md, "Remote cache").
 *
 * One or more URLs separated by blanks, each optionally followed by `|attribute` or
 * `|key=value` parts, as ccache writes its remote storage:
 *   redis://[[user]:password@]host[:port][/db]    Redis 6/7 through hiredis, keys "udfkit:<key>"
 *   redis+unix:/path/to.sock                      the same over a Unix socket
 *   http://[user:password@]host[:port]/prefix     GET, HEAD and PUT through libcurl
 *   https://...
 * Attributes: read-only; layout=subdirs|flat|bazel (HTTP; default subdirs); connect-timeout=<ms>
 * (default 100); operation-timeout=<ms> (default 10000); max-entry-size=<bytes, K/M/G> (default
 * 64M: larger entries are not stored); bearer-token=<token> or bearer-token-env=<variable> (HTTP);
 * password-env=<variable> (a password kept out of the URL).
 *
 * The tool looks in the local cache, then in each remote in turn; a remote hit fills the local
 * cache; a result built after a miss is stored to every writable remote. A remote entry is the
 * local entry's file behind a header (magic, format version, the key, size, XXH3-128 of the
 * content), verified before use: a wrong, truncated or foreign entry is a miss with one warning.
 * A remote that is down, refuses, times out or answers garbage costs its timeout once: one
 * warning, and it is off for the rest of the process. Outputs and exit status are as without it.
 * Credentials are never printed: URLs are shown with the password as "***". */
#ifndef UDFKIT_CACHE_REMOTE_H
#define UDFKIT_CACHE_REMOTE_H

#include "base/buf.h"
#include "base/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum udfkit_remote_kind { UDFKIT_REMOTE_REDIS, UDFKIT_REMOTE_REDIS_UNIX, UDFKIT_REMOTE_HTTP } udfkit_remote_kind;
typedef enum udfkit_remote_layout { UDFKIT_LAYOUT_SUBDIRS, UDFKIT_LAYOUT_FLAT, UDFKIT_LAYOUT_BAZEL } udfkit_remote_layout;

/* One URL of UDFKIT_REMOTE_CACHE, parsed. */
typedef struct udfkit_remote_config {
    char *shown; /* the URL as printed: password "***", attributes without secret values */
    udfkit_remote_kind kind;
    char *host;  /* Redis host, or the socket's path */
    int port;
    int db;
    char *base;  /* HTTP: scheme://host[:port]/prefix, no credentials, no trailing '/' */
    char *user, *password, *bearer;
    udfkit_remote_layout layout;
    bool read_only;
    long connect_ms, operation_ms;
    uint64_t max_entry;
} udfkit_remote_config;

/* A reason, formatted and malloc'd, for the *why of the functions below. */
char *udfkit_remote_why(const char *fmt, ...) UDFKIT_PRINTF(1, 2);

/* Parses one URL with its attributes; false with *why (malloc'd) where it cannot be used. */
bool udfkit_remote_parse(const char *text, udfkit_remote_config *out, char **why);
void udfkit_remote_config_free(udfkit_remote_config *c);

/* What a backend answers. */
typedef enum udfkit_remote_answer {
    UDFKIT_REMOTE_FOUND,  /* get: the bytes are in *out; put: stored */
    UDFKIT_REMOTE_ABSENT, /* get: no such key; put: already there, nothing sent */
    UDFKIT_REMOTE_FAILED  /* the server failed: *why says how */
} udfkit_remote_answer;

/* A backend's connection, made on first use and kept for the process. Calls on one
 * connection are serialized by the caller. */
typedef struct udfkit_remote_conn udfkit_remote_conn;
typedef struct udfkit_remote_backend {
    udfkit_remote_conn *(*connect)(const udfkit_remote_config *c, char **why);
    udfkit_remote_answer (*get)(udfkit_remote_conn *conn, const char *key, udfkit_buf *out, char **why);
    /* Stores unless the key is there already; `overwrite`: stores in any case (the entry
     * there was found bad). */
    udfkit_remote_answer (*put)(udfkit_remote_conn *conn, const char *key, const void *data, size_t size,
                                bool overwrite, char **why);
    void (*close)(udfkit_remote_conn *conn);
} udfkit_remote_backend;

extern const udfkit_remote_backend udfkit_remote_redis;
extern const udfkit_remote_backend udfkit_remote_http;

/* The framing of a remote entry around the local entry file's bytes. */
#define UDFKIT_REMOTE_HEADER_SIZE 72
void udfkit_remote_frame(const char *key, const void *content, size_t size, udfkit_buf *out);
/* Checks a fetched entry; on success *content points into `entry`. *why names the fault. */
bool udfkit_remote_unframe(const char *key, const udfkit_buf *entry, const char **content, size_t *size,
                           const char **why);

/* Reads UDFKIT_REMOTE_CACHE and puts the remotes behind the local cache of this process
 * (the tool calls it; the runtime's load-time link cache stays local). Idempotent. */
void udfkit_remote_install(void);

/* `udfkit cache stats`: each remote configured now or counted before in the local cache
 * directory `dir`, with its counts there. */
typedef struct udfkit_remote_stats {
    char *url; /* shown form */
    bool configured, read_only;
    long long hits, misses, stores, errors, bytes_read, bytes_written;
} udfkit_remote_stats;
size_t udfkit_remote_read_stats(const char *dir, udfkit_remote_stats **out);
void udfkit_remote_stats_free(udfkit_remote_stats *s, size_t n);

/* `udfkit doctor`: whether each remote UDFKIT_REMOTE_CACHE names answers a lookup (of a key
 * no entry has), and in how long; *why says why not. */
typedef struct udfkit_remote_probe {
    char *url; /* shown form */
    bool reachable;
    double ms;
    char *why;
} udfkit_remote_probe;
size_t udfkit_remote_probe_all(udfkit_remote_probe **out);
void udfkit_remote_probe_free(udfkit_remote_probe *p, size_t n);

#endif
