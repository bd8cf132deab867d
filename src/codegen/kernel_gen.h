/* `udfkit kernels`: the kernels of add_jit_library's KERNELS entries (CUDA C++ for
 * `udfkit compile`), their C launchers over the udfkit runtime, and the library header
 * of SPEC.md. Every name written is a validated identifier and every type is spelled from
 * a parsed signature, so no input can put text of its own into the outputs. */
#ifndef UDFKIT_KERNEL_GEN_H
#define UDFKIT_KERNEL_GEN_H

#include "base/buf.h"
#include "base/diag.h"
#include "codegen/kernel_entry.h"

#include <stdbool.h>
#include <stddef.h>

/* Threads per block of every generated kernel, and rows per tile. 256 threads always
 * launch: __launch_bounds__(256) caps registers at 255 per thread, and 256 * 255 fits the
 * 64K registers a block may use on every architecture NVRTC 13 targets. */
#define UDFKIT_KERNEL_BLOCK 256
/* Rounds of 4 x UDFKIT_KERNEL_BLOCK rows a filter's block loads at once: each thread keeps
 * 4 times that many rows' loads in flight. */
#define UDFKIT_KERNEL_FILTER_ROUNDS 2

typedef struct udfkit_kernels_request {
    const char *const *manifests; /* udfkit manifests of UDFs */
    size_t nmanifests;
    const char *const *functions; /* declared function specs, as for compile --function */
    size_t nfunctions;
    const char *const *slots;     /* functions bound after the library ships (SLOTS): specs with
                                     return types; the launchers then take an instance */
    size_t nslots;
    size_t noptional_slots;       /* the last this many of `slots` are optional (OPTIONAL_SLOTS):
                                     a bind may leave them unbound */
    const char *const *kernels;   /* "map(f)", ... */
    size_t nkernels;
    const char *name;             /* the library: <name>_load, <name>_map_<f>, ... */
    const char *fatbin_symbol;    /* NULL: <name>_fatbin */
    bool check;                   /* validate only; write nothing */
    bool arrow;                   /* `_arrow` launchers for map, nullable_map and filter entries
                                     (docs/arrow.md) */
    const char *cuda_output, *c_output, *header_output;
    const char *units_output;     /* NULL, or where the link units go (`udfkit link --units`) */
} udfkit_kernels_request;

udfkit_rc udfkit_kernels_generate(const udfkit_kernels_request *req);

typedef struct udfkit_kernels_text {
    udfkit_buf cuda, c, header;
    udfkit_buf units; /* JSON: the link units (`udfkit link --units`), docs/build-speed.md */
} udfkit_kernels_text;

/* Renders the three texts from bound entries; the C source includes the header as
 * `#include "<header_include>"`. With slots, the library binds them later: the C source
 * and header are a SLOTS library's (<name>_bind, launchers taking the instance). */
udfkit_rc udfkit_kernels_render(const char *name, const char *fatbin_symbol, const char *header_include,
                                const udfkit_kernel_entry *entries, size_t count, const udfkit_spec *slots,
                                size_t nslots, size_t noptional_slots, udfkit_kernels_text *out);
/* The same, with `_arrow` launchers (docs/arrow.md) beside the map, nullable_map and filter
 * entries' launchers where `arrow` (with slots, taking the instance as the others do): their
 * nullable twins and bit kernels are compiled only then. udfkit_kernels_render is this with
 * arrow false. */
udfkit_rc udfkit_kernels_render_arrow(const char *name, const char *fatbin_symbol, const char *header_include,
                                      const udfkit_kernel_entry *entries, size_t count, const udfkit_spec *slots,
                                      size_t nslots, size_t noptional_slots, bool arrow, udfkit_kernels_text *out);
void udfkit_kernels_text_free(udfkit_kernels_text *t);

#endif
