/* udfkit_compile_source: `udfkit compile` of CUDA C/C++ text, in the process. The same
 * core (frontend/cuda_build.c) does both, so specs, checks, messages and cache keys are
 * the tool's. */
#include "compile_source.h"

#include "base/fs.h"
#include "base/types.h"
#include "driver.h"
#include "frontend/cuda_build.h"
#include "package.h"
#include "ptx_jit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

udfkit_status udfkit_runtime_from_rc(udfkit_rc rc, udfkit_status input)
{
    udfkit_status s = rc == UDFKIT_RC_INPUT   ? input
                      : rc == UDFKIT_RC_USAGE ? UDFKIT_ERROR_INVALID_ARGUMENT
                      : rc == UDFKIT_RC_ENV   ? UDFKIT_ERROR_TOOLCHAIN
                                              : UDFKIT_ERROR_OUT_OF_MEMORY;
    /* The message is copied out first: the two buffers are both this thread's. */
    char *text = strdup(udfkit_diag_message());
    udfkit_runtime_fail(s, "%s", text ? text : "out of memory");
    free(text);
    udfkit_diag_clear();
    return s;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return path && *path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* CUDA's headers: where the environment says, else where they were at build time, else
 * where a toolkit usually is. NULL where none is found (plain UDFs need none). */
static char *cuda_include_dir(void)
{
    const char *env = getenv("UDFKIT_CUDA_INCLUDE_DIR");
    if (is_dir(env))
        return strdup(env);
    if (is_dir(UDFKIT_CUDA_INCLUDE_DIR))
        return strdup(UDFKIT_CUDA_INCLUDE_DIR);
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t i = 0; i < sizeof homes / sizeof *homes; i++) {
        if (!homes[i] || !*homes[i])
            continue;
        char *dir = udfkit_path_join(homes[i], "include");
        if (is_dir(dir))
            return dir;
        free(dir);
    }
    return NULL;
}

/* An option that starts with `prefix`: its value (after '=' where the prefix ends so). */
static const char *value_of(const char *option, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(option, prefix, n) == 0 ? option + n : NULL;
}

udfkit_status udfkit_runtime_compile(const char *name, const char *source, const char *const *specs, size_t nspecs,
                                     const char *const *options, size_t noptions, const char *arch,
                                     udfkit_package **out)
{
    const char **includes = calloc(noptions + 1, sizeof *includes), **defines = calloc(noptions + 1, sizeof *defines),
               **extra = calloc(noptions + 1, sizeof *extra);
    size_t nincludes = 0, ndefines = 0, nextra = 0;
    const char *std = NULL, *given_arch = arch;
    char *cuda_dir = cuda_include_dir();
    udfkit_status s = includes && defines && extra ? UDFKIT_OK
                                                   : udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; !s && i < noptions; i++) {
        const char *o = options[i], *v;
        if (!o || !*o)
            s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_compile_source: option %zu is empty", i);
        else if ((v = value_of(o, "-I")) && *v)
            includes[nincludes++] = v;
        else if ((v = value_of(o, "-D")) && *v)
            defines[ndefines++] = v;
        else if ((v = value_of(o, "--std=")) || (v = value_of(o, "-std=")))
            std = v;
        else if ((v = value_of(o, "--arch=")))
            given_arch = v;
        else if (value_of(o, "-arch") || value_of(o, "--gpu-architecture"))
            s = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                    "udfkit_compile_source: option '%s': give the architectures as --arch=<list> "
                                    "(CMake's syntax, e.g. --arch=80;90), as udfkit compile takes them",
                                    o);
        else
            extra[nextra++] = o;
    }
    char device_arch[16];
    int device = 0;
    if (!s && !given_arch && !(s = udfkit_runtime_device_arch(NULL, &device))) {
        snprintf(device_arch, sizeof device_arch, "%d", device);
        given_arch = device_arch;
    }
    cuda_build b = {0};
    udfkit_compile_request req = {
        .sources = &name,
        .nsources = 1,
        .source_texts = &source,
        .functions = specs,
        .nfunctions = nspecs,
        .arch = given_arch,
        .emit = UDFKIT_CODE_LTOIR,
        .include_dirs = includes,
        .ninclude_dirs = nincludes,
        .defines = defines,
        .ndefines = ndefines,
        .std = std,
        .extra_options = extra,
        .nextra_options = nextra,
        .cuda_include_dir = cuda_dir ? cuda_dir : "",
    };
    b.req = &req;
    b.cuda_dir = req.cuda_include_dir;
    udfkit_rc rc = UDFKIT_RC_OK;
    if (!s && (rc = udfkit_cuda_build_run(&b)))
        s = udfkit_runtime_from_rc(rc, UDFKIT_ERROR_COMPILE);
    udfkit_package *pkg = NULL;
    if (!s) {
        udfkit_buf origin = UDFKIT_BUF_INIT;
        udfkit_buf_printf(&origin, "%s (compiled at run time)", name);
        pkg = udfkit_package_new(origin.data);
        udfkit_buf_free(&origin);
        size_t group = 0;
        s = pkg ? udfkit_package_add_group(pkg, name, &group)
                : udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
        for (size_t i = 0; !s && i < nspecs; i++) {
            udfkit_buf sig = UDFKIT_BUF_INIT;
            udfkit_signature_format(&b.specs[i].sig, &sig);
            s = udfkit_package_add_function(pkg, b.specs[i].c_name, sig.data);
            udfkit_buf_free(&sig);
        }
        for (size_t j = 0; !s && j < b.njobs; j++) {
            udfkit_buf *kept = udfkit_package_keep(pkg, &b.jobs[j].code);
            s = kept ? udfkit_package_add_part(pkg, (udfkit_package_part){group, b.jobs[j].target.number,
                                                                           b.jobs[j].target.suffix,
                                                                           (const unsigned char *)kept->data,
                                                                           kept->size, false, ""})
                     : udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
        }
        if (!s) {
            pkg->producer = "NVRTC";
            pkg->producer_major = b.nvrtc.major;
            pkg->producer_minor = b.nvrtc.minor;
            udfkit_package_seal(pkg);
        }
    }
    udfkit_cuda_build_free(&b);
    free(includes);
    free(defines);
    free(extra);
    free(cuda_dir);
    if (s) {
        udfkit_package_close(pkg);
        return s;
    }
    *out = pkg;
    return UDFKIT_OK;
}

udfkit_status udfkit_compile_source(const char *name, const char *source, const char *const *specs, size_t spec_count,
                                    const char *const *options, size_t option_count, udfkit_package **out)
{
    if (out)
        *out = NULL;
    if (!name || !*name || !source || !out || (spec_count && !specs) || (option_count && !options))
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_compile_source: %s",
                                   !name || !*name ? "no name given"
                                   : !source       ? "no source given"
                                   : !out          ? "no output pointer"
                                                   : "a count without its array");
    /* The name starts every line of the messages: a newline in it would forge lines. */
    for (const char *c = name; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                       "udfkit_compile_source: the name holds a control character (byte %zu is "
                                       "0x%02x); it starts every line of the messages, so it must be printable text",
                                       (size_t)(c - name), (unsigned)(unsigned char)*c);
    if (!spec_count)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                   "udfkit_compile_source: no function spec given: a package exports at least one "
                                   "function ([c_name=]source_name:signature)");
    for (size_t i = 0; i < spec_count; i++)
        if (!specs[i])
            return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_compile_source: spec %zu is NULL", i);
    return udfkit_runtime_compile(name, source, specs, spec_count, options, option_count, NULL, out);
}
