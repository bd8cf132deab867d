#include "driver.h"
#include "library_internal.h"
#include "ptx_jit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

udfkit_status udfkit_library_load(const void *image, size_t size, udfkit_library **out)
{
    if (!image || !size || !out)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_library_load: no image given");
    *out = NULL;
    const udfkit_driver *d;
    udfkit_status s = udfkit_driver_enter(&d);
    if (s)
        return s;
    udfkit_library *lib = calloc(1, sizeof *lib);
    if (!lib)
        return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "udfkit_library_load: out of memory");
    lib->driver = d;
    udfkit_code_choice choice;
    if ((s = udfkit_runtime_choose_code(d, image, size, &choice))) {
        free(lib);
        return s;
    }
    CUresult r = d->library_load_data(&lib->handle, choice.code, NULL, NULL, 0, NULL, NULL, 0);
    if (r != CUDA_SUCCESS) {
        free(lib);
        if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION && choice.ptx_isa[0]) {
            s = udfkit_runtime_fail(UDFKIT_ERROR_NO_BINARY,
                                    "the image's PTX (ISA %s) is newer than this driver (CUDA %s, PTX ISA %s) can JIT, "
                                    "and no SASS fits the device; %s",
                                    choice.ptx_isa, choice.driver_version, choice.driver_isa,
                                    udfkit_runtime_ptx_available()
                                        ? "set UDFKIT_PTX_COMPILE=always to compile it with nvPTXCompiler"
                                        : "link the program with udfkit::runtime_ptx (add_jit_library(... "
                                          "PTX_FALLBACK)) and set UDFKIT_PTX_COMPILE=always to compile it with "
                                          "nvPTXCompiler");
        } else {
            s = udfkit_driver_fail(d, r, "loading the library image");
        }
        udfkit_code_choice_free(&choice);
        return s;
    }
    /* Resolve every kernel for this device now: with lazy loading a missing binary would
     * otherwise surface at the first launch. */
    unsigned int count = 0;
    r = d->library_get_kernel_count(&count, lib->handle);
    CUkernel *kernels = count ? calloc(count, sizeof *kernels) : NULL;
    if (r == CUDA_SUCCESS && count)
        r = kernels ? d->library_enumerate_kernels(kernels, count, lib->handle) : CUDA_ERROR_OUT_OF_MEMORY;
    for (unsigned int i = 0; r == CUDA_SUCCESS && i < count; i++) {
        CUfunction f;
        r = d->kernel_get_function(&f, kernels[i]);
    }
    free(kernels);
    s = r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "resolving the library's kernels for the current device");
    /* Which devices run this code, for launches on the others (library_devices.c). */
    if (!s && (s = udfkit_library_register(lib, &choice, image, size)))
        udfkit_library_unregister(lib);
    udfkit_code_choice_free(&choice);
    if (s) {
        d->library_unload(lib->handle);
        free(lib);
        return s;
    }
    *out = lib;
    return UDFKIT_OK;
}

void udfkit_library_unload(udfkit_library *lib)
{
    if (!lib)
        return;
    /* A bound library is shared by the binds of the same code: bind.c decides. */
    if (lib->release) {
        lib->release(lib);
        return;
    }
    udfkit_library_destroy(lib);
}

void udfkit_library_destroy(udfkit_library *lib)
{
    if (lib->link_kernel) {
        for (size_t i = 0; i < lib->nlinked; i++)
            udfkit_library_destroy(lib->linked[i]);
        free(lib->linked);
        if (lib->lazy_free)
            lib->lazy_free(lib->lazy);
        pthread_mutex_destroy(&lib->link_lock);
    }
    /* The occupancy answers kept for its kernels go with it (launch.c). */
    const udfkit_driver *d = lib->driver;
    unsigned count = 0;
    if (d->library_get_kernel_count(&count, lib->handle) == CUDA_SUCCESS && count) {
        CUkernel *kernels = malloc(count * sizeof *kernels);
        if (kernels && d->library_enumerate_kernels(kernels, count, lib->handle) == CUDA_SUCCESS)
            udfkit_occupancy_forget((const void *const *)kernels, count);
        free(kernels);
    }
    udfkit_library_unregister(lib);
    d->library_unload(lib->handle);
    for (size_t i = 0; i < lib->nslots; i++)
        free(lib->slot_names[i]);
    free(lib->slot_names);
    free(lib->slot_bound);
    free(lib);
}

/* A kernel defined without extern "C" has a C++ (mangled) name, "_Z...5scale...": where
 * the library has one for `name`, the message names it and says how to find it. */
static void mangled_hint(const udfkit_library *lib, const char *name, char *out, size_t size)
{
    const udfkit_driver *d = lib->driver;
    unsigned count = 0;
    out[0] = '\0';
    if (!d->kernel_get_name || d->library_get_kernel_count(&count, lib->handle) != CUDA_SUCCESS || count == 0)
        return;
    CUkernel *kernels = malloc(count * sizeof *kernels);
    if (!kernels || d->library_enumerate_kernels(kernels, count, lib->handle) != CUDA_SUCCESS) {
        free(kernels);
        return;
    }
    char needle[512];
    snprintf(needle, sizeof needle, "%zu%s", strlen(name), name);
    for (unsigned i = 0; i < count; i++) {
        const char *k = NULL;
        if (d->kernel_get_name(&k, kernels[i]) == CUDA_SUCCESS && k && strncmp(k, "_Z", 2) == 0 && strstr(k, needle)) {
            snprintf(out, size,
                     "; it has '%s', the C++ name of a kernel '%s': define that kernel extern \"C\" to find it as "
                     "'%s', or ask for '%s'",
                     k, name, name, k);
            break;
        }
    }
    free(kernels);
}

/* A kernel of a bound library linked on first use: from the code linked for it already, or
 * linked now (one link at a time per library; the others wait for it). */
static udfkit_status linked_kernel(udfkit_library *lib, const char *name, udfkit_kernel *out)
{
    udfkit_status s = UDFKIT_OK;
    CUkernel k;
    pthread_mutex_lock(&lib->link_lock);
    for (size_t i = 0; i < lib->nlinked; i++)
        if (lib->driver->library_get_kernel(&k, lib->linked[i]->handle, name) == CUDA_SUCCESS) {
            pthread_mutex_unlock(&lib->link_lock);
            *out = (udfkit_kernel)k;
            return UDFKIT_OK;
        }
    udfkit_library *sub = NULL;
    udfkit_library **grown = realloc(lib->linked, (lib->nlinked + 1) * sizeof *grown);
    if (!grown)
        s = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
    else
        lib->linked = grown;
    if (!s)
        s = lib->link_kernel(lib, name, &sub);
    CUresult r = CUDA_SUCCESS;
    if (!s && (r = lib->driver->library_get_kernel(&k, sub->handle, name)) != CUDA_SUCCESS)
        s = udfkit_driver_fail(lib->driver, r, "cuLibraryGetKernel");
    if (!s) {
        lib->linked[lib->nlinked++] = sub;
        *out = (udfkit_kernel)k;
    } else if (sub) {
        udfkit_library_destroy(sub);
    }
    pthread_mutex_unlock(&lib->link_lock);
    return s;
}

udfkit_status udfkit_library_get_kernel(udfkit_library *lib, const char *name, udfkit_kernel *out)
{
    if (!lib || !name || !out)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_library_get_kernel: missing argument");
    CUkernel k;
    CUresult r = lib->driver->library_get_kernel(&k, lib->handle, name);
    if (r == CUDA_ERROR_NOT_FOUND && lib->link_kernel)
        return linked_kernel(lib, name, out);
    if (r == CUDA_ERROR_NOT_FOUND) {
        char hint[1024];
        mangled_hint(lib, name, hint, sizeof hint);
        return udfkit_runtime_fail(UDFKIT_ERROR_NOT_FOUND, "the library has no kernel named '%s'%s", name, hint);
    }
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(lib->driver, r, "cuLibraryGetKernel");
    *out = (udfkit_kernel)k;
    return UDFKIT_OK;
}

int udfkit_library_has_kernel(udfkit_library *lib, const char *name)
{
    CUkernel k;
    if (!lib || !name)
        return 0;
    if (lib->driver->library_get_kernel(&k, lib->handle, name) == CUDA_SUCCESS)
        return 1;
    /* A kernel linked on first use: has_kernel does not link it. */
    return lib->link_kernel && lib->link_kernel(lib, name, NULL) == UDFKIT_OK;
}

/* The record the kernels of `udfkit kernels` keep (templates/kernels/prelude.cu.in):
 * min_row filters, row and code are the answer, lock guards them. */
typedef struct udf_error_record {
    uint64_t min_row, row;
    int32_t code, lock;
} udf_error_record;

/* The record of one module of the library in the current context: *found where a UDF
 * failed (the record then cleared). */
static udfkit_status take_record(udfkit_library *lib, udf_error_record *rec, bool *found)
{
    *found = false;
    const udfkit_driver *d = lib->driver;
    CUdeviceptr at = 0;
    size_t bytes = 0;
    /* The record of the current context, in the code this device runs. */
    CUlibrary handle;
    udfkit_status st = udfkit_library_handle_here(lib, &handle);
    if (st)
        return st;
    CUresult r = d->library_get_global(&at, &bytes, handle, "udfkit_udf_error_record");
    if (r == CUDA_ERROR_NOT_FOUND)
        return UDFKIT_OK;
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuLibraryGetGlobal");
    if (bytes != sizeof *rec)
        return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "the library's UDF error record has %zu bytes, not %zu",
                                   bytes, sizeof *rec);
    if ((r = d->memcpy_dtoh(rec, at, sizeof *rec)) != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "reading the UDF error record");
    if (rec->row == UINT64_MAX)
        return UDFKIT_OK;
    const udf_error_record clear = {UINT64_MAX, UINT64_MAX, 0, 0};
    if ((r = d->memcpy_htod(at, &clear, sizeof clear)) != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "clearing the UDF error record");
    *found = true;
    return UDFKIT_OK;
}

udfkit_status udfkit_library_udf_error(udfkit_library *lib, udfkit_stream s, uint64_t *row, int *code)
{
    if (!lib)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_library_udf_error: no library");
    udfkit_status st = udfkit_stream_synchronize(s);
    if (st)
        return st;
    udf_error_record rec, first = {UINT64_MAX, UINT64_MAX, 0, 0};
    bool found = false, any = false;
    st = take_record(lib, &rec, &found);
    if (found)
        first = rec;
    any |= found;
    /* A bound library's kernels linked on first use keep their records in their own modules:
     * the lowest failed row of all. */
    if (lib->link_kernel) {
        pthread_mutex_lock(&lib->link_lock);
        for (size_t i = 0; !st && i < lib->nlinked; i++) {
            st = take_record(lib->linked[i], &rec, &found);
            if (found && (!any || rec.row < first.row))
                first = rec;
            any |= found;
        }
        pthread_mutex_unlock(&lib->link_lock);
    }
    if (st || !any)
        return st;
    if (row)
        *row = first.row;
    if (code)
        *code = first.code;
    return udfkit_runtime_fail(UDFKIT_ERROR_UDF, "a UDF failed row %llu with code %d", (unsigned long long)first.row,
                               (int)first.code);
}
