#include "base/buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool udfkit_buf_reserve(udfkit_buf *b, size_t extra)
{
    if (extra > SIZE_MAX / 2 - b->size)
        return false; /* a length read from a file, not a real need */
    if (b->size + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->size + extra + 1)
        cap *= 2;
    char *data = realloc(b->data, cap);
    if (!data)
        return false;
    b->data = data;
    b->cap = cap;
    return true;
}

bool udfkit_buf_append(udfkit_buf *b, const void *data, size_t size)
{
    if (!udfkit_buf_reserve(b, size))
        return false;
    if (size)
        memcpy(b->data + b->size, data, size);
    b->size += size;
    b->data[b->size] = '\0';
    return true;
}

bool udfkit_buf_puts(udfkit_buf *b, const char *s)
{
    return udfkit_buf_append(b, s, strlen(s));
}

bool udfkit_buf_join(udfkit_buf *b, const char *const *items, size_t count, const char *sep)
{
    bool ok = true;
    for (size_t i = 0; i < count; i++)
        ok = (!i || udfkit_buf_puts(b, sep)) && udfkit_buf_puts(b, items[i]) && ok;
    return ok;
}

bool udfkit_buf_printf(udfkit_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !udfkit_buf_reserve(b, (size_t)n))
        return false;
    va_start(ap, fmt);
    vsnprintf(b->data + b->size, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->size += (size_t)n;
    return true;
}

char *udfkit_buf_detach(udfkit_buf *b)
{
    char *data = b->data;
    if (!data)
        data = calloc(1, 1);
    b->data = NULL;
    b->size = b->cap = 0;
    return data;
}

void udfkit_buf_free(udfkit_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->size = b->cap = 0;
}
