/* nvPTXCompiler (statically linked), wrapped once. Outputs are malloc'd and owned by the
 * caller: this file is linked into programs beside a runtime built apart from it (the
 * shared libudfkit_runtime.so), so it shares no allocator-owning types with it. */
#ifndef UDFKIT_PTXCOMPILER_WRAP_H
#define UDFKIT_PTXCOMPILER_WRAP_H

#include <stdbool.h>
#include <stddef.h>

void udfkit_ptxcompiler_version(int *major, int *minor);

/* Compiles PTX to a cubin for `gpu_name` ("sm_90"): *cubin (malloc'd) and *cubin_size.
 * On failure returns false with the compiler's log (or the failing step) in *log
 * (malloc'd, NUL-terminated; NULL where even that could not be allocated). */
bool udfkit_ptxcompiler_compile(const char *ptx, size_t size, const char *gpu_name, void **cubin, size_t *cubin_size,
                                char **log);
/* The same with more of the compiler's options ("--compile-only" for relocatable code). */
bool udfkit_ptxcompiler_compile_with(const char *ptx, size_t size, const char *gpu_name, const char *const *options,
                                     size_t noptions, void **cubin, size_t *cubin_size, char **log);

#endif
