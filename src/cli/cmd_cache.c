#include "cache/cache.h"
#include "commands.h"
#include "options.h"

#include <stdio.h>
#include <string.h>

int udfkit_cmd_cache(int argc, char **argv)
{
    udfkit_cli_list actions = {0};
    const udfkit_cli_command cmd = {
        "cache",
        "udfkit cache stats|clear",
        "Shows or empties the cache of compile and link results (UDFKIT_CACHE_DIR, else $XDG_CACHE_HOME/udfkit;\n"
        "UDFKIT_CACHE=0 turns it off; UDFKIT_CACHE_SIZE bounds it, default 2G).",
        NULL,
        0,
        &actions,
    };
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc == 0) {
        if (actions.count != 1 || (strcmp(actions.items[0], "stats") != 0 && strcmp(actions.items[0], "clear") != 0))
            rc = udfkit_cli_usage_error(&cmd, "cache takes stats or clear");
        else if (strcmp(actions.items[0], "stats") == 0)
            rc = udfkit_cli_report(udfkit_cache_print_stats(stdout));
        else
            rc = udfkit_cli_report(udfkit_cache_clear());
    }
    udfkit_cli_list_free(&actions);
    return rc < 0 ? 0 : rc;
}
