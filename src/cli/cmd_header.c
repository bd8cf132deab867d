#include "commands.h"
#include "codegen/header_gen.h"
#include "options.h"

int udfkit_cmd_header(int argc, char **argv)
{
    udfkit_cli_list manifests = {0};
    const char *output = NULL, *name = NULL;
    const udfkit_cli_option options[] = {
        {"--name", NULL, UDFKIT_OPT_VALUE, "IDENT", "prefix of the function table (default: the output's file name)", &name},
        {"--output", "-o", UDFKIT_OPT_VALUE, "OUT.h", "the header to write", &output},
    };
    const udfkit_cli_command cmd = {
        "header",
        "udfkit header <manifest>... -o OUT.h [--name IDENT]",
        "Writes the UDF header: device prototypes of every exported function and a plain-C table of them.",
        options,
        sizeof options / sizeof *options,
        &manifests,
    };
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc == 0) {
        if (!manifests.count)
            rc = udfkit_cli_usage_error(&cmd, "no manifest given");
        else if (!output)
            rc = udfkit_cli_usage_error(&cmd, "no output given (-o OUT.h)");
        else
            rc = udfkit_cli_report(udfkit_header_generate(manifests.items, manifests.count, name, output));
    }
    udfkit_cli_list_free(&manifests);
    return rc < 0 ? 0 : rc;
}
