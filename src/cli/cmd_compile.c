#include "commands.h"
#include "frontend/compile.h"
#include "frontend/python_compile.h"
#include "options.h"

#include <string.h>

int udfkit_cmd_compile(int argc, char **argv)
{
    udfkit_cli_list sources = {0}, functions = {0}, includes = {0}, defines = {0}, extra = {0};
    bool skip_absent = false;
    const char *arch = NULL, *emit = NULL, *std = NULL, *output = NULL, *depfile = NULL, *python = NULL,
               *depfile_target = NULL, *python_frontend = NULL;
    const udfkit_cli_option options[] = {
        {"--function", "-f", UDFKIT_OPT_LIST, "SPEC...", "functions to export: [c_name=]source_name[@file]:signature", &functions},
        {"--arch", NULL, UDFKIT_OPT_VALUE, "LIST", "architectures in CMake syntax, e.g. 75-real;80-real;90 (default 75)", &arch},
        {"--emit", NULL, UDFKIT_OPT_VALUE, "KIND", "ltoir (default), ptx or cubin", &emit},
        {"-I", NULL, UDFKIT_OPT_LIST, "DIR", "add an include directory", &includes},
        {"-D", NULL, UDFKIT_OPT_LIST, "NAME[=VALUE]", "define a macro", &defines},
        {"--std", NULL, UDFKIT_OPT_VALUE, "STD", "C++ standard (default c++17)", &std},
        {"-Xnvrtc", NULL, UDFKIT_OPT_LIST, "OPTION", "pass an option to NVRTC as it is", &extra},
        {"--output", "-o", UDFKIT_OPT_VALUE, "OUT", "OUT.json: manifest and artifacts beside it; else the one artifact", &output},
        {"--depfile", NULL, UDFKIT_OPT_VALUE, "OUT.d", "write every file the compile can read, in Makefile syntax", &depfile},
        {"--depfile-target", NULL, UDFKIT_OPT_VALUE, "NAME", "the target the depfile names, as the build tool spells the output (default: the output, absolute)", &depfile_target},
        {"--python", NULL, UDFKIT_OPT_VALUE, "PATH", "interpreter with numba-cuda or numba-cuda-mlir for .py sources (default: the build's)", &python},
        {"--python-frontend", NULL, UDFKIT_OPT_VALUE, "NAME", "numba-cuda, numba-cuda-mlir or auto (default: numba-cuda where it is installed, else numba-cuda-mlir)", &python_frontend},
        {"--skip-absent", NULL, UDFKIT_OPT_FLAG, NULL, "leave out specs of functions these sources do not define (udfkit merge checks them)", &skip_absent},
    };
    const udfkit_cli_command cmd = {
        "compile",
        "udfkit compile <source>... --function SPEC... [--arch LIST] [--emit ltoir|ptx|cubin] [-I DIR] "
        "[-D NAME[=VALUE]] [--std c++17] [--python PATH] [--python-frontend numba-cuda|numba-cuda-mlir|auto] -o OUT "
        "[--depfile OUT.d]",
        "Compiles UDFs to LTO-IR, PTX or cubin, exporting each function under a C-ABI name: CUDA C++\n"
        "sources once per source and architecture (NVRTC), Python sources in one worker of the Python\n"
        "frontend (numba-cuda or numba-cuda-mlir), at the lowest architecture.",
        options,
        sizeof options / sizeof *options,
        &sources,
    };
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc == 0) {
        udfkit_code_kind kind = UDFKIT_CODE_LTOIR;
        if (!sources.count)
            rc = udfkit_cli_usage_error(&cmd, "no source given");
        else if (!output)
            rc = udfkit_cli_usage_error(&cmd, "no output given (-o OUT)");
        else if (emit && strcmp(emit, "ltoir") != 0 && strcmp(emit, "ptx") != 0 && strcmp(emit, "cubin") != 0)
            rc = udfkit_cli_usage_error(&cmd, "--emit takes ltoir, ptx or cubin, not '%s'", emit);
        else if (python_frontend && !udfkit_python_frontend_known(python_frontend))
            rc = udfkit_cli_usage_error(&cmd, "--python-frontend takes numba-cuda, numba-cuda-mlir or auto, not '%s'",
                                        python_frontend);
        if (rc == 0) {
            if (emit && strcmp(emit, "ptx") == 0)
                kind = UDFKIT_CODE_PTX;
            else if (emit && strcmp(emit, "cubin") == 0)
                kind = UDFKIT_CODE_CUBIN;
            udfkit_compile_request req = {
                .sources = sources.items,
                .nsources = sources.count,
                .functions = functions.items,
                .nfunctions = functions.count,
                .arch = arch,
                .emit = kind,
                .include_dirs = includes.items,
                .ninclude_dirs = includes.count,
                .defines = defines.items,
                .ndefines = defines.count,
                .std = std,
                .extra_options = extra.items,
                .nextra_options = extra.count,
                .output = output,
                .depfile = depfile,
                .depfile_target = depfile_target,
                .python = python,
                .python_frontend = python_frontend,
                .skip_absent = skip_absent,
            };
            rc = udfkit_cli_report(udfkit_compile(&req));
        }
    }
    udfkit_cli_list_free(&sources);
    udfkit_cli_list_free(&functions);
    udfkit_cli_list_free(&includes);
    udfkit_cli_list_free(&defines);
    udfkit_cli_list_free(&extra);
    return rc < 0 ? 0 : rc;
}
