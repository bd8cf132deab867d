/* udfkit: compiles GPU user-defined functions ahead of time. */
#include "base/diag.h"
#include "base/fs.h"
#include "base/locate.h"
#include "cache/remote.h"
#include "commands.h"
#include "nvidia/toolchain.h"

#include <stdio.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    bool uses_cuda_parts; /* NVRTC, nvJitLink or nvFatbin: checked before any work */
} command;

static const command commands[] = {
    {"compile", udfkit_cmd_compile, "compile CUDA C++ or Python UDFs to LTO-IR, PTX or cubin, with a manifest", true},
    {"link", udfkit_cmd_link, "link UDFs and kernels for every architecture into a fatbin, cubin or PTX", true},
    {"pack", udfkit_cmd_pack, "pack LTO-IR unlinked into one fatbin, for linking at load time", true},
    {"merge", udfkit_cmd_merge, "merge a target's compile manifests into one, checking every function", false},
    {"header", udfkit_cmd_header, "write the C header of the UDFs that manifests describe", false},
    {"embed", udfkit_cmd_embed, "write a C source that embeds a file under a symbol", false},
    {"cache", udfkit_cmd_cache, "show or clear the cache of compile and link results", false},
    {"inspect", udfkit_cmd_inspect, "tell what an artifact holds", false},
    {"kernels", udfkit_cmd_kernels, "write map/filter/reduce kernels around UDFs, their C launchers and header",
     false},
    {"doctor", udfkit_cmd_doctor, "check what a project's build needs: CUDA parts, Python frontends, remote caches",
     false},
    {"setup-python", udfkit_cmd_setup_python,
     "make udfkit's own Python environment with its pinned Python frontends and CUDA wheels", false},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: udfkit <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n  udfkit --version        udfkit's and each part's version and where it comes from, or how to get it\n"
               "  udfkit help <command>   a command's options\n"
               "  udfkit -v <command>     tell each NVRTC, numba-cuda, nvJitLink and nvFatbin step (also -v after it)\n"
               "  udfkit --touch-unchanged <command>\n"
               "                          give outputs whose bytes did not change a new time stamp too (for Make)\n");
}

int main(int argc, char **argv)
{
    /* The CUDA parts and the Python frontend are looked for relative to this executable:
     * its build tree's record, or the install's own Python environment (base/locate.h). */
    udfkit_locate_as_tool();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    /* udfkit -v <command> ...: as the command's own -v. --touch-unchanged: outputs whose
     * bytes did not change get a new time stamp all the same (the CMake modules pass it
     * under generators without Ninja's restat, such as Makefiles). */
    while (argc >= 2 && (strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "--verbose") == 0 ||
                         strcmp(argv[1], "--touch-unchanged") == 0)) {
        if (strcmp(argv[1], "--touch-unchanged") == 0)
            udfkit_outputs_touch_unchanged(true);
        else
            udfkit_verbose_set(true);
        argv++;
        argc--;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0)
        return udfkit_cmd_version(argc - 2, argv + 2);
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    bool help = strcmp(name, "help") == 0;
    if (help) {
        if (argc < 3) {
            usage(stdout);
            return 0;
        }
        name = argv[2];
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (strcmp(commands[i].name, name) != 0)
            continue;
        if (help) {
            char *argv_help[] = {"--help", NULL};
            return commands[i].run(1, argv_help);
        }
        /* Compiles and links look behind the local cache in UDFKIT_REMOTE_CACHE's remotes. */
        if (commands[i].uses_cuda_parts)
            udfkit_remote_install();
        /* Refuse a toolchain whose parts cannot work together before doing any work. Their
         * versions usually come from the cache (toolchain.h): nothing is loaded for this. */
        udfkit_toolchain tc;
        if (commands[i].uses_cuda_parts &&
            (udfkit_toolchain_query(&tc) != UDFKIT_RC_OK || udfkit_toolchain_check(&tc) != UDFKIT_RC_OK)) {
            fprintf(stderr, "%s\n", udfkit_diag_message());
            return UDFKIT_RC_ENV;
        }
        return commands[i].run(argc - 2, argv + 2);
    }
    fprintf(stderr, "udfkit: error: unknown command '%s'; see 'udfkit help'\n", name);
    return 2;
}
