// Found through add_jit_library(... INCLUDE_DIRECTORIES kernels/include); KERNEL_SCALE comes
// from its COMPILE_DEFINITIONS.
#ifndef KERNEL_SCALE
#error "KERNEL_SCALE is not defined: add_jit_library's COMPILE_DEFINITIONS did not reach the kernel"
#endif
#define SCALED(x) (KERNEL_SCALE * (x))
