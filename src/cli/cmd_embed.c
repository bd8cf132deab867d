#include "commands.h"
#include "link/embed.h"
#include "options.h"

int udfkit_cmd_embed(int argc, char **argv)
{
    udfkit_cli_list files = {0};
    const char *symbol = NULL, *output = NULL, *header = NULL;
    const udfkit_cli_option options[] = {
        {"--symbol", NULL, UDFKIT_OPT_VALUE, "NAME", "the symbol of the bytes; NAME_size holds their number", &symbol},
        {"--output", "-o", UDFKIT_OPT_VALUE, "OUT.c", "the C source to write", &output},
        {"--header", NULL, UDFKIT_OPT_VALUE, "OUT.h", "also write a header declaring the symbols", &header},
    };
    const udfkit_cli_command cmd = {
        "embed",
        "udfkit embed <file> --symbol NAME -o OUT.c [--header OUT.h]",
        "Writes a C source that embeds a file's bytes, 64-byte aligned, through the assembler's .incbin.",
        options,
        sizeof options / sizeof *options,
        &files,
    };
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc == 0) {
        if (files.count != 1)
            rc = udfkit_cli_usage_error(&cmd, "embed takes one file");
        else if (!symbol)
            rc = udfkit_cli_usage_error(&cmd, "no symbol given (--symbol NAME)");
        else if (!output)
            rc = udfkit_cli_usage_error(&cmd, "no output given (-o OUT.c)");
        else
            rc = udfkit_cli_report(udfkit_embed(files.items[0], symbol, output, header));
    }
    udfkit_cli_list_free(&files);
    return rc < 0 ? 0 : rc;
}
