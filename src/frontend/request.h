/* What `udfkit compile` is asked to do: sources, function specs, targets and outputs. Each
 * frontend (cuda_compile.h, python_compile.h) takes it; compile.h picks the frontend. */
#ifndef UDFKIT_REQUEST_H
#define UDFKIT_REQUEST_H

#include "base/diag.h"
#include "base/fs.h"
#include "nvidia/nvrtc_wrap.h"
#include "nvidia/sandbox.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct udfkit_compile_request {
    const char *const *sources;
    size_t nsources;
    const char *const *source_texts; /* NULL, or each source's text (NULL: read sources[i]): the
                                        sources are then names only, as in diagnostics */
    const char *const *functions; /* spec texts */
    size_t nfunctions;
    const char *arch;             /* CMake syntax; NULL: the default */
    udfkit_code_kind emit;
    const char *const *include_dirs;
    size_t ninclude_dirs;
    const char *const *defines;   /* NAME or NAME=VALUE */
    size_t ndefines;
    const char *std;              /* "c++17" where NULL */
    const char *const *extra_options; /* passed to NVRTC as they are */
    size_t nextra_options;
    const char *output;           /* OUT.json (manifest) or, for one artifact, the artifact */
    const char *depfile;          /* or NULL */
    const char *depfile_target;   /* the target the depfile names; NULL: the output, absolute */
    const char *cuda_include_dir; /* NULL: the one base/locate.h finds */
    const char *python;           /* interpreter for Python sources; NULL: the default */
    const char *python_frontend;  /* "numba-cuda", "numba-cuda-mlir" or "auto"; NULL: "auto" */
    bool skip_absent;             /* specs of functions no source here defines are left out, for
                                     build systems that compile a target's sources one by one */
    /* NVRTC out of this process (nvidia/sandbox.h), with these limits and cancel descriptors
       (the deadline counted from the build's start): NULL runs it in this process, unless
       `untrusted`, which runs it in the sandbox without limits. */
    const udfkit_sandbox *sandbox;
    /* The sources are a user's text: each file their compile reads is below include_dirs,
       allowed_dirs or CUDA's headers, which the include follower checks before the compile
       (frontend/includes.h) and the sandbox helper enforces during it; no source directory
       is searched; results are cached apart from trusted compiles'. CUDA C/C++ only. */
    bool untrusted;
    const char *const *allowed_dirs;
    size_t nallowed_dirs;
} udfkit_compile_request;

/* Claims the request's outputs (the output and its depfile) and declares its sources as
 * inputs, so that an output naming a source is refused before any work. */
udfkit_rc udfkit_request_claim_outputs(const udfkit_compile_request *req, udfkit_outputs *outputs);

/* Writes the depfile: `deps` for the target --depfile-target names, else the absolute
 * output (as Ninja reads it with CMP0116 OLD, and make as written). */
udfkit_rc udfkit_request_write_depfile(const udfkit_compile_request *req, udfkit_outputs *outputs,
                                       const char *const *deps, size_t ndeps);

#endif
