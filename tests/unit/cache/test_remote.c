/* UDFKIT_REMOTE_CACHE's URLs and attributes, the form they are shown in, and the framing of
 * remote entries with each fault it must catch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cache/remote.h"

#define KEY "0123456789abcdef0123456789abcdef"
#define UNCHANGED (SIZE_MAX - 1)

static udfkit_remote_config parsed(const char *text)
{
    udfkit_remote_config c;
    char *why = NULL;
    if (!udfkit_remote_parse(text, &c, &why))
        fail_msg("%s: %s", text, why);
    return c;
}

static void redis_urls(void **state)
{
    (void)state;
    udfkit_remote_config c = parsed("redis://cache.example");
    assert_int_equal(c.kind, UDFKIT_REMOTE_REDIS);
    assert_string_equal(c.host, "cache.example");
    assert_int_equal(c.port, 6379);
    assert_int_equal(c.db, 0);
    assert_null(c.password);
    assert_int_equal(c.connect_ms, 100);
    assert_int_equal(c.operation_ms, 10000);
    assert_int_equal(c.max_entry, 64ull << 20);
    udfkit_remote_config_free(&c);

    c = parsed("redis://ci:p%40ss%3Aword@10.0.0.7:7000/3|read-only|connect-timeout=50|operation-timeout=2500");
    assert_string_equal(c.user, "ci");
    assert_string_equal(c.password, "p@ss:word");
    assert_string_equal(c.host, "10.0.0.7");
    assert_int_equal(c.port, 7000);
    assert_int_equal(c.db, 3);
    assert_true(c.read_only);
    assert_int_equal(c.connect_ms, 50);
    assert_int_equal(c.operation_ms, 2500);
    assert_string_equal(c.shown, "redis://ci:***@10.0.0.7:7000/3|read-only|connect-timeout=50|operation-timeout=2500");
    udfkit_remote_config_free(&c);

    c = parsed("redis://:only-a-password@[::1]:6380");
    assert_null(c.user);
    assert_string_equal(c.password, "only-a-password");
    assert_string_equal(c.host, "::1");
    assert_int_equal(c.port, 6380);
    assert_string_equal(c.shown, "redis://:***@[::1]:6380");
    udfkit_remote_config_free(&c);

    c = parsed("redis+unix:/run/redis/redis.sock|max-entry-size=2M");
    assert_int_equal(c.kind, UDFKIT_REMOTE_REDIS_UNIX);
    assert_string_equal(c.host, "/run/redis/redis.sock");
    assert_int_equal(c.max_entry, 2ull << 20);
    udfkit_remote_config_free(&c);
}

static void http_urls(void **state)
{
    (void)state;
    udfkit_remote_config c = parsed("http://cache.example/udfkit/");
    assert_int_equal(c.kind, UDFKIT_REMOTE_HTTP);
    assert_string_equal(c.base, "http://cache.example/udfkit");
    assert_int_equal(c.port, 80);
    assert_int_equal(c.layout, UDFKIT_LAYOUT_SUBDIRS);
    udfkit_remote_config_free(&c);

    c = parsed("https://ci:s3cret@cache.example:8443/a/b|layout=bazel|bearer-token=abc.def");
    assert_string_equal(c.base, "https://cache.example:8443/a/b"); /* no credentials in what is requested */
    assert_string_equal(c.user, "ci");
    assert_string_equal(c.password, "s3cret");
    assert_string_equal(c.bearer, "abc.def");
    assert_int_equal(c.layout, UDFKIT_LAYOUT_BAZEL);
    assert_string_equal(c.shown, "https://ci:***@cache.example:8443/a/b|layout=bazel|bearer-token=***");
    assert_null(strstr(c.shown, "s3cret"));
    udfkit_remote_config_free(&c);

    setenv("UDFKIT_TEST_TOKEN", "from-the-env", 1);
    c = parsed("http://h/x|layout=flat|bearer-token-env=UDFKIT_TEST_TOKEN");
    assert_string_equal(c.bearer, "from-the-env");
    assert_int_equal(c.layout, UDFKIT_LAYOUT_FLAT);
    assert_null(strstr(c.shown, "from-the-env"));
    udfkit_remote_config_free(&c);
}

static void bad_urls(void **state)
{
    (void)state;
    unsetenv("UDFKIT_NO_SUCH_VARIABLE");
    const struct {
        const char *text, *why;
    } cases[] = {
        {"", "an empty URL"},
        {"ftp://h/x", "the schemes are"},
        {"redis://", "no host"},
        {"redis://h:0", "port is not a number"},
        {"redis://h:70000", "port is not a number"},
        {"redis://h:12ab", "port is not a number"},
        {"redis://h/zero", "database number"},
        {"redis://[::1", "closing ']'"},
        {"redis://u:%zz@h", "%-escape in the password"},
        {"redis+unix:relative.sock", "absolute socket path"},
        {"redis://h|layout=flat", "for http:// and https://"},
        {"http://h/x|layout=tree", "the layouts are"},
        {"http://h/x|connect-timeout=-5", "give milliseconds"},
        {"http://h/x|operation-timeout=", "give milliseconds"},
        {"http://h/x|max-entry-size=12Q", "give bytes"},
        {"http://h/x|colour=blue", "unknown attribute \"colour\""},
        {"http://h/x|read-only=yes", "unknown attribute \"read-only\""},
        {"http://h/x|bearer-token-env=UDFKIT_NO_SUCH_VARIABLE", "UDFKIT_NO_SUCH_VARIABLE is not set"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        udfkit_remote_config c;
        char *why = NULL;
        if (udfkit_remote_parse(cases[i].text, &c, &why))
            fail_msg("%s was accepted", cases[i].text);
        if (!why || !strstr(why, cases[i].why))
            fail_msg("%s: \"%s\" does not say \"%s\"", cases[i].text, why ? why : "(nothing)", cases[i].why);
        free(why);
    }
}

static void frames(void **state)
{
    (void)state;
    const char content[] = "the bytes of a local entry file";
    udfkit_buf entry = UDFKIT_BUF_INIT;
    udfkit_remote_frame(KEY, content, sizeof content, &entry);
    assert_int_equal(entry.size, UDFKIT_REMOTE_HEADER_SIZE + sizeof content);
    assert_memory_equal(entry.data, "UDFKITR1", 8);
    const char *got, *why = NULL;
    size_t size;
    assert_true(udfkit_remote_unframe(KEY, &entry, &got, &size, &why));
    assert_int_equal(size, sizeof content);
    assert_memory_equal(got, content, size);

    /* Each fault, on a copy. */
    const struct {
        size_t at;   /* byte to change; SIZE_MAX: shorten instead; UNCHANGED: ask for another key */
        size_t keep; /* bytes kept where shortened */
        const char *key, *why;
    } faults[] = {
        {0, 0, KEY, "not a udfkit entry"},
        {8, 0, KEY, "another format version"},
        {20, 0, KEY, "another key's entry"},
        {UNCHANGED, 0, "ffffffffffffffffffffffffffffffff", "another key's entry"},
        {SIZE_MAX, UDFKIT_REMOTE_HEADER_SIZE + 5, KEY, "truncated"},
        {SIZE_MAX, 40, KEY, "not a udfkit entry"},
        {UDFKIT_REMOTE_HEADER_SIZE + 3, 0, KEY, "corrupt"},
        {60, 0, KEY, "corrupt"},
    };
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++) {
        udfkit_buf bad = UDFKIT_BUF_INIT;
        udfkit_buf_append(&bad, entry.data, entry.size);
        if (faults[i].at == SIZE_MAX)
            bad.size = faults[i].keep;
        else if (faults[i].at != UNCHANGED)
            bad.data[faults[i].at] ^= 0x5a;
        why = NULL;
        assert_false(udfkit_remote_unframe(faults[i].key, &bad, &got, &size, &why));
        if (!strstr(why, faults[i].why))
            fail_msg("fault %zu: \"%s\" does not say \"%s\"", i, why, faults[i].why);
        udfkit_buf_free(&bad);
    }
    /* Longer than its header says. */
    udfkit_buf_append(&entry, "x", 1);
    assert_false(udfkit_remote_unframe(KEY, &entry, &got, &size, &why));
    assert_string_equal(why, "longer than its header says");
    udfkit_buf_free(&entry);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(redis_urls),
        cmocka_unit_test(http_urls),
        cmocka_unit_test(bad_urls),
        cmocka_unit_test(frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
