#include "frontend/depfile.h"

#include "base/fs.h"

#include <stdlib.h>

static void escaped(const char *path, udfkit_buf *out)
{
    for (const char *p = path; *p; p++) {
        if (*p == ' ' || *p == '#' || *p == ':')
            udfkit_buf_puts(out, "\\");
        if (*p == '$')
            udfkit_buf_puts(out, "$");
        udfkit_buf_append(out, p, 1);
    }
}

void udfkit_depfile_format(const char *target, const char *const *deps, size_t ndeps, udfkit_buf *out)
{
    escaped(target, out);
    udfkit_buf_puts(out, ":");
    for (size_t i = 0; i < ndeps; i++) {
        char *dep = udfkit_path_absolute(deps[i]);
        udfkit_buf_puts(out, " \\\n  ");
        escaped(dep, out);
        free(dep);
    }
    udfkit_buf_puts(out, "\n");
}
