/* A remote cache on a Redis server (6 or 7), through hiredis: GET and SET of "udfkit:<key>". */
#include "cache/remote.h"

#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

struct udfkit_remote_conn {
    redisContext *ctx;
    long operation_ms;
};

static struct timeval milliseconds(long ms)
{
    return (struct timeval){ms / 1000, (ms % 1000) * 1000};
}

/* hiredis says "Resource temporarily unavailable" where a read timed out. */
static char *context_error(const redisContext *ctx, long operation_ms)
{
    if (strstr(ctx->errstr, "temporarily unavailable") || strstr(ctx->errstr, "timed out"))
        return udfkit_remote_why("no answer within %ld ms (operation-timeout)", operation_ms);
    return udfkit_remote_why("%s", ctx->errstr);
}

/* A command; NULL with *why where the connection failed or the server answered an error. */
static redisReply *command(udfkit_remote_conn *conn, char **why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *reply = redisvCommand(conn->ctx, fmt, ap);
    va_end(ap);
    if (!reply) {
        *why = context_error(conn->ctx, conn->operation_ms);
        return NULL;
    }
    if (reply->type == REDIS_REPLY_ERROR) {
        *why = udfkit_remote_why("the server answered \"%s\"", reply->str);
        freeReplyObject(reply);
        return NULL;
    }
    return reply;
}

static void redis_close(udfkit_remote_conn *conn)
{
    if (conn) {
        redisFree(conn->ctx);
        free(conn);
    }
}

static udfkit_remote_conn *redis_connect(const udfkit_remote_config *c, char **why)
{
    struct timeval tv = milliseconds(c->connect_ms);
    redisContext *ctx = c->kind == UDFKIT_REMOTE_REDIS_UNIX ? redisConnectUnixWithTimeout(c->host, tv)
                                                             : redisConnectWithTimeout(c->host, c->port, tv);
    if (!ctx || ctx->err) {
        *why = ctx ? (strstr(ctx->errstr, "timed out") ? udfkit_remote_why("no connection within %ld ms (connect-timeout)", c->connect_ms)
                                                       : udfkit_remote_why("%s", ctx->errstr))
                   : udfkit_remote_why("out of memory");
        redisFree(ctx);
        return NULL;
    }
    udfkit_remote_conn *conn = calloc(1, sizeof *conn);
    conn->ctx = ctx;
    conn->operation_ms = c->operation_ms;
    redisSetTimeout(ctx, milliseconds(c->operation_ms));
    redisReply *reply = NULL;
    /* AUTH [user] password: the password is sent, never said (a failure names no credential). */
    if (c->password && !(reply = c->user ? command(conn, why, "AUTH %s %s", c->user, c->password)
                                         : command(conn, why, "AUTH %s", c->password))) {
        char *detail = *why;
        *why = udfkit_remote_why("authentication failed (%s)", detail);
        free(detail);
        redis_close(conn);
        return NULL;
    }
    freeReplyObject(reply);
    reply = c->db ? command(conn, why, "SELECT %d", c->db) : command(conn, why, "PING");
    if (!reply) {
        redis_close(conn);
        return NULL;
    }
    freeReplyObject(reply);
    return conn;
}

static udfkit_remote_answer redis_get(udfkit_remote_conn *conn, const char *key, udfkit_buf *out, char **why)
{
    redisReply *reply = command(conn, why, "GET udfkit:%s", key);
    if (!reply)
        return UDFKIT_REMOTE_FAILED;
    udfkit_remote_answer a = UDFKIT_REMOTE_FAILED;
    if (reply->type == REDIS_REPLY_NIL)
        a = UDFKIT_REMOTE_ABSENT;
    else if (reply->type == REDIS_REPLY_STRING && udfkit_buf_append(out, reply->str, reply->len))
        a = UDFKIT_REMOTE_FOUND;
    else
        *why = udfkit_remote_why("GET answered a reply of type %d", reply->type);
    freeReplyObject(reply);
    return a;
}

static udfkit_remote_answer redis_put(udfkit_remote_conn *conn, const char *key, const void *data, size_t size,
                                      bool overwrite, char **why)
{
    /* NX: an entry there already (another machine stored it first) is left as it is. */
    redisReply *reply = overwrite ? command(conn, why, "SET udfkit:%s %b", key, data, size)
                                  : command(conn, why, "SET udfkit:%s %b NX", key, data, size);
    if (!reply)
        return UDFKIT_REMOTE_FAILED;
    udfkit_remote_answer a = reply->type == REDIS_REPLY_STATUS ? UDFKIT_REMOTE_FOUND
                             : reply->type == REDIS_REPLY_NIL  ? UDFKIT_REMOTE_ABSENT
                                                               : UDFKIT_REMOTE_FAILED;
    if (a == UDFKIT_REMOTE_FAILED)
        *why = udfkit_remote_why("SET answered a reply of type %d", reply->type);
    freeReplyObject(reply);
    return a;
}

const udfkit_remote_backend udfkit_remote_redis = {redis_connect, redis_get, redis_put, redis_close};
