#include "base/template.h"

#include <ctype.h>
#include <string.h>

udfkit_rc udfkit_template_render(const char *tpl, const udfkit_template_var *vars, size_t nvars, udfkit_buf *out)
{
    const char *p = tpl;
    while (*p) {
        const char *at = strchr(p, '@');
        if (!at) {
            udfkit_buf_puts(out, p);
            break;
        }
        udfkit_buf_append(out, p, (size_t)(at - p));
        const char *end = at + 1;
        while (isupper((unsigned char)*end) || isdigit((unsigned char)*end) || *end == '_')
            end++;
        if (*end != '@' || end == at + 1) {
            udfkit_buf_append(out, "@", 1);
            p = at + 1;
            continue;
        }
        size_t len = (size_t)(end - at - 1);
        const char *value = NULL;
        for (size_t i = 0; i < nvars; i++) {
            if (strlen(vars[i].name) != len || strncmp(vars[i].name, at + 1, len) != 0)
                continue;
            /* Two values for one name: the later would silently win where the other was meant. */
            if (value)
                return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "template placeholder @%.*s@ has two values", (int)len,
                                   at + 1);
            value = vars[i].value;
        }
        if (!value)
            return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "template placeholder @%.*s@ has no value", (int)len, at + 1);
        udfkit_buf_puts(out, value);
        p = end + 1;
    }
    return UDFKIT_RC_OK;
}
