#include "nvidia/sandbox_wire.h"

#include <string.h>

bool udfkit_wire_put(udfkit_buf *out, char tag, const void *data, size_t size)
{
    unsigned char head[9];
    head[0] = (unsigned char)tag;
    for (int i = 0; i < 8; i++)
        head[1 + i] = (unsigned char)((uint64_t)size >> (8 * i));
    return udfkit_buf_append(out, head, sizeof head) && udfkit_buf_append(out, size ? data : "", size);
}

bool udfkit_wire_put_str(udfkit_buf *out, char tag, const char *s)
{
    return udfkit_wire_put(out, tag, s ? s : "", s ? strlen(s) : 0);
}

bool udfkit_wire_put_u32(udfkit_buf *out, char tag, uint32_t value)
{
    unsigned char v[4] = {(unsigned char)value, (unsigned char)(value >> 8), (unsigned char)(value >> 16),
                          (unsigned char)(value >> 24)};
    return udfkit_wire_put(out, tag, v, sizeof v);
}

udfkit_wire_reader udfkit_wire_read(const void *data, size_t size, const char *magic)
{
    udfkit_wire_reader r = {data, size, 8, false};
    r.bad = !data || size < 8 || memcmp(data, magic, 8) != 0;
    return r;
}

bool udfkit_wire_next(udfkit_wire_reader *r, char *tag, const unsigned char **data, size_t *size)
{
    if (r->bad || r->at == r->size)
        return false;
    if (r->size - r->at < 9) {
        r->bad = true;
        return false;
    }
    const unsigned char *p = r->data + r->at;
    uint64_t n = 0;
    for (int i = 0; i < 8; i++)
        n |= (uint64_t)p[1 + i] << (8 * i);
    if (n > r->size - r->at - 9) {
        r->bad = true;
        return false;
    }
    *tag = (char)p[0];
    *data = p + 9;
    *size = (size_t)n;
    r->at += 9 + (size_t)n;
    return true;
}

bool udfkit_wire_u32(const unsigned char *data, size_t size, uint32_t *value)
{
    if (size != 4)
        return false;
    *value = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
    return true;
}
