#include "driver.h"
#include "stream_state.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ---- caller-owned scratch, per stream (udfkit_stream_scratch) ----
 *
 * Kept by the ids of the context and the stream (stream_state.h), never by the stream's
 * handle: a stream created at the handle of one destroyed with its scratch set, or the NULL
 * stream of another context (another device), never takes memory from that scratch. */

static udfkit_scratch_table arenas;
static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int arena_count; /* 0: no stream has one, and no id is asked for */

/* The ids of the current context and of s in it. */
static udfkit_status stream_key(const udfkit_driver *d, udfkit_stream s, udfkit_stream_key *key)
{
    CUcontext c = NULL;
    CUresult r = d->ctx_get_current(&c);
    if (r == CUDA_SUCCESS && !c)
        r = CUDA_ERROR_INVALID_CONTEXT;
    if (r == CUDA_SUCCESS)
        r = d->ctx_get_id(c, &key->ctx_id);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuCtxGetId");
    if ((r = d->stream_get_id((CUstream)s, &key->stream_id)) != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuStreamGetId");
    key->ctx_handle = c;
    key->stream_handle = s;
    return UDFKIT_OK;
}

udfkit_status udfkit_stream_scratch(udfkit_stream s, void *scratch, size_t bytes)
{
    const udfkit_driver *d;
    udfkit_stream_key key;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st || (st = stream_key(d, s, &key)))
        return st;
    pthread_mutex_lock(&arena_lock);
    udfkit_scratch_result r = udfkit_scratch_set(&arenas, &key, scratch, bytes);
    atomic_store(&arena_count, (int)arenas.count);
    pthread_mutex_unlock(&arena_lock);
    if (r == UDFKIT_SCRATCH_BUSY)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                   "udfkit_stream_scratch: a launcher on this stream holds memory from its scratch");
    if (r == UDFKIT_SCRATCH_FULL)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT,
                                   "udfkit_stream_scratch: %d streams have scratch already", UDFKIT_SCRATCH_STREAMS);
    return UDFKIT_OK;
}

/* Memory from s's scratch, or NULL where it has none or no room. */
static void *scratch_take(const udfkit_driver *d, udfkit_stream s, size_t bytes)
{
    udfkit_stream_key key;
    if (!atomic_load(&arena_count) || stream_key(d, s, &key))
        return NULL;
    pthread_mutex_lock(&arena_lock);
    void *p = udfkit_scratch_take(&arenas, &key, bytes);
    atomic_store(&arena_count, (int)arenas.count);
    pthread_mutex_unlock(&arena_lock);
    return p;
}

/* Whether p came from s's scratch (then it is given back). */
static bool scratch_give(const udfkit_driver *d, udfkit_stream s, void *p)
{
    udfkit_stream_key key;
    if (!atomic_load(&arena_count) || stream_key(d, s, &key))
        return false;
    pthread_mutex_lock(&arena_lock);
    bool mine = udfkit_scratch_give(&arenas, &key, p);
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
    if (!bytes)
        return UDFKIT_OK;
    /* From pageable memory cuMemcpyHtoD returns once the bytes are staged, while the DMA to
     * dst may still run on the legacy stream: a kernel on a non-blocking stream (or in another
     * context) launched next would read dst before it. Waiting for the legacy stream makes
     * the copy done when this returns, whatever stream reads dst next. */
    CUresult r = d->memcpy_htod((CUdeviceptr)(uintptr_t)dst, src, bytes);
    if (r == CUDA_SUCCESS && (r = d->stream_synchronize(CU_STREAM_LEGACY)) != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "waiting for the copy to the device");
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

udfkit_status udfkit_copy_to_device_async(void *dst, const void *src, size_t bytes, udfkit_stream s)
{
    if (!bytes)
        return UDFKIT_OK;
    if (!dst || !src)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_copy_to_device_async: no memory given");
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    CUresult r = d->memcpy_htod_async((CUdeviceptr)(uintptr_t)dst, src, bytes, (CUstream)s);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuMemcpyHtoDAsync");
}

udfkit_status udfkit_copy_to_host_async(void *dst, const void *src, size_t bytes, udfkit_stream s)
{
    if (!bytes)
        return UDFKIT_OK;
    if (!dst || !src)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_copy_to_host_async: no memory given");
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    CUresult r = d->memcpy_dtoh_async(dst, (CUdeviceptr)(uintptr_t)src, bytes, (CUstream)s);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuMemcpyDtoHAsync");
}

/* Launchers take temporary memory on every call. A pool of udfkit's own that keeps freed
 * memory (release threshold: never) spares each call mapping it again, without changing the
 * device's default pool, which belongs to the application. */
static CUmemoryPool pools[64];
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;

static udfkit_status pool_on(const udfkit_driver *d, CUdevice dev, CUmemoryPool *out)
{
    CUresult r = CUDA_SUCCESS;
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

static udfkit_status pool_of(const udfkit_driver *d, CUmemoryPool *out)
{
    CUdevice dev;
    CUresult r = d->ctx_get_device(&dev);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuCtxGetDevice");
    return pool_on(d, dev, out);
}

/* ---- small temporary blocks kept per stream ----
 *
 * A launcher's temporary memory is small below a few million rows (partials, tile state: a
 * few KiB), and taking it from the pool and giving it back costs two driver calls and two
 * operations on the stream in every call, where CUB's caller allocates once. Requests of up
 * to CACHE_BLOCK bytes therefore take a block of this cache, as caching allocators do
 * (cub::CachingDeviceAllocator, RMM's stream-ordered pools):
 * - a block given back (udfkit_device_free_async) records its event on that stream and is
 *   kept for that stream: work queued on it later runs after every use, so the stream's next
 *   request takes the block again without waiting for anything;
 * - another stream takes it only once its event has completed (cuEventQuery; a stream that
 *   was destroyed leaves its blocks to others that way), never waiting on the host;
 * - streams are told apart by cuStreamGetId and contexts by cuCtxGetId, both unique for the
 *   process, so a new stream or context at a recycled handle (cuStreamDestroy and
 *   cuStreamCreate, cuDevicePrimaryCtxReset) never gets a block that is still in use or
 *   that its context's reset freed;
 * - the blocks of a context that is gone (a primary context reset, or a context destroyed)
 *   are forgotten without a driver call once a context at the same handle asks: the reset
 *   freed their memory and their events;
 * - a stream being captured into a graph takes its memory from the graph (memory nodes),
 *   and when all CACHE_SLOTS blocks are held requests go to the pool as before.
 * Blocks stay allocated for the process: at most CACHE_SLOTS * CACHE_BLOCK bytes, for all its
 * contexts and devices together. */

#define CACHE_SLOTS 64
#define CACHE_BLOCK (64u << 10)
#define CACHE_STEAL_QUERIES 4 /* events asked, oldest first, before a new block is made */

typedef struct cached_block {
    unsigned long long ctx;    /* cuCtxGetId; 0: the slot is free */
    CUcontext ctx_handle;      /* to notice that the context was reset or destroyed */
    unsigned long long stream; /* the stream it was last given back on (cuStreamGetId) */
    CUdeviceptr ptr;           /* 0 while the slot is being filled */
    CUevent done;              /* recorded where it was last given back */
    unsigned long long given;  /* when (a count), for the oldest first */
    bool busy;
} cached_block;
static cached_block cache[CACHE_SLOTS];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long cache_clock;

/* The ids of the current context and of s, where s is not being captured (*capturing
 * says whether it is). */
static bool cache_ids(const udfkit_driver *d, udfkit_stream s, CUcontext *handle, unsigned long long *ctx,
                      unsigned long long *stream, bool *capturing)
{
    CUcontext c = NULL;
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    bool known = d->ctx_get_current(&c) == CUDA_SUCCESS && c && d->ctx_get_id(c, ctx) == CUDA_SUCCESS;
    CUresult r = d->stream_is_capturing((CUstream)s, &capture);
    *capturing = r != CUDA_SUCCESS || capture != CU_STREAM_CAPTURE_STATUS_NONE;
    *handle = c;
    return known && !*capturing && d->stream_get_id((CUstream)s, stream) == CUDA_SUCCESS;
}

/* A block of the cache for `bytes` on s, or 0 (then the pool serves the request, or the
 * graph where *capturing). */
static CUdeviceptr cache_take(const udfkit_driver *d, size_t bytes, udfkit_stream s, bool *capturing)
{
    unsigned long long ctx, stream;
    CUcontext handle = NULL;
    if (!cache_ids(d, s, &handle, &ctx, &stream, capturing) || bytes > CACHE_BLOCK)
        return 0;
    pthread_mutex_lock(&cache_lock);
    /* Blocks of a context that had this handle before (reset by cuDevicePrimaryCtxReset, or
     * destroyed and another created at its address) went with it, their events too: their
     * slots are free again, with no driver call. */
    for (size_t i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].ctx && cache[i].ctx_handle == handle && cache[i].ctx != ctx)
            cache[i] = (cached_block){0};
    cached_block *b = NULL;
    for (size_t i = 0; !b && i < CACHE_SLOTS; i++)
        if (cache[i].ctx == ctx && !cache[i].busy && cache[i].stream == stream)
            b = &cache[i];
    /* Another stream's, oldest first, where its last use has ended. */
    for (int asked = 0; !b && asked < CACHE_STEAL_QUERIES; asked++) {
        cached_block *oldest = NULL;
        for (size_t i = 0; i < CACHE_SLOTS; i++)
            if (cache[i].ctx == ctx && !cache[i].busy && cache[i].ptr && cache[i].stream != stream &&
                (!oldest || cache[i].given < oldest->given))
                oldest = &cache[i];
        if (!oldest)
            break;
        if (d->event_query(oldest->done) == CUDA_SUCCESS)
            b = oldest;
        else
            oldest->given = ++cache_clock; /* still in use: ask the next one */
    }
    if (b) {
        b->busy = true;
        b->stream = stream;
        pthread_mutex_unlock(&cache_lock);
        return b->ptr;
    }
    for (size_t i = 0; !b && i < CACHE_SLOTS; i++)
        if (!cache[i].ctx)
            b = &cache[i];
    if (b)
        *b = (cached_block){.ctx = ctx, .ctx_handle = handle, .stream = stream, .busy = true}; /* held while made */
    pthread_mutex_unlock(&cache_lock);
    if (!b)
        return 0;
    CUmemoryPool pool = NULL;
    CUevent done = NULL;
    CUdeviceptr p = 0;
    if (pool_of(d, &pool) != UDFKIT_OK || d->event_create(&done, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS ||
        d->mem_alloc_from_pool_async(&p, CACHE_BLOCK, pool, (CUstream)s) != CUDA_SUCCESS) {
        /* The pool serves this request, and reports what went wrong. */
        if (done)
            d->event_destroy(done);
        pthread_mutex_lock(&cache_lock);
        *b = (cached_block){0};
        pthread_mutex_unlock(&cache_lock);
        return 0;
    }
    pthread_mutex_lock(&cache_lock);
    b->ptr = p;
    b->done = done;
    pthread_mutex_unlock(&cache_lock);
    return p;
}

/* Whether p, given back on s, is one of the cache's blocks kept for s. A block given back on
 * a stream being captured, or on one of another context, leaves the cache (false): the
 * caller frees it on s in stream order, as the pool's memory. */
static bool cache_keep(const udfkit_driver *d, CUdeviceptr p, udfkit_stream s)
{
    pthread_mutex_lock(&cache_lock);
    cached_block *b = NULL;
    for (size_t i = 0; !b && i < CACHE_SLOTS; i++)
        if (cache[i].busy && cache[i].ptr == p)
            b = &cache[i];
    if (!b) {
        pthread_mutex_unlock(&cache_lock);
        return false;
    }
    unsigned long long ctx = 0, stream = 0;
    CUcontext handle = NULL;
    bool capturing, ids = cache_ids(d, s, &handle, &ctx, &stream, &capturing);
    if (ids && ctx == b->ctx && d->event_record(b->done, (CUstream)s) == CUDA_SUCCESS) {
        b->stream = stream;
        b->given = ++cache_clock;
        b->busy = false;
        pthread_mutex_unlock(&cache_lock);
        return true;
    }
    bool own_context = ctx == b->ctx;
    CUevent done = b->done;
    *b = (cached_block){0};
    pthread_mutex_unlock(&cache_lock);
    /* The event belongs to the block's context: destroyed where that is the current one
     * (the block's context may be gone where it is not). */
    if (own_context)
        d->event_destroy(done);
    return false;
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
    if ((*out = scratch_take(d, s, bytes)))
        return UDFKIT_OK;
    bool capturing = false;
    CUdeviceptr p = cache_take(d, bytes, s, &capturing);
    if (p) {
        *out = (void *)(uintptr_t)p;
        return UDFKIT_OK;
    }
    CUresult r;
    if (capturing) {
        /* Captured into a graph: a memory node of the graph (a graph allocates from the
         * device's own graph memory, not from a pool of ours). */
        if ((r = d->mem_alloc_async(&p, bytes ? bytes : 1, (CUstream)s)) != CUDA_SUCCESS)
            return udfkit_driver_fail(d, r, "cuMemAllocAsync (in stream capture)");
        *out = (void *)(uintptr_t)p;
        return UDFKIT_OK;
    }
    CUmemoryPool pool = NULL;
    if ((st = pool_of(d, &pool)))
        return st;
    r = d->mem_alloc_from_pool_async(&p, bytes ? bytes : 1, pool, (CUstream)s);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuMemAllocFromPoolAsync");
    *out = (void *)(uintptr_t)p;
    return UDFKIT_OK;
}

udfkit_status udfkit_pool_alloc_async(const udfkit_driver *d, size_t bytes, udfkit_stream s, CUdeviceptr *out)
{
    CUmemoryPool pool = NULL;
    udfkit_status st = pool_of(d, &pool);
    if (st)
        return st;
    CUresult r = d->mem_alloc_from_pool_async(out, bytes ? bytes : 1, pool, (CUstream)s);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuMemAllocFromPoolAsync");
}

udfkit_status udfkit_pool_alloc_on(const udfkit_driver *d, CUdevice dev, size_t bytes, udfkit_stream s,
                                   CUdeviceptr *out)
{
    CUmemoryPool pool = NULL;
    udfkit_status st = pool_on(d, dev, &pool);
    if (st)
        return st;
    CUresult r = d->mem_alloc_from_pool_async(out, bytes ? bytes : 1, pool, (CUstream)s);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuMemAllocFromPoolAsync");
}

udfkit_status udfkit_device_free_async(void *p, udfkit_stream s)
{
    if (!p)
        return UDFKIT_OK;
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st || scratch_give(d, s, p) || cache_keep(d, (CUdeviceptr)(uintptr_t)p, s))
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

/* The cache's blocks of context ctx that no launch holds, freed on the legacy stream after
 * their events (where they were last given back), and the events destroyed. */
static void cache_release_kept(const udfkit_driver *d, unsigned long long ctx)
{
    CUdeviceptr ptrs[CACHE_SLOTS];
    CUevent events[CACHE_SLOTS];
    size_t n = 0;
    pthread_mutex_lock(&cache_lock);
    for (size_t i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].ctx == ctx && !cache[i].busy && cache[i].ptr) {
            ptrs[n] = cache[i].ptr;
            events[n++] = cache[i].done;
            cache[i] = (cached_block){0};
        }
    pthread_mutex_unlock(&cache_lock);
    for (size_t i = 0; i < n; i++) {
        if (!events[i] || d->stream_wait_event(CU_STREAM_LEGACY, events[i], 0) == CUDA_SUCCESS) {
            if (d->mem_free_async(ptrs[i], CU_STREAM_LEGACY) != CUDA_SUCCESS)
                d->mem_free(ptrs[i]);
        } else {
            d->mem_free(ptrs[i]);
        }
        if (events[i])
            d->event_destroy(events[i]);
    }
}

udfkit_status udfkit_release_kept(void)
{
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    CUcontext c = NULL;
    unsigned long long ctx = 0;
    if (d->ctx_get_current(&c) != CUDA_SUCCESS || !c || d->ctx_get_id(c, &ctx) != CUDA_SUCCESS)
        return UDFKIT_OK;
    cache_release_kept(d, ctx);
    udfkit_arrow_release_kept(d, ctx);
    return UDFKIT_OK;
}
