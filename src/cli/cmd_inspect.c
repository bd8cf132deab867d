#include "commands.h"
#include "artifact/inspect.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>

int udfkit_cmd_inspect(int argc, char **argv)
{
    udfkit_cli_list files = {0};
    bool as_json = false;
    const udfkit_cli_option options[] = {
        {"--json", NULL, UDFKIT_OPT_FLAG, NULL, "print JSON instead of text", &as_json},
    };
    const udfkit_cli_command cmd = {
        "inspect",
        "udfkit inspect <file> [--json]",
        "Tells what an artifact is: its kind, architectures, entries, exported functions and kernels.",
        options,
        sizeof options / sizeof *options,
        &files,
    };
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc == 0 && files.count != 1)
        rc = udfkit_cli_usage_error(&cmd, "inspect takes one file");
    if (rc == 0) {
        json_t *desc = NULL;
        rc = udfkit_cli_report(udfkit_inspect_file(files.items[0], &desc));
        if (rc == 0) {
            if (as_json) {
                char *text = json_dumps(desc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
                if (text)
                    printf("%s\n", text);
                free(text);
            } else {
                udfkit_inspect_print(desc, stdout);
            }
        }
        json_decref(desc);
    }
    udfkit_cli_list_free(&files);
    return rc < 0 ? 0 : rc;
}
