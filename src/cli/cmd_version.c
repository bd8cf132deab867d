#include "base/diag.h"
#include "commands.h"
#include "options.h"
#include "parts.h"

#include <stdio.h>

/* Never fails for a missing part: each is listed found or missing (with how to get it), and
 * the exit status says whether the tool has everything compile, link and pack need (3 where
 * something is missing or the CUDA parts cannot work together). */
int udfkit_cmd_version(int argc, char **argv)
{
    const udfkit_cli_command cmd = {"--version", "udfkit --version",
                                    "Prints the version of udfkit and of each part it uses, and where each comes from; "
                                    "exit 3 where a part is missing.",
                                    NULL, 0, NULL};
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    udfkit_parts parts;
    udfkit_parts_list(NULL, udfkit_verbose(), &parts);
    rc = parts.missing ? UDFKIT_RC_ENV : UDFKIT_RC_OK;
    if (parts.missing)
        fprintf(stderr,
                "udfkit: error: missing: %s; compile, link and pack need every part above (see each line for how "
                "to get it; `udfkit doctor` checks a project's set-up)\n",
                parts.names.data);
    udfkit_parts_free(&parts);
    return rc;
}
