#include "base/fs.h"
#include "commands.h"
#include "link/embed.h"
#include "link/linker.h"
#include "options.h"

#include <stdlib.h>
#include <string.h>

int udfkit_cmd_link(int argc, char **argv)
{
    udfkit_cli_list inputs = {0}, extra = {0};
    const char *arch = NULL, *emit = NULL, *output = NULL, *embed = NULL, *symbol = NULL, *compress = NULL,
               *units = NULL;
    bool keep_ltoir = false;
    const udfkit_cli_option options[] = {
        {"--arch", NULL, UDFKIT_OPT_VALUE, "LIST", "architectures in CMake syntax, e.g. 75-real;80-real;90", &arch},
        {"--emit", NULL, UDFKIT_OPT_VALUE, "KIND", "fatbin (default), cubin (one NN-real) or ptx (one NN-virtual)", &emit},
        {"--keep-ltoir", NULL, UDFKIT_OPT_FLAG, NULL, "also pack the LTO-IR inputs, for linking at load time", &keep_ltoir},
        {"--compress", NULL, UDFKIT_OPT_VALUE, "MODE", "compress the fatbin's entries: speed (default), balance, size or none (default with --keep-ltoir)", &compress},
        {"--units", NULL, UDFKIT_OPT_VALUE, "FILE", "link each unit of 'udfkit kernels --units' alone and cache it, then the units together (real architectures)", &units},
        {"-Xnvjitlink", NULL, UDFKIT_OPT_LIST, "OPTION", "pass an option to nvJitLink as it is", &extra},
        {"--output", "-o", UDFKIT_OPT_VALUE, "OUT", "the fatbin, cubin or PTX to write", &output},
        {"--embed", NULL, UDFKIT_OPT_VALUE, "OUT.c", "also write a C source embedding OUT, as udfkit embed does", &embed},
        {"--symbol", NULL, UDFKIT_OPT_VALUE, "NAME", "the symbol of the embedded bytes (with --embed)", &symbol},
    };
    const udfkit_cli_command cmd = {
        "link",
        "udfkit link <input>... --arch LIST [--emit fatbin|cubin|ptx] [--keep-ltoir] [--compress MODE] [--units FILE] "
        "-o OUT [--embed OUT.c --symbol NAME]",
        "Links LTO-IR, PTX, cubins, fatbins, host objects, archives and udfkit manifests for every\n"
        "architecture asked, in parallel; --emit fatbin also writes OUT.json, the manifest of the fatbin.",
        options,
        sizeof options / sizeof *options,
        &inputs,
    };
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc == 0) {
        udfkit_link_emit kind = UDFKIT_LINK_FATBIN;
        if (!inputs.count)
            rc = udfkit_cli_usage_error(&cmd, "no input given");
        else if (!arch)
            rc = udfkit_cli_usage_error(&cmd, "no architectures given (--arch LIST)");
        else if (!output)
            rc = udfkit_cli_usage_error(&cmd, "no output given (-o OUT)");
        else if (emit && strcmp(emit, "fatbin") != 0 && strcmp(emit, "cubin") != 0 && strcmp(emit, "ptx") != 0)
            rc = udfkit_cli_usage_error(&cmd, "--emit takes fatbin, cubin or ptx, not '%s'", emit);
        else if (keep_ltoir && emit && strcmp(emit, "fatbin") != 0)
            rc = udfkit_cli_usage_error(&cmd, "--keep-ltoir goes with --emit fatbin");
        else if (!embed != !symbol)
            rc = udfkit_cli_usage_error(&cmd, "--embed and --symbol go together");
        /* Compressed by default: a third of the size, and loading stays fast (bench/results/compress.txt). */
        udfkit_fatbin_compression compression = keep_ltoir || (emit && strcmp(emit, "fatbin") != 0)
                                                     ? UDFKIT_COMPRESS_NONE
                                                     : UDFKIT_COMPRESS_SPEED;
        if (rc == 0 && compress && !udfkit_fatbin_compression_parse(compress, &compression))
            rc = udfkit_cli_usage_error(&cmd, "--compress takes none, speed, balance or size, not '%s'", compress);
        else if (rc == 0 && compress && emit && strcmp(emit, "fatbin") != 0)
            rc = udfkit_cli_usage_error(&cmd, "--compress goes with --emit fatbin");
        /* nvFatbin's compressed LTO-IR is in a form only NVIDIA's tools undo; the runtime
         * reads LTO-IR entries itself to link them at load time. */
        else if (rc == 0 && compression != UDFKIT_COMPRESS_NONE && keep_ltoir)
            rc = udfkit_cli_usage_error(&cmd, "--compress and --keep-ltoir do not go together: the runtime links the "
                                              "kept LTO-IR at load time, which it reads uncompressed");
        if (rc == 0) {
            if (emit && strcmp(emit, "cubin") == 0)
                kind = UDFKIT_LINK_CUBIN;
            else if (emit && strcmp(emit, "ptx") == 0)
                kind = UDFKIT_LINK_PTX;
            udfkit_link_request req = {inputs.items, inputs.count, arch,        kind,
                                       keep_ltoir,  compression,  extra.items, extra.count, output, units};
            udfkit_rc linked = udfkit_link(&req);
            /* One process for a build's link and embed steps; a failed embed leaves no output. */
            if (!linked && embed && (linked = udfkit_embed(output, symbol, embed, NULL))) {
                udfkit_remove_output(output);
                if (kind == UDFKIT_LINK_FATBIN) { /* only a fatbin comes with a manifest */
                    char *manifest = udfkit_link_manifest_path(output);
                    udfkit_remove_output(manifest);
                    free(manifest);
                }
            }
            rc = udfkit_cli_report(linked);
        }
    }
    udfkit_cli_list_free(&inputs);
    udfkit_cli_list_free(&extra);
    return rc < 0 ? 0 : rc;
}
