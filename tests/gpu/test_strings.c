/* Strings through the launchers `udfkit kernels` generates (library sk, built at build time from
 * tests/data/strings/plumbing.cu): map with numeric and string results (the two launches, int64
 * and int32 offsets), several outputs, nullable_map (string? in and out; a numeric result of a
 * string, through its dense kernel and its general one), filter (indices, indices32),
 * nullable_filter and transform_reduce over string columns in Arrow's three layouts (utf8,
 * large_utf8, utf8_view with inline and buffer views over two data buffers), at Arrow offsets 0
 * and 5, over 0, 1, 7 and 2^20 + 7 rows of text (ASCII, 2- 3- and 4-byte UTF-8, invalid bytes,
 * empty rows, rows up to 10 KB), with and without nulls; every result against the same byte
 * operations on the host (a result built from a view holds U+FFFD for ill-formed UTF-8, as
 * docs/strings.md says string_out writes it; one appended as C ABI bytes keeps them); a UDF
 * error in a string result's row.
 * usage: test_strings; exit 77 (skipped) without a GPU. */
#include "sk.h"
#include "gpu_test.h"
#include "gpu_strings.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char current[160];

static void expect(bool ok, const char *what)
{
    if (!ok) {
        if (failures < 40)
            fprintf(stderr, "FAIL %s: %s\n", current, what);
        else if (failures == 40)
            fprintf(stderr, "(only the first 40 failures are shown; the count at the end has them all)\n");
        failures++;
    } else {
        passes++;
    }
}

/* Rows of text on the host. */
typedef struct text {
    size_t n;
    char **row;
    size_t *len;
} text;

/* A row of random text: mostly short, some up to 10 KB; ASCII letters (never '!'), 2-, 3- and
 * 4-byte UTF-8 sequences and bytes that are no UTF-8 at all. */
static void random_row(char **row, size_t *len)
{
    uint64_t r = next_random() % 100;
    size_t want = r < 10 ? 0 : r < 70 ? 1 + next_random() % 16 : r < 97 ? 17 + next_random() % 64 : 81 + next_random() % 10160;
    char *s = malloc(want + 4);
    size_t at = 0;
    static const char *const seqs[] = {"\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xff", "\xc0"};
    while (at < want) {
        uint64_t k = next_random() % 10;
        if (k < 6) {
            s[at++] = (char)('a' + next_random() % 26);
        } else {
            const char *q = seqs[k - 6 < 5 ? k - 6 : 4];
            size_t m = strlen(q);
            if (at + m > want)
                m = want - at;
            memcpy(s + at, q, m);
            at += m;
        }
    }
    *row = s;
    *len = at;
}

static text random_text(size_t n)
{
    text t = {n, calloc(n + 1, sizeof(char *)), calloc(n + 1, sizeof(size_t))};
    for (size_t i = 0; i < n; i++)
        random_row(&t.row[i], &t.len[i]);
    return t;
}

static void text_free(text *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->row[i]);
    free(t->row);
    free(t->len);
}

/* A column on the device: rows [first, first + n) of `t` at Arrow offset `offset` (gpu_strings.h;
 * utf8_view rows over 12 bytes in two data buffers). */
typedef gpu_strings column;

static column make_column(const text *t, size_t first, size_t n, uint64_t offset, udfkit_string_layout layout)
{
    return gpu_strings_make((const char *const *)t->row + first, t->len + first, n, offset, layout, 2);
}

static void column_free(column *c)
{
    gpu_strings_free(c);
}

/* A string result read back: its offsets (int64 or int32), and its characters. */
typedef struct result {
    int64_t *off;
    char *chars;
} result;

/* One string result's expected rows (NULL row: null, which must be empty). */
typedef struct expected {
    const char **row;
    size_t *len;
} expected;

/* Checks a string result's offsets and characters (and that null rows are empty). */
static void check_strings(const char *what, size_t n, const int64_t *off, const char *chars, const expected *e,
                          const bool *valid)
{
    char msg[200];
    bool ok = off[0] == 0;
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < n && ok; i++) {
        bool v = valid ? valid[i] : true;
        size_t want = v ? e->len[i] : 0;
        if ((size_t)(off[i + 1] - off[i]) != want || (v && memcmp(chars + off[i], e->row[i], want) != 0)) {
            ok = false;
            bad = i;
        }
    }
    snprintf(msg, sizeof msg, "%s: offsets and characters as on the host (first wrong row %zu)", what, bad);
    expect(ok, msg);
}

/* Runs a map's two launches at int64 and at int32 offsets and checks the result. */
typedef udfkit_status (*sizes64_fn)(const column *a, const column *b, size_t n, int64_t *off);
typedef udfkit_status (*sizes32_fn)(const column *a, const column *b, size_t n, int32_t *off);
typedef udfkit_status (*write64_fn)(const column *a, const column *b, size_t n, const int64_t *off, char *chars);
typedef udfkit_status (*write32_fn)(const column *a, const column *b, size_t n, const int32_t *off, char *chars);

static void two_launches(const char *what, const column *a, const column *b, size_t n, sizes64_fn s64, write64_fn w64,
                         sizes32_fn s32, write32_fn w32, const expected *e)
{
    for (int narrow = 0; narrow < 2; narrow++) {
        size_t width = narrow ? 4 : 8;
        void *off = device_copy(NULL, (n + 1) * width);
        udfkit_status st = narrow ? s32(a, b, n, off) : s64(a, b, n, off);
        if (check(st, what))
            return;
        unsigned char *h = host_copy(off, (n + 1) * width);
        int64_t *off64 = calloc(n + 1, 8);
        for (size_t i = 0; i <= n; i++) {
            int32_t v32;
            memcpy(narrow ? (void *)&v32 : (void *)&off64[i], h + i * width, width);
            if (narrow)
                off64[i] = v32;
        }
        size_t total = (size_t)off64[n];
        char *chars = device_copy(NULL, total);
        st = narrow ? w32(a, b, n, off, chars) : w64(a, b, n, off, chars);
        if (!check(st, what)) {
            char *hc = host_copy(chars, total);
            char name[120];
            snprintf(name, sizeof name, "%s (%s offsets)", what, narrow ? "int32" : "int64");
            check_strings(name, n, off64, hc, e, NULL);
            free(hc);
        }
        udfkit_device_free(off);
        udfkit_device_free(chars);
        free(h);
        free(off64);
    }
}

static udfkit_status head2_sizes(const column *a, const column *b, size_t n, int64_t *off)
{
    (void)b;
    return sk_map_head2_sizes(NULL, n, a->s, off);
}
static udfkit_status head2_sizes32(const column *a, const column *b, size_t n, int32_t *off)
{
    (void)b;
    return sk_map_head2_sizes32(NULL, n, a->s, off);
}
static udfkit_status head2_write(const column *a, const column *b, size_t n, const int64_t *off, char *chars)
{
    (void)b;
    return sk_map_head2(NULL, n, a->s, off, chars);
}
static udfkit_status head2_write32(const column *a, const column *b, size_t n, const int32_t *off, char *chars)
{
    (void)b;
    return sk_map_head232(NULL, n, a->s, off, chars);
}
static udfkit_status twice_sizes(const column *a, const column *b, size_t n, int64_t *off)
{
    (void)b;
    return sk_map_twice_sizes(NULL, n, a->s, off);
}
static udfkit_status twice_sizes32(const column *a, const column *b, size_t n, int32_t *off)
{
    (void)b;
    return sk_map_twice_sizes32(NULL, n, a->s, off);
}
static udfkit_status twice_write(const column *a, const column *b, size_t n, const int64_t *off, char *chars)
{
    (void)b;
    return sk_map_twice(NULL, n, a->s, off, chars);
}
static udfkit_status twice_write32(const column *a, const column *b, size_t n, const int32_t *off, char *chars)
{
    (void)b;
    return sk_map_twice32(NULL, n, a->s, off, chars);
}
static udfkit_status cat_sizes(const column *a, const column *b, size_t n, int64_t *off)
{
    return sk_map_cat_sizes(NULL, n, a->s, b->s, off);
}
static udfkit_status cat_sizes32(const column *a, const column *b, size_t n, int32_t *off)
{
    return sk_map_cat_sizes32(NULL, n, a->s, b->s, off);
}
static udfkit_status cat_write(const column *a, const column *b, size_t n, const int64_t *off, char *chars)
{
    return sk_map_cat(NULL, n, a->s, b->s, off, chars);
}
static udfkit_status cat_write32(const column *a, const column *b, size_t n, const int32_t *off, char *chars)
{
    return sk_map_cat32(NULL, n, a->s, b->s, off, chars);
}

/* Rows of the expected results, built on the host. */
static expected expect_rows(size_t n)
{
    return (expected){calloc(n + 1, sizeof(char *)), calloc(n + 1, sizeof(size_t))};
}

static void expected_free(expected *e, size_t n, bool owned)
{
    for (size_t i = 0; owned && i < n; i++)
        free((void *)e->row[i]);
    free(e->row);
    free(e->len);
}

/* map over one layout: blen, head2, twice, cat (with b in another layout), parts. */
static void maps(const text *t, size_t n, const column *a, const column *b)
{
    int64_t *out = device_copy(NULL, n * 8);
    if (!check(sk_map_blen(NULL, n, a->s, out), "sk_map_blen")) {
        int64_t *h = host_copy(out, n * 8);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= h[i] == (int64_t)t->len[i];
        expect(ok, "map(blen): every row's size");
        free(h);
    }
    /* head2, twice and parts build their results from views (string_out::append of a view),
     * which writes ill-formed UTF-8 as U+FFFD; cat appends the C ABI's bytes as they are. */
    expected head = expect_rows(n), tw = expect_rows(n), whole = expect_rows(n), cat = expect_rows(n);
    for (size_t i = 0; i < n; i++) {
        head.row[i] = gpu_utf8_replaced(t->row[i], t->len[i] < 2 ? t->len[i] : 2, &head.len[i]);
        size_t once = 0;
        char *replaced = gpu_utf8_replaced(t->row[i], t->len[i], &once);
        char *two = malloc(2 * once + 1);
        memcpy(two, replaced, once);
        memcpy(two + once, replaced, once);
        tw.row[i] = two;
        tw.len[i] = 2 * once;
        whole.row[i] = replaced;
        whole.len[i] = once;
        size_t j = (i + 1) % (t->n ? t->n : 1);
        char *c = malloc(t->len[i] + t->len[j] + 1);
        memcpy(c, t->row[i], t->len[i]);
        memcpy(c + t->len[i], t->row[j], t->len[j]);
        cat.row[i] = c;
        cat.len[i] = t->len[i] + t->len[j];
    }
    two_launches("map(head2)", a, b, n, head2_sizes, head2_write, head2_sizes32, head2_write32, &head);
    two_launches("map(twice)", a, b, n, twice_sizes, twice_write, twice_sizes32, twice_write32, &tw);
    two_launches("map(cat)", a, b, n, cat_sizes, cat_write, cat_sizes32, cat_write32, &cat);
    /* parts: a string output and a numeric one. */
    int64_t *off = device_copy(NULL, (n + 1) * 8);
    if (!check(sk_map_parts_sizes(NULL, n, a->s, off), "sk_map_parts_sizes")) {
        int64_t *ho = host_copy(off, (n + 1) * 8);
        char *chars = device_copy(NULL, (size_t)ho[n]);
        if (!check(sk_map_parts(NULL, n, a->s, off, chars, out), "sk_map_parts")) {
            char *hc = host_copy(chars, (size_t)ho[n]);
            int64_t *sizes = host_copy(out, n * 8);
            check_strings("map(parts) copy", n, ho, hc, &whole, NULL);
            bool ok = true;
            for (size_t i = 0; i < n; i++)
                ok &= sizes[i] == (int64_t)t->len[i];
            expect(ok, "map(parts): the numeric output");
            free(hc);
            free(sizes);
        }
        udfkit_device_free(chars);
        free(ho);
    }
    udfkit_device_free(off);
    expected_free(&head, n, true);
    expected_free(&tw, n, true);
    expected_free(&whole, n, true);
    expected_free(&cat, n, true);
    udfkit_device_free(out);
}

/* A validity bitmap for n rows at bit `offset` with about 10% nulls (random bits around them). */
static void *make_bits(size_t n, uint64_t offset, bool *valid)
{
    size_t bytes = (n + offset + 7) / 8 + 1;
    uint8_t *bits = malloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        bits[i] = (uint8_t)next_random();
    for (size_t i = 0; i < n; i++) {
        valid[i] = next_random() % 10 != 0;
        uint64_t b = offset + i;
        bits[b / 8] = (uint8_t)(valid[i] ? bits[b / 8] | (1u << (b % 8)) : bits[b / 8] & ~(1u << (b % 8)));
    }
    void *d = device_copy(bits, bytes);
    free(bits);
    return d;
}

static bool bit(const uint8_t *bits, size_t i)
{
    return (bits[i / 8] >> (i % 8)) & 1u;
}

/* nullable_map(maybe_head) (string? in and out) and nullable_map(blen), with a bitmap and
 * without; nullable_filter(nonempty). */
static void nullables(const text *t, size_t n, const column *a, bool with_bits)
{
    bool *valid = calloc(n + 1, 1);
    void *bits = NULL;
    for (size_t i = 0; i < n; i++)
        valid[i] = true;
    if (with_bits)
        bits = make_bits(n, 3, valid);
    udfkit_mask m = {bits, with_bits ? 3 : 0};
    size_t nbytes = (n + 7) / 8;
    uint8_t *out_bits = device_copy(NULL, nbytes);
    uint64_t *nulls = device_copy(NULL, 8);
    int64_t *off = device_copy(NULL, (n + 1) * 8);
    /* maybe_head: null where the input is null or empty. */
    if (!check(sk_nullable_map_maybe_head_sizes(NULL, n, a->s, m, off), "sk_nullable_map_maybe_head_sizes")) {
        int64_t *ho = host_copy(off, (n + 1) * 8);
        char *chars = device_copy(NULL, (size_t)ho[n]);
        if (!check(sk_nullable_map_maybe_head(NULL, n, a->s, m, off, chars, out_bits, nulls),
                   "sk_nullable_map_maybe_head")) {
            char *hc = host_copy(chars, (size_t)ho[n]);
            uint8_t *hb = host_copy(out_bits, nbytes);
            uint64_t *hn = host_copy(nulls, 8);
            bool *rv = calloc(n + 1, 1);
            expected e = expect_rows(n);
            uint64_t want_nulls = 0;
            bool bits_ok = true;
            for (size_t i = 0; i < n; i++) {
                rv[i] = valid[i] && t->len[i] > 0;
                want_nulls += !rv[i];
                e.row[i] = gpu_utf8_replaced(t->row[i], t->len[i] < 2 ? t->len[i] : 2, &e.len[i]);
                bits_ok &= bit(hb, i) == rv[i];
            }
            check_strings("nullable_map(maybe_head)", n, ho, hc, &e, rv);
            expect(bits_ok, "nullable_map(maybe_head): validity bits");
            expect(*hn == want_nulls, "nullable_map(maybe_head): null count");
            expected_free(&e, n, true);
            free(rv);
            free(hc);
            free(hb);
            free(hn);
        }
        udfkit_device_free(chars);
        free(ho);
    }
    /* blen over nullable strings: a numeric result (the dense kernel without a bitmap). */
    int64_t *lens = device_copy(NULL, n * 8);
    if (!check(sk_nullable_map_blen(NULL, n, a->s, m, lens, out_bits, nulls), "sk_nullable_map_blen")) {
        int64_t *hl = host_copy(lens, n * 8);
        uint8_t *hb = host_copy(out_bits, nbytes);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= bit(hb, i) == valid[i] && (!valid[i] || hl[i] == (int64_t)t->len[i]);
        expect(ok, "nullable_map(blen): sizes and validity");
        free(hl);
        free(hb);
    }
    uint64_t *idx = device_copy(NULL, n * 8), *count = device_copy(NULL, 8);
    if (!check(sk_nullable_filter_nonempty(NULL, n, a->s, m, idx, count), "sk_nullable_filter_nonempty")) {
        uint64_t *hc = host_copy(count, 8), *hi = host_copy(idx, n * 8), k = 0;
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            if (valid[i] && t->len[i] > 0)
                ok &= k < *hc && hi[k++] == i;
        expect(ok && k == *hc, "nullable_filter(nonempty): the valid non-empty rows");
        free(hc);
        free(hi);
    }
    udfkit_device_free(idx);
    udfkit_device_free(count);
    udfkit_device_free(lens);
    udfkit_device_free(off);
    udfkit_device_free(out_bits);
    udfkit_device_free(nulls);
    udfkit_device_free(bits);
    free(valid);
}

/* filter(nonempty) and filter(nonempty, indices32); transform_reduce(blen, add). */
static void filters(const text *t, size_t n, const column *a)
{
    uint64_t *idx = device_copy(NULL, n * 8), *count = device_copy(NULL, 8);
    uint32_t *idx32 = device_copy(NULL, n * 4);
    if (!check(sk_filter_nonempty(NULL, n, a->s, idx, count), "sk_filter_nonempty")) {
        uint64_t *hc = host_copy(count, 8), *hi = host_copy(idx, n * 8), k = 0;
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            if (t->len[i] > 0)
                ok &= k < *hc && hi[k++] == i;
        expect(ok && k == *hc, "filter(nonempty): the non-empty rows");
        free(hc);
        free(hi);
    }
    if (!check(sk_filter_nonempty_indices32(NULL, n, a->s, idx32, count), "sk_filter_nonempty_indices32")) {
        uint64_t *hc = host_copy(count, 8), k = 0;
        uint32_t *hi = host_copy(idx32, n * 4);
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            if (t->len[i] > 0)
                ok &= k < *hc && hi[k++] == (uint32_t)i;
        expect(ok && k == *hc, "filter(nonempty, indices32): the non-empty rows");
        free(hc);
        free(hi);
    }
    /* filter(longer, values): the kept strings (and their k) as new columns. */
    int64_t *hk = malloc((n + 1) * 8);
    for (size_t i = 0; i < n; i++)
        hk[i] = (int64_t)(next_random() % 24);
    int64_t *k = device_copy(hk, n * 8), *off = device_copy(NULL, (n + 1) * 8), *kept_k = device_copy(NULL, n * 8);
    size_t room = 0;
    for (size_t i = 0; i < n; i++)
        room += t->len[i];
    char *chars = device_copy(NULL, room);
    if (!check(sk_filter_longer_values(NULL, n, a->s, k, off, chars, kept_k, count), "sk_filter_longer_values")) {
        uint64_t *hc = host_copy(count, 8);
        int64_t *ho = host_copy(off, (n + 1) * 8), *hkk = host_copy(kept_k, n * 8);
        char *hch = host_copy(chars, room);
        expected e = expect_rows(n);
        size_t m = 0;
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            if ((int64_t)t->len[i] > hk[i]) {
                e.row[m] = t->row[i];
                e.len[m] = t->len[i];
                ok &= m < *hc && hkk[m] == hk[i];
                m++;
            }
        expect(ok && m == *hc, "filter(longer, values): the kept rows' k, and their number");
        check_strings("filter(longer, values): the kept strings", m, ho, hch, &e, NULL);
        bool tail = true;
        for (size_t i = m; i <= n; i++)
            tail &= ho[i] == ho[m];
        expect(tail, "filter(longer, values): offsets past the kept rows hold the total");
        expected_free(&e, n, false);
        free(hc);
        free(ho);
        free(hkk);
        free(hch);
    }
    udfkit_device_free(k);
    udfkit_device_free(off);
    udfkit_device_free(kept_k);
    udfkit_device_free(chars);
    free(hk);
    /* sort(shorter_first): the order of a stable sort by size. */
    uint64_t *order = device_copy(NULL, n * 8);
    if (!check(sk_sort_shorter_first(NULL, n, a->s, order), "sk_sort_shorter_first")) {
        uint64_t *ho = host_copy(order, n * 8);
        /* A counting sort by size is stable: the host's order. */
        size_t longest = 0;
        for (size_t i = 0; i < n; i++)
            longest = t->len[i] > longest ? t->len[i] : longest;
        size_t *start = calloc(longest + 2, sizeof(size_t));
        for (size_t i = 0; i < n; i++)
            start[t->len[i] + 1]++;
        for (size_t l = 1; l <= longest + 1; l++)
            start[l] += start[l - 1];
        bool ok = true;
        for (size_t i = 0; i < n; i++)
            ok &= ho[start[t->len[i]]++] == i;
        expect(ok, "sort(shorter_first): a stable order by size");
        free(start);
        free(ho);
    }
    udfkit_device_free(order);
    int64_t *sum = device_copy(NULL, 8);
    if (!check(sk_transform_reduce_blen_add(NULL, n, a->s, 5, sum), "sk_transform_reduce_blen_add")) {
        int64_t *h = host_copy(sum, 8), want = 5;
        for (size_t i = 0; i < n; i++)
            want += (int64_t)t->len[i];
        expect(*h == want, "transform_reduce(blen, add): 5 + every row's size");
        free(h);
    }
    udfkit_device_free(sum);
    udfkit_device_free(idx);
    udfkit_device_free(idx32);
    udfkit_device_free(count);
}

/* A row starting with '!' fails maybe_head with code 7, in both launches: the lowest such
 * row is reported. */
static void errors(size_t n)
{
    text t = random_text(n);
    size_t at[] = {n / 2, n - 1, n / 3};
    for (size_t k = 0; k < 3; k++) {
        free(t.row[at[k]]);
        t.row[at[k]] = strdup("!failing row");
        t.len[at[k]] = strlen(t.row[at[k]]);
    }
    column a = make_column(&t, 0, n, 2, UDFKIT_STRINGS_UTF8);
    udfkit_mask m = {NULL, 0};
    int64_t *off = device_copy(NULL, (n + 1) * 8);
    uint8_t *bits = device_copy(NULL, (n + 7) / 8);
    uint64_t row = 0;
    int code = 0;
    check(sk_udf_error(NULL, &row, &code), "sk_udf_error (clear)");
    if (!check(sk_nullable_map_maybe_head_sizes(NULL, n, a.s, m, off), "sizes with failing rows")) {
        udfkit_status st = sk_udf_error(NULL, &row, &code);
        expect(st == UDFKIT_ERROR_UDF && row == n / 3 && code == 7, "the sizes launch records the lowest failing row");
        int64_t total = 0;
        check(udfkit_copy_to_host(&total, off + n, 8), "copy");
        char *chars = device_copy(NULL, (size_t)total);
        check(sk_nullable_map_maybe_head(NULL, n, a.s, m, off, chars, bits, NULL), "write with failing rows");
        st = sk_udf_error(NULL, &row, &code);
        expect(st == UDFKIT_ERROR_UDF && row == n / 3 && code == 7, "the write launch records the lowest failing row");
        udfkit_device_free(chars);
    }
    udfkit_device_free(off);
    udfkit_device_free(bits);
    column_free(&a);
    text_free(&t);
}

/* A utf8 or large_utf8 column of empty strings may have no data buffer (Arrow's buffers[2]
 * NULL, udfkit_strings.chars NULL): every template reads its rows as empty, at any offset (the
 * kernels point such rows at the offsets, as no row's pointer may be NULL). */
static void empty_without_bytes(size_t n)
{
    text t = {n + 1, calloc(n + 1, sizeof(char *)), calloc(n + 1, sizeof(size_t))};
    for (size_t i = 0; i <= n; i++)
        t.row[i] = calloc(1, 1);
    for (int l = 0; l < 2; l++)
        for (uint64_t offset = 0; offset <= 5; offset += 5) {
            snprintf(current, sizeof current, "no data buffer: n=%zu layout=%s offset=%llu", n,
                     l ? "large_utf8" : "utf8", (unsigned long long)offset);
            column a = make_column(&t, 0, n, offset, (udfkit_string_layout)l);
            column b = make_column(&t, 1, n, offset + 2, (udfkit_string_layout)l);
            a.s.chars = NULL; /* the column's own allocation stays, for column_free */
            b.s.chars = NULL;
            maps(&t, n, &a, &b);
            nullables(&t, n, &a, true);
            filters(&t, n, &a);
            column_free(&a);
            column_free(&b);
        }
    text_free(&t);
}

int main(void)
{
    udfkit_status st = sk_load();
    if (st == UDFKIT_ERROR_NO_DRIVER || st == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        return 77;
    }
    if (check(st, "sk_load"))
        return 1;
    const size_t sizes[] = {0, 1, 7, (1u << 20) + 7};
    static const char *const layouts[] = {"utf8", "large_utf8", "utf8_view"};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t n = sizes[z];
        text t = random_text(n + 1);
        /* b's row i is t's row i + 1 (cat's second input). */
        for (int l = 0; l < 3; l++)
            for (uint64_t offset = 0; offset <= 5; offset += 5) {
                snprintf(current, sizeof current, "n=%zu layout=%s offset=%llu", n, layouts[l], (unsigned long long)offset);
                column a = make_column(&t, 0, n, offset, (udfkit_string_layout)l);
                column b = make_column(&t, 1, n, offset + 2, (udfkit_string_layout)((l + 1) % 3));
                text tn = {n, t.row, t.len};
                /* cat's expected second input is row i + 1 of t: as tn wraps at n, give it t's n + 1 rows. */
                tn.n = n + 1;
                maps(&tn, n, &a, &b);
                nullables(&tn, n, &a, false);
                nullables(&tn, n, &a, true);
                filters(&tn, n, &a);
                column_free(&a);
                column_free(&b);
            }
        text_free(&t);
    }
    empty_without_bytes(3000);
    snprintf(current, sizeof current, "errors");
    errors(1000);
    check(udfkit_synchronize(), "udfkit_synchronize");
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
