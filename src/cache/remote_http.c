/* A remote cache on an HTTP server (WebDAV PUT, as nginx's dav module or bazel-remote take
 * it), through libcurl: GET, HEAD and PUT of <base>/<path of the key in the layout>. */
#include "cache/remote.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

struct udfkit_remote_conn {
    CURL *curl; /* one handle: its connection is kept alive between requests */
    const udfkit_remote_config *cfg;
    char error[CURL_ERROR_SIZE];
};

static void global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static udfkit_remote_conn *http_connect(const udfkit_remote_config *c, char **why)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, global_init);
    CURL *curl = curl_easy_init();
    if (!curl) {
        *why = udfkit_remote_why("libcurl could not start");
        return NULL;
    }
    udfkit_remote_conn *conn = calloc(1, sizeof *conn);
    conn->curl = curl;
    conn->cfg = c;
    return conn;
}

static void http_close(udfkit_remote_conn *conn)
{
    if (conn) {
        curl_easy_cleanup(conn->curl);
        free(conn);
    }
}

/* The key's URL: subdirs <base>/ab/cdef..., flat <base>/abcdef..., bazel <base>/ac/<64 hex>
 * (bazel-remote's action cache takes SHA-256-sized keys: the key and a second hash of it). */
static char *key_url(const udfkit_remote_config *c, const char *key)
{
    udfkit_buf b = UDFKIT_BUF_INIT;
    if (c->layout == UDFKIT_LAYOUT_SUBDIRS)
        udfkit_buf_printf(&b, "%s/%.2s/%s", c->base, key, key + 2);
    else if (c->layout == UDFKIT_LAYOUT_FLAT)
        udfkit_buf_printf(&b, "%s/%s", c->base, key);
    else {
        XXH128_hash_t h = XXH3_128bits_withSeed(key, strlen(key), 0x75646b6974ull);
        udfkit_buf_printf(&b, "%s/ac/%s%016llx%016llx", c->base, key, (unsigned long long)h.high64,
                          (unsigned long long)h.low64);
    }
    return udfkit_buf_detach(&b);
}

static size_t receive(char *data, size_t size, size_t count, void *user)
{
    udfkit_buf *out = user;
    /* More than any entry can be is not an entry: stop reading. */
    if (out->size + size * count > (2ull << 30) || !udfkit_buf_append(out, data, size * count))
        return 0;
    return size * count;
}

typedef struct upload {
    const char *data;
    size_t left;
} upload;

static size_t send_part(char *to, size_t size, size_t count, void *user)
{
    upload *u = user;
    size_t n = size * count < u->left ? size * count : u->left;
    memcpy(to, u->data, n);
    u->data += n;
    u->left -= n;
    return n;
}

/* One request; the HTTP status, or 0 with *why where no answer came. */
static long request(udfkit_remote_conn *conn, const char *key, const char *method, udfkit_buf *body, upload *up,
                    char **why)
{
    const udfkit_remote_config *c = conn->cfg;
    CURL *curl = conn->curl;
    char *url = key_url(c, key);
    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, c->connect_ms);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, c->operation_ms);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, conn->error);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    if (c->bearer) {
        curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
        curl_easy_setopt(curl, CURLOPT_XOAUTH2_BEARER, c->bearer);
    } else if (c->user || c->password) {
        curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
        curl_easy_setopt(curl, CURLOPT_USERNAME, c->user ? c->user : "");
        curl_easy_setopt(curl, CURLOPT_PASSWORD, c->password ? c->password : "");
    }
    struct curl_slist *headers = NULL;
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (up) {
        headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(curl, CURLOPT_READFUNCTION, send_part);
        curl_easy_setopt(curl, CURLOPT_READDATA, up);
        curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)up->left);
    } else {
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, receive);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, body);
    }
    conn->error[0] = '\0';
    CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    if (rc == CURLE_OK)
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    else if (rc == CURLE_OPERATION_TIMEDOUT)
        *why = udfkit_remote_why("no answer within %ld ms (operation-timeout)", c->operation_ms);
    else
        *why = udfkit_remote_why("%s", conn->error[0] ? conn->error : curl_easy_strerror(rc));
    curl_slist_free_all(headers);
    free(url);
    return status;
}

static char *status_why(const char *method, long status)
{
    return udfkit_remote_why("%s answered HTTP %ld%s", method, status,
                             status == 401 || status == 403 ? " (are the credentials right?)" : "");
}

static udfkit_remote_answer http_get(udfkit_remote_conn *conn, const char *key, udfkit_buf *out, char **why)
{
    long status = request(conn, key, "GET", out, NULL, why);
    if (status == 200)
        return UDFKIT_REMOTE_FOUND;
    out->size = 0;
    if (status == 404)
        return UDFKIT_REMOTE_ABSENT;
    if (status)
        *why = status_why("GET", status);
    return UDFKIT_REMOTE_FAILED;
}

static udfkit_remote_answer http_put(udfkit_remote_conn *conn, const char *key, const void *data, size_t size,
                                     bool overwrite, char **why)
{
    /* HEAD first: an entry another machine stored meanwhile is not sent again. */
    long status = overwrite ? 404 : request(conn, key, "HEAD", NULL, NULL, why);
    if (status == 200)
        return UDFKIT_REMOTE_ABSENT;
    if (status == 0)
        return UDFKIT_REMOTE_FAILED;
    free(*why);
    *why = NULL;
    upload up = {data, size};
    status = request(conn, key, "PUT", NULL, &up, why);
    if (status >= 200 && status < 300)
        return UDFKIT_REMOTE_FOUND;
    if (status)
        *why = status_why("PUT", status);
    return UDFKIT_REMOTE_FAILED;
}

const udfkit_remote_backend udfkit_remote_http = {http_connect, http_get, http_put, http_close};
