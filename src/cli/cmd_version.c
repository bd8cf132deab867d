#include "commands.h"
#include "options.h"
#include "toolchain.h"

#include <stdio.h>

int udfkit_cmd_version(int argc, char **argv)
{
    const udfkit_cli_command cmd = {"--version", "udfkit --version", "Prints the version of udfkit and of each CUDA part.",
                                    NULL, 0, NULL};
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    udfkit_toolchain tc;
    udfkit_toolchain_query(&tc);
    printf("udfkit %s\n", UDFKIT_VERSION_STRING);
    printf("NVRTC %d.%d\n", tc.nvrtc.major, tc.nvrtc.minor);
    printf("nvJitLink %d.%d\n", tc.nvjitlink.major, tc.nvjitlink.minor);
    printf("nvPTXCompiler %d.%d\n", tc.nvptxcompiler.major, tc.nvptxcompiler.minor);
    printf("nvFatbin %d.%d\n", tc.nvfatbin.major, tc.nvfatbin.minor);
    printf("CUDA headers %s\n", UDFKIT_CUDA_INCLUDE_DIR);
    return udfkit_cli_report(udfkit_toolchain_check(&tc));
}
