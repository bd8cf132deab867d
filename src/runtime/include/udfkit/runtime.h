/* udfkit runtime: loads the fatbins udfkit builds and launches their kernels.
 *
 * Plain C. The CUDA driver is found at run time, so a program linked with this library
 * starts, and reports UDFKIT_ERROR_NO_DRIVER, on a machine without a GPU. Every call works
 * in the calling thread's current CUDA context, else the first device's primary context,
 * as the CUDA runtime does. Every failure leaves a message for this thread in
 * udfkit_last_error(). */
#ifndef UDFKIT_RUNTIME_H
#define UDFKIT_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Generated code and this library check that they were made for the same ABI. */
#define UDFKIT_RUNTIME_ABI_VERSION 1

typedef enum udfkit_status {
    UDFKIT_OK = 0,
    UDFKIT_ERROR_INVALID_ARGUMENT,
    UDFKIT_ERROR_NO_DRIVER,     /* libcuda cannot be loaded */
    UDFKIT_ERROR_NO_DEVICE,     /* the driver sees no GPU */
    UDFKIT_ERROR_NO_BINARY,     /* the image holds nothing this device can run */
    UDFKIT_ERROR_BAD_IMAGE,     /* the image is not a fatbin, cubin or PTX the driver accepts */
    UDFKIT_ERROR_NOT_FOUND,     /* no kernel of that name */
    UDFKIT_ERROR_OUT_OF_MEMORY,
    UDFKIT_ERROR_LAUNCH,        /* a launch or the work it started failed */
    UDFKIT_ERROR_ABI_MISMATCH,  /* generated code made for another runtime ABI */
    UDFKIT_ERROR_DRIVER         /* any other driver error; the message names it */
} udfkit_status;

/* A CUstream or cudaStream_t passes as it is; NULL is the default stream. */
typedef struct CUstream_st *udfkit_stream;

typedef struct udfkit_library udfkit_library;
typedef struct udfkit_kernel_st *udfkit_kernel;

typedef struct udfkit_dim3 {
    unsigned int x, y, z;
} udfkit_dim3;

/* Loads a fatbin, cubin or PTX image (context-independently) and resolves every kernel in
 * it for the current device, so a missing binary shows here and not at the first launch. */
udfkit_status udfkit_library_load(const void *image, size_t size, udfkit_library **out);
/* Accepts NULL. */
void udfkit_library_unload(udfkit_library *lib);
udfkit_status udfkit_library_get_kernel(udfkit_library *lib, const char *name, udfkit_kernel *out);

/* args: one pointer per kernel parameter, as cuLaunchKernel takes them. */
udfkit_status udfkit_launch(udfkit_kernel k, udfkit_dim3 grid, udfkit_dim3 block, size_t shared_bytes, udfkit_stream s,
                            void **args);

udfkit_status udfkit_device_alloc(size_t bytes, void **out);
/* Accepts NULL. */
udfkit_status udfkit_device_free(void *p);
udfkit_status udfkit_copy_to_device(void *dst, const void *src, size_t bytes);
udfkit_status udfkit_copy_to_host(void *dst, const void *src, size_t bytes);
udfkit_status udfkit_synchronize(void);

const char *udfkit_status_string(udfkit_status s);
/* This thread's detail of its last failure; never NULL. */
const char *udfkit_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* UDFKIT_RUNTIME_H */
