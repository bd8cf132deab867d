#include "commands.h"
#include "artifact/merge.h"
#include "codegen/header_gen.h"
#include "options.h"

#include <unistd.h>

int udfkit_cmd_merge(int argc, char **argv)
{
    udfkit_cli_list inputs = {0}, functions = {0}, links = {0};
    const char *output = NULL, *header = NULL, *name = NULL;
    const udfkit_cli_option options[] = {
        {"--function", "-f", UDFKIT_OPT_LIST, "SPEC...", "every function the target exports; each must be found once", &functions},
        {"--link", NULL, UDFKIT_OPT_LIST, "FILE", "external code the functions need; copied beside the output", &links},
        {"--output", "-o", UDFKIT_OPT_VALUE, "OUT.json", "the target's manifest", &output},
        {"--header", NULL, UDFKIT_OPT_VALUE, "OUT.h", "also write its UDF header, as udfkit header does", &header},
        {"--name", NULL, UDFKIT_OPT_VALUE, "IDENT", "prefix of the header's function table (with --header)", &name},
    };
    const udfkit_cli_command cmd = {
        "merge",
        "udfkit merge <manifest|file.ptx|file.ltoir>... --function SPEC... [--link FILE...] -o OUT.json "
        "[--header OUT.h [--name IDENT]]",
        "Merges the manifests of a target's compiles (made with compile --skip-absent), its precompiled\n"
        "PTX or LTO-IR and its link files into one manifest, checking that each function is exported once.",
        options,
        sizeof options / sizeof *options,
        &inputs,
    };
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc == 0) {
        if (!output)
            rc = udfkit_cli_usage_error(&cmd, "no output given (-o OUT.json)");
        else {
            udfkit_merge_request req = {inputs.items, inputs.count, functions.items, functions.count,
                                        links.items, links.count, output};
            udfkit_rc merged = udfkit_merge(&req);
            /* One process for a build's merge and header steps; a failed header leaves no output. */
            if (!merged && header && (merged = udfkit_header_generate((const char *const[]){output}, 1, NULL, 0, name, header)))
                unlink(output);
            rc = udfkit_cli_report(merged);
        }
    }
    udfkit_cli_list_free(&inputs);
    udfkit_cli_list_free(&functions);
    udfkit_cli_list_free(&links);
    return rc < 0 ? 0 : rc;
}
