/* The core of `udfkit compile` for CUDA C/C++ sources, shared by the tool (cuda_compile.c
 * writes its manifest, artifacts and depfile) and the runtime (udfkit_compile_source keeps
 * the code in memory): specs placed in the sources that define them, C-ABI forwarders,
 * one NVRTC compile per source and architecture on a thread per core, the cache, and the
 * diagnostics rewritten as `file:line:col: error: ...`. No JSON, no output files. */
#ifndef UDFKIT_CUDA_BUILD_H
#define UDFKIT_CUDA_BUILD_H

#include "base/arch.h"
#include "base/buf.h"
#include "base/diag.h"
#include "base/spec.h"
#include "cache/cache.h"
#include "frontend/cxx_scan.h"
#include "frontend/exporter.h"
#include "frontend/includes.h"
#include "frontend/nvrtc_log.h"
#include "frontend/request.h"
#include "nvidia/toolchain.h"

#include <stdbool.h>
#include <stddef.h>

/* One source and what its compiles read. */
typedef struct source_unit {
    const char *path;         /* as given */
    udfkit_buf text;          /* the user's text followed by the forwarders */
    udfkit_include_set includes;
    udfkit_cxx_defs defs;     /* definitions in the source and its local headers */
    char **def_files;         /* for each def: the file it is in */
    udfkit_export *exports;
    udfkit_log_export *log_exports;
    size_t nexports;
    char files_key[UDFKIT_CACHE_KEY_SIZE]; /* the bytes of every file `includes` lists */
    char key[UDFKIT_CACHE_KEY_SIZE]; /* everything this source's compiles read */
} source_unit;

/* One NVRTC compile: a source for one target. */
typedef struct compile_job {
    source_unit *unit;
    udfkit_target target;
    const char *const *options;
    size_t noptions;
    udfkit_code_kind kind;
    udfkit_rc rc;
    char *message; /* the failure, for jobs that set one */
    udfkit_buf code;
    udfkit_buf log;
} compile_job;

/* One compile of CUDA C++ sources, from its request to its code. The caller sets req and
 * cuda_dir (NULL: the CUDA headers base/locate.h finds). */
typedef struct cuda_build {
    const udfkit_compile_request *req;
    const char *cuda_dir;
    udfkit_version nvrtc;
    udfkit_spec *specs;
    const char **spec_files; /* where each function is defined (NULL: absent, --skip-absent) */
    int *spec_lines;
    source_unit *units;
    udfkit_target compile_for[64]; /* one compile per source and target */
    size_t ncompile;
    char **options; /* NVRTC options shared by every job, then each job's -arch */
    size_t noptions;
    char **arch_options;
    const char ***job_options;
    compile_job *jobs;
    size_t njobs;
    udfkit_buf warnings; /* NVRTC's warnings, rewritten, where the compile succeeded */
    bool isolated;       /* NVRTC in the sandbox helper, under `sandbox` */
    udfkit_sandbox sandbox;
    char **roots;        /* untrusted: the real paths below which the compile reads */
    size_t nroots;
} cuda_build;

/* Runs everything up to the code: NVRTC's version, the specs, the targets, the sources and
 * their forwarders, the compiles (through the cache), and the diagnostics: a failure
 * returns them as the error; warnings alone are left in b->warnings. */
udfkit_rc udfkit_cuda_build_run(cuda_build *b);
void udfkit_cuda_build_free(cuda_build *b);

/* "ltoir", "ptx" or "cubin" */
const char *udfkit_cuda_kind_name(udfkit_code_kind k);

/* udfkit's device headers (<udfkit/udf.h>, string.cuh and those it includes, decimal.cuh,
 * datetime.cuh), as the tool holds them: their names under an include directory and texts. */
size_t udfkit_device_headers(const char *const **names, const char *const **texts);

#endif
