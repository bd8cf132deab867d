#include "driver.h"

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
    r = d->device_get_attribute(out, cu, dev);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuDeviceGetAttribute");
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
