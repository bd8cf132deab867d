#include "base/fs.h"
#include "commands.h"
#include "link/embed.h"
#include "link/linker.h"
#include "link/pack.h"
#include "options.h"

#include <stdlib.h>

int udfkit_cmd_pack(int argc, char **argv)
{
    udfkit_cli_list inputs = {0};
    const char *arch = NULL, *output = NULL, *embed = NULL, *symbol = NULL, *sass = NULL;
    const udfkit_cli_option options[] = {
        {"--arch", NULL, UDFKIT_OPT_VALUE, "LIST",
         "architectures in CMake syntax, e.g. 75;80;90: of each source, Python function and link file, the LTO-IR "
         "for the highest architecture each takes (default: all of it)",
         &arch},
        {"--sass", NULL, UDFKIT_OPT_VALUE, "LIST",
         "for a SLOTS library: of each real architecture of LIST, the kernels that call no slot linked to SASS "
         "and packed besides (a bind then links only the kernels that call slots)",
         &sass},
        {"--output", "-o", UDFKIT_OPT_VALUE, "OUT", "the fatbin to write; its manifest goes to OUT.json", &output},
        {"--embed", NULL, UDFKIT_OPT_VALUE, "OUT.c", "also write a C source embedding OUT, as udfkit embed does",
         &embed},
        {"--symbol", NULL, UDFKIT_OPT_VALUE, "NAME", "the symbol of the embedded bytes (with --embed)", &symbol},
    };
    const udfkit_cli_command cmd = {
        "pack",
        "udfkit pack <manifest|.ltoir>... [--arch LIST] [--sass LIST] -o OUT [--embed OUT.c --symbol NAME]",
        "Packs the LTO-IR of udfkit manifests (with their link files) and .ltoir files, unlinked and\n"
        "uncompressed, into one fatbin, for a runtime that links it at load time; each entry's name\n"
        "says its group, producer and role, the first's also the functions (docs/manifest.md).\n"
        "OUT.json is the fatbin's manifest, for udfkit header and udfkit inspect.",
        options,
        sizeof options / sizeof *options,
        &inputs,
    };
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc == 0) {
        if (!inputs.count)
            rc = udfkit_cli_usage_error(&cmd, "no input given");
        else if (!output)
            rc = udfkit_cli_usage_error(&cmd, "no output given (-o OUT)");
        else if (!embed != !symbol)
            rc = udfkit_cli_usage_error(&cmd, "--embed and --symbol go together");
    }
    if (rc == 0) {
        udfkit_pack_request req = {inputs.items, inputs.count, arch, output, sass};
        udfkit_rc packed = udfkit_pack(&req);
        /* One process for a build's pack and embed steps; a failed embed leaves no output. */
        if (!packed && embed && (packed = udfkit_embed(output, symbol, embed, NULL))) {
            char *manifest = udfkit_link_manifest_path(output);
            udfkit_remove_output(output);
            udfkit_remove_output(manifest);
            free(manifest);
        }
        rc = udfkit_cli_report(packed);
    }
    udfkit_cli_list_free(&inputs);
    return rc < 0 ? 0 : rc;
}
