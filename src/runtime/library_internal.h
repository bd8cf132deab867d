/* What a loaded library is, for the runtime's files that make and share them. */
#ifndef UDFKIT_RUNTIME_LIBRARY_INTERNAL_H
#define UDFKIT_RUNTIME_LIBRARY_INTERNAL_H

#include "driver.h"
#include "ptx_jit.h"

#include <pthread.h>
#include <stdbool.h>

/* Devices whose answers a library keeps (whether its code there waits for the pass before). */
#define UDFKIT_LIBRARY_DEVICES 64

/* The library's code for other devices than the one that loaded it, where that one's does
 * not run there (library_devices.c). */
typedef struct udfkit_library_variant {
    int arch;
    CUlibrary handle;
    CUkernel *kernels; /* by the index of the library's entry names; NULL where it lacks one */
} udfkit_library_variant;

struct udfkit_library {
    CUlibrary handle;
    const udfkit_driver *driver;
    /* Set for a library udfkit_library_bind made, which bind.c's table shares: what
     * udfkit_library_unload calls instead (one reference fewer). A pointer, so that a
     * program that never binds links none of bind.c and what it needs (the compile core). */
    void (*release)(udfkit_library *lib);
    /* Set for a bound library whose kernels that call slots are linked on first use (bind.c):
     * links and loads the code of kernel `name` into *out (UDFKIT_ERROR_NOT_FOUND where the
     * library has no such kernel); `linked` holds what it loaded, under link_lock; `lazy` is
     * bind.c's, freed with lazy_free. */
    udfkit_status (*link_kernel)(udfkit_library *lib, const char *name, udfkit_library **out);
    void *lazy;
    void (*lazy_free)(void *lazy);
    pthread_mutex_t link_lock;
    udfkit_library **linked;
    size_t nlinked;
    /* A bound library's (udfkit_library_bind_info); bound is 0 for any other. */
    int bound, bound_arch, bound_whole, bound_from_cache;
    size_t bound_forwarders, bound_from_cache_kernels;
    /* Its slots, and which of them a function is bound to (udfkit_library_slot_bound). */
    char **slot_names;
    unsigned char *slot_bound;
    size_t nslots;

    /* ---- which code each device runs (library_devices.c) ---- */
    /* 0: the image as given, from which the driver takes each device's code; else the sm of
     * its SASS (a cubin, linked, bound, or compiled by nvPTXCompiler for the loading device). */
    int sass_arch;
    /* Where nvPTXCompiler compiled it: the image, compiled again for each other architecture
     * that asks, and the kernels' names (its PTX's entries), by which they are found there. */
    void *image;
    size_t image_size;
    char *names;
    size_t name_count;
    CUkernel *kernels; /* what get_kernel gives: by name index, or every kernel */
    size_t kernel_count;
    pthread_mutex_t lock; /* variants, dependent */
    udfkit_library_variant *variants;
    size_t variant_count;
    signed char dependent[UDFKIT_LIBRARY_DEVICES]; /* 0: not asked; 1: the marker; -1: none */
};

/* Unloads it whatever shares it. */
void udfkit_library_destroy(udfkit_library *lib);

/* After cuLibraryLoadData of `choice`'s code made of `image`: records which devices run it and
 * its kernels, so launches on other devices find them. */
udfkit_status udfkit_library_register(udfkit_library *lib, const udfkit_code_choice *choice, const void *image,
                                      size_t size);
/* Before it is unloaded: its kernels forgotten, its other devices' code unloaded. */
void udfkit_library_unregister(udfkit_library *lib);

/* The kernel that runs k's code on the current device: k itself, or the same kernel of the
 * library's code for this device's architecture (compiled on first use), or a failure with a
 * message where the library's code cannot run here. With `dependent` non-NULL, also whether
 * that code has udfkit_dependent_launch (its kernels wait for the pass before). */
udfkit_status udfkit_kernel_for_device(const udfkit_driver *d, udfkit_kernel *k, bool *dependent);

/* The library's CUlibrary whose code the current device runs. */
udfkit_status udfkit_library_handle_here(udfkit_library *lib, CUlibrary *out);

#endif
