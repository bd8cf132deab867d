#include "frontend/depfile.h"

#include "base/fs.h"
#include "base/strset.h"

#include <stdlib.h>

/* A path as make and Ninja read it back, quoted as GCC quotes it: a space or tab after
 * 2N backslashes gets 2N+1 (N backslashes and the blank), '#' and ':' a backslash, '$' is
 * doubled. */
static void escaped(const char *path, udfkit_buf *out)
{
    size_t backslashes = 0;
    for (const char *p = path; *p; p++) {
        if (*p == ' ' || *p == '\t') {
            for (size_t i = 0; i < backslashes; i++)
                udfkit_buf_puts(out, "\\");
            udfkit_buf_puts(out, "\\");
        } else if (*p == '#' || *p == ':') {
            udfkit_buf_puts(out, "\\");
        } else if (*p == '$') {
            udfkit_buf_puts(out, "$");
        }
        backslashes = *p == '\\' ? backslashes + 1 : 0;
        udfkit_buf_append(out, p, 1);
    }
}

static bool listable(const char *path)
{
    for (const char *p = path; *p; p++)
        if (*p == '\n' || *p == '\r')
            return false;
    return true;
}

void udfkit_depfile_format(const char *target, const char *const *deps, size_t ndeps, udfkit_buf *out)
{
    escaped(target, out);
    udfkit_buf_puts(out, ":");
    udfkit_strset listed = UDFKIT_STRSET_INIT;
    for (size_t i = 0; i < ndeps; i++) {
        char *dep = udfkit_path_absolute(deps[i]);
        /* Each file once, however many sources include it; a name that cannot be
         * written in a depfile is left out rather than break the whole file. */
        if (listable(dep) && udfkit_strset_add(&listed, dep)) {
            udfkit_buf_puts(out, " \\\n  ");
            escaped(dep, out);
        }
        free(dep);
    }
    udfkit_strset_free(&listed);
    udfkit_buf_puts(out, "\n");
}
