/* A library on every device of the process.
 *
 * cuLibraryLoadData loads context-independently: a CUkernel launches in whichever context is
 * current, and the driver takes that device's code from the image. That is right for an
 * image as given (a fatbin with SASS or PTX for each device), but not for code made for the
 * device that loaded it: a cubin (udfkit_library_link's, udfkit_library_bind's, one the
 * caller gave), or the SASS nvPTXCompiler made of PTX the driver was too old for. Such a
 * library's kernels are known here: a launch on a device whose architecture cannot run that
 * code takes the same kernel of the image compiled again for that architecture (once, on first
 * use), or is refused with a message where there is no image to compile (a cubin).
 *
 * Whether a library's code waits for the pass before (udfkit_dependent_launch) is also
 * asked per device: a fatbin's sm_90 SASS may have the marker and the PTX the driver JITs
 * for another device not. Code that is not `udfkit kernels`' (no UDF error record) is the
 * caller's, whose kernels wait as udfkit_launch_dependent requires. */
#include "library_internal.h"
#include "ptx_entries.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- every loaded library's kernels, by CUkernel ---- */

typedef struct kernel_entry {
    CUkernel kernel; /* NULL: free */
    udfkit_library *lib;
    long index; /* in lib->names, or -1 */
} kernel_entry;

static struct {
    pthread_rwlock_t lock;
    udfkit_library **libs;
    size_t lib_count;
    kernel_entry *map; /* open addressing, capacity a power of two */
    size_t capacity;
} reg = {.lock = PTHREAD_RWLOCK_INITIALIZER};

/* Libraries whose code is one architecture's: launches ask which device they run on. */
static atomic_int arch_specific;

static size_t kernel_hash(CUkernel k, size_t capacity)
{
    uint64_t h = (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15u;
    return (size_t)(h ^ h >> 29) & (capacity - 1);
}

/* With the lock held for writing: the map made again from reg.libs. */
static bool rebuild_map(void)
{
    size_t n = 0;
    for (size_t i = 0; i < reg.lib_count; i++)
        n += reg.libs[i]->kernel_count;
    size_t capacity = 16;
    while (capacity < 2 * n)
        capacity *= 2;
    kernel_entry *map = calloc(capacity, sizeof *map);
    if (!map)
        return false;
    for (size_t i = 0; i < reg.lib_count; i++) {
        udfkit_library *lib = reg.libs[i];
        for (size_t j = 0; j < lib->kernel_count; j++) {
            if (!lib->kernels[j])
                continue;
            size_t at = kernel_hash(lib->kernels[j], capacity);
            while (map[at].kernel && map[at].kernel != lib->kernels[j])
                at = (at + 1) & (capacity - 1);
            map[at] = (kernel_entry){lib->kernels[j], lib, lib->names ? (long)j : -1};
        }
    }
    free(reg.map);
    reg.map = map;
    reg.capacity = capacity;
    return true;
}

/* With the lock held. */
static const kernel_entry *map_find(CUkernel k)
{
    if (!reg.map || !k)
        return NULL;
    for (size_t at = kernel_hash(k, reg.capacity);; at = (at + 1) & (reg.capacity - 1)) {
        if (reg.map[at].kernel == k)
            return &reg.map[at];
        if (!reg.map[at].kernel)
            return NULL;
    }
}

/* The kernels of lib->handle: by the entry names where it has them, else all of them. */
static udfkit_status list_kernels(udfkit_library *lib)
{
    const udfkit_driver *d = lib->driver;
    CUresult r = CUDA_SUCCESS;
    if (lib->names) {
        lib->kernels = calloc(lib->name_count ? lib->name_count : 1, sizeof *lib->kernels);
        if (!lib->kernels)
            return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_load: out of memory");
        lib->kernel_count = lib->name_count;
        const char *name = lib->names;
        for (size_t i = 0; i < lib->name_count; i++, name += strlen(name) + 1)
            if (d->library_get_kernel(&lib->kernels[i], lib->handle, name) != CUDA_SUCCESS)
                lib->kernels[i] = NULL;
        return UDFKIT_OK;
    }
    unsigned int count = 0;
    r = d->library_get_kernel_count(&count, lib->handle);
    if (r == CUDA_SUCCESS && count) {
        lib->kernels = calloc(count, sizeof *lib->kernels);
        if (!lib->kernels)
            return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_load: out of memory");
        r = d->library_enumerate_kernels(lib->kernels, count, lib->handle);
        lib->kernel_count = count;
    }
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "listing the library's kernels");
}

udfkit_status udfkit_library_register(udfkit_library *lib, const udfkit_code_choice *choice, const void *image,
                                      size_t size)
{
    pthread_mutex_init(&lib->lock, NULL);
    lib->sass_arch = choice->sass_arch;
    if (choice->compiled_ptx.size) {
        /* nvPTXCompiler's SASS: the image is kept to compile it again for other devices. */
        const char *ptx = (const char *)choice->compiled_ptx.data;
        size_t room = choice->compiled_ptx.size + 1;
        lib->names = malloc(room);
        lib->image = malloc(size);
        if (!lib->names || !lib->image)
            return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_load: out of memory");
        lib->name_count = udfkit_ptx_entry_names(ptx, choice->compiled_ptx.size, lib->names, room);
        memcpy(lib->image, image, size);
        lib->image_size = size;
    }
    udfkit_status s = list_kernels(lib);
    if (s)
        return s;
    pthread_rwlock_wrlock(&reg.lock);
    udfkit_library **grown = realloc(reg.libs, (reg.lib_count + 1) * sizeof *grown);
    if (grown) {
        reg.libs = grown;
        reg.libs[reg.lib_count++] = lib;
        if (!rebuild_map()) {
            reg.lib_count--;
            grown = NULL;
        }
    }
    pthread_rwlock_unlock(&reg.lock);
    if (!grown)
        return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_load: out of memory");
    if (lib->sass_arch)
        atomic_fetch_add(&arch_specific, 1);
    return UDFKIT_OK;
}

void udfkit_library_unregister(udfkit_library *lib)
{
    bool known = false;
    pthread_rwlock_wrlock(&reg.lock);
    for (size_t i = 0; i < reg.lib_count && !known; i++)
        if (reg.libs[i] == lib) {
            reg.libs[i] = reg.libs[--reg.lib_count];
            known = true;
            if (!rebuild_map()) {
                /* Out of memory: the old map would name a freed library. */
                free(reg.map);
                reg.map = NULL;
                reg.capacity = 0;
            }
        }
    pthread_rwlock_unlock(&reg.lock);
    if (known && lib->sass_arch)
        atomic_fetch_sub(&arch_specific, 1);
    for (size_t i = 0; i < lib->variant_count; i++) {
        udfkit_occupancy_forget((const void *const *)lib->variants[i].kernels, lib->name_count);
        lib->driver->library_unload(lib->variants[i].handle);
        free(lib->variants[i].kernels);
    }
    free(lib->variants);
    free(lib->kernels);
    free(lib->names);
    free(lib->image);
    pthread_mutex_destroy(&lib->lock);
}

/* With lib->lock held: the library's code for the current device's architecture `arch`. */
static udfkit_status variant_for(const udfkit_driver *d, udfkit_library *lib, int arch, udfkit_library_variant **out)
{
    for (size_t i = 0; i < lib->variant_count; i++)
        if (lib->variants[i].arch == arch) {
            *out = &lib->variants[i];
            return UDFKIT_OK;
        }
    if (!lib->image)
        return udfkit_runtime_fail(UDFKIT_ERROR_NO_BINARY,
                                   "the library's code is SASS for sm_%d (a cubin, or code linked or bound for the device "
                                   "that loaded it), which this sm_%d device cannot run: load, link or bind it again "
                                   "with a context of this device current, and launch that one here",
                                   lib->sass_arch, arch);
    udfkit_library_variant v = {arch, NULL, calloc(lib->name_count ? lib->name_count : 1, sizeof(CUkernel))};
    udfkit_library_variant *grown = realloc(lib->variants, (lib->variant_count + 1) * sizeof *grown);
    if (grown)
        lib->variants = grown;
    if (!v.kernels || !grown) {
        free(v.kernels);
        return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    udfkit_code_choice choice;
    udfkit_status s = udfkit_runtime_choose_code(d, lib->image, lib->image_size, &choice);
    CUresult r = CUDA_SUCCESS;
    if (!s && (r = d->library_load_data(&v.handle, choice.code, NULL, NULL, 0, NULL, NULL, 0)) != CUDA_SUCCESS)
        s = udfkit_driver_fail(d, r, "loading the library's code for this device");
    udfkit_code_choice_free(&choice);
    const char *name = lib->names;
    for (size_t i = 0; !s && i < lib->name_count; i++, name += strlen(name) + 1) {
        /* A kernel this device's code lacks (udfkit_dependent_launch in code for an older
         * architecture) stays NULL: launching it fails with a message. */
        CUfunction f;
        if (d->library_get_kernel(&v.kernels[i], v.handle, name) != CUDA_SUCCESS)
            v.kernels[i] = NULL;
        else if ((r = d->kernel_get_function(&f, v.kernels[i])) == CUDA_ERROR_NOT_FOUND)
            v.kernels[i] = NULL;
        else if (r != CUDA_SUCCESS)
            s = udfkit_driver_fail(d, r, "resolving the library's kernels for this device");
    }
    if (s) {
        if (v.handle)
            d->library_unload(v.handle);
        free(v.kernels);
        return s;
    }
    lib->variants[lib->variant_count] = v;
    *out = &lib->variants[lib->variant_count++];
    return UDFKIT_OK;
}

/* The CUlibrary of lib whose code the current device (`arch`) runs, and, where that is a
 * variant, its kernels (else NULL; an array of its own, which stays where it is while the
 * library is loaded). */
static udfkit_status handle_for(const udfkit_driver *d, udfkit_library *lib, int arch, CUlibrary *handle,
                                CUkernel **kernels)
{
    *handle = lib->handle;
    *kernels = NULL;
    if (!lib->sass_arch || udfkit_runtime_sass_runs(lib->sass_arch, arch))
        return UDFKIT_OK;
    pthread_mutex_lock(&lib->lock);
    udfkit_library_variant *v = NULL;
    udfkit_status s = variant_for(d, lib, arch, &v);
    if (!s) {
        *handle = v->handle;
        *kernels = v->kernels;
    }
    pthread_mutex_unlock(&lib->lock);
    return s;
}

/* Whether launches of lib's code on the current device (ordinal dev, code in `handle`) may
 * be dependent: code of `udfkit kernels` (it has the UDF error record) where it has the
 * marker; the caller's own code always (udfkit_launch_dependent's contract: its kernels
 * wait). */
static bool has_marker(const udfkit_driver *d, udfkit_library *lib, CUdevice dev, CUlibrary handle)
{
    bool cacheable = dev >= 0 && dev < UDFKIT_LIBRARY_DEVICES;
    pthread_mutex_lock(&lib->lock);
    signed char known = cacheable ? lib->dependent[dev] : 0;
    pthread_mutex_unlock(&lib->lock);
    if (known)
        return known > 0;
    /* The kernel is found in the library, and its code in this context: a fatbin's code for
     * one device may have it and another's not. */
    CUkernel marker;
    CUfunction f;
    CUdeviceptr record;
    size_t bytes;
    bool generated = d->library_get_global(&record, &bytes, handle, "udfkit_udf_error_record") == CUDA_SUCCESS;
    bool yes = !generated || (d->library_get_kernel(&marker, handle, "udfkit_dependent_launch") == CUDA_SUCCESS &&
                              d->kernel_get_function(&f, marker) == CUDA_SUCCESS);
    if (cacheable) {
        pthread_mutex_lock(&lib->lock);
        lib->dependent[dev] = yes ? 1 : -1;
        pthread_mutex_unlock(&lib->lock);
    }
    return yes;
}

udfkit_status udfkit_kernel_for_device(const udfkit_driver *d, udfkit_kernel *k, bool *dependent)
{
    if (dependent)
        *dependent = false;
    if (!dependent && !atomic_load_explicit(&arch_specific, memory_order_relaxed))
        return UDFKIT_OK;
    pthread_rwlock_rdlock(&reg.lock);
    const kernel_entry *e = map_find((CUkernel)*k);
    udfkit_library *lib = e ? e->lib : NULL;
    long index = e ? e->index : -1;
    pthread_rwlock_unlock(&reg.lock);
    if (!lib || (!dependent && !lib->sass_arch))
        return UDFKIT_OK; /* not one of a udfkit library's, or code for every device: as it is */
    CUdevice dev = -1;
    int arch = 0;
    CUresult r = dependent ? d->ctx_get_device(&dev) : CUDA_SUCCESS;
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuCtxGetDevice");
    udfkit_status s = lib->sass_arch ? udfkit_runtime_device_arch(d, &arch) : UDFKIT_OK;
    CUlibrary handle;
    CUkernel *variant = NULL;
    if (!s)
        s = handle_for(d, lib, arch, &handle, &variant);
    if (s)
        return s;
    if (variant) {
        if (index < 0 || !variant[index])
            return udfkit_runtime_fail(UDFKIT_ERROR_NOT_FOUND,
                                       "the library's code compiled for this sm_%d device lacks a kernel its code for "
                                       "sm_%d has",
                                       arch, lib->sass_arch);
        *k = (udfkit_kernel)variant[index];
    }
    if (dependent)
        *dependent = has_marker(d, lib, dev, handle);
    return UDFKIT_OK;
}

udfkit_status udfkit_library_handle_here(udfkit_library *lib, CUlibrary *out)
{
    *out = lib->handle;
    if (!lib->sass_arch)
        return UDFKIT_OK;
    int arch = 0;
    CUkernel *variant;
    udfkit_status s = udfkit_runtime_device_arch(lib->driver, &arch);
    return s ? s : handle_for(lib->driver, lib, arch, out, &variant);
}

/* For tests: whether udfkit_launch_dependent of k on the current device is a dependent
 * launch as far as the code goes (1: its code here is the caller's, or has
 * udfkit_dependent_launch; 0: not; -1: a failure, the message set). */
int udfkit_kernel_waits_here(udfkit_kernel k);
int udfkit_kernel_waits_here(udfkit_kernel k)
{
    const udfkit_driver *d;
    bool waits = false;
    if (udfkit_driver_enter(&d) || udfkit_kernel_for_device(d, &k, &waits))
        return -1;
    return waits;
}
