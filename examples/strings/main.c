/* Runs the string UDFs of udfs.py and udfs.cu over a column of e-mail addresses (Arrow utf8:
 * int32 offsets and the bytes, in device memory) through the generated launchers, and checks
 * every row against the same computation on the host. A string result takes two launches
 * (docs/strings.md): _sizes writes the offsets, the caller allocates the total, the launcher
 * without suffix writes the bytes. */
#include "email_kernels.h"
#include "email_udfs.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 10

static const char *const emails[N] = {
    "ada@example.com",         "  Grace.Hopper@Navy.MIL ",
    "linus@GMAIL.com",         "J\xc3\xbcrgen.Gro\xc3\x9f@B\xc3\xbc" "cher.DE", /* Jürgen.Groß@Bücher.DE */
    "\xe6\x9d\x8e\xe9\x9b\xb7@\xe4\xbe\x8b\xe5\xad\x90.\xe5\x85\xac\xe5\x8f\xb8", /* 李雷@例子.公司 */
    "emoji\xf0\x9f\x98\x80@fun.io", "no-at-sign", "", "bob@gmail.com", "x@y@gmail.com",
};

static int fail(const char *what, udfkit_status s)
{
    fprintf(stderr, "%s: %s: %s\n", what, udfkit_status_string(s), udfkit_last_error());
    return 1;
}

/* The host's answers, for valid UTF-8 whose non-ASCII letters are lower case already. */
static bool py_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

/* email.split("@")[-1].strip().lower() */
static size_t host_domain(const char *s, char *out)
{
    const char *at = strrchr(s, '@'), *b = at ? at + 1 : s, *e = s + strlen(s);
    while (b < e && py_space(*b))
        b++;
    while (e > b && py_space(e[-1]))
        e--;
    for (const char *p = b; p < e; p++)
        out[p - b] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    return (size_t)(e - b);
}

/* len(s) */
static long long host_code_points(const char *s)
{
    long long n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* e = s.strip(); e[0] + "***" + e[e.rfind("@"):], or e */
static size_t host_masked(const char *s, char *out)
{
    const char *b = s, *e = s + strlen(s);
    while (b < e && py_space(*b))
        b++;
    while (e > b && py_space(e[-1]))
        e--;
    const char *at = NULL;
    for (const char *p = b; p < e; p++)
        at = *p == '@' ? p : at;
    if (!at) {
        memcpy(out, b, (size_t)(e - b));
        return (size_t)(e - b);
    }
    size_t first = 1;
    while (b + first < e && ((unsigned char)b[first] & 0xC0) == 0x80)
        first++;
    memcpy(out, b, first);
    memcpy(out + first, "***", 3);
    memcpy(out + first + 3, at, (size_t)(e - at));
    return first + 3 + (size_t)(e - at);
}

static bool host_is_gmail(const char *s)
{
    const size_t n = strlen(s), k = strlen("@gmail.com");
    return n >= k && strcmp(s + n - k, "@gmail.com") == 0;
}

/* A string result read back: the offsets (n + 1) and the bytes. */
typedef struct text {
    int64_t off[N + 1];
    char *chars;
} text;

typedef udfkit_status (*sizes_fn)(udfkit_stream, size_t, udfkit_strings, int64_t *);
typedef udfkit_status (*write_fn)(udfkit_stream, size_t, udfkit_strings, const int64_t *, char *);

/* The two launches of a string result, and a copy of it on the host. */
static udfkit_status two_launches(sizes_fn sizes, write_fn write, udfkit_strings in, text *t)
{
    int64_t *d_off = NULL, total = 0;
    char *d_chars = NULL;
    udfkit_status s;
    if ((s = udfkit_device_alloc((N + 1) * sizeof(int64_t), (void **)&d_off)) || (s = sizes(NULL, N, in, d_off)) ||
        (s = udfkit_copy_to_host(&total, d_off + N, sizeof total)) ||
        (s = udfkit_device_alloc(total ? (size_t)total : 1, (void **)&d_chars)) ||
        (s = write(NULL, N, in, d_off, d_chars)) || (s = udfkit_copy_to_host(t->off, d_off, sizeof t->off)))
        return s;
    t->chars = malloc(total ? (size_t)total : 1);
    s = udfkit_copy_to_host(t->chars, d_chars, (size_t)total);
    udfkit_device_free(d_off);
    udfkit_device_free(d_chars);
    return s;
}

static int wrong;

static void expect_text(const char *what, size_t row, const text *t, const char *want, size_t want_size)
{
    const size_t size = (size_t)(t->off[row + 1] - t->off[row]);
    if (size != want_size || memcmp(t->chars + t->off[row], want, size) != 0) {
        printf("row %zu: %s is \"%.*s\", the host says \"%.*s\"\n", row, what, (int)size, t->chars + t->off[row],
               (int)want_size, want);
        wrong++;
    }
}

int main(void)
{
    size_t count;
    const udfkit_udf_info *udfs = email_udfs_udfs(&count);
    printf("email_kernels: map(domain), map(code_points), filter(is_gmail), map(masked) over these UDFs:\n");
    for (size_t i = 0; i < count; i++)
        printf("  %-12s %s\n", udfs[i].c_name, udfs[i].signature);

    udfkit_status s = email_kernels_load();
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("no GPU visible (%s): nothing was run\n", udfkit_last_error());
        return 0;
    }
    if (s)
        return fail("loading the kernels", s);

    /* The column: Arrow utf8, int32 offsets into the bytes. */
    int32_t offsets[N + 1] = {0};
    char bytes[1024];
    for (int i = 0; i < N; i++) {
        const size_t n = strlen(emails[i]);
        memcpy(bytes + offsets[i], emails[i], n);
        offsets[i + 1] = offsets[i] + (int32_t)n;
    }
    void *d_offsets, *d_bytes;
    int64_t *d_points;
    uint64_t *d_indices, *d_count;
    if ((s = udfkit_device_alloc(sizeof offsets, &d_offsets)) || (s = udfkit_device_alloc((size_t)offsets[N], &d_bytes)) ||
        (s = udfkit_device_alloc(N * sizeof(int64_t), (void **)&d_points)) ||
        (s = udfkit_device_alloc(N * sizeof(uint64_t), (void **)&d_indices)) ||
        (s = udfkit_device_alloc(sizeof(uint64_t), (void **)&d_count)) ||
        (s = udfkit_copy_to_device(d_offsets, offsets, sizeof offsets)) ||
        (s = udfkit_copy_to_device(d_bytes, bytes, (size_t)offsets[N])))
        return fail("device memory", s);
    const udfkit_strings column = {UDFKIT_STRINGS_UTF8, d_offsets, d_bytes, NULL, 0};

    text domains, masks;
    long long points[N];
    uint64_t indices[N], gmail;
    if ((s = two_launches(email_kernels_map_domain_sizes, email_kernels_map_domain, column, &domains)) ||
        (s = two_launches(email_kernels_map_masked_sizes, email_kernels_map_masked, column, &masks)) ||
        (s = email_kernels_map_code_points(NULL, N, column, d_points)) ||
        (s = email_kernels_filter_is_gmail(NULL, N, column, d_indices, d_count)) ||
        (s = udfkit_copy_to_host(points, d_points, sizeof points)) ||
        (s = udfkit_copy_to_host(&gmail, d_count, sizeof gmail)) ||
        (s = udfkit_copy_to_host(indices, d_indices, sizeof indices)))
        return fail("running the kernels", s);

    printf("%-28s %-14s %5s  %s\n", "address", "domain", "chars", "masked");
    for (int i = 0; i < N; i++)
        printf("%-28s %-14.*s %5lld  %.*s\n", emails[i], (int)(domains.off[i + 1] - domains.off[i]),
               domains.chars + domains.off[i], points[i], (int)(masks.off[i + 1] - masks.off[i]), masks.chars + masks.off[i]);
    printf("at gmail.com: rows");
    for (uint64_t k = 0; k < gmail; k++)
        printf(" %llu", (unsigned long long)indices[k]);
    printf("\n");

    /* Every row against the host. */
    uint64_t k = 0;
    for (size_t i = 0; i < N; i++) {
        char want[256];
        size_t n = host_domain(emails[i], want);
        expect_text("domain", i, &domains, want, n);
        n = host_masked(emails[i], want);
        expect_text("masked", i, &masks, want, n);
        if (points[i] != host_code_points(emails[i])) {
            printf("row %zu: code_points is %lld, the host says %lld\n", i, points[i], host_code_points(emails[i]));
            wrong++;
        }
        if (host_is_gmail(emails[i]) && !(k < gmail && indices[k++] == i)) {
            printf("row %zu: is at gmail.com, but filter(is_gmail) left it out\n", i);
            wrong++;
        }
    }
    if (k != gmail) {
        printf("filter(is_gmail) kept %llu rows, the host %llu\n", (unsigned long long)gmail, (unsigned long long)k);
        wrong++;
    }
    free(domains.chars);
    free(masks.chars);
    udfkit_device_free(d_offsets);
    udfkit_device_free(d_bytes);
    udfkit_device_free(d_points);
    udfkit_device_free(d_indices);
    udfkit_device_free(d_count);
    email_kernels_unload();
    if (wrong) {
        printf("%d results differ from the host's\n", wrong);
        return 1;
    }
    printf("%d rows: every result is the host's\n", N);
    return 0;
}
