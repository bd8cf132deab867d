/* The `_arrow` launchers' plumbing (docs/arrow.md): Arrow device arrays checked against a
 * launcher's types and taken as udfkit's columns (offsets applied to values, validity bitmaps
 * and string offsets; sync events waited for on the launch's stream), and the result arrays,
 * allocated in stream order, handed over with release callbacks, an event and a schema. */
#include "driver.h"

#include "udfkit/arrow.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one result owns, in one host allocation that the array and its schema share (each
 * one's release drops a reference; the last frees it): its buffers' pointers
 * (ArrowArray.buffers points here), the device block holding them, the event recorded after
 * the work, the schema's format. */
struct udfkit_arrow_result {
    const void *buffers[3]; /* validity, values (a string's offsets), a string's bytes */
    void *block, *chars;
    size_t capacity; /* the block's bytes: a size class (block_class) */
    CUevent event;
    int64_t null_count;     /* where it has a bitmap: its nulls, where the inputs tell; else -1 */
    unsigned long long ctx; /* the event's context (cuCtxGetId) */
    atomic_int refs;        /* the array and the schema */
    char format[];          /* the schema's */
};

/* Released results' events, kept for the next launches of their context (an event made and
 * destroyed every launch would cost the host a driver call each): contexts told apart by
 * cuCtxGetId, unique in the process, so no event outlives its context's handle unnoticed. */
#define EVENT_CACHE 64
static struct {
    unsigned long long ctx;
    CUevent event;
} event_cache[EVENT_CACHE];
static size_t event_count;
static pthread_mutex_t event_lock = PTHREAD_MUTEX_INITIALIZER;

/* An event of the current context (`ctx`, asked once a launch) for res. */
static udfkit_status event_take(const udfkit_driver *d, unsigned long long ctx, struct udfkit_arrow_result *res)
{
    res->ctx = ctx;
    pthread_mutex_lock(&event_lock);
    for (size_t i = event_count; i-- > 0;)
        if (event_cache[i].ctx == res->ctx) {
            res->event = event_cache[i].event;
            event_cache[i] = event_cache[--event_count];
            break;
        }
    pthread_mutex_unlock(&event_lock);
    if (res->event)
        return UDFKIT_OK;
    CUresult r = d->event_create(&res->event, CU_EVENT_DISABLE_TIMING);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuEventCreate");
}

static void event_give(const udfkit_driver *d, struct udfkit_arrow_result *res);

/* Released results' blocks of up to BLOCK_MAX bytes, each with its result's event, kept for the
 * next launches of their context (a stream-ordered allocation every launch would cost the host
 * a driver call each, as the event would): a release records the event on the legacy stream
 * after waiting there for the result's own event (so after the work the caller queued on
 * blocking streams before releasing, as a stream-ordered free would come), and a launch that
 * takes the block waits for that event on its stream, unless its stream is the legacy stream
 * itself, which is past it already. At most BLOCK_CACHE blocks and BLOCK_CACHE_BYTES bytes;
 * the others go back to the pool. */
#define BLOCK_CACHE 128
#define BLOCK_MAX (64u << 10)
#define BLOCK_CACHE_BYTES (4u << 20)
static struct {
    unsigned long long ctx;
    void *block;
    size_t capacity;
    CUevent event;
} block_cache[BLOCK_CACHE];
static size_t block_count, block_bytes;

/* The bytes allocated for a result of `bytes`: small ones rounded up to a power of two (at
 * least 256) so that a block released by one launch fits the next ones of a similar size. */
static size_t block_class(size_t bytes)
{
    if (bytes > BLOCK_MAX)
        return bytes;
    size_t c = 256;
    while (c < bytes)
        c *= 2;
    return c;
}

/* A result's memory back to the pool in stream order (cuMemFree of stream-ordered memory waits
 * for nothing): a released array's after its event, on the legacy stream, which also comes
 * after the work the caller queued on blocking streams before releasing; a result never handed
 * over (a failed launch) on the launch's stream `s`, after whatever was queued there. */
static void block_free(const udfkit_driver *d, void *p, CUevent recorded, udfkit_stream s)
{
    if (!p)
        return;
    CUresult r = recorded ? d->stream_wait_event(NULL, recorded, 0) : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS)
        r = d->mem_free_async((CUdeviceptr)(uintptr_t)p, recorded ? NULL : (CUstream)s);
    if (r != CUDA_SUCCESS)
        d->mem_free((CUdeviceptr)(uintptr_t)p);
}

static bool is_legacy(udfkit_stream s)
{
    return s == NULL || (CUstream)s == CU_STREAM_LEGACY;
}

/* Block i of the cache taken out (the caller holds event_lock). */
static void block_cache_remove(size_t i)
{
    block_bytes -= block_cache[i].capacity;
    memmove(&block_cache[i], &block_cache[i + 1], (block_count - i - 1) * sizeof *block_cache);
    block_count--;
}

/* A block and its event put in the cache where there is room (the caller holds event_lock). */
static bool block_cache_add(unsigned long long ctx, void *block, size_t capacity, CUevent event)
{
    if (block_count == BLOCK_CACHE || block_bytes + capacity > BLOCK_CACHE_BYTES)
        return false;
    block_cache[block_count].ctx = ctx;
    block_cache[block_count].block = block;
    block_cache[block_count].capacity = capacity;
    block_cache[block_count++].event = event;
    block_bytes += capacity;
    return true;
}

/* A kept block of `capacity` bytes of context `ctx` for res, with its event, made ready for
 * stream s; false where none is kept (or s cannot wait for it). */
static bool block_take(const udfkit_driver *d, unsigned long long ctx, size_t capacity, udfkit_stream s,
                       struct udfkit_arrow_result *res)
{
    if (capacity > BLOCK_MAX)
        return false;
    pthread_mutex_lock(&event_lock);
    for (size_t i = block_count; i-- > 0;)
        if (block_cache[i].ctx == ctx && block_cache[i].capacity == capacity) {
            res->block = block_cache[i].block;
            res->event = block_cache[i].event;
            block_cache_remove(i);
            break;
        }
    pthread_mutex_unlock(&event_lock);
    if (!res->block)
        return false;
    res->ctx = ctx;
    res->capacity = capacity;
    if (is_legacy(s) || d->stream_wait_event((CUstream)s, res->event, 0) == CUDA_SUCCESS)
        return true;
    /* s cannot wait for it (a stream being captured, say): the block goes back to the cache,
     * where it was, and the launch allocates from the pool as without it. */
    pthread_mutex_lock(&event_lock);
    const bool back = block_cache_add(ctx, res->block, capacity, res->event);
    pthread_mutex_unlock(&event_lock);
    if (!back)
        block_free(d, res->block, NULL, NULL);
    else
        res->event = NULL; /* the cache's again */
    res->block = NULL;
    return false;
}

/* Keeps a released result's block and event (its event waited for on the legacy stream
 * already) where it is of the current context and there is room; false otherwise. */
static bool block_keep(const udfkit_driver *d, struct udfkit_arrow_result *res)
{
    if (!res->block || res->capacity > BLOCK_MAX)
        return false;
    CUcontext ctx = NULL;
    unsigned long long id = 0;
    if (d->ctx_get_current(&ctx) != CUDA_SUCCESS || !ctx || d->ctx_get_id(ctx, &id) != CUDA_SUCCESS ||
        id != res->ctx || d->event_record(res->event, NULL) != CUDA_SUCCESS)
        return false;
    /* Where the cache is full, this context's oldest kept blocks make room (back to the pool on
     * the legacy stream, where their events were recorded), so that a launch of a new size is
     * not left without. */
    void *evicted[4];
    CUevent evicted_events[4];
    size_t nevicted = 0;
    pthread_mutex_lock(&event_lock);
    while (nevicted < 4 &&
           (block_count == BLOCK_CACHE || block_bytes + res->capacity > BLOCK_CACHE_BYTES)) {
        size_t i = 0;
        while (i < block_count && block_cache[i].ctx != id)
            i++;
        if (i == block_count)
            break;
        evicted[nevicted] = block_cache[i].block;
        evicted_events[nevicted++] = block_cache[i].event;
        block_cache_remove(i);
    }
    const bool room = block_cache_add(res->ctx, res->block, res->capacity, res->event);
    pthread_mutex_unlock(&event_lock);
    for (size_t i = 0; i < nevicted; i++) {
        block_free(d, evicted[i], NULL, NULL);
        struct udfkit_arrow_result gone = {.event = evicted_events[i], .ctx = id};
        event_give(d, &gone);
    }
    return room;
}

void udfkit_arrow_release_kept(const udfkit_driver *d, unsigned long long ctx)
{
    void *blocks[BLOCK_CACHE];
    CUevent block_events[BLOCK_CACHE], events[EVENT_CACHE];
    size_t nb = 0, ne = 0;
    pthread_mutex_lock(&event_lock);
    for (size_t i = 0; i < block_count;) {
        if (block_cache[i].ctx != ctx) {
            i++;
            continue;
        }
        blocks[nb] = block_cache[i].block;
        block_events[nb++] = block_cache[i].event;
        block_cache_remove(i);
    }
    for (size_t i = event_count; i-- > 0;)
        if (event_cache[i].ctx == ctx) {
            events[ne++] = event_cache[i].event;
            event_cache[i] = event_cache[--event_count];
        }
    pthread_mutex_unlock(&event_lock);
    /* A kept block's event was recorded on the legacy stream at its release: freed there after
     * it, in stream order. */
    for (size_t i = 0; i < nb; i++) {
        block_free(d, blocks[i], NULL, NULL);
        d->event_destroy(block_events[i]);
    }
    for (size_t i = 0; i < ne; i++)
        d->event_destroy(events[i]);
}

static void event_give(const udfkit_driver *d, struct udfkit_arrow_result *res)
{
    pthread_mutex_lock(&event_lock);
    bool kept = event_count < EVENT_CACHE;
    if (kept) {
        event_cache[event_count].ctx = res->ctx;
        event_cache[event_count++].event = res->event;
    }
    pthread_mutex_unlock(&event_lock);
    if (!kept)
        d->event_destroy(res->event);
}

/* The types Arrow's format strings name, for messages ("'g' (float64)"). */
static const struct {
    const char *format, *name;
} arrow_names[] = {
    {"n", "null"},         {"b", "bool"},         {"c", "int8"},          {"C", "uint8"},      {"s", "int16"},
    {"S", "uint16"},       {"i", "int32"},        {"I", "uint32"},        {"l", "int64"},      {"L", "uint64"},
    {"e", "float16"},      {"f", "float32"},      {"g", "float64"},       {"z", "binary"},     {"Z", "large_binary"},
    {"vz", "binary_view"}, {"u", "utf8"},         {"U", "large_utf8"},    {"vu", "utf8_view"}, {"tdD", "date32"},
    {"tdm", "date64"},     {"tts", "time32[s]"},  {"ttm", "time32[ms]"},  {"ttu", "time64[us]"},
    {"ttn", "time64[ns]"}, {"tDs", "duration[s]"}, {"tDm", "duration[ms]"}, {"tDu", "duration[us]"},
    {"tDn", "duration[ns]"}, {"+l", "list"},      {"+L", "large_list"},   {"+s", "struct"},
};

static void describe(const char *format, char *out, size_t size)
{
    for (size_t i = 0; i < sizeof arrow_names / sizeof *arrow_names; i++)
        if (strcmp(format, arrow_names[i].format) == 0) {
            snprintf(out, size, "'%s' (%s)", format, arrow_names[i].name);
            return;
        }
    if (strncmp(format, "ts", 2) == 0 && format[2] && format[3] == ':')
        snprintf(out, size, "'%s' (timestamp)", format);
    else if (strncmp(format, "d:", 2) == 0)
        snprintf(out, size, "'%s' (decimal)", format);
    else
        snprintf(out, size, "'%.24s'", format);
}

/* Whether a schema's format is the type's: a string of the type in any of its three layouts,
 * a timestamp of the type's unit in any time zone (the values are UTC instants either way),
 * else the same format. */
static bool format_matches(const udfkit_arrow_type *t, const char *format)
{
    if (t->layout == UDFKIT_ARROW_STRING)
        return strcmp(format, "u") == 0 || strcmp(format, "U") == 0 || strcmp(format, "vu") == 0;
    if (strncmp(t->format, "ts", 2) == 0)
        return strncmp(format, t->format, 4) == 0;
    return strcmp(format, t->format) == 0;
}

/* The buffers Arrow gives an array of the format: validity and values; utf8 and large_utf8
 * add the characters; utf8_view has its views, then any number of data buffers, then their
 * sizes. */
static bool buffers_fit(const char *format, int64_t n_buffers)
{
    if (strcmp(format, "vu") == 0)
        return n_buffers >= 3;
    if (strcmp(format, "u") == 0 || strcmp(format, "U") == 0)
        return n_buffers == 3;
    return n_buffers == 2;
}

/* A refusal naming argument `arg` and its number (`number` 0: the name alone, "out"), which
 * are put together only here: a launch that passes its checks formats nothing. */
static udfkit_status refuse(const udfkit_arrow_call *c, const char *arg, size_t number, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static udfkit_status refuse(const udfkit_arrow_call *c, const char *arg, size_t number, const char *fmt, ...)
{
    char why[320], name[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (number)
        snprintf(name, sizeof name, "%s%zu", arg, number);
    else
        snprintf(name, sizeof name, "%s", arg);
    return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "%s: %s %s", c->launcher, name, why);
}

static bool device_memory(ArrowDeviceType t)
{
    return t == ARROW_DEVICE_CUDA || t == ARROW_DEVICE_CUDA_HOST || t == ARROW_DEVICE_CUDA_MANAGED;
}

/* Input i's checks that need no driver: the array and its schema against the type. */
static udfkit_status check_input(const udfkit_arrow_call *c, size_t i, const udfkit_arrow_type *t,
                                 const struct ArrowDeviceArray *a, const struct ArrowSchema *schema, int64_t length)
{
    char got[64];
    const char *arg = "a", *sarg = "t";
    const size_t no = i + 1;
    if (!a)
        return refuse(c, arg, no, "is NULL");
    if (!schema)
        return refuse(c, sarg, no, "is NULL");
    if (!a->array.release)
        return refuse(c, arg, no, "is released (its release callback is NULL)");
    if (!schema->release || !schema->format)
        return refuse(c, sarg, no, "is released or has no format");
    if (!format_matches(t, schema->format)) {
        describe(schema->format, got, sizeof got);
        return refuse(c, sarg, no, "has type %s where the UDF takes %s ('%s'%s)", got, t->name, t->format,
                      t->layout == UDFKIT_ARROW_STRING ? ", 'U' or 'vu'" : "");
    }
    if (schema->dictionary || a->array.dictionary)
        return refuse(c, sarg, no, "is dictionary-encoded; the UDF takes %s values", t->name);
    if (schema->n_children != 0 || a->array.n_children != 0)
        return refuse(c, arg, no, "has %lld children where Arrow's '%s' has none", (long long)a->array.n_children,
                      schema->format);
    if (!buffers_fit(schema->format, a->array.n_buffers) || !a->array.buffers)
        return refuse(c, arg, no, "has %lld buffers, which Arrow's '%s' does not have", (long long)a->array.n_buffers,
                      schema->format);
    if (!device_memory(a->device_type))
        return refuse(c, arg, no, "is on device type %d; the launcher takes CUDA (2), CUDA_HOST (3) or CUDA_MANAGED (13)",
                      (int)a->device_type);
    if (a->array.length < 0 || a->array.offset < 0 || a->array.null_count < -1 ||
        a->array.null_count > a->array.length)
        return refuse(c, arg, no, "has length %lld, offset %lld and null_count %lld, which no array has",
                      (long long)a->array.length, (long long)a->array.offset, (long long)a->array.null_count);
    if ((uint64_t)a->array.offset + (uint64_t)a->array.length > (1ull << 56))
        return refuse(c, arg, no, "has offset + length past 2^56 rows");
    if (a->array.length != length)
        return refuse(c, arg, no, "has %lld rows where a1 has %lld", (long long)a->array.length, (long long)length);
    /* The values (a string's offsets or views) where there are rows; a string's characters may
     * be NULL, as Arrow lets any buffer of no bytes be (every row null or empty), and a
     * utf8_view's data buffers are read only through views longer than 12 bytes. */
    if (a->array.length > 0 && !a->array.buffers[1])
        return refuse(c, arg, no, "has no buffer 1 for its %lld rows", (long long)a->array.length);
    if (a->array.null_count != 0 && a->array.null_count != -1 && !a->array.buffers[0])
        return refuse(c, arg, no, "has %lld nulls and no validity bitmap", (long long)a->array.null_count);
    return UDFKIT_OK;
}

/* Input i as udfkit's launchers take it. A utf8_view column's data buffers go to the device
 * as an array of pointers, in the call's temporary block (placed at *used). */
static void take_input(udfkit_arrow_call *c, size_t i, const udfkit_arrow_type *t, const struct ArrowDeviceArray *a,
                       const struct ArrowSchema *schema)
{
    const struct ArrowArray *arr = &a->array;
    const uint64_t offset = (uint64_t)arr->offset;
    c->masks[i] = (udfkit_mask){NULL, 0};
    if (arr->null_count != 0 && arr->buffers[0] && arr->length > 0) {
        c->masks[i] = (udfkit_mask){(const uint8_t *)arr->buffers[0], offset};
        c->masked = true;
    }
    if (t->layout == UDFKIT_ARROW_STRING) {
        udfkit_strings *st = &c->strings[i];
        memset(st, 0, sizeof *st);
        st->offset = offset;
        st->offsets = arr->buffers[1];
        if (strcmp(schema->format, "vu") == 0) {
            st->layout = UDFKIT_STRINGS_UTF8_VIEW;
        } else {
            st->layout = strcmp(schema->format, "u") == 0 ? UDFKIT_STRINGS_UTF8 : UDFKIT_STRINGS_LARGE_UTF8;
            st->chars = (const char *)arr->buffers[2];
        }
        return;
    }
    c->values[i] = arr->buffers[1] ? (const char *)arr->buffers[1] + offset * t->size : NULL;
}

/* One reference to r dropped: the host memory goes with the last. */
static void result_drop(struct udfkit_arrow_result *r)
{
    if (atomic_fetch_sub(&r->refs, 1) == 1)
        free(r);
}

/* r's device memory given back (a released result's small block kept with its event for the
 * next launches) and its event kept; then the caller's reference dropped. */
static void result_free(const udfkit_driver *d, struct udfkit_arrow_result *r, bool recorded, udfkit_stream s)
{
    if (!r)
        return;
    bool kept = false;
    if (recorded && r->event && d->stream_wait_event(NULL, r->event, 0) == CUDA_SUCCESS) {
        /* The legacy stream now comes after the result's work (and the caller's on blocking
         * streams): the bytes and the block are freed, or the block kept, in its order. */
        block_free(d, r->chars, NULL, NULL);
        if (!(kept = block_keep(d, r)))
            block_free(d, r->block, NULL, NULL);
    } else {
        block_free(d, r->block, recorded ? r->event : NULL, s);
        block_free(d, r->chars, recorded ? r->event : NULL, s);
    }
    if (r->event && !kept)
        event_give(d, r);
    result_drop(r);
}

static void release_array(struct ArrowArray *array)
{
    if (!array || !array->release)
        return;
    const udfkit_driver *d;
    if (udfkit_driver_enter(&d) == UDFKIT_OK)
        result_free(d, array->private_data, true, NULL);
    else
        result_drop(array->private_data);
    array->release = NULL;
}

static void release_schema(struct ArrowSchema *schema)
{
    if (!schema || !schema->release)
        return;
    result_drop(schema->private_data);
    schema->release = NULL;
}

/* Bytes of an output's validity bitmap, rounded to Arrow's 64-byte alignment. */
static size_t bitmap_bytes(size_t n)
{
    return ((n + 7) / 8 + 63) / 64 * 64;
}

/* Frees what begin allocated, on a failure. */
static void call_free(const udfkit_driver *d, udfkit_arrow_call *c)
{
    for (size_t j = 0; j < c->noutputs; j++) {
        result_free(d, c->results[j], false, c->s);
        c->results[j] = NULL;
    }
    if (c->temporary)
        udfkit_device_free_async(c->temporary, c->s);
    c->temporary = NULL;
}

/* The outputs' arguments: present. */
static udfkit_status check_outputs(udfkit_arrow_call *c, struct ArrowDeviceArray *const *out,
                                   struct ArrowSchema *const *out_schemas)
{
    for (size_t j = 0; j < c->noutputs; j++) {
        c->results[j] = NULL;
        c->outs[j] = out[j];
        c->out_schemas[j] = out_schemas[j];
        const size_t no = c->noutputs == 1 && !c->select ? 0 : j + 1;
        if (!out[j])
            return refuse(c, "out", no, "is NULL");
        if (!out_schemas[j])
            return refuse(c, "out_type", no, "is NULL");
    }
    return UDFKIT_OK;
}

/* The inputs, then their devices against the current context's (pinned host memory any). */
static udfkit_status check_inputs(udfkit_arrow_call *c, const udfkit_driver **d, const udfkit_arrow_type *in_types,
                                  const struct ArrowDeviceArray *const *in, const struct ArrowSchema *const *in_schemas)
{
    const int64_t length = in[0] ? in[0]->array.length : 0;
    udfkit_status st = UDFKIT_OK;
    for (size_t i = 0; i < c->ninputs && !st; i++)
        st = check_input(c, i, &in_types[i], in[i], in_schemas[i], length);
    CUcontext ctx = NULL;
    if (st || (st = udfkit_driver_enter_context(d, &ctx)))
        return st;
    c->n = (size_t)length;
    /* The current context's device and id, asked once a launch: the pool's device, the
     * inputs' devices checked against it, the results' events kept by the id. */
    CUdevice dev = 0;
    CUresult r = (*d)->ctx_get_device(&dev);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(*d, r, "cuCtxGetDevice");
    if ((r = (*d)->ctx_get_id(ctx, &c->context)) != CUDA_SUCCESS)
        return udfkit_driver_fail(*d, r, "cuCtxGetId");
    c->device = (int)dev;
    for (size_t i = 0; i < c->ninputs; i++)
        if (in[i]->device_type != ARROW_DEVICE_CUDA_HOST && in[i]->device_id != (int64_t)dev)
            return refuse(c, "a", i + 1, "is on device %lld; the current context's device is %d",
                          (long long)in[i]->device_id, (int)dev);
    return UDFKIT_OK;
}

/* One temporary block: a filter's kept rows and their count (unless it selects the values at
 * once: `direct`), utf8_view columns' data buffers as device arrays of pointers, and udfkit's
 * byte columns of Arrow's bit-packed booleans (inputs unpacked into them, outputs packed from
 * them). */
static udfkit_status place_temporary(udfkit_arrow_call *c, const udfkit_arrow_type *in_types,
                                     const struct ArrowDeviceArray *const *in, const udfkit_arrow_type *out_types,
                                     bool direct)
{
    size_t pointers = 0, bools = 0;
    for (size_t i = 0; i < c->ninputs; i++) {
        if (in_types[i].layout == UDFKIT_ARROW_STRING && c->strings[i].layout == UDFKIT_STRINGS_UTF8_VIEW)
            pointers += (size_t)in[i]->array.n_buffers - 3 + 1;
        bools += in_types[i].layout == UDFKIT_ARROW_BOOLEAN;
    }
    for (size_t j = 0; j < c->noutputs; j++)
        bools += out_types[j].layout == UDFKIT_ARROW_BOOLEAN;
    const size_t column = (c->n + 255) / 256 * 256,
                 selected = c->select && !direct ? (c->n + 1) * sizeof(uint64_t) : 0;
    if (!selected && !(pointers + bools && c->n))
        return UDFKIT_OK;
    udfkit_status st = udfkit_device_alloc_async(selected + pointers * sizeof(void *) + bools * column, c->s,
                                                 &c->temporary);
    if (st)
        return st;
    if (selected) {
        c->count = c->temporary;
        c->indices = c->count + 1;
    }
    const char **place = (const char **)((char *)c->temporary + selected);
    char *bytes = (char *)c->temporary + selected + pointers * sizeof(void *);
    for (size_t i = 0; i < c->ninputs && !st; i++) {
        if (in_types[i].layout == UDFKIT_ARROW_BOOLEAN) {
            c->bools[i] = (bool *)bytes;
            c->values[i] = bytes;
            bytes += column;
        }
        if (in_types[i].layout != UDFKIT_ARROW_STRING || c->strings[i].layout != UDFKIT_STRINGS_UTF8_VIEW)
            continue;
        size_t count = (size_t)in[i]->array.n_buffers - 3;
        c->strings[i].buffers = place;
        if (count)
            st = udfkit_copy_to_device_async((void *)place, in[i]->array.buffers + 2, count * sizeof(void *), c->s);
        place += count + 1;
    }
    for (size_t j = 0; j < c->noutputs; j++)
        if (out_types[j].layout == UDFKIT_ARROW_BOOLEAN) {
            c->out_bools[j] = (bool *)bytes;
            bytes += column;
        }
    return st;
}

/* The outputs: a validity bitmap where a row may be null, then the values, in one block of
 * udfkit's pool, and an event each. A filter that selects the values at once (`direct`) counts
 * the kept rows after the first output's values, in its block (allocated at 0 rows too). */
static udfkit_status make_results(udfkit_arrow_call *c, const udfkit_driver *d, const udfkit_arrow_type *out_types,
                                  bool direct, int64_t nulls)
{
    udfkit_status st = UDFKIT_OK;
    for (size_t j = 0; j < c->noutputs && !st; j++) {
        /* One host allocation: the result, its buffers' pointers and its schema's format. */
        const size_t format = strlen(out_types[j].format) + 1;
        struct udfkit_arrow_result *res = malloc(sizeof *res + format);
        if (!res)
            return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", c->launcher);
        memset(res, 0, sizeof *res);
        atomic_init(&res->refs, 1); /* the launch's, until udfkit_arrow_end hands it over */
        res->null_count = nulls;
        memcpy(res->format, out_types[j].format, format);
        c->results[j] = res;
        const bool packed = out_types[j].layout == UDFKIT_ARROW_BOOLEAN,
                   text = out_types[j].layout == UDFKIT_ARROW_STRING;
        size_t bits = c->out_nullable ? bitmap_bytes(c->n) : 0;
        size_t bytes = bits + (packed ? bitmap_bytes(c->n) : text ? (c->n + 1) * 8 : c->n * out_types[j].size);
        const bool counted = direct && j == 0;
        const size_t count_at = (bytes + 7) / 8 * 8;
        if (counted)
            bytes = count_at + sizeof(uint64_t);
        c->out_bits[j] = NULL;
        c->out_values[j] = NULL;
        c->out_offsets[j] = NULL;
        c->out_chars[j] = NULL;
        if (c->n || text || counted) {
            /* A kept block of the size class (its event with it), else the pool's. */
            res->capacity = block_class(bytes);
            if (!block_take(d, c->context, res->capacity, c->s, res)) {
                CUdeviceptr p = 0;
                if ((st = udfkit_pool_alloc_on(d, (CUdevice)c->device, res->capacity, c->s, &p)))
                    return st;
                res->block = (void *)(uintptr_t)p;
            }
            c->out_bits[j] = bits ? (uint8_t *)res->block : NULL;
            c->out_values[j] = c->n || text ? (char *)res->block + bits : NULL;
            if (counted)
                c->count = (uint64_t *)((char *)res->block + count_at);
        }
        res->buffers[0] = c->out_bits[j];
        res->buffers[1] = c->out_values[j];
        if (text)
            c->out_offsets[j] = c->out_values[j];
        /* The launch writes a bool output's bytes; udfkit_arrow_end packs them there. */
        if (packed)
            c->out_values[j] = c->out_bools[j];
        if (!res->event)
            st = event_take(d, c->context, res);
    }
    return st;
}

/* A map's results' null count where the inputs tell it without the device: a row is null where
 * an input is (map(f) does not call f for it, and f returns no null), so where one input is
 * null throughout, n; where only one input has nulls, of a known count (not Arrow's -1), that
 * count; else -1 ("not yet computed"). */
static int64_t map_nulls(const udfkit_arrow_call *c, const struct ArrowDeviceArray *const *in)
{
    int64_t known = -1;
    size_t with = 0;
    for (size_t i = 0; i < c->ninputs; i++) {
        if (!c->masks[i].bits)
            continue;
        if (in[i]->array.null_count == (int64_t)c->n)
            return (int64_t)c->n;
        known = in[i]->array.null_count;
        with++;
    }
    return with == 1 ? known : -1;
}

/* udfkit_arrow_begin, and with `values` udfkit_arrow_begin_filter's: a filter without string
 * columns whose inputs have no nulls selects the values at once. */
static udfkit_status begin(udfkit_arrow_call *c, const char *launcher, udfkit_stream s,
                           const udfkit_arrow_type *in_types, const struct ArrowDeviceArray *const *in,
                           const struct ArrowSchema *const *in_schemas, size_t ninputs,
                           const udfkit_arrow_type *out_types, struct ArrowDeviceArray *const *out,
                           struct ArrowSchema *const *out_schemas, size_t noutputs, bool nullable_out, bool select,
                           bool values)
{
    c->launcher = launcher;
    c->s = s;
    c->n = 0;
    c->masked = false;
    c->ninputs = ninputs;
    c->noutputs = noutputs;
    c->null_counts = NULL;
    c->out_types = out_types;
    c->temporary = NULL;
    c->select = select;
    c->indices = c->count = NULL;
    memset(c->bools, 0, sizeof c->bools);
    memset(c->out_bools, 0, sizeof c->out_bools);
    if (ninputs == 0 || ninputs > UDFKIT_ARROW_MAX_COLUMNS || noutputs > UDFKIT_ARROW_MAX_COLUMNS)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "%s: %zu inputs and %zu outputs", launcher, ninputs,
                                   noutputs);
    const udfkit_driver *d = NULL;
    udfkit_status st = check_outputs(c, out, out_schemas);
    if (st || (st = check_inputs(c, &d, in_types, in, in_schemas)))
        return st;
    /* Every check passed: the launch waits for the inputs' events, then takes their columns. */
    for (size_t i = 0; i < ninputs; i++) {
        CUresult r;
        if (in[i]->sync_event && (r = d->stream_wait_event((CUstream)s, *(CUevent *)in[i]->sync_event, 0)) != CUDA_SUCCESS)
            return udfkit_driver_fail(d, r, "cuStreamWaitEvent (an input's sync_event)");
        take_input(c, i, &in_types[i], in[i], in_schemas[i]);
    }
    c->out_nullable = !select && (nullable_out || c->masked);
    bool direct = values && !c->masked;
    for (size_t i = 0; i < ninputs; i++)
        direct = direct && in_types[i].layout != UDFKIT_ARROW_STRING;
    if ((st = place_temporary(c, in_types, in, out_types, direct)) == UDFKIT_OK)
        st = make_results(c, d, out_types, direct, select || nullable_out ? -1 : map_nulls(c, in));
    if (st)
        call_free(d, c);
    return st;
}

udfkit_status udfkit_arrow_begin(udfkit_arrow_call *c, const char *launcher, udfkit_stream s,
                                 const udfkit_arrow_type *in_types, const struct ArrowDeviceArray *const *in,
                                 const struct ArrowSchema *const *in_schemas, size_t ninputs,
                                 const udfkit_arrow_type *out_types, struct ArrowDeviceArray *const *out,
                                 struct ArrowSchema *const *out_schemas, size_t noutputs, bool nullable_out,
                                 bool select)
{
    return begin(c, launcher, s, in_types, in, in_schemas, ninputs, out_types, out, out_schemas, noutputs, nullable_out,
                 select, false);
}

udfkit_status udfkit_arrow_begin_filter(udfkit_arrow_call *c, const char *launcher, udfkit_stream s,
                                        const udfkit_arrow_type *in_types, const struct ArrowDeviceArray *const *in,
                                        const struct ArrowSchema *const *in_schemas, size_t ninputs,
                                        const udfkit_arrow_type *out_types, struct ArrowDeviceArray *const *out,
                                        struct ArrowSchema *const *out_schemas, size_t noutputs)
{
    return begin(c, launcher, s, in_types, in, in_schemas, ninputs, out_types, out, out_schemas, noutputs, false, true,
                 true);
}

/* A grid-stride launch of one of the library's bit kernels over `items` items. */
static udfkit_status launch_bits(udfkit_kernel k, size_t items, udfkit_stream s, void **args)
{
    size_t blocks = (items + 255) / 256;
    blocks = blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks;
    return udfkit_launch(k, (udfkit_dim3){(unsigned)blocks, 1, 1}, (udfkit_dim3){256, 1, 1}, 0, s, args);
}

udfkit_status udfkit_arrow_unpack(udfkit_arrow_call *c, udfkit_kernel unpack,
                                  const struct ArrowDeviceArray *const *in)
{
    udfkit_status st = UDFKIT_OK;
    for (size_t i = 0; i < c->ninputs && !st; i++) {
        if (!c->bools[i] || !c->n)
            continue;
        const void *bits = in[i]->array.buffers[1];
        unsigned long long offset = (unsigned long long)in[i]->array.offset, n = c->n;
        bool *bytes = c->bools[i];
        void *args[] = {&bits, &offset, &n, &bytes};
        st = launch_bits(unpack, c->n, c->s, args);
    }
    return st;
}

udfkit_status udfkit_arrow_text(udfkit_arrow_call *c)
{
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    for (size_t j = 0; j < c->noutputs && !st; j++) {
        if (!c->out_offsets[j])
            continue;
        int64_t total = 0;
        if ((st = udfkit_copy_to_host_async(&total, c->out_offsets[j] + c->n, sizeof total, c->s)) ||
            (st = udfkit_stream_synchronize(c->s)))
            break;
        if (total < 0)
            return udfkit_runtime_fail(UDFKIT_ERROR_LAUNCH, "%s: the strings' sizes add up to %lld bytes", c->launcher,
                                       (long long)total);
        CUdeviceptr p = 0;
        if ((st = udfkit_pool_alloc_on(d, (CUdevice)c->device, (size_t)total, c->s, &p)))
            break;
        c->results[j]->chars = (void *)(uintptr_t)p;
        c->results[j]->buffers[2] = c->results[j]->chars;
        c->out_chars[j] = c->results[j]->chars;
    }
    return st;
}

udfkit_status udfkit_arrow_gather(udfkit_arrow_call *c, udfkit_kernel gather)
{
    udfkit_status st = UDFKIT_OK;
    for (size_t j = 0; j < c->noutputs && !st && c->n && c->indices; j++) {
        if (c->out_types[j].layout == UDFKIT_ARROW_STRING)
            continue; /* udfkit_arrow_gather_sizes and _copy */
        const void *from = c->values[j];
        void *to = c->out_values[j];
        unsigned size = c->out_types[j].size;
        void *args[] = {&from, &size, &c->indices, &c->count, &to};
        st = launch_bits(gather, c->n, c->s, args);
    }
    return st;
}

udfkit_status udfkit_arrow_gather_sizes(udfkit_arrow_call *c, udfkit_kernel sizes)
{
    udfkit_status st = UDFKIT_OK;
    for (size_t j = 0; j < c->noutputs && !st; j++) {
        if (c->out_types[j].layout != UDFKIT_ARROW_STRING)
            continue;
        unsigned long long n = c->n;
        void *args[] = {&c->strings[j], &c->indices, &c->count, &n, &c->out_offsets[j]};
        st = launch_bits(sizes, c->n + 1, c->s, args);
    }
    return st;
}

udfkit_status udfkit_arrow_gather_copy(udfkit_arrow_call *c, udfkit_kernel copy)
{
    udfkit_status st = UDFKIT_OK;
    for (size_t j = 0; j < c->noutputs && !st && c->n; j++) {
        if (c->out_types[j].layout != UDFKIT_ARROW_STRING)
            continue;
        void *args[] = {&c->strings[j], &c->indices, &c->count, &c->out_offsets[j], &c->out_chars[j]};
        st = launch_bits(copy, c->n, c->s, args);
    }
    return st;
}

udfkit_status udfkit_arrow_end(udfkit_arrow_call *c, udfkit_status launched, udfkit_kernel pack)
{
    /* udfkit_arrow_begin entered the driver, and the launch keeps the context current. */
    const udfkit_driver *d = udfkit_driver_loaded();
    udfkit_status st = launched;
    /* A filter's length: the kept rows, once the launch has counted them. */
    uint64_t rows = c->n;
    if (!st && c->select && !(st = udfkit_copy_to_host_async(&rows, c->count, sizeof rows, c->s)))
        st = udfkit_stream_synchronize(c->s);
    for (size_t j = 0; j < c->noutputs && !st; j++) {
        if (!c->out_bools[j] || !rows)
            continue;
        if (!pack) {
            st = udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "%s: no kernel packs its bool output", c->launcher);
            break;
        }
        const bool *bytes = c->out_bools[j];
        unsigned long long n = rows;
        const void *bits = c->results[j]->buffers[1];
        void *args[] = {&bytes, &n, &bits};
        st = launch_bits(pack, (rows + 7) / 8, c->s, args);
    }
    if (c->temporary && !st)
        st = udfkit_device_free_async(c->temporary, c->s);
    c->temporary = NULL;
    CUresult r;
    for (size_t j = 0; j < c->noutputs && !st; j++)
        if ((r = d->event_record(c->results[j]->event, (CUstream)c->s)) != CUDA_SUCCESS)
            st = udfkit_driver_fail(d, r, "cuEventRecord");
    if (st) {
        call_free(d, c);
        return st;
    }
    for (size_t j = 0; j < c->noutputs; j++) {
        struct udfkit_arrow_result *res = c->results[j];
        struct ArrowDeviceArray *a = c->outs[j];
        struct ArrowSchema *t = c->out_schemas[j];
        memset(a, 0, sizeof *a);
        a->array.length = (int64_t)rows;
        /* Without an input's nulls no row is null; with them, a map's inputs may tell how many
         * (map_nulls), else it is known once the launch has run: Arrow's -1, "not yet
         * computed", says so without waiting for it. */
        a->array.null_count = c->out_nullable ? res->null_count : 0;
        a->array.n_buffers = res->chars ? 3 : 2;
        a->array.buffers = res->buffers;
        a->array.release = release_array;
        a->array.private_data = res;
        a->device_id = c->device;
        a->device_type = ARROW_DEVICE_CUDA;
        a->sync_event = &res->event;
        c->results[j] = NULL;
        memset(t, 0, sizeof *t);
        atomic_store(&res->refs, 2); /* the array's and the schema's */
        t->format = res->format;
        t->name = "";
        t->flags = ARROW_FLAG_NULLABLE;
        t->release = release_schema;
        t->private_data = res;
    }
    return UDFKIT_OK;
}
