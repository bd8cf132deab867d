#include "driver.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

udfkit_status udfkit_device_alloc(size_t bytes, void **out)
{
    if (!out)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_device_alloc: no output pointer");
    *out = NULL;
    const udfkit_driver *d;
    udfkit_status s = udfkit_driver_enter(&d);
    if (s)
        return s;
    CUdeviceptr p = 0;
    CUresult r = d->mem_alloc(&p, bytes ? bytes : 1);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuMemAlloc");
    *out = (void *)(uintptr_t)p;
    return UDFKIT_OK;
}

udfkit_status udfkit_device_free(void *p)
{
    if (!p)
        return UDFKIT_OK;
    const udfkit_driver *d;
    udfkit_status s = udfkit_driver_enter(&d);
    if (s)
        return s;
    CUresult r = d->mem_free((CUdeviceptr)(uintptr_t)p);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuMemFree");
}

udfkit_status udfkit_copy_to_device(void *dst, const void *src, size_t bytes)
{
    const udfkit_driver *d;
    udfkit_status s = udfkit_driver_enter(&d);
    if (s)
        return s;
    CUresult r = bytes ? d->memcpy_htod((CUdeviceptr)(uintptr_t)dst, src, bytes) : CUDA_SUCCESS;
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "copying to the device");
}

udfkit_status udfkit_copy_to_host(void *dst, const void *src, size_t bytes)
{
    const udfkit_driver *d;
    udfkit_status s = udfkit_driver_enter(&d);
    if (s)
        return s;
    CUresult r = bytes ? d->memcpy_dtoh(dst, (CUdeviceptr)(uintptr_t)src, bytes) : CUDA_SUCCESS;
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "copying to the host");
}

/* Launchers take temporary memory on every call. A pool of udfkit's own that keeps freed
 * memory (release threshold: never) spares each call mapping it again, without changing the
 * device's default pool, which belongs to the application. */
static CUmemoryPool pools[64];
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;

static udfkit_status pool_of(const udfkit_driver *d, CUmemoryPool *out)
{
    CUdevice dev;
    CUresult r = d->ctx_get_device(&dev);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuCtxGetDevice");
    if (dev < 0 || dev >= 64)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "device ordinal %d is out of range", (int)dev);
    pthread_mutex_lock(&pools_lock);
    if (!pools[dev]) {
        CUmemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        props.location.id = dev;
        r = d->mem_pool_create(&pools[dev], &props);
        if (r == CUDA_SUCCESS) {
            cuuint64_t keep = UINT64_MAX;
            r = d->mem_pool_set_attribute(pools[dev], CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
        }
    }
    *out = pools[dev];
    pthread_mutex_unlock(&pools_lock);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "creating udfkit's memory pool");
}

udfkit_status udfkit_device_alloc_async(size_t bytes, udfkit_stream s, void **out)
{
    if (!out)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_device_alloc_async: no output pointer");
    *out = NULL;
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    CUmemoryPool pool = NULL;
    if ((st = pool_of(d, &pool)))
        return st;
    CUdeviceptr p = 0;
    CUresult r = d->mem_alloc_from_pool_async(&p, bytes ? bytes : 1, pool, (CUstream)s);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuMemAllocFromPoolAsync");
    *out = (void *)(uintptr_t)p;
    return UDFKIT_OK;
}

udfkit_status udfkit_device_free_async(void *p, udfkit_stream s)
{
    if (!p)
        return UDFKIT_OK;
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    CUresult r = d->mem_free_async((CUdeviceptr)(uintptr_t)p, (CUstream)s);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuMemFreeAsync");
}

udfkit_status udfkit_device_memset_async(void *p, int value, size_t bytes, udfkit_stream s)
{
    if (!bytes)
        return UDFKIT_OK;
    if (!p)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_device_memset_async: no memory given");
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    CUresult r = d->memset_d8_async((CUdeviceptr)(uintptr_t)p, (unsigned char)value, bytes, (CUstream)s);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuMemsetD8Async");
}
