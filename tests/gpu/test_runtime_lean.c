/* The runtime without nvPTXCompiler, as programs link it by default, and with
 * udfkit::runtime_ptx linked beside it: both against the shared runtime
 * (libudfkit_runtime.so.1), so the fallback's constructor registers across the library
 * boundary. Built twice: WITH_PTX_FALLBACK 0 and 1.
 *
 * usage: test_runtime_lean <runtime artifacts dir> <compressed fatbin>
 * Exit 77 (skipped) where no GPU is visible. */
#define _XOPEN_SOURCE 700
#include "gpu_test.h"

#include <udfkit/runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc(*size + 1);
    if (fread(data, 1, *size, f) != *size)
        exit(1);
    data[*size] = '\0';
    fclose(f);
    return data;
}

static char *artifact(const char *dir, const char *name, size_t *size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return read_file(path, size);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s <runtime artifacts> <compressed fatbin>\n", argv[0]);
        return 2;
    }
    size_t size;
    char *fatbin = artifact(argv[1], "ptx_only.fatbin", &size);
    udfkit_library *lib = NULL;
    /* PTX the driver can JIT needs no compiler of ours. */
    setenv("UDFKIT_PTX_COMPILE", "auto", 1);
    udfkit_status s = udfkit_library_load(fatbin, size, &lib);
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        free(fatbin);
        return 77;
    }
    udfkit_kernel k;
    CHECK(s == UDFKIT_OK && udfkit_library_get_kernel(lib, "apply_udfs", &k) == UDFKIT_OK, "PTX JIT by the driver");
    udfkit_library_unload(lib);

    /* `always` compiles with nvPTXCompiler where the program links it, and says how to where not. */
    setenv("UDFKIT_PTX_COMPILE", "always", 1);
    lib = NULL;
    s = udfkit_library_load(fatbin, size, &lib);
#if WITH_PTX_FALLBACK
    CHECK(s == UDFKIT_OK && udfkit_library_get_kernel(lib, "apply_udfs", &k) == UDFKIT_OK,
          "always, with udfkit::runtime_ptx: compiled by nvPTXCompiler");
#else
    CHECK(s == UDFKIT_ERROR_NO_BINARY && lib == NULL && strstr(udfkit_last_error(), "udfkit::runtime_ptx") &&
              strstr(udfkit_last_error(), "PTX_FALLBACK"),
          "always, without udfkit::runtime_ptx: %s", udfkit_last_error());
#endif
    udfkit_library_unload(lib);
    free(fatbin);

    /* PTX newer than the driver: without the fallback the message names both versions and
     * the way to link it; with it, nvPTXCompiler (13.0, ISA 9.0) refuses ISA 9.9 too. */
    char *ptx = artifact(argv[1], "plain.ptx", &size);
    char *v = strstr(ptx, ".version 9.0");
    CHECK(v != NULL, "the PTX says .version 9.0");
    if (v)
        memcpy(v, ".version 9.9", 12);
    setenv("UDFKIT_PTX_COMPILE", "auto", 1);
    lib = NULL;
    s = udfkit_library_load(ptx, size, &lib);
    const char *e = udfkit_last_error();
    CHECK(s == UDFKIT_ERROR_NO_BINARY && lib == NULL && strstr(e, "ISA 9.9") && strstr(e, "PTX ISA 9.0") &&
              strstr(e, "CUDA "),
          "newer PTX: %s", e);
#if WITH_PTX_FALLBACK
    CHECK(strstr(e, "nvPTXCompiler 13.") != NULL, "the fallback was tried: %s", e);
#else
    CHECK(strstr(e, "udfkit::runtime_ptx") != NULL && strstr(e, "update the driver") != NULL, "says how: %s", e);
#endif
    free(ptx);

    /* A compressed fatbin (add_jit_library's default) loads through the shared runtime. */
    unsetenv("UDFKIT_PTX_COMPILE");
    char *compressed = read_file(argv[2], &size);
    lib = NULL;
    s = udfkit_library_load(compressed, size, &lib);
    CHECK(s == UDFKIT_OK, "a compressed fatbin loads: %s", udfkit_status_string(s));
    udfkit_library_unload(lib);
    free(compressed);

    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
