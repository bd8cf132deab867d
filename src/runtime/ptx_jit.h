/* What the driver is given for an image: the image itself, or SASS that nvPTXCompiler made
 * of its PTX, where the driver is older than that PTX and the program links
 * udfkit::runtime_ptx (the way RAPIDS' ptxcompiler keeps numba working on older drivers). */
#ifndef UDFKIT_RUNTIME_PTX_JIT_H
#define UDFKIT_RUNTIME_PTX_JIT_H

#include "base/buf.h"
#include "driver.h"

#include <stdbool.h>

typedef struct udfkit_code_choice {
    const void *code; /* what to load: the image, or storage's cubin */
    size_t size;
    udfkit_buf storage;
    udfkit_buf ptx_text; /* a PTX image copied to end in NUL, where it did not */
    /* For messages where loading fails: the PTX the image offers and what the driver takes. */
    char ptx_isa[16];
    char driver_isa[16];
    char driver_version[16];
    /* 0 where `code` is the image as given (the driver takes each device's code from it);
     * else the sm its code is SASS for: a cubin image's, or the device's that nvPTXCompiler
     * compiled the PTX for (then `compiled_ptx` holds that PTX, NUL-terminated). */
    int sass_arch;
    udfkit_buf compiled_ptx;
} udfkit_code_choice;

/* Decides by UDFKIT_PTX_COMPILE (auto, always, never) and the current device. */
udfkit_status udfkit_runtime_choose_code(const udfkit_driver *d, const void *image, size_t size, udfkit_code_choice *out);
void udfkit_code_choice_free(udfkit_code_choice *c);

/* Whether SASS for sm_`sm` (no arch-specific suffix) runs on an sm_`arch` device: the same
 * major architecture, a minor no higher. */
bool udfkit_runtime_sass_runs(int sm, int arch);

/* Whether the program links udfkit::runtime_ptx (ptx_fallback.h). */
bool udfkit_runtime_ptx_available(void);

/* The current device's compute capability as 90, 100, ... (through udfkit_device_attribute, which
 * keeps each answer: d is not used). */
udfkit_status udfkit_runtime_device_arch(const udfkit_driver *d, int *arch);

#endif
