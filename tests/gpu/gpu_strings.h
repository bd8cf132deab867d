/* What the GPU tests of strings share (test_strings.c, test_python_strings.c): a string column
 * on the device in one of Arrow's three layouts, built from rows on the host, and the text
 * that <udfkit/string.cuh> writes for a row (ill-formed UTF-8 as U+FFFD), as the host expects
 * it. Include after gpu_test.h. */
#ifndef UDFKIT_GPU_STRINGS_H
#define UDFKIT_GPU_STRINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A string column on the device: `rows` rows as Arrow holds them, `offset` junk rows of their
 * own first (so that a wrong Arrow offset shows), and what to free. */
typedef struct gpu_strings {
    udfkit_strings s;
    void *offsets, *chars, *data[2], *buffers;
} gpu_strings;

/* Rows row[0..n) (len[i] bytes each) as a column in `layout` at Arrow offset `offset`. A
 * utf8_view column keeps rows of up to 12 bytes in their views and the others in
 * `data_buffers` (1 or 2) data buffers, alternating between them by row. */
__attribute__((unused)) static gpu_strings gpu_strings_make(const char *const *row, const size_t *len, size_t n,
                                                            uint64_t offset, udfkit_string_layout layout,
                                                            int data_buffers)
{
    gpu_strings c = {{layout, NULL, NULL, NULL, offset}, NULL, NULL, {NULL, NULL}, NULL};
    static const char junk[] = "junk row, never to be read";
    size_t rows = offset + n, total = 0;
    const char **all = calloc(rows + 1, sizeof *all);
    size_t *size = calloc(rows + 1, sizeof *size);
    for (size_t i = 0; i < rows; i++) {
        all[i] = i < offset ? junk : row[i - offset];
        size[i] = i < offset ? sizeof junk - 1 - i % 8 : len[i - offset];
        total += size[i];
    }
    if (layout != UDFKIT_STRINGS_UTF8_VIEW) {
        const bool large = layout == UDFKIT_STRINGS_LARGE_UTF8;
        const size_t width = large ? 8 : 4;
        unsigned char *off = malloc((rows + 1) * width);
        char *chars = malloc(total + 1);
        size_t at = 0;
        for (size_t i = 0; i <= rows; i++) {
            const int64_t v64 = (int64_t)at;
            const int32_t v32 = (int32_t)at;
            memcpy(off + i * width, large ? (const void *)&v64 : (const void *)&v32, width);
            if (i < rows) {
                memcpy(chars + at, all[i], size[i]);
                at += size[i];
            }
        }
        c.offsets = device_copy(off, (rows + 1) * width);
        c.chars = device_copy(chars, total);
        c.s.offsets = c.offsets;
        c.s.chars = c.chars;
        free(off);
        free(chars);
    } else {
        /* A view: the size, then the bytes where they fit in 12, else a 4-byte prefix, the
         * data buffer's index and the offset in it. */
        const int buffers = data_buffers == 2 ? 2 : 1;
        unsigned char *views = calloc(rows + 1, 16);
        char *data[2] = {malloc(total + 1), malloc(total + 1)};
        size_t used[2] = {0, 0};
        for (size_t i = 0; i < rows; i++) {
            const int32_t bytes = (int32_t)size[i];
            memcpy(views + 16 * i, &bytes, 4);
            if (size[i] <= 12) {
                memcpy(views + 16 * i + 4, all[i], size[i]);
                continue;
            }
            const int32_t b = (int32_t)(i % (size_t)buffers), o = (int32_t)used[b];
            memcpy(views + 16 * i + 4, all[i], 4);
            memcpy(views + 16 * i + 8, &b, 4);
            memcpy(views + 16 * i + 12, &o, 4);
            memcpy(data[b] + used[b], all[i], size[i]);
            used[b] += size[i];
        }
        c.offsets = device_copy(views, (rows + 1) * 16);
        for (int b = 0; b < buffers; b++)
            c.data[b] = device_copy(data[b], used[b]);
        c.buffers = device_copy(c.data, (size_t)buffers * sizeof c.data[0]);
        c.s.offsets = c.offsets;
        c.s.buffers = c.buffers;
        free(views);
        free(data[0]);
        free(data[1]);
    }
    free(all);
    free(size);
    return c;
}

__attribute__((unused)) static void gpu_strings_free(gpu_strings *c)
{
    udfkit_device_free(c->offsets);
    udfkit_device_free(c->chars);
    udfkit_device_free(c->data[0]);
    udfkit_device_free(c->data[1]);
    udfkit_device_free(c->buffers);
}

/* The bytes of well-formed UTF-8 at s[0..n) that start a sequence: how many (1 to 4), or 0
 * where s[0] begins an ill-formed subsequence, whose maximal subpart (Unicode 3.9, table
 * 3-7: the first byte and the continuation bytes that could still have completed it) is
 * *bad bytes long. */
__attribute__((unused)) static size_t gpu_utf8_sequence(const unsigned char *s, size_t n, size_t *bad)
{
    const unsigned b = s[0];
    size_t need;
    unsigned lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (b < 0x80)
        return 1;
    if (b >= 0xC2 && b <= 0xDF)
        need = 1;
    else if (b >= 0xE0 && b <= 0xEF)
        need = 2, lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
    else if (b >= 0xF0 && b <= 0xF4)
        need = 3, lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
    else
        return *bad = 1, 0;
    size_t k = 1;
    for (; k <= need && k < n; k++) {
        const unsigned c = s[k];
        if (k == 1 ? c < lo || c > hi : c < 0x80 || c > 0xBF)
            break;
    }
    if (k == need + 1)
        return need + 1;
    *bad = k;
    return 0;
}

/* The text <udfkit/string.cuh> writes for the bytes s[0..n) (string_out::append of a view,
 * docs/strings.md): each ill-formed subsequence as U+FFFD (EF BF BD), as CPython's
 * bytes.decode('utf-8', 'replace').encode() gives it. Malloc'd (at least 1 byte), its size in
 * *size. */
__attribute__((unused)) static char *gpu_utf8_replaced(const char *s, size_t n, size_t *size)
{
    char *out = malloc(3 * n + 1);
    size_t at = 0;
    for (size_t i = 0; i < n;) {
        size_t bad = 0, k = gpu_utf8_sequence((const unsigned char *)s + i, n - i, &bad);
        if (k) {
            memcpy(out + at, s + i, k);
            at += k;
            i += k;
        } else {
            memcpy(out + at, "\xef\xbf\xbd", 3);
            at += 3;
            i += bad;
        }
    }
    *size = at;
    return out;
}

#endif
