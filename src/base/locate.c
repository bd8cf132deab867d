#include "base/locate.h"

#include "base/buf.h"
#include "base/fs.h"

#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The install's folders relative to its bin/ (GNUInstallDirs', written in by CMake). */
#ifndef UDFKIT_LIBEXEC_FROM_BINDIR
#define UDFKIT_LIBEXEC_FROM_BINDIR "../libexec/udfkit"
#endif

#if defined(__aarch64__)
#define TOOLKIT_TARGET "targets/sbsa-linux"
#else
#define TOOLKIT_TARGET "targets/x86_64-linux"
#endif

#define RECORD_NAME "udfkit.build-tree"
#define MAX_RECORD 16

static bool as_tool;

static struct {
    pthread_once_t once;
    char self[PATH_MAX];
    size_t count;
    char *keys[MAX_RECORD], *values[MAX_RECORD];
} here = {.once = PTHREAD_ONCE_INIT};

void udfkit_locate_as_tool(void)
{
    as_tool = true;
}

bool udfkit_locate_is_tool(void)
{
    return as_tool;
}

/* "key=value" lines; '#' starts a comment line. */
static void read_record(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[PATH_MAX + 64];
    while (f && here.count < MAX_RECORD && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *eq = strchr(line, '=');
        if (line[0] == '#' || !eq)
            continue;
        *eq = '\0';
        here.keys[here.count] = strdup(line);
        here.values[here.count] = strdup(eq + 1);
        if (here.keys[here.count] && here.values[here.count])
            here.count++;
    }
    if (f)
        fclose(f);
}

static void find_here(void)
{
    ssize_t n = readlink("/proc/self/exe", here.self, sizeof here.self - 1);
    here.self[n > 0 ? n : 0] = '\0';
    if (n <= 0 || !as_tool)
        return;
    char *dir = udfkit_path_dirname(here.self);
    char *record = dir ? udfkit_path_join(dir, RECORD_NAME) : NULL;
    if (record)
        read_record(record);
    free(record);
    free(dir);
}

const char *udfkit_locate_self(void)
{
    pthread_once(&here.once, find_here);
    return here.self;
}

const char *udfkit_locate_build_value(const char *key)
{
    pthread_once(&here.once, find_here);
    for (size_t i = 0; as_tool && i < here.count; i++)
        if (strcmp(here.keys[i], key) == 0)
            return here.values[i];
    return NULL;
}

char *udfkit_locate_install_path(const char *from_bindir)
{
    const char *self = udfkit_locate_self();
    if (!*self)
        return NULL;
    char *bindir = udfkit_path_dirname(self);
    udfkit_buf b = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&b, "%s/%s", bindir, from_bindir);
    free(bindir);
    /* The folder itself may not exist yet: fold "bin/.." by hand rather than realpath. */
    char *path = udfkit_buf_detach(&b);
    char *slash;
    while (path && (slash = strstr(path, "/../")) && slash != path) {
        char *start = slash - 1;
        while (start > path && *start != '/')
            start--;
        memmove(start, slash + 3, strlen(slash + 3) + 1);
    }
    return path;
}

char *udfkit_locate_install_python_env(void)
{
    return udfkit_locate_install_path(UDFKIT_LIBEXEC_FROM_BINDIR "/python");
}

static bool is_dir(const char *path)
{
    struct stat st;
    return path && *path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return path && *path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Copies `value`; false where it does not fit (never a truncated path). */
static bool take(const char *value, char *out, size_t size)
{
    int n = snprintf(out, size, "%s", value);
    return n >= 0 && (size_t)n < size;
}

static bool join(char *out, size_t size, const char *dir, const char *name)
{
    int n = snprintf(out, size, "%s/%s", dir, name);
    return n >= 0 && (size_t)n < size;
}

/* `dir/name` where that is a regular file. */
static bool file_in(const char *dir, const char *name, char *out, size_t size)
{
    char path[PATH_MAX];
    return join(path, sizeof path, dir, name) && is_file(path) && take(path, out, size);
}

/* The Python environment of step 3: UDFKIT_PYTHON's folder above bin/, else the install's. */
static char *python_env(void)
{
    const char *python = getenv("UDFKIT_PYTHON");
    if (python && *python && !strchr(python, '/'))
        return NULL; /* a name on PATH: no folder to look in */
    if (!python || !*python)
        return udfkit_locate_install_python_env();
    char *abs = udfkit_path_absolute(python), *bin = abs ? udfkit_path_dirname(abs) : NULL;
    char *env = bin ? udfkit_path_dirname(bin) : NULL;
    free(bin);
    free(abs);
    return env;
}

/* <env>/lib/python3.*\/site-packages/nvidia/cu13/<sub> of step 3's environment. */
static bool wheels_dir(const char *sub, char *out, size_t size)
{
    char *env = python_env();
    bool found = false;
    if (env) {
        char pattern[PATH_MAX];
        int n = snprintf(pattern, sizeof pattern, "%s/lib/python3*/site-packages/nvidia/cu13/%s", env, sub);
        glob_t g = {0};
        if (n > 0 && (size_t)n < sizeof pattern && glob(pattern, GLOB_NOSORT, NULL, &g) == 0)
            for (size_t i = 0; !found && i < g.gl_pathc; i++)
                found = is_dir(g.gl_pathv[i]) && take(g.gl_pathv[i], out, size);
        globfree(&g);
    }
    free(env);
    return found;
}

/* Step 4: the first toolkit folder `dirs` names (relative to a root) that holds `name`. */
static bool in_toolkit(const char *const *dirs, size_t ndirs, const char *name, char *out, size_t size)
{
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    char dir[PATH_MAX];
    for (size_t r = 0; r < sizeof roots / sizeof *roots; r++)
        for (size_t d = 0; roots[r] && *roots[r] && d < ndirs; d++) {
            if (join(dir, sizeof dir, roots[r], dirs[d]) && file_in(dir, name, out, size))
                return true;
        }
    return false;
}

udfkit_found udfkit_locate_library(const char *env, const char *key, const char *soname, char *out, size_t size)
{
    const char *given = getenv(env);
    if (given && *given && take(given, out, size))
        return UDFKIT_FOUND_ENV;
    const char *built = udfkit_locate_build_value(key);
    if (is_file(built) && take(built, out, size))
        return UDFKIT_FOUND_BUILD_TREE;
    char dir[PATH_MAX];
    if (as_tool && wheels_dir("lib", dir, sizeof dir) && file_in(dir, soname, out, size))
        return UDFKIT_FOUND_PYTHON_ENV;
    const char *dirs[] = {TOOLKIT_TARGET "/lib", "lib64", "lib"};
    if (in_toolkit(dirs, sizeof dirs / sizeof *dirs, soname, out, size))
        return UDFKIT_FOUND_TOOLKIT;
    take(soname, out, size);
    return UDFKIT_FOUND_SEARCH;
}

udfkit_found udfkit_locate_cuda_headers(char *out, size_t size)
{
    const char *given = getenv("UDFKIT_CUDA_INCLUDE_DIR");
    if (given && *given && take(given, out, size))
        return UDFKIT_FOUND_ENV;
    const char *built = udfkit_locate_build_value("cuda-include");
    if (is_dir(built) && take(built, out, size))
        return UDFKIT_FOUND_BUILD_TREE;
    char dir[PATH_MAX], header[PATH_MAX];
    if (as_tool && wheels_dir("include", dir, sizeof dir) && file_in(dir, "cuda_fp16.h", header, sizeof header) &&
        take(dir, out, size))
        return UDFKIT_FOUND_PYTHON_ENV;
    const char *dirs[] = {TOOLKIT_TARGET "/include", "include"};
    if (in_toolkit(dirs, sizeof dirs / sizeof *dirs, "cuda_fp16.h", header, sizeof header)) {
        char *folder = udfkit_path_dirname(header);
        take(folder ? folder : "", out, size);
        free(folder);
        return folder ? UDFKIT_FOUND_TOOLKIT : UDFKIT_FOUND_NOWHERE;
    }
    take("", out, size);
    return UDFKIT_FOUND_NOWHERE;
}

static char headers_dir[PATH_MAX];

static void find_headers_dir(void)
{
    udfkit_locate_cuda_headers(headers_dir, sizeof headers_dir);
}

const char *udfkit_locate_cuda_headers_dir(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_headers_dir);
    return headers_dir;
}

udfkit_found udfkit_locate_python(char *out, size_t size)
{
    const char *given = getenv("UDFKIT_PYTHON");
    if (given && *given && take(given, out, size))
        return UDFKIT_FOUND_ENV;
    const char *built = udfkit_locate_build_value("python");
    if (built && access(built, X_OK) == 0 && take(built, out, size))
        return UDFKIT_FOUND_BUILD_TREE;
    char *env = as_tool ? udfkit_locate_install_python_env() : NULL;
    char python[PATH_MAX];
    bool installed = env && join(python, sizeof python, env, "bin/python") && access(python, X_OK) == 0;
    free(env);
    if (installed && take(python, out, size))
        return UDFKIT_FOUND_PYTHON_ENV;
    take("python3", out, size);
    return UDFKIT_FOUND_SEARCH;
}

const char *udfkit_found_text(udfkit_found found, const char *env)
{
    switch (found) {
    case UDFKIT_FOUND_ENV:
        return env;
    case UDFKIT_FOUND_BUILD_TREE:
        return "the build tree (what CMake found)";
    case UDFKIT_FOUND_PYTHON_ENV:
        return getenv("UDFKIT_PYTHON") && *getenv("UDFKIT_PYTHON") ? "UDFKIT_PYTHON's environment"
                                                                   : "the install's Python environment";
    case UDFKIT_FOUND_TOOLKIT:
        return "a CUDA toolkit";
    case UDFKIT_FOUND_SEARCH:
        return strcmp(env, "UDFKIT_PYTHON") == 0 ? "PATH" : "the loader's search path";
    case UDFKIT_FOUND_NOWHERE:
        break;
    }
    return "nowhere";
}

void udfkit_locate_searched(const char *env, char *out, size_t size)
{
    udfkit_buf b = UDFKIT_BUF_INIT;
    udfkit_buf_printf(&b, "%s", env);
    if (udfkit_locate_build_value("python"))
        udfkit_buf_printf(&b, ", the build tree's %s", RECORD_NAME);
    char *own = as_tool ? udfkit_locate_install_python_env() : NULL;
    const char *python = getenv("UDFKIT_PYTHON");
    if (python && *python && as_tool)
        udfkit_buf_printf(&b, ", UDFKIT_PYTHON's environment");
    else if (own)
        udfkit_buf_printf(&b, ", %s (udfkit setup-python)", own);
    free(own);
    bool interpreter = strcmp(env, "UDFKIT_PYTHON") == 0;
    if (!interpreter)
        udfkit_buf_printf(&b, ", a CUDA toolkit ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda)");
    if (interpreter)
        udfkit_buf_printf(&b, ", python3 on PATH");
    else if (strcmp(env, "UDFKIT_CUDA_INCLUDE_DIR") != 0)
        udfkit_buf_printf(&b, ", the loader's search path");
    snprintf(out, size, "%s", b.data ? b.data : env);
    udfkit_buf_free(&b);
}
