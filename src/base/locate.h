/* Where udfkit finds what it does not link: the CUDA libraries it loads (NVRTC, nvJitLink,
 * nvFatbin), CUDA's headers and the Python frontend's interpreter. No path found when udfkit
 * was built is compiled in: an installed udfkit looks relative to its own executable, so
 * that a prefix works wherever it is unpacked, after the build tree is gone.
 *
 * The tool (udfkit_locate_as_tool, called first by its main) searches, for each part:
 *  1. the environment: UDFKIT_NVRTC_LIBRARY, UDFKIT_NVJITLINK_LIBRARY, UDFKIT_NVFATBIN_LIBRARY,
 *     UDFKIT_CUDA_INCLUDE_DIR, UDFKIT_PYTHON;
 *  2. run from its build tree: what CMake found there, written to `udfkit.build-tree` beside
 *     the executable (never installed);
 *  3. the Python environment: UDFKIT_PYTHON's (the folder above its bin/) where that is set,
 *     else the install's own, <prefix>/libexec/udfkit/python (made by `udfkit setup-python`;
 *     <prefix> is the folder above the executable's): the interpreter, and the CUDA 13 wheels'
 *     nvidia/cu13/lib and nvidia/cu13/include in its site-packages;
 *  4. a CUDA toolkit: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda (targets/<arch>-linux/lib,
 *     lib64, lib; targets/<arch>-linux/include, include);
 *  5. the loader's search path (a library's soname) and, for the interpreter, python3 on PATH.
 * The runtime, linked into other programs, searches 1, 4 and 5 only. */
#ifndef UDFKIT_LOCATE_H
#define UDFKIT_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum udfkit_found {
    UDFKIT_FOUND_NOWHERE,
    UDFKIT_FOUND_ENV,        /* the part's environment variable */
    UDFKIT_FOUND_BUILD_TREE, /* what CMake found (udfkit run from its build tree) */
    UDFKIT_FOUND_PYTHON_ENV, /* the Python environment (step 3) */
    UDFKIT_FOUND_TOOLKIT,    /* a CUDA toolkit */
    UDFKIT_FOUND_SEARCH      /* left to the loader's search path, or PATH */
} udfkit_found;

/* The tool's search (steps 2 and 3 added); call before anything is looked up. */
void udfkit_locate_as_tool(void);
bool udfkit_locate_is_tool(void);

/* The running executable's real path; "" where /proc/self/exe cannot be read. */
const char *udfkit_locate_self(void);

/* The value CMake recorded under `key` where the tool runs from its build tree; NULL
 * otherwise (and always in the runtime). */
const char *udfkit_locate_build_value(const char *key);

/* A folder of the install, given relative to the executable's folder ("../share/udfkit");
 * malloc'd, NULL where the executable is unknown. */
char *udfkit_locate_install_path(const char *from_bindir);

/* The install's own Python environment, <prefix>/libexec/udfkit/python, whether it exists or
 * not; malloc'd, NULL where the executable is unknown. */
char *udfkit_locate_install_python_env(void);

/* A CUDA library by its environment variable, its name in the build tree's record and its
 * soname ("libnvrtc.so.13"). Writes the file to load: a path, or the soname where only the
 * loader's search is left (UDFKIT_FOUND_SEARCH). An environment variable is taken as it is
 * (a file that does not exist fails to load, naming it). */
udfkit_found udfkit_locate_library(const char *env, const char *key, const char *soname, char *out, size_t size);

/* The folder of CUDA's headers (one holding cuda_fp16.h); UDFKIT_FOUND_NOWHERE with "" where
 * none is found. UDFKIT_CUDA_INCLUDE_DIR is taken as it is. */
udfkit_found udfkit_locate_cuda_headers(char *out, size_t size);

/* The same, found once per process; "" where none is found. */
const char *udfkit_locate_cuda_headers_dir(void);

/* The Python frontend's interpreter where none is asked for (`--python`): UDFKIT_PYTHON, the
 * build tree's, the install's environment, else "python3" (UDFKIT_FOUND_SEARCH). */
udfkit_found udfkit_locate_python(char *out, size_t size);

/* How a part was found, for messages: "UDFKIT_NVRTC_LIBRARY", "the build tree", ... */
const char *udfkit_found_text(udfkit_found found, const char *env);

/* Every place searched for a part with environment variable `env`, in order, for messages. */
void udfkit_locate_searched(const char *env, char *out, size_t size);

#endif
