#include "artifact/ptx_isa.h"

#include <string.h>

/* Reads up to three decimal digits at *p, before `end`; -1 where there is none. */
static int read_number(const char **p, const char *end)
{
    int value = -1;
    for (int digits = 0; *p < end && digits < 3 && **p >= '0' && **p <= '9'; digits++, (*p)++)
        value = (value < 0 ? 0 : value * 10) + (**p - '0');
    return value;
}

int udfkit_ptx_isa(const char *text, size_t size)
{
    const char *end = text + size, *v = NULL;
    for (size_t i = 0; i + 8 <= size && i < 4096; i++)
        if (memcmp(text + i, ".version", 8) == 0) {
            v = text + i + 8;
            break;
        }
    if (!v)
        return 0;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    int major = read_number(&v, end);
    if (major < 0 || v >= end || *v != '.')
        return 0;
    v++;
    int minor = read_number(&v, end);
    return minor < 0 ? 0 : major * 10 + minor;
}
