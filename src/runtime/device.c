#include "driver.h"

#include <stdatomic.h>
#include <stdbool.h>

/* Attributes never change: each is asked of the driver once per device (the launchers ask for
 * them on every call). 0 stands for "not asked yet"; a cached value is stored plus one. */
#define CACHED_DEVICES 64
#define ATTRIBUTES (UDFKIT_DEVICE_COMPUTE_CAPABILITY_MINOR + 1)
static atomic_int cached_attributes[CACHED_DEVICES][ATTRIBUTES];

udfkit_status udfkit_device_attribute(udfkit_device_attr attr, int *out)
{
    if (!out)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_device_attribute: no output pointer");
    CUdevice_attribute cu;
    switch (attr) {
    case UDFKIT_DEVICE_MULTIPROCESSOR_COUNT:
        cu = CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
        break;
    case UDFKIT_DEVICE_MAX_THREADS_PER_BLOCK:
        cu = CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
        break;
    case UDFKIT_DEVICE_MAX_THREADS_PER_MULTIPROCESSOR:
        cu = CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR;
        break;
    case UDFKIT_DEVICE_WARP_SIZE:
        cu = CU_DEVICE_ATTRIBUTE_WARP_SIZE;
        break;
    case UDFKIT_DEVICE_COMPUTE_CAPABILITY_MAJOR:
        cu = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
        break;
    case UDFKIT_DEVICE_COMPUTE_CAPABILITY_MINOR:
        cu = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
        break;
    default:
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_device_attribute: unknown attribute %d",
                                   (int)attr);
    }
    const udfkit_driver *d;
    udfkit_status s = udfkit_driver_enter(&d);
    if (s)
        return s;
    /* The device of the calling thread's context, which is where its launches run. */
    CUdevice dev;
    CUresult r = d->ctx_get_device(&dev);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuCtxGetDevice");
    bool cacheable = dev >= 0 && dev < CACHED_DEVICES && (int)attr >= 0 && (int)attr < ATTRIBUTES;
    int known = cacheable ? atomic_load_explicit(&cached_attributes[dev][attr], memory_order_relaxed) : 0;
    if (known) {
        *out = known - 1;
        return UDFKIT_OK;
    }
    r = d->device_get_attribute(out, cu, dev);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuDeviceGetAttribute");
    if (cacheable && *out >= 0)
        atomic_store_explicit(&cached_attributes[dev][attr], *out + 1, memory_order_relaxed);
    return UDFKIT_OK;
}

udfkit_status udfkit_device_memory(size_t *free_bytes, size_t *total_bytes)
{
    if (!free_bytes || !total_bytes)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_device_memory: no output pointer");
    const udfkit_driver *d;
    udfkit_status s = udfkit_driver_enter(&d);
    if (s)
        return s;
    CUresult r = d->mem_get_info(free_bytes, total_bytes);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuMemGetInfo");
}
