#include "ptx_entries.h"

#include <stdbool.h>
#include <string.h>

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* PTX identifiers: [a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+ (PTX ISA, "Identifiers"). */
static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           c == '%';
}

size_t udfkit_ptx_entry_names(const char *ptx, size_t ptx_size, char *names, size_t size)
{
    static const char directive[] = ".entry";
    const size_t dlen = sizeof directive - 1;
    size_t count = 0, used = 0;
    bool in_line_comment = false, in_block_comment = false;
    for (size_t i = 0; i < ptx_size && ptx[i]; i++) {
        if (in_line_comment) {
            in_line_comment = ptx[i] != '\n';
            continue;
        }
        if (in_block_comment) {
            if (ptx[i] == '*' && i + 1 < ptx_size && ptx[i + 1] == '/') {
                in_block_comment = false;
                i++;
            }
            continue;
        }
        if (ptx[i] == '/' && i + 1 < ptx_size && (ptx[i + 1] == '/' || ptx[i + 1] == '*')) {
            in_line_comment = ptx[i + 1] == '/';
            in_block_comment = ptx[i + 1] == '*';
            i++;
            continue;
        }
        /* A directive, not a part of a longer word (.entry, not .entryx or x.entry). */
        if (ptx[i] != '.' || ptx_size - i < dlen + 1 || memcmp(ptx + i, directive, dlen) != 0 ||
            !is_space(ptx[i + dlen]) || (i > 0 && !is_space(ptx[i - 1])))
            continue;
        size_t at = i + dlen;
        while (at < ptx_size && is_space(ptx[at]))
            at++;
        size_t start = at;
        while (at < ptx_size && is_name_char(ptx[at]))
            at++;
        size_t len = at - start;
        while (at < ptx_size && is_space(ptx[at]))
            at++;
        if (!len || at >= ptx_size || ptx[at] != '(')
            continue;
        if (used + len + 1 > size)
            break;
        memcpy(names + used, ptx + start, len);
        names[used + len] = '\0';
        used += len + 1;
        count++;
        i = at;
    }
    return count;
}
