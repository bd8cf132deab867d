#include "link/embed.h"

#include "base/buf.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/spec.h"
#include "base/templates.h"
#include "codegen/header_gen.h"
#include "base/template.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The path as the body of an assembler string inside a C string: anything but a few
 * plain characters becomes an octal escape, so no file name can add text of its own. */
static void asm_path(const char *path, udfkit_buf *out)
{
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (isalnum(*p) || *p == '/' || *p == '.' || *p == '_' || *p == '-')
            udfkit_buf_append(out, p, 1);
        else
            udfkit_buf_printf(out, "\\\\%03o", *p);
    }
}

udfkit_rc udfkit_embed(const char *input, const char *symbol, const char *output_c, const char *output_h)
{
    udfkit_outputs *outputs = udfkit_outputs_new();
    udfkit_buf data = UDFKIT_BUF_INIT, path = UDFKIT_BUF_INIT, text = UDFKIT_BUF_INIT, name = UDFKIT_BUF_INIT;
    char *abs = NULL, *guard = NULL;
    udfkit_rc rc = udfkit_outputs_claim(outputs, output_c);
    if (!rc && output_h)
        rc = udfkit_outputs_claim(outputs, output_h);
    if (!rc)
        rc = udfkit_outputs_input(outputs, input);
    if (rc)
        goto done;
    if (!udfkit_is_c_identifier(symbol)) {
        rc = udfkit_fail(UDFKIT_RC_USAGE, NULL, 0, "--symbol '%s' is not a C identifier", symbol);
        goto done;
    }
    if ((rc = udfkit_read_file(input, &data)))
        goto done;
    char hash[UDFKIT_HASH_HEX_SIZE], size[32];
    udfkit_hash_hex(data.data, data.size, hash);
    snprintf(size, sizeof size, "%zu", data.size);
    abs = udfkit_path_absolute(input);
    asm_path(abs, &path);
    /* The file name appears in comments only; keep it to characters that cannot end one. */
    for (const char *p = udfkit_path_basename(input); *p; p++)
        udfkit_buf_printf(&name, "%c", isprint((unsigned char)*p) && *p != '*' && *p != '/' ? *p : '_');
    guard = udfkit_include_guard("EMBED", symbol);
    const udfkit_template_var vars[] = {
        {"VERSION", UDFKIT_VERSION_STRING}, {"FILE_NAME", name.data}, {"SIZE", size},      {"HASH", hash},
        {"SYMBOL", symbol},                 {"ASM_PATH", path.data},  {"GUARD", guard},
    };
    size_t nvars = sizeof vars / sizeof *vars;
    if ((rc = udfkit_template_render(udfkit_tpl_embed_c, vars, nvars, &text)))
        goto done;
    if ((rc = udfkit_outputs_write(outputs, output_c, text.data, text.size)))
        goto done;
    if (output_h) {
        text.size = 0;
        if ((rc = udfkit_template_render(udfkit_tpl_embed_h, vars, nvars, &text)))
            goto done;
        if ((rc = udfkit_outputs_write(outputs, output_h, text.data, text.size)))
            goto done;
    }
    rc = udfkit_outputs_commit(outputs);
done:
    free(abs);
    free(guard);
    udfkit_buf_free(&data);
    udfkit_buf_free(&path);
    udfkit_buf_free(&text);
    udfkit_buf_free(&name);
    udfkit_outputs_free(outputs);
    return rc;
}
