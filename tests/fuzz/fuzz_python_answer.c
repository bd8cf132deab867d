/* The Python frontend's answer as `udfkit compile` maps it: parsed, checked (files only
 * inside the scratch directory, known functions, the right types), errors turned into
 * diagnostics (kind, file, line, traceback), link files read, the NVVM version checked,
 * and the manifest, artifacts and depfile written. The answer comes from
 * fuzz_fake_python, run as the interpreter (no server, no cache), which prints the input.
 *
 * The input's first byte picks the request: bit 0 one artifact (out/f.ltoir) instead of a
 * manifest (out/m.json), bit 1 a depfile, bit 2 PTX instead of LTO-IR, bits 3-4 the
 * interpreter's exit status (0, 1, 127, 0). The rest is the answer, with "@DIR@" standing
 * for the scratch directory, where py/udfs.py, py/shapes.py, py/ext/ext_scale.cu and
 * py/ext/pre.ptx are. UDFKIT_FUZZ_PRINT=1 prints what each input ends in (a diagnostic, or
 * "ok"), to see what a seed or a reproducer reaches. */
#include "base/diag.h"
#include "frontend/python_compile.h"
#include "fuzz_common.h"

#include <limits.h>
#include <stdbool.h>

static const char *const functions[] = {"add:float32(float32, float32)", "hypot2:(float64, float64)",
                                        "uses_declared_link:float64(float64)"};
static char source[PATH_MAX], python[PATH_MAX], out_dir[PATH_MAX], tmp_dir[PATH_MAX], answer_path[PATH_MAX];
static char manifest_out[PATH_MAX], artifact_out[PATH_MAX], depfile[PATH_MAX];
static bool print;

static void make_subdir(const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir, name);
    if (mkdir(path, 0700) != 0)
        abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* The fake interpreter is built beside this harness. */
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        abort();
    self[n] = '\0';
    *strrchr(self, '/') = '\0';
    snprintf(python, sizeof python, "%s/fuzz_fake_python", self);
    if (access(python, X_OK) != 0)
        abort();

    fuzz_make_dir();
    make_subdir("py");
    make_subdir("py/ext");
    make_subdir("out");
    make_subdir("tmp");
    static const char udfs_py[] = "from numba import cuda\nfrom shapes import area\n__udfkit_link__ = "
                                  "[\"ext/ext_scale.cu\"]\n\ndef add(x, y):\n    return x + y\n";
    fuzz_write("py/udfs.py", udfs_py, sizeof udfs_py - 1);
    fuzz_write("py/shapes.py", "def area(w, h):\n    return w * h\n", 33);
    static const char ext_cu[] = "extern \"C\" __device__ float ext_scale(float x) { return 2.0f * x; }\n";
    fuzz_write("py/ext/ext_scale.cu", ext_cu, sizeof ext_cu - 1);
    static const char pre_ptx[] = ".version 9.0\n.target sm_80\n.address_size 64\n";
    fuzz_write("py/ext/pre.ptx", pre_ptx, sizeof pre_ptx - 1);
    snprintf(source, sizeof source, "%s/py/udfs.py", fuzz_dir);
    snprintf(out_dir, sizeof out_dir, "%s/out", fuzz_dir);
    snprintf(tmp_dir, sizeof tmp_dir, "%s/tmp", fuzz_dir);
    snprintf(answer_path, sizeof answer_path, "%s/answer.json", fuzz_dir);
    snprintf(manifest_out, sizeof manifest_out, "%s/m.json", out_dir);
    snprintf(artifact_out, sizeof artifact_out, "%s/f.ltoir", out_dir);
    snprintf(depfile, sizeof depfile, "%s/m.d", out_dir);
    /* The frontend's scratch directories inside ours; no server, no cache: every input runs. */
    setenv("TMPDIR", tmp_dir, 1);
    setenv("UDFKIT_SERVER_IDLE", "0", 1);
    setenv("UDFKIT_CACHE", "off", 1);
    setenv("UDFKIT_FUZZ_ANSWER", answer_path, 1);
    const char *p = getenv("UDFKIT_FUZZ_PRINT");
    print = p && strcmp(p, "1") == 0;
    return 0;
}

/* Writes the answer with every "@DIR@" replaced by the scratch directory. */
static void write_answer(const uint8_t *data, size_t size)
{
    static const char marker[] = "@DIR@";
    const size_t mlen = sizeof marker - 1, dlen = strlen(fuzz_dir);
    char *text = malloc(size / mlen * dlen + size + 1);
    if (!text)
        abort();
    size_t n = 0;
    for (size_t i = 0; i < size;) {
        if (size - i >= mlen && memcmp(data + i, marker, mlen) == 0) {
            memcpy(text + n, fuzz_dir, dlen);
            n += dlen;
            i += mlen;
        } else {
            text[n++] = (char)data[i++];
        }
    }
    fuzz_write("answer.json", text, n);
    free(text);
}

/* out/ and tmp/ empty, so that no input sees what an earlier one left. */
static void empty_dir(const char *path)
{
    fuzz_remove_tree(path);
    if (mkdir(path, 0700) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    unsigned mode = data[0];
    write_answer(data + 1, size - 1);
    static const char *const statuses[] = {"0", "1", "127", "0"};
    setenv("UDFKIT_FUZZ_STATUS", statuses[(mode >> 3) & 3], 1);
    empty_dir(out_dir);
    empty_dir(tmp_dir);
    const char *sources[] = {source};
    udfkit_compile_request req = {
        .sources = sources,
        .nsources = 1,
        .functions = functions,
        .nfunctions = sizeof functions / sizeof *functions,
        .arch = "80",
        .emit = (mode & 4) ? UDFKIT_CODE_PTX : UDFKIT_CODE_LTOIR,
        .output = (mode & 1) ? artifact_out : manifest_out,
        .depfile = (mode & 2) ? depfile : NULL,
        .python = python,
    };
    udfkit_rc rc = udfkit_python_compile(&req);
    fuzz_touch(udfkit_diag_message(), strlen(udfkit_diag_message()));
    if (print)
        fprintf(stderr, "mode %u, rc %d: %s\n", mode, (int)rc, rc ? udfkit_diag_message() : "ok");
    udfkit_diag_clear();
    return 0;
}
