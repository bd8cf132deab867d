/* Architecture lists in CMake's CUDA_ARCHITECTURES syntax (SPEC.md). */
#ifndef UDFKIT_ARCH_H
#define UDFKIT_ARCH_H

#include "base/diag.h"

#include <stdbool.h>
#include <stddef.h>

/* One thing to build: SASS for sm_<number><suffix>, or PTX for compute_<number><suffix>. */
typedef struct udfkit_target {
    unsigned number; /* 75, 80, 90, 100 */
    char suffix;     /* '\0', 'a' (arch-specific) or 'f' (family-specific) */
    bool sass;       /* true: sm_XX, false: compute_XX (PTX) */
} udfkit_target;

typedef struct udfkit_target_list {
    udfkit_target items[64];
    size_t count;
} udfkit_target_list;

/* The toolchain's default where no list is given (CUDA 13: 75). */
#define UDFKIT_DEFAULT_ARCHITECTURES "75"

/* Parses "75-real;80-real;90", "all", "all-major", "native" (items separated by ';' or ',').
 * `supported` lists the real architectures the toolchain knows, ascending. */
udfkit_rc udfkit_arch_parse(const char *text, const int *supported, size_t nsupported, udfkit_target_list *out);

/* "sm_90a" / "compute_90a" */
void udfkit_target_name(udfkit_target t, char *buf, size_t size);
/* "90a": the form nvFatbin's arch arguments take */
void udfkit_target_number(udfkit_target t, char *buf, size_t size);
/* Parses "sm_80", "compute_90a", "lto_80" (lto_ maps to a PTX-side target). */
bool udfkit_target_parse_name(const char *name, udfkit_target *out);

/* The distinct virtual architectures the targets need, ascending: one compile each. */
size_t udfkit_targets_virtual(const udfkit_target_list *list, udfkit_target *out, size_t max);

/* Whether code compiled for virtual architecture `code` can be used to build `target`:
 * the same or lower number, and arch/family-specific code only for its own target. */
bool udfkit_target_accepts(udfkit_target target, udfkit_target code);

#endif
