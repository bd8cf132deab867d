#include "driver.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ---- caller-owned scratch, per stream (udfkit_stream_scratch) ---- */

#define SCRATCH_STREAMS 64
#define SCRATCH_ALIGN 256u
typedef struct scratch_arena {
    bool used;
    udfkit_stream stream;
    char *base;
    size_t bytes, offset;
    unsigned live; /* allocations taken and not yet given back */
} scratch_arena;
static scratch_arena arenas[SCRATCH_STREAMS];
static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int arena_count; /* 0: no stream has one, and no lock is taken */

static scratch_arena *arena_of(udfkit_stream s)
{
    for (size_t i = 0; i < SCRATCH_STREAMS; i++)
        if (arenas[i].used && arenas[i].stream == s)
            return &arenas[i];
    return NULL;
}

udfkit_status udfkit_stream_scratch(udfkit_stream s, void *scratch, size_t bytes)
{
    pthread_mutex_lock(&arena_lock);
    scratch_arena *a = arena_of(s);
    udfkit_status st = UDFKIT_OK;
    if (a && a->live)
        st = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                 "udfkit_stream_scratch: a launcher on this stream holds memory from its scratch");
    else if (!scratch || !bytes) {
        if (a) {
            *a = (scratch_arena){0};
            atomic_fetch_sub(&arena_count, 1);
        }
    } else {
        for (size_t i = 0; !a && i < SCRATCH_STREAMS; i++)
            if (!arenas[i].used) {
                a = &arenas[i];
                atomic_fetch_add(&arena_count, 1);
            }
        if (a)
            *a = (scratch_arena){true, s, scratch, bytes, 0, 0};
        else
            st = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                     "udfkit_stream_scratch: %d streams have scratch already", SCRATCH_STREAMS);
    }
    pthread_mutex_unlock(&arena_lock);
    return st;
}

/* Memory from s's scratch, or NULL where it has none or no room. */
static void *scratch_take(udfkit_stream s, size_t bytes)
{
    if (!atomic_load(&arena_count))
        return NULL;
    void *p = NULL;
    pthread_mutex_lock(&arena_lock);
    scratch_arena *a = arena_of(s);
    size_t at = a ? (a->offset + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN : 0;
    if (a && at <= a->bytes && bytes <= a->bytes - at) {
        p = a->base + at;
        a->offset = at + (bytes ? bytes : 1);
        a->live++;
    }
    pthread_mutex_unlock(&arena_lock);
    return p;
}

/* Whether p came from s's scratch (then it is given back). */
static bool scratch_give(udfkit_stream s, void *p)
{
    if (!atomic_load(&arena_count))
        return false;
    pthread_mutex_lock(&arena_lock);
    scratch_arena *a = arena_of(s);
    bool mine = a && (char *)p >= a->base && (char *)p < a->base + a->bytes && a->live;
    if (mine && --a->live == 0)
        a->offset = 0; /* the next launch on s runs after this one: the bytes serve again */
    pthread_mutex_unlock(&arena_lock);
    return mine;
}

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
    if ((*out = scratch_take(s, bytes)))
        return UDFKIT_OK;
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
    if (!p || scratch_give(s, p))
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
