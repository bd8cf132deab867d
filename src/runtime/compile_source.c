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
#include "sandbox_options.h"

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

/* The options of udfkit_compile_source, sorted into a compile request's lists. */
typedef struct parsed_options {
    const char **includes, **defines, **extra;
    size_t nincludes, ndefines, nextra;
    const char *std, *arch;
} parsed_options;

static void parsed_free(parsed_options *p)
{
    free(p->includes);
    free(p->defines);
    free(p->extra);
}

static udfkit_status parse_options(const char *const *options, size_t noptions, parsed_options *p)
{
    p->includes = calloc(noptions + 1, sizeof *p->includes);
    p->defines = calloc(noptions + 1, sizeof *p->defines);
    p->extra = calloc(noptions + 1, sizeof *p->extra);
    if (!p->includes || !p->defines || !p->extra)
        return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < noptions; i++) {
        const char *o = options[i], *v;
        if (!o || !*o)
            return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_compile_source: option %zu is empty", i);
        else if ((v = value_of(o, "-I")) && *v)
            p->includes[p->nincludes++] = v;
        else if ((v = value_of(o, "-D")) && *v)
            p->defines[p->ndefines++] = v;
        else if ((v = value_of(o, "--std=")) || (v = value_of(o, "-std=")))
            p->std = v;
        else if ((v = value_of(o, "--arch=")))
            p->arch = v;
        else if (value_of(o, "-arch") || value_of(o, "--gpu-architecture"))
            return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                       "udfkit_compile_source: option '%s': give the architectures as --arch=<list> "
                                       "(CMake's syntax, e.g. --arch=80;90), as udfkit compile takes them",
                                       o);
        else
            p->extra[p->nextra++] = o;
    }
    return UDFKIT_OK;
}

/* The compiled code as a package: one group, one part per architecture. */
static udfkit_status make_package(const cuda_build *b, const char *name, size_t nspecs, udfkit_package **out)
{
    udfkit_buf origin = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&origin, "%s (compiled at run time)", name);
    udfkit_package *pkg = udfkit_package_new(origin.data);
    udfkit_buf_free(&origin);
    size_t group = 0;
    udfkit_status s = pkg ? udfkit_package_add_group(pkg, name, &group)
                          : udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; !s && i < nspecs; i++) {
        udfkit_buf sig = UDFKIT_BUF_INIT;
        udfkit_signature_format(&b->specs[i].sig, &sig);
        s = udfkit_package_add_function(pkg, b->specs[i].c_name, sig.data);
        udfkit_buf_free(&sig);
    }
    for (size_t j = 0; !s && j < b->njobs; j++) {
        udfkit_buf *kept = udfkit_package_keep(pkg, &b->jobs[j].code);
        s = kept ? udfkit_package_add_part(pkg, (udfkit_package_part){group, b->jobs[j].target.number,
                                                                       b->jobs[j].target.suffix,
                                                                       (const unsigned char *)kept->data, kept->size,
                                                                       false, ""})
                 : udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    if (s) {
        udfkit_package_close(pkg);
        return s;
    }
    pkg->producer = "NVRTC";
    pkg->producer_major = b->nvrtc.major;
    pkg->producer_minor = b->nvrtc.minor;
    udfkit_package_seal(pkg);
    *out = pkg;
    return UDFKIT_OK;
}

udfkit_status udfkit_runtime_compile(const char *name, const char *source, const char *const *specs, size_t nspecs,
                                     const char *const *options, size_t noptions, const char *arch,
                                     const udfkit_compile_options *copts, udfkit_package **out)
{
    parsed_options p = {.arch = arch};
    udfkit_sandbox sandbox;
    int cancel_fd = -1;
    bool isolated = false;
    char *cuda_dir = cuda_include_dir();
    udfkit_status s = udfkit_runtime_sandbox(copts, &sandbox, &cancel_fd, &isolated);
    if (!s)
        s = parse_options(options, noptions, &p);
    char device_arch[16];
    int device = 0;
    if (!s && !p.arch && !(s = udfkit_runtime_device_arch(NULL, &device))) {
        snprintf(device_arch, sizeof device_arch, "%d", device);
        p.arch = device_arch;
    }
    cuda_build b = {0};
    udfkit_compile_request req = {
        .sources = &name,
        .nsources = 1,
        .source_texts = &source,
        .functions = specs,
        .nfunctions = nspecs,
        .arch = p.arch,
        .emit = UDFKIT_CODE_LTOIR,
        .include_dirs = p.includes,
        .ninclude_dirs = p.nincludes,
        .defines = p.defines,
        .ndefines = p.ndefines,
        .std = p.std,
        .extra_options = p.extra,
        .nextra_options = p.nextra,
        .cuda_include_dir = cuda_dir ? cuda_dir : "",
        .sandbox = isolated ? &sandbox : NULL,
        .untrusted = copts && copts->untrusted,
    };
    b.req = &req;
    b.cuda_dir = req.cuda_include_dir;
    udfkit_rc rc = UDFKIT_RC_OK;
    if (!s && (rc = udfkit_cuda_build_run(&b)))
        s = udfkit_runtime_from_rc(rc, UDFKIT_ERROR_COMPILE);
    udfkit_package *pkg = NULL;
    if (!s)
        s = make_package(&b, name, nspecs, &pkg);
    if (!s && isolated)
        s = udfkit_package_set_options(pkg, copts);
    if (s)
        udfkit_package_close(pkg);
    else
        *out = pkg;
    udfkit_cuda_build_free(&b);
    parsed_free(&p);
    free(cuda_dir);
    return s;
}

udfkit_status udfkit_compile_source_with(const char *name, const char *source, const char *const *specs,
                                         size_t spec_count, const char *const *options, size_t option_count,
                                         const udfkit_compile_options *copts, udfkit_package **out)
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
    udfkit_package *pkg = NULL;
    udfkit_status s = udfkit_runtime_compile(name, source, specs, spec_count, options, option_count, NULL, copts, &pkg);
    /* A failure's package is NULL; a stop by a limit or a cancel is a compile error. */
    if (s == UDFKIT_OK)
        *out = pkg;
    return s;
}

udfkit_status udfkit_compile_source(const char *name, const char *source, const char *const *specs, size_t spec_count,
                                    const char *const *options, size_t option_count, udfkit_package **out)
{
    return udfkit_compile_source_with(name, source, specs, spec_count, options, option_count, NULL, out);
}
