/* The CUDA driver, loaded at run time: the functions the runtime calls, from libcuda. */
#ifndef UDFKIT_RUNTIME_DRIVER_H
#define UDFKIT_RUNTIME_DRIVER_H

#include "udfkit/runtime.h"

#include <cuda.h>
#include <stdint.h>

typedef struct udfkit_driver {
    CUresult (*init)(unsigned int);
    CUresult (*driver_get_version)(int *);
    CUresult (*get_error_name)(CUresult, const char **);
    CUresult (*get_error_string)(CUresult, const char **);
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*device_get_count)(int *);
    CUresult (*device_get_attribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (*primary_ctx_retain)(CUcontext *, CUdevice);
    CUresult (*primary_ctx_get_state)(CUdevice, unsigned int *, int *);
    CUresult (*ctx_get_current)(CUcontext *);
    CUresult (*ctx_set_current)(CUcontext);
    CUresult (*ctx_get_device)(CUdevice *);
    CUresult (*ctx_synchronize)(void);
    CUresult (*library_load_data)(CUlibrary *, const void *, CUjit_option *, void **, unsigned int,
                                  CUlibraryOption *, void **, unsigned int);
    CUresult (*library_unload)(CUlibrary);
    CUresult (*library_get_kernel)(CUkernel *, CUlibrary, const char *);
    CUresult (*library_get_kernel_count)(unsigned int *, CUlibrary);
    CUresult (*library_enumerate_kernels)(CUkernel *, unsigned int, CUlibrary);
    CUresult (*kernel_get_function)(CUfunction *, CUkernel);
    CUresult (*kernel_get_name)(const char **, CUkernel); /* NULL on drivers before CUDA 12.3 */
    CUresult (*launch_kernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                              unsigned int, unsigned int, CUstream, void **, void **);
    CUresult (*launch_kernel_ex)(const CUlaunchConfig *, CUfunction, void **, void **); /* NULL before CUDA 12.0 */
    CUresult (*mem_alloc)(CUdeviceptr *, size_t);
    CUresult (*mem_free)(CUdeviceptr);
    CUresult (*mem_pool_create)(CUmemoryPool *, const CUmemPoolProps *);
    CUresult (*mem_pool_set_attribute)(CUmemoryPool, CUmemPool_attribute, void *);
    CUresult (*mem_alloc_from_pool_async)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
    CUresult (*mem_free_async)(CUdeviceptr, CUstream);
    CUresult (*mem_alloc_async)(CUdeviceptr *, size_t, CUstream);
    CUresult (*mem_get_info)(size_t *, size_t *);
    CUresult (*memcpy_htod)(CUdeviceptr, const void *, size_t);
    CUresult (*memcpy_dtoh)(void *, CUdeviceptr, size_t);
    CUresult (*memcpy_htod_async)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*memcpy_dtoh_async)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*memset_d8_async)(CUdeviceptr, unsigned char, size_t, CUstream);
    CUresult (*stream_synchronize)(CUstream);
    CUresult (*library_get_global)(CUdeviceptr *, size_t *, CUlibrary, const char *);
    CUresult (*occupancy_max_active_blocks)(int *, CUfunction, int, size_t);
    CUresult (*ctx_get_id)(CUcontext, unsigned long long *);
    CUresult (*stream_get_id)(CUstream, unsigned long long *);
    CUresult (*stream_is_capturing)(CUstream, CUstreamCaptureStatus *);
    CUresult (*event_create)(CUevent *, unsigned int);
    CUresult (*event_record)(CUevent, CUstream);
    CUresult (*event_query)(CUevent);
    CUresult (*event_destroy)(CUevent);
    CUresult (*stream_wait_event)(CUstream, CUevent, unsigned int);
} udfkit_driver;

/* Loads libcuda once and makes sure the calling thread has a current context (its own,
 * else the primary context of device 0). On failure sets the message. */
udfkit_status udfkit_driver_enter(const udfkit_driver **out);
/* The loaded driver, for code that entered it earlier in the same call (udfkit_arrow_end). */
const udfkit_driver *udfkit_driver_loaded(void);
/* The same, also giving the current context (what udfkit_driver_enter asked the driver for). */
udfkit_status udfkit_driver_enter_context(const udfkit_driver **out, CUcontext *context);

/* Turns a driver error into a status and a message "what: CUDA_ERROR_X (text)". */
udfkit_status udfkit_driver_fail(const udfkit_driver *d, CUresult r, const char *what);

/* Stream-ordered memory from udfkit's pool of the current device, never from the temporary
 * blocks or a stream's scratch (memory.c): memory handed over to a caller, who frees it
 * with cuMemFree (an Arrow array's release). */
udfkit_status udfkit_pool_alloc_async(const udfkit_driver *d, size_t bytes, udfkit_stream s, CUdeviceptr *out);
/* The same where the caller knows the current device (cuCtxGetDevice asked once a launch). */
udfkit_status udfkit_pool_alloc_on(const udfkit_driver *d, CUdevice dev, size_t bytes, udfkit_stream s,
                                   CUdeviceptr *out);

/* This thread's message (error.c). */
udfkit_status udfkit_runtime_fail(udfkit_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Drops the occupancy answers kept for these kernels (CUkernel handles), before their
 * library is unloaded: a kernel loaded later at the same address gets its own. */
void udfkit_occupancy_forget(const void *const *kernels, size_t count);

/* arrow.c: gives back the blocks and events that released _arrow results left for the context
 * whose cuCtxGetId is ctx (udfkit_release_kept). */
void udfkit_arrow_release_kept(const udfkit_driver *d, unsigned long long ctx);

#endif
