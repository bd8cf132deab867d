/* UDFKIT_REMOTE_CACHE's URLs and attributes (remote.h), and the form they are shown in. */
#include "cache/remote.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CONNECT_MS 100
#define DEFAULT_OPERATION_MS 10000
#define DEFAULT_MAX_ENTRY (64ull << 20)

char *udfkit_remote_why(const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *out = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (out)
        vsnprintf(out, (size_t)n + 1, fmt, again);
    va_end(again);
    va_end(ap);
    return out;
}

#define fail_why(why, ...) (*(why) = udfkit_remote_why(__VA_ARGS__), false)

/* %XX decoding of a URL's user and password; NULL where an escape is malformed. */
static char *percent_decode(const char *s, size_t len)
{
    char *out = malloc(len + 1), *o = out;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '%') {
            *o++ = s[i];
            continue;
        }
        char hex[3] = {i + 2 < len ? s[i + 1] : 0, i + 2 < len ? s[i + 2] : 0, 0};
        if (!isxdigit((unsigned char)hex[0]) || !isxdigit((unsigned char)hex[1])) {
            free(out);
            return NULL;
        }
        *o++ = (char)strtol(hex, NULL, 16);
        i += 2;
    }
    *o = '\0';
    return out;
}

static bool parse_number(const char *text, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v <= 0 || v > 3600000)
        return false;
    *out = v;
    return true;
}

static bool parse_size(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    uint64_t unit = 1;
    if (*end == 'K' || *end == 'k')
        unit = 1ull << 10;
    else if (*end == 'M' || *end == 'm')
        unit = 1ull << 20;
    else if (*end == 'G' || *end == 'g')
        unit = 1ull << 30;
    if (unit != 1)
        end++;
    if (errno || end == text || *end || v == 0 || v > (1ull << 40) / unit)
        return false;
    *out = v * unit;
    return true;
}

/* Secrets named by environment variables: bearer-token-env=, password-env=. */
static bool from_env(const char *var, char **out, char **why)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return fail_why(why, "the environment variable %s is not set", var);
    free(*out);
    *out = strdup(v);
    return true;
}

/* One `|name` or `|name=value` part; `shown` gets the part as printed. */
static bool parse_attribute(const char *part, udfkit_remote_config *c, udfkit_buf *shown, char **why)
{
    const char *eq = strchr(part, '=');
    size_t name_len = eq ? (size_t)(eq - part) : strlen(part);
    const char *value = eq ? eq + 1 : NULL;
#define IS(n) (name_len == strlen(n) && strncmp(part, n, name_len) == 0)
    bool ok = true, secret = false;
    if (IS("read-only") && !value)
        c->read_only = true;
    else if (IS("layout") && value) {
        if (strcmp(value, "subdirs") == 0)
            c->layout = UDFKIT_LAYOUT_SUBDIRS;
        else if (strcmp(value, "flat") == 0)
            c->layout = UDFKIT_LAYOUT_FLAT;
        else if (strcmp(value, "bazel") == 0)
            c->layout = UDFKIT_LAYOUT_BAZEL;
        else
            return fail_why(why, "layout=%s: the layouts are subdirs, flat and bazel", value);
    } else if (IS("connect-timeout") && value)
        ok = parse_number(value, &c->connect_ms) || fail_why(why, "connect-timeout=%s: give milliseconds", value);
    else if (IS("operation-timeout") && value)
        ok = parse_number(value, &c->operation_ms) || fail_why(why, "operation-timeout=%s: give milliseconds", value);
    else if (IS("max-entry-size") && value)
        ok = parse_size(value, &c->max_entry) || fail_why(why, "max-entry-size=%s: give bytes (K, M, G)", value);
    else if (IS("bearer-token") && value) {
        free(c->bearer);
        c->bearer = strdup(value);
        secret = true;
    } else if (IS("bearer-token-env") && value)
        ok = from_env(value, &c->bearer, why);
    else if (IS("password-env") && value)
        ok = from_env(value, &c->password, why);
    else {
        udfkit_buf b = UDFKIT_BUF_INIT;
        udfkit_buf_append(&b, part, name_len);
        (void)fail_why(why, "unknown attribute \"%s\" (read-only, layout=, connect-timeout=, operation-timeout=, "
                      "max-entry-size=, bearer-token=, bearer-token-env=, password-env=)", b.data);
        udfkit_buf_free(&b);
        return false;
    }
#undef IS
    udfkit_buf_puts(shown, "|");
    if (secret)
        udfkit_buf_printf(shown, "%.*s=***", (int)name_len, part);
    else
        udfkit_buf_puts(shown, part);
    return ok;
}

/* scheme://[user[:password]@]host[:port][/path]: the parts after "://". */
/* `shown` gets the authority with its password as "***"; *host_at is where its host starts
 * there, *path the rest of the URL. */
static bool parse_authority(const char *rest, udfkit_remote_config *c, udfkit_buf *shown, size_t *host_at,
                            const char **path, char **why)
{
    const char *slash = rest + strcspn(rest, "/");
    const char *at = memchr(rest, '@', (size_t)(slash - rest));
    const char *host = rest;
    if (at) {
        const char *colon = memchr(rest, ':', (size_t)(at - rest));
        const char *user_end = colon ? colon : at;
        if (user_end > rest && !(c->user = percent_decode(rest, (size_t)(user_end - rest))))
            return fail_why(why, "a malformed %%-escape in the user name");
        if (colon && !(c->password = percent_decode(colon + 1, (size_t)(at - colon - 1))))
            return fail_why(why, "a malformed %%-escape in the password");
        udfkit_buf_printf(shown, "%.*s%s@", (int)(user_end - rest), rest, colon ? ":***" : "");
        host = at + 1;
    }
    *host_at = shown->size;
    const char *port = NULL;
    const char *colon = memchr(host, ':', (size_t)(slash - host));
    if (host[0] == '[') { /* [::1]:6379 */
        const char *close = memchr(host, ']', (size_t)(slash - host));
        if (!close)
            return fail_why(why, "an IPv6 address without its closing ']'");
        c->host = strndup(host + 1, (size_t)(close - host - 1));
        colon = close[1] == ':' ? close + 1 : NULL;
    } else
        c->host = strndup(host, (size_t)((colon ? colon : slash) - host));
    if (!*c->host)
        return fail_why(why, "no host");
    if (colon) {
        port = colon + 1;
        char *end;
        long p = strtol(port, &end, 10);
        if (end != slash || p <= 0 || p > 65535)
            return fail_why(why, "the port is not a number from 1 to 65535");
        c->port = (int)p;
    }
    udfkit_buf_append(shown, host, (size_t)(slash - host));
    *path = slash;
    return true;
}

static bool parse_url(const char *url, udfkit_remote_config *c, udfkit_buf *shown, char **why)
{
    const char *path;
    if (strncmp(url, "redis+unix:", 11) == 0) {
        c->kind = UDFKIT_REMOTE_REDIS_UNIX;
        const char *p = url + 11;
        if (strncmp(p, "//", 2) == 0)
            p += 2;
        if (*p != '/')
            return fail_why(why, "redis+unix: takes an absolute socket path (redis+unix:/path/to.sock)");
        c->host = strdup(p);
        udfkit_buf_puts(shown, url);
        return true;
    }
    if (strncmp(url, "redis://", 8) == 0) {
        c->kind = UDFKIT_REMOTE_REDIS;
        c->port = 6379;
        udfkit_buf_puts(shown, "redis://");
        size_t host_at;
        if (!parse_authority(url + 8, c, shown, &host_at, &path, why))
            return false;
        if (*path && strcmp(path, "/") != 0) {
            char *end;
            long db = strtol(path + 1, &end, 10);
            if (*end || end == path + 1 || db < 0 || db > 1 << 20)
                return fail_why(why, "the path of a redis:// URL is a database number (redis://host:port/0)");
            c->db = (int)db;
        }
        udfkit_buf_puts(shown, path);
        return true;
    }
    bool https = strncmp(url, "https://", 8) == 0;
    if (!https && strncmp(url, "http://", 7) != 0)
        return fail_why(why, "the schemes are redis://, redis+unix:, http:// and https://");
    c->kind = UDFKIT_REMOTE_HTTP;
    c->port = https ? 443 : 80;
    const char *scheme = https ? "https://" : "http://";
    udfkit_buf_puts(shown, scheme);
    size_t host_at;
    if (!parse_authority(url + strlen(scheme), c, shown, &host_at, &path, why))
        return false;
    udfkit_buf base = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&base, "%s%s%s", scheme, shown->data + host_at, path);
    while (base.size > strlen(scheme) && base.data[base.size - 1] == '/')
        base.data[--base.size] = '\0';
    c->base = udfkit_buf_detach(&base);
    udfkit_buf_puts(shown, path);
    return true;
}

bool udfkit_remote_parse(const char *text, udfkit_remote_config *out, char **why)
{
    memset(out, 0, sizeof *out);
    out->connect_ms = DEFAULT_CONNECT_MS;
    out->operation_ms = DEFAULT_OPERATION_MS;
    out->max_entry = DEFAULT_MAX_ENTRY;
    *why = NULL;
    char *copy = strdup(text), *save = NULL;
    char *url = strtok_r(copy, "|", &save);
    udfkit_buf shown = UDFKIT_BUF_INIT;
    bool ok = url && parse_url(url, out, &shown, why);
    for (char *part; ok && (part = strtok_r(NULL, "|", &save));)
        ok = parse_attribute(part, out, &shown, why);
    if (ok && out->kind != UDFKIT_REMOTE_HTTP && (out->bearer || out->layout != UDFKIT_LAYOUT_SUBDIRS))
        ok = fail_why(why, "layout= and bearer tokens are for http:// and https:// remotes");
    if (!ok && !*why)
        (void)fail_why(why, "an empty URL");
    free(copy);
    out->shown = udfkit_buf_detach(&shown);
    if (!ok)
        udfkit_remote_config_free(out);
    return ok;
}

void udfkit_remote_config_free(udfkit_remote_config *c)
{
    free(c->shown);
    free(c->host);
    free(c->base);
    free(c->user);
    free(c->password);
    free(c->bearer);
    memset(c, 0, sizeof *c);
}
