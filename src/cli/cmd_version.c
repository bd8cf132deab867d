#include "commands.h"
#include "base/locate.h"
#include "base/subprocess.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "frontend/python_compile.h"
#include "nvidia/toolchain.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* This program's own file, as the kernel knows it. */
static const char *self_path(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    out[n > 0 ? n : 0] = '\0';
    return out;
}

/* "Python frontend: /path/python (numba-cuda 0.30.4, numba-cuda-mlir 0.6.0)": each frontend the
 * interpreter has installed with its package, asked of the interpreter itself (without
 * importing them, which takes a second each). */
static void print_python_frontend(void)
{
    const char *python = udfkit_python_interpreter(NULL);
    char *argv[] = {(char *)python, "-c",
                    "import importlib.metadata as m, importlib.util as u\n"
                    "found = []\n"
                    "for d, p in (('numba-cuda', 'numba_cuda'), ('numba-cuda-mlir', 'numba_cuda_mlir')):\n"
                    "    try:\n        v = m.version(d)\n    except Exception:\n        continue\n"
                    "    if u.find_spec(p):\n        found.append(d + ' ' + v)\n"
                    "print(', '.join(found) or 'neither numba-cuda nor numba-cuda-mlir')",
                    NULL};
    char err_path[] = "/tmp/udfkit-version-XXXXXX";
    int fd = mkstemp(err_path);
    if (fd >= 0)
        close(fd);
    udfkit_buf out = UDFKIT_BUF_INIT;
    int status = 0;
    if (fd < 0 || udfkit_run_program(argv, NULL, 0, &out, err_path, &status) != UDFKIT_RC_OK || status != 0) {
        printf("%-19s%s (cannot be run)\n", "Python frontend", python);
        udfkit_diag_clear();
    } else {
        out.data[strcspn(out.data, "\n")] = '\0';
        printf("%-19s%s (%s)\n", "Python frontend", python, out.data);
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
    char path[4096], what[64];
    snprintf(what, sizeof what, "udfkit %s", UDFKIT_VERSION_STRING);
    printf("%-19s%s\n", what, self_path(path, sizeof path));
    const struct {
        const char *name;
        udfkit_version v;
        int part; /* -1: nvPTXCompiler, linked into the runtime */
    } rows[] = {{"NVRTC", tc.nvrtc, UDFKIT_PART_NVRTC},
                {"nvJitLink", tc.nvjitlink, UDFKIT_PART_NVJITLINK},
                {"nvPTXCompiler", tc.nvptxcompiler, -1},
                {"nvFatbin", tc.nvfatbin, UDFKIT_PART_NVFATBIN}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        snprintf(what, sizeof what, "%s %d.%d", rows[i].name, rows[i].v.major, rows[i].v.minor);
        if (rows[i].part >= 0)
            udfkit_cuda_part_location((udfkit_cuda_part)rows[i].part, path, sizeof path);
        else
            snprintf(path, sizeof path, "(linked statically into udfkit::runtime)");
        printf("%-19s%s\n", what, path);
    }
    printf("%-19s%s\n", "CUDA headers", udfkit_locate_cuda_headers_dir());
    print_python_frontend();
    /* The remote caches as `cache stats` shows them: passwords and tokens as "***". */
    char *dir = udfkit_cache_directory();
    udfkit_remote_stats *remotes;
    size_t n = udfkit_remote_read_stats(dir ? dir : "", &remotes);
    for (size_t i = 0; i < n; i++)
        if (remotes[i].configured)
            printf("%-19s%s\n", "Remote cache", remotes[i].url);
    udfkit_remote_stats_free(remotes, n);
    free(dir);
    return udfkit_cli_report(udfkit_toolchain_check(&tc));
}
