#include "driver.h"

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

udfkit_status udfkit_device_alloc_async(size_t bytes, udfkit_stream s, void **out)
{
    if (!out)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_device_alloc_async: no output pointer");
    *out = NULL;
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    CUdeviceptr p = 0;
    CUresult r = d->mem_alloc_async(&p, bytes ? bytes : 1, (CUstream)s);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuMemAllocAsync");
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
