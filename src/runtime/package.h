/* UDF packages inside the runtime (udfkit_package_open, udfkit_compile_source): the
 * functions a package exports and its code, LTO-IR in groups of alternatives for several
 * architectures. A SLOTS library's own image is read the same way (bind.c). */
#ifndef UDFKIT_RUNTIME_PACKAGE_H
#define UDFKIT_RUNTIME_PACKAGE_H

#include "base/arch.h"
#include "base/buf.h"
#include "base/hash.h"
#include "udfkit/runtime.h"

#include <stdbool.h>
#include <stddef.h>

/* One piece of LTO-IR. The parts of a group are the same code for several architectures;
 * a link uses one of them. */
typedef struct udfkit_package_part {
    size_t group;
    unsigned arch;  /* compute_<arch> */
    char suffix;    /* 'a' or 'f' for arch- and family-specific code, else 0 */
    const unsigned char *data;
    size_t size;
    bool link;      /* support code the functions need (a link file), linked once per bytes */
    char hash[UDFKIT_HASH_HEX_SIZE]; /* of the bytes, for link parts */
} udfkit_package_part;

struct udfkit_package {
    char *origin;          /* the path, or "<name> (compiled at run time)", for messages */
    char **names, **signatures;
    size_t nfunctions;
    udfkit_package_part *parts;
    size_t nparts, ngroups;
    char **group_names;    /* a source, a Python function or a link file, for messages */
    const char *producer;  /* "NVRTC" or "NVVM" (a literal), NULL where unknown */
    int producer_major, producer_minor;
    char hash[UDFKIT_HASH_HEX_SIZE]; /* of the function table and every part */
    udfkit_buf *storage;   /* bytes the parts point into, owned */
    size_t nstorage;
    struct udfkit_fatbin_contents *fatbin; /* where the parts come from a fatbin */
    bool isolated;         /* binds link it in the sandbox helper, under `options` */
    udfkit_compile_options options;
};

/* An empty package named `origin`. */
udfkit_package *udfkit_package_new(const char *origin);
/* Takes `bytes` over (the package frees them); returns where they now live, or NULL. */
udfkit_buf *udfkit_package_keep(udfkit_package *pkg, udfkit_buf *bytes);
udfkit_status udfkit_package_add_function(udfkit_package *pkg, const char *c_name, const char *signature);
/* Adds a group named `name` and returns its index through *group. */
udfkit_status udfkit_package_add_group(udfkit_package *pkg, const char *name, size_t *group);
udfkit_status udfkit_package_add_part(udfkit_package *pkg, udfkit_package_part part);
/* Hashes the function table and the parts: call once everything is in. */
void udfkit_package_seal(udfkit_package *pkg);

/* Reads a package fatbin (`udfkit pack`); `data` must outlive the package (copy it into
 * storage first where it does not). `need_package` refuses a fatbin whose entries carry no
 * package identifier (an engine image may be a plain --keep-ltoir fatbin). */
udfkit_status udfkit_package_read_fatbin(udfkit_package *pkg, const void *data, size_t size, bool need_package);

/* Of each group, the part for the highest architecture `arch` runs: the parts' indexes
 * into *chosen (malloc'd), their number into *count. UDFKIT_ERROR_NO_BINARY, naming the
 * group and the architectures it has, where a group has none. */
udfkit_status udfkit_package_choose(const udfkit_package *pkg, int arch, size_t **chosen, size_t *count);

/* Whether code built for `code` (compute_NN, or arch- or family-specific) runs on a device
 * of compute capability `arch` (90 for sm_90): udfkit_target_accepts with the device as the
 * target (the device itself is the most specific target there is: sm_<arch>a). What
 * udfkit_package_choose and udfkit_library_link pick by; inline, so that a program linking
 * at load time does not link the package reader for it. */
static inline bool udfkit_runtime_code_runs(udfkit_target code, int arch)
{
    return udfkit_target_accepts((udfkit_target){(unsigned)arch, 'a', true}, code);
}

/* Whether the package exports c_name; its index into *index. */
bool udfkit_package_find(const udfkit_package *pkg, const char *c_name, size_t *index);

#endif
