#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static udfkit_driver driver;
static udfkit_status load_status;
static char load_message[512];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static CUcontext primary;
static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;

#define RESOLVE(field, symbol)                                                                       \
    do {                                                                                             \
        *(void **)&driver.field = dlsym(lib, symbol);                                                \
        if (!driver.field) {                                                                         \
            snprintf(load_message, sizeof load_message,                                              \
                     "the CUDA driver lacks %s: it is older than CUDA 12.0; update the driver", symbol); \
            load_status = UDFKIT_ERROR_NO_DRIVER;                                                    \
            return;                                                                                  \
        }                                                                                            \
    } while (0)

static void load_driver(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_message, sizeof load_message, "no CUDA driver: libcuda.so.1 cannot be loaded (%s)", dlerror());
        load_status = UDFKIT_ERROR_NO_DRIVER;
        return;
    }
    RESOLVE(init, "cuInit");
    RESOLVE(driver_get_version, "cuDriverGetVersion");
    RESOLVE(get_error_name, "cuGetErrorName");
    RESOLVE(get_error_string, "cuGetErrorString");
    RESOLVE(device_get, "cuDeviceGet");
    RESOLVE(device_get_count, "cuDeviceGetCount");
    RESOLVE(device_get_attribute, "cuDeviceGetAttribute");
    RESOLVE(primary_ctx_retain, "cuDevicePrimaryCtxRetain");
    RESOLVE(primary_ctx_get_state, "cuDevicePrimaryCtxGetState");
    RESOLVE(ctx_get_current, "cuCtxGetCurrent");
    RESOLVE(ctx_set_current, "cuCtxSetCurrent");
    RESOLVE(ctx_get_device, "cuCtxGetDevice");
    RESOLVE(ctx_synchronize, "cuCtxSynchronize");
    RESOLVE(library_load_data, "cuLibraryLoadData");
    RESOLVE(library_unload, "cuLibraryUnload");
    RESOLVE(library_get_kernel, "cuLibraryGetKernel");
    RESOLVE(library_get_kernel_count, "cuLibraryGetKernelCount");
    RESOLVE(library_enumerate_kernels, "cuLibraryEnumerateKernels");
    RESOLVE(kernel_get_function, "cuKernelGetFunction");
    RESOLVE(launch_kernel, "cuLaunchKernel");
    /* Optional: without it a dependent launch is an ordinary one. */
    *(void **)&driver.launch_kernel_ex = dlsym(lib, "cuLaunchKernelEx");
    /* Optional: only messages use it. */
    *(void **)&driver.kernel_get_name = dlsym(lib, "cuKernelGetName");
    RESOLVE(mem_alloc, "cuMemAlloc_v2");
    RESOLVE(mem_free, "cuMemFree_v2");
    RESOLVE(mem_pool_create, "cuMemPoolCreate");
    RESOLVE(mem_pool_set_attribute, "cuMemPoolSetAttribute");
    RESOLVE(mem_alloc_from_pool_async, "cuMemAllocFromPoolAsync");
    RESOLVE(mem_free_async, "cuMemFreeAsync");
    RESOLVE(mem_alloc_async, "cuMemAllocAsync");
    RESOLVE(mem_get_info, "cuMemGetInfo_v2");
    RESOLVE(memcpy_htod, "cuMemcpyHtoD_v2");
    RESOLVE(memcpy_dtoh, "cuMemcpyDtoH_v2");
    RESOLVE(memcpy_htod_async, "cuMemcpyHtoDAsync_v2");
    RESOLVE(memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2");
    RESOLVE(memset_d8_async, "cuMemsetD8Async");
    RESOLVE(stream_synchronize, "cuStreamSynchronize");
    RESOLVE(library_get_global, "cuLibraryGetGlobal");
    RESOLVE(occupancy_max_active_blocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    RESOLVE(ctx_get_id, "cuCtxGetId");
    RESOLVE(stream_get_id, "cuStreamGetId");
    RESOLVE(stream_is_capturing, "cuStreamIsCapturing");
    RESOLVE(event_create, "cuEventCreate");
    RESOLVE(event_record, "cuEventRecord");
    RESOLVE(event_query, "cuEventQuery");
    RESOLVE(event_destroy, "cuEventDestroy_v2");
    RESOLVE(stream_wait_event, "cuStreamWaitEvent");
    CUresult r = driver.init(0);
    if (r == CUDA_ERROR_NO_DEVICE) {
        snprintf(load_message, sizeof load_message, "the CUDA driver sees no GPU (cuInit: CUDA_ERROR_NO_DEVICE)");
        load_status = UDFKIT_ERROR_NO_DEVICE;
    } else if (r != CUDA_SUCCESS) {
        const char *name = "?";
        driver.get_error_name(r, &name);
        snprintf(load_message, sizeof load_message, "cuInit failed: %s", name);
        load_status = UDFKIT_ERROR_NO_DEVICE;
    }
}

udfkit_status udfkit_driver_fail(const udfkit_driver *d, CUresult r, const char *what)
{
    const char *name = "CUDA_ERROR_UNKNOWN", *text = "";
    d->get_error_name(r, &name);
    d->get_error_string(r, &text);
    udfkit_status s = UDFKIT_ERROR_DRIVER;
    switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY:
        s = UDFKIT_ERROR_OUT_OF_MEMORY;
        break;
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        s = UDFKIT_ERROR_NO_BINARY;
        break;
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_PTX:
        s = UDFKIT_ERROR_BAD_IMAGE;
        break;
    case CUDA_ERROR_NOT_FOUND:
        s = UDFKIT_ERROR_NOT_FOUND;
        break;
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_INVALID_VALUE:
        s = r == CUDA_ERROR_INVALID_VALUE ? UDFKIT_ERROR_INVALID_ARGUMENT : UDFKIT_ERROR_LAUNCH;
        break;
    default:
        break;
    }
    return udfkit_runtime_fail(s, "%s: %s (%s)", what, name, text);
}

const udfkit_driver *udfkit_driver_loaded(void)
{
    return &driver;
}

udfkit_status udfkit_driver_enter(const udfkit_driver **out)
{
    CUcontext current;
    return udfkit_driver_enter_context(out, &current);
}

udfkit_status udfkit_driver_enter_context(const udfkit_driver **out, CUcontext *context)
{
    pthread_once(&load_once, load_driver);
    if (load_status != UDFKIT_OK)
        return udfkit_runtime_fail(load_status, "%s", load_message);
    CUcontext current = NULL;
    CUresult r = driver.ctx_get_current(&current);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(&driver, r, "cuCtxGetCurrent");
    if (!current) {
        /* Device 0's primary context, retained once for the process; again where a reset
         * (cuDevicePrimaryCtxReset, cudaDeviceReset) left it inactive, which dropped every
         * retain. */
        pthread_mutex_lock(&primary_lock);
        CUdevice dev;
        unsigned int flags = 0;
        int active = 0;
        r = driver.device_get(&dev, 0);
        if (r == CUDA_SUCCESS && primary)
            r = driver.primary_ctx_get_state(dev, &flags, &active);
        if (r == CUDA_SUCCESS && (!primary || !active))
            r = driver.primary_ctx_retain(&primary, dev);
        pthread_mutex_unlock(&primary_lock);
        if (r != CUDA_SUCCESS)
            return udfkit_driver_fail(&driver, r, "retaining the primary context of device 0");
        r = driver.ctx_set_current(primary);
        if (r != CUDA_SUCCESS)
            return udfkit_driver_fail(&driver, r, "cuCtxSetCurrent");
        current = primary;
    }
    *context = current;
    *out = &driver;
    return UDFKIT_OK;
}
