#include "commands.h"
#include "frontend/compile.h"
#include "frontend/python_compile.h"
#include "options.h"

#include <stdlib.h>
#include <string.h>

/* --time-limit and --memory-limit, with --untrusted's defaults: 0, or 2 after a usage error. */
static int parse_limits(const udfkit_cli_command *cmd, bool untrusted, const char *seconds, const char *memory,
                        udfkit_sandbox *sb)
{
    char *end;
    sb->seconds = untrusted ? UDFKIT_SANDBOX_DEFAULT_SECONDS : 0;
    sb->memory = untrusted ? UDFKIT_SANDBOX_DEFAULT_MEMORY : 0;
    if (seconds && (!(sb->seconds = strtod(seconds, &end)) || *end || sb->seconds < 0 || sb->seconds > 1e7))
        return udfkit_cli_usage_error(cmd, "--time-limit takes seconds, more than 0, not '%s'", seconds);
    if (memory) {
        double v = strtod(memory, &end);
        double unit = *end == 'K' || *end == 'k' ? 1 << 10 : *end == 'M' || *end == 'm' ? 1 << 20
                      : *end == 'G' || *end == 'g' ? 1 << 30 : 1;
        if (unit > 1)
            end++;
        if (*end || v * unit < (double)(64 << 20) || v * unit > 1e15)
            return udfkit_cli_usage_error(cmd, "--memory-limit takes a size of at least 64M (K, M, G), not '%s'",
                                          memory);
        sb->memory = (uint64_t)(v * unit);
    }
    return 0;
}

int udfkit_cmd_compile(int argc, char **argv)
{
    udfkit_cli_list sources = {0}, functions = {0}, includes = {0}, defines = {0}, extra = {0}, allowed = {0};
    bool skip_absent = false, untrusted = false;
    const char *arch = NULL, *emit = NULL, *std = NULL, *output = NULL, *depfile = NULL, *python = NULL,
               *depfile_target = NULL, *python_frontend = NULL, *time_limit = NULL, *memory_limit = NULL;
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
        {"--untrusted", NULL, UDFKIT_OPT_FLAG, NULL, "the sources are someone else's: NVRTC runs in udfkit's sandbox and reads only below -I and --allow-include directories and CUDA's headers (docs/security.md)", &untrusted},
        {"--allow-include", NULL, UDFKIT_OPT_LIST, "DIR", "with --untrusted: a directory the sources may include from besides -I (not searched)", &allowed},
        {"--time-limit", NULL, UDFKIT_OPT_VALUE, "SECONDS", "stop the compile after this long (NVRTC in the sandbox; --untrusted: 60)", &time_limit},
        {"--memory-limit", NULL, UDFKIT_OPT_VALUE, "SIZE", "each NVRTC's address space, with K/M/G suffixes (in the sandbox; --untrusted: 4G)", &memory_limit},
    };
    const udfkit_cli_command cmd = {
        "compile",
        "udfkit compile <source>... --function SPEC... [--arch LIST] [--emit ltoir|ptx|cubin] [-I DIR] "
        "[-D NAME[=VALUE]] [--std c++17] [--python PATH] [--python-frontend numba-cuda|numba-cuda-mlir|auto] -o OUT "
        "[--depfile OUT.d] [--untrusted [--allow-include DIR]] [--time-limit SECONDS] [--memory-limit SIZE]",
        "Compiles UDFs to LTO-IR, PTX or cubin, exporting each function under a C-ABI name: CUDA C++\n"
        "sources once per source and architecture (NVRTC), Python sources in one worker of the Python\n"
        "frontend (numba-cuda or numba-cuda-mlir), at the lowest architecture.",
        options,
        sizeof options / sizeof *options,
        &sources,
    };
    udfkit_sandbox sandbox = {0};
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
        else if (allowed.count && !untrusted)
            rc = udfkit_cli_usage_error(&cmd, "--allow-include goes with --untrusted");
        else
            rc = parse_limits(&cmd, untrusted, time_limit, memory_limit, &sandbox);
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
                .sandbox = untrusted || time_limit || memory_limit ? &sandbox : NULL,
                .untrusted = untrusted,
                .allowed_dirs = allowed.items,
                .nallowed_dirs = allowed.count,
            };
            rc = udfkit_cli_report(udfkit_compile(&req));
        }
    }
    udfkit_cli_list_free(&sources);
    udfkit_cli_list_free(&functions);
    udfkit_cli_list_free(&includes);
    udfkit_cli_list_free(&defines);
    udfkit_cli_list_free(&extra);
    udfkit_cli_list_free(&allowed);
    return rc < 0 ? 0 : rc;
}
