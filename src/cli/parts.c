#include "parts.h"

#include "base/fs.h"
#include "base/locate.h"
#include "base/subprocess.h"
#include "cache/cache.h"
#include "cache/remote.h"
#include "frontend/python_compile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOW_TO_GET                                                                                                     \
    "run `udfkit setup-python` (udfkit's own Python environment with the pinned Python frontends and CUDA 13.0 "     \
    "wheels)"

void udfkit_parts_missing(udfkit_parts *p, const char *name)
{
    if (!p->names.data || !strstr(p->names.data, name))
        udfkit_buf_printf(&p->names, "%s%s", p->missing ? ", " : "", name);
    p->missing++;
}

void udfkit_parts_free(udfkit_parts *p)
{
    udfkit_buf_free(&p->names);
}

bool udfkit_parts_run_python(const char *python, const char *script, const char *arg, udfkit_buf *out)
{
    char *argv[] = {(char *)python, "-c", (char *)script, (char *)arg, NULL};
    char err_path[] = "/tmp/udfkit-python-XXXXXX";
    int fd = mkstemp(err_path), status = 0;
    if (fd >= 0)
        close(fd);
    bool ran = fd >= 0 && udfkit_run_program(argv, NULL, 0, out, err_path, &status) == UDFKIT_RC_OK;
    if (!ran) {
        udfkit_buf_printf(out, "%s", udfkit_diag_message());
        udfkit_diag_clear();
    } else if (status != 0) {
        udfkit_buf err = UDFKIT_BUF_INIT;
        FILE *f = fopen(err_path, "r");
        char chunk[4096];
        size_t n;
        while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
            udfkit_buf_append(&err, chunk, n);
        if (f)
            fclose(f);
        udfkit_buf_printf(out, "%s(exit %d)", err.data ? err.data : "", status);
        udfkit_buf_free(&err);
    }
    if (fd >= 0)
        unlink(err_path);
    return ran && status == 0;
}

/* The last line of a message, without udfkit's "udfkit: error: " in front. */
static const char *reason(const char *message)
{
    const char *prefix = "udfkit: error: ";
    return strncmp(message, prefix, strlen(prefix)) == 0 ? message + strlen(prefix) : message;
}

static void list_libraries(bool verbose, udfkit_parts *p)
{
    static const udfkit_cuda_part libs[] = {UDFKIT_PART_NVRTC, UDFKIT_PART_NVJITLINK, UDFKIT_PART_NVFATBIN};
    udfkit_version *versions[] = {&p->tc.nvrtc, &p->tc.nvjitlink, &p->tc.nvfatbin};
    char what[64], path[PATH_MAX + 64];
    p->loaded = true;
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        const char *name = udfkit_cuda_part_name(libs[i]);
        if (udfkit_toolchain_part_version(libs[i], versions[i]) != UDFKIT_RC_OK) {
            printf("%-19smissing: %s\n", name, reason(udfkit_diag_message()));
            udfkit_diag_clear();
            udfkit_parts_missing(p, name);
            p->loaded = false;
            continue;
        }
        snprintf(what, sizeof what, "%s %d.%d", name, versions[i]->major, versions[i]->minor);
        udfkit_cuda_part_location(libs[i], path, sizeof path);
        printf(UDFKIT_PARTS_ROW, what, path);
        if (verbose)
            printf("%19sfound through %s\n", "",
                   udfkit_found_text(udfkit_cuda_part_found(libs[i]), udfkit_cuda_part_env(libs[i])));
    }
    p->tc.nvptxcompiler = udfkit_toolchain_nvptxcompiler();
    snprintf(what, sizeof what, "nvPTXCompiler %d.%d", p->tc.nvptxcompiler.major, p->tc.nvptxcompiler.minor);
    printf(UDFKIT_PARTS_ROW, what, "(linked statically into udfkit::runtime_ptx)");
}

/* CUDA's headers, with CCCL's (cub, cuda/std), which the kernel templates include. */
static void list_headers(bool verbose, udfkit_parts *p)
{
    char dir[PATH_MAX], file[PATH_MAX + 32], cccl[PATH_MAX + 32], searched[2048];
    udfkit_found found = udfkit_locate_cuda_headers(dir, sizeof dir);
    snprintf(file, sizeof file, "%s/cuda_fp16.h", dir);
    snprintf(cccl, sizeof cccl, "%s/cccl/cub/cub.cuh", dir);
    bool has_cccl = udfkit_file_exists(cccl);
    if (!has_cccl)
        snprintf(cccl, sizeof cccl, "%s/cub/cub.cuh", dir);
    has_cccl = has_cccl || udfkit_file_exists(cccl);
    if (found != UDFKIT_FOUND_NOWHERE && udfkit_file_exists(file) && has_cccl) {
        printf(UDFKIT_PARTS_ROW, "CUDA headers", dir);
        if (verbose)
            printf("%19sfound through %s\n", "", udfkit_found_text(found, "UDFKIT_CUDA_INCLUDE_DIR"));
        return;
    }
    udfkit_locate_searched("UDFKIT_CUDA_INCLUDE_DIR", searched, sizeof searched);
    if (found == UDFKIT_FOUND_NOWHERE)
        printf("%-19smissing: no cuda_fp16.h in %s; %s, install a CUDA 13.0 toolkit, or name the folder in "
               "UDFKIT_CUDA_INCLUDE_DIR\n",
               "CUDA headers", searched, HOW_TO_GET);
    else
        printf("%-19smissing: %s (from %s) lacks %s; %s, or name a CUDA 13.0 include folder in "
               "UDFKIT_CUDA_INCLUDE_DIR\n",
               "CUDA headers", dir, udfkit_found_text(found, "UDFKIT_CUDA_INCLUDE_DIR"),
               udfkit_file_exists(file) ? "CCCL's headers (cub/cub.cuh)" : "cuda_fp16.h", HOW_TO_GET);
    udfkit_parts_missing(p, "CUDA headers");
}

/* Each frontend the interpreter has installed, with its package, asked of the interpreter
 * itself without importing them (which takes a second each). */
static const char frontends_script[] =
    "import importlib.metadata as m, importlib.util as u, sys\n"
    "found = []\n"
    "for d, p in (('numba-cuda', 'numba_cuda'), ('numba-cuda-mlir', 'numba_cuda_mlir')):\n"
    "    try:\n        v = m.version(d)\n    except Exception:\n        continue\n"
    "    if u.find_spec(p):\n        found.append(d + ' ' + v)\n"
    "print(', '.join(found) or 'neither numba-cuda nor numba-cuda-mlir')\n"
    "sys.exit(0 if found else 1)\n";

static void list_python(const char *python, bool verbose, udfkit_parts *p)
{
    char found_python[PATH_MAX];
    udfkit_found found = UDFKIT_FOUND_ENV;
    if (!python) {
        found = udfkit_locate_python(found_python, sizeof found_python);
        python = udfkit_python_interpreter(NULL);
    }
    udfkit_buf out = UDFKIT_BUF_INIT;
    bool ok = udfkit_parts_run_python(python, frontends_script, NULL, &out);
    char *text = out.data ? out.data : "";
    text[strcspn(text, "\n")] = '\0';
    ok = ok && *text; /* something that is no Python may exit 0 too */
    if (ok) {
        printf("%-19s%s (%s)\n", "Python frontend", python, text);
        if (verbose && found != UDFKIT_FOUND_ENV)
            printf("%19sfound through %s\n", "", udfkit_found_text(found, "UDFKIT_PYTHON"));
    } else {
        char searched[2048];
        udfkit_locate_searched("UDFKIT_PYTHON", searched, sizeof searched);
        printf("%-19smissing: %s %s (searched %s); %s, or set UDFKIT_PYTHON to an interpreter with "
               "udfkit's pins (requirements.txt)\n",
               "Python frontend", python,
               strstr(text, "neither") ? "has neither numba-cuda nor numba-cuda-mlir" : "cannot be run as Python",
               searched,
               HOW_TO_GET);
        udfkit_parts_missing(p, "Python frontend");
    }
    udfkit_buf_free(&out);
}

void udfkit_parts_list(const char *python, bool verbose, udfkit_parts *out)
{
    *out = (udfkit_parts){.names = UDFKIT_BUF_INIT};
    char what[64];
    snprintf(what, sizeof what, "udfkit %s", UDFKIT_VERSION_STRING);
    printf(UDFKIT_PARTS_ROW, what, udfkit_locate_self());
    list_libraries(verbose, out);
    list_headers(verbose, out);
    list_python(python, verbose, out);
    /* The remote caches as `cache stats` shows them: passwords and tokens as "***". */
    char *dir = udfkit_cache_directory();
    udfkit_remote_stats *remotes;
    size_t n = udfkit_remote_read_stats(dir ? dir : "", &remotes);
    for (size_t i = 0; i < n; i++)
        if (remotes[i].configured)
            printf(UDFKIT_PARTS_ROW, "Remote cache", remotes[i].url);
    udfkit_remote_stats_free(remotes, n);
    free(dir);
    if (out->loaded && udfkit_toolchain_check(&out->tc) != UDFKIT_RC_OK) {
        fprintf(stderr, "%s\n", udfkit_diag_message());
        udfkit_diag_clear();
        udfkit_parts_missing(out, "a CUDA toolkit whose parts work together");
    }
}
