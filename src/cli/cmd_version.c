#include "commands.h"
#include "base/subprocess.h"
#include "frontend/python_compile.h"
#include "nvidia/toolchain.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "Python frontend: /path/python (numba-cuda 0.30.4)", asked of the interpreter itself. */
static void print_python_frontend(void)
{
    const char *python = udfkit_python_interpreter(NULL);
    char *argv[] = {(char *)python, "-c",
                    "import importlib.metadata as m\n"
                    "try:\n    print('numba-cuda ' + m.version('numba-cuda'))\n"
                    "except Exception:\n    print('no numba-cuda')",
                    NULL};
    char err_path[] = "/tmp/udfkit-version-XXXXXX";
    int fd = mkstemp(err_path);
    if (fd >= 0)
        close(fd);
    udfkit_buf out = UDFKIT_BUF_INIT;
    int status = 0;
    if (fd < 0 || udfkit_run_program(argv, NULL, 0, &out, err_path, &status) != UDFKIT_RC_OK || status != 0) {
        printf("Python frontend %s (cannot be run)\n", python);
        udfkit_diag_clear();
    } else {
        out.data[strcspn(out.data, "\n")] = '\0';
        printf("Python frontend %s (%s)\n", python, out.data);
    }
    if (fd >= 0)
        unlink(err_path);
    udfkit_buf_free(&out);
}

int udfkit_cmd_version(int argc, char **argv)
{
    const udfkit_cli_command cmd = {"--version", "udfkit --version", "Prints the version of udfkit and of each CUDA part.",
                                    NULL, 0, NULL};
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    udfkit_toolchain tc;
    if (udfkit_toolchain_query(&tc) != UDFKIT_RC_OK)
        return udfkit_cli_report(UDFKIT_RC_ENV);
    printf("udfkit %s\n", UDFKIT_VERSION_STRING);
    printf("NVRTC %d.%d\n", tc.nvrtc.major, tc.nvrtc.minor);
    printf("nvJitLink %d.%d\n", tc.nvjitlink.major, tc.nvjitlink.minor);
    printf("nvPTXCompiler %d.%d\n", tc.nvptxcompiler.major, tc.nvptxcompiler.minor);
    printf("nvFatbin %d.%d\n", tc.nvfatbin.major, tc.nvfatbin.minor);
    printf("CUDA headers %s\n", UDFKIT_CUDA_INCLUDE_DIR);
    print_python_frontend();
    return udfkit_cli_report(udfkit_toolchain_check(&tc));
}
