#include "commands.h"
#include "codegen/header_gen.h"
#include "options.h"

int udfkit_cmd_header(int argc, char **argv)
{
    udfkit_cli_list manifests = {0}, functions = {0};
    const char *output = NULL, *name = NULL;
    const udfkit_cli_option options[] = {
        {"--function", "-f", UDFKIT_OPT_LIST, "SPEC...", "declared functions, [c_name=]source_name:signature, besides the manifests' ones (add_jit_library's SLOTS)", &functions},
        {"--name", NULL, UDFKIT_OPT_VALUE, "IDENT", "prefix of the function table (default: the output's file name)", &name},
        {"--output", "-o", UDFKIT_OPT_VALUE, "OUT.h", "the header to write", &output},
    };
    const udfkit_cli_command cmd = {
        "header",
        "udfkit header [<manifest>...] [--function SPEC...] -o OUT.h [--name IDENT]",
        "Writes the UDF header: device prototypes of every exported function and a plain-C table of them.",
        options,
        sizeof options / sizeof *options,
        &manifests,
    };
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc == 0) {
        if (!manifests.count && !functions.count)
            rc = udfkit_cli_usage_error(&cmd, "no manifest or --function given");
        else if (!output)
            rc = udfkit_cli_usage_error(&cmd, "no output given (-o OUT.h)");
        else
            rc = udfkit_cli_report(udfkit_header_generate(manifests.items, manifests.count, functions.items,
                                                                  functions.count, name, output));
    }
    udfkit_cli_list_free(&manifests);
    udfkit_cli_list_free(&functions);
    return rc < 0 ? 0 : rc;
}
