/* A growable byte buffer: what every NVIDIA wrapper hands back. */
#ifndef UDFKIT_BUF_H
#define UDFKIT_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct udfkit_buf {
    char *data; /* always NUL-terminated past size, so text can be used as a string */
    size_t size;
    size_t cap;
} udfkit_buf;

#define UDFKIT_BUF_INIT {NULL, 0, 0}

bool udfkit_buf_reserve(udfkit_buf *b, size_t extra);
bool udfkit_buf_append(udfkit_buf *b, const void *data, size_t size);
bool udfkit_buf_puts(udfkit_buf *b, const char *s);
/* Appends the strings separated by `sep`. */
bool udfkit_buf_join(udfkit_buf *b, const char *const *items, size_t count, const char *sep);
bool udfkit_buf_printf(udfkit_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Hands the bytes over to the caller, leaving b empty. */
char *udfkit_buf_detach(udfkit_buf *b);
void udfkit_buf_free(udfkit_buf *b);

#endif
