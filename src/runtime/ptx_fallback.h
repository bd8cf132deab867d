/* The PTX compiler the runtime falls back on where a fatbin's PTX is newer than the driver
 * can JIT. The runtime itself carries none (nvPTXCompiler is about 40 MB); a program that
 * wants the fallback links udfkit::runtime_ptx (ptx_fallback.c and nvPTXCompiler), whose
 * constructor registers it here, into a static or a shared runtime alike. */
#ifndef UDFKIT_RUNTIME_PTX_FALLBACK_H
#define UDFKIT_RUNTIME_PTX_FALLBACK_H

#include <udfkit/runtime.h>

#include <stdbool.h>
#include <stddef.h>

typedef struct udfkit_ptx_compiler {
    void (*version)(int *major, int *minor);
    /* As udfkit_ptxcompiler_compile: malloc'd cubin, or false and a malloc'd log. */
    bool (*compile)(const char *ptx, size_t size, const char *gpu_name, void **cubin, size_t *cubin_size, char **log);
} udfkit_ptx_compiler;

/* Makes `c` the runtime's PTX compiler (the last registered wins; all are nvPTXCompiler). */
UDFKIT_RUNTIME_API void udfkit_runtime_ptx_register(const udfkit_ptx_compiler *c);

/* Defined by ptx_fallback.c; udfkit::runtime_ptx names it to the linker (--undefined), so a
 * static link keeps that file, which nothing else refers to. */
extern UDFKIT_RUNTIME_API const int udfkit_runtime_ptx_anchor;

#endif
