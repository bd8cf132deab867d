#include "udfkit_nanoarrow_device.h"

#include <udfkit/runtime.h>

#include <errno.h>
#include <string.h>

static void device_free(struct ArrowBufferAllocator *allocator, uint8_t *ptr, int64_t size)
{
    (void)allocator;
    (void)size;
    udfkit_device_free(ptr);
}

static int is_cpu(const struct ArrowDevice *d)
{
    return d->device_type == ARROW_DEVICE_CPU;
}

static int is_cuda(const struct ArrowDevice *d)
{
    return d->device_type == ARROW_DEVICE_CUDA;
}

/* A new buffer on dst with src's bytes: host to device, or device to host. An empty one has no
 * memory (data NULL), as nanoarrow's own buffers: nanoarrow makes the array's buffer pointer
 * from it, and a validity buffer that is not NULL is read by whoever sees null_count -1 (a
 * slice's), so it must hold every row's bit, not one byte of whatever the allocator had. */
static ArrowErrorCode buffer_init(struct ArrowDevice *device_src, struct ArrowBufferView src,
                                  struct ArrowDevice *device_dst, struct ArrowBuffer *dst, void *stream)
{
    (void)stream;
    size_t bytes = (size_t)src.size_bytes;
    if (bytes == 0 && ((is_cuda(device_dst) && is_cpu(device_src)) || (is_cpu(device_dst) && is_cuda(device_src)))) {
        ArrowBufferInit(dst);
        return NANOARROW_OK;
    }
    if (is_cuda(device_dst) && is_cpu(device_src)) {
        void *p = NULL;
        if (udfkit_device_alloc(bytes, &p) != UDFKIT_OK)
            return ENOMEM;
        if (bytes && udfkit_copy_to_device(p, src.data.data, bytes) != UDFKIT_OK) {
            udfkit_device_free(p);
            return EIO;
        }
        ArrowBufferInit(dst);
        dst->allocator = ArrowBufferDeallocator(device_free, NULL);
        dst->data = p;
        dst->size_bytes = (int64_t)bytes;
        dst->capacity_bytes = (int64_t)bytes;
        return NANOARROW_OK;
    }
    if (is_cpu(device_dst) && is_cuda(device_src)) {
        ArrowBufferInit(dst);
        NANOARROW_RETURN_NOT_OK(ArrowBufferResize(dst, (int64_t)bytes, 0));
        if (bytes && udfkit_copy_to_host(dst->data, src.data.data, bytes) != UDFKIT_OK) {
            ArrowBufferReset(dst);
            return EIO;
        }
        return NANOARROW_OK;
    }
    return ENOTSUP;
}

/* Bytes into a buffer that exists: nanoarrow reads a string column's last offset this way. */
static ArrowErrorCode buffer_copy(struct ArrowDevice *device_src, struct ArrowBufferView src,
                                  struct ArrowDevice *device_dst, struct ArrowBufferView dst, void *stream)
{
    (void)stream;
    size_t bytes = (size_t)src.size_bytes;
    udfkit_status st;
    if (is_cuda(device_dst) && is_cpu(device_src))
        st = udfkit_copy_to_device((void *)dst.data.data, src.data.data, bytes);
    else if (is_cpu(device_dst) && is_cuda(device_src))
        st = udfkit_copy_to_host((void *)dst.data.data, src.data.data, bytes);
    else
        return ENOTSUP;
    return st == UDFKIT_OK ? NANOARROW_OK : EIO;
}

static ArrowErrorCode array_init(struct ArrowDevice *device, struct ArrowDeviceArray *device_array,
                                 struct ArrowArray *array, void *sync_event, void *stream)
{
    (void)stream;
    if (sync_event)
        return EINVAL;
    memset(device_array, 0, sizeof *device_array);
    ArrowArrayMove(array, &device_array->array);
    device_array->device_id = device->device_id;
    device_array->device_type = device->device_type;
    return NANOARROW_OK;
}

/* The copies above are synchronous; an event (udfkit's outputs carry one) is waited for by
 * waiting for the whole context. */
static ArrowErrorCode synchronize_event(struct ArrowDevice *device, void *sync_event, void *stream,
                                        struct ArrowError *error)
{
    (void)device;
    if (!sync_event && !stream)
        return NANOARROW_OK;
    if (udfkit_synchronize() != UDFKIT_OK) {
        ArrowErrorSet(error, "udfkit_synchronize: %s", udfkit_last_error());
        return EIO;
    }
    return NANOARROW_OK;
}

static void device_release(struct ArrowDevice *device)
{
    device->release = NULL;
}

struct ArrowDevice *udfkit_nanoarrow_device(void)
{
    static struct ArrowDevice device;
    if (!device.release) {
        memset(&device, 0, sizeof device);
        device.device_type = ARROW_DEVICE_CUDA;
        device.device_id = 0;
        device.array_init = array_init;
        device.buffer_init = buffer_init;
        device.buffer_copy = buffer_copy;
        device.synchronize_event = synchronize_event;
        device.release = device_release;
    }
    return &device;
}

struct ArrowDevice *ArrowDeviceCuda(ArrowDeviceType device_type, int64_t device_id)
{
    struct ArrowDevice *d = udfkit_nanoarrow_device();
    return device_type == ARROW_DEVICE_CUDA && device_id == d->device_id ? d : NULL;
}
