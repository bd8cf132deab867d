/* Writes nvptxcompiler_version.h: the version of the nvPTXCompiler this build links into
 * the runtime, for `udfkit --version` and the tool's toolchain check. */
#include <nvPTXCompiler.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    unsigned major = 0, minor = 0;
    if (argc != 2 || nvPTXCompilerGetVersion(&major, &minor) != NVPTXCOMPILE_SUCCESS) {
        fprintf(stderr, "usage: %s OUT.h (and an nvPTXCompiler that reports its version)\n", argv[0]);
        return 1;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fprintf(f,
            "/* generated at build time by src/tools/nvptxcompiler_version.c */\n"
            "#define UDFKIT_NVPTXCOMPILER_MAJOR %u\n#define UDFKIT_NVPTXCOMPILER_MINOR %u\n",
            major, minor);
    return fclose(f) == 0 ? 0 : 1;
}
