#include "stream_state.h"

#include <stdint.h>

bool udfkit_stream_handle_is_special(const void *stream_handle)
{
    /* CU_STREAM_LEGACY is 0x1, CU_STREAM_PER_THREAD 0x2. */
    return (uintptr_t)stream_handle <= 2;
}

static bool same_stream(const udfkit_stream_key *a, const udfkit_stream_key *b)
{
    return a->ctx_id == b->ctx_id && a->stream_id == b->stream_id;
}

static bool stale(const udfkit_stream_key *old, const udfkit_stream_key *now)
{
    if (old->ctx_handle == now->ctx_handle && old->ctx_id != now->ctx_id)
        return true; /* the context was destroyed or reset; this one has its handle */
    return old->ctx_id == now->ctx_id && old->stream_handle == now->stream_handle &&
           old->stream_id != now->stream_id && !udfkit_stream_handle_is_special(now->stream_handle);
}

size_t udfkit_scratch_forget_stale(udfkit_scratch_table *t, const udfkit_stream_key *key)
{
    size_t dropped = 0;
    for (size_t i = 0; i < UDFKIT_SCRATCH_STREAMS; i++)
        if (t->arenas[i].used && stale(&t->arenas[i].key, key)) {
            t->arenas[i] = (udfkit_scratch_arena){0};
            t->count--;
            dropped++;
        }
    return dropped;
}

udfkit_scratch_arena *udfkit_scratch_find(udfkit_scratch_table *t, const udfkit_stream_key *key)
{
    for (size_t i = 0; i < UDFKIT_SCRATCH_STREAMS; i++)
        if (t->arenas[i].used && same_stream(&t->arenas[i].key, key))
            return &t->arenas[i];
    return NULL;
}

udfkit_scratch_result udfkit_scratch_set(udfkit_scratch_table *t, const udfkit_stream_key *key, void *base,
                                         size_t bytes)
{
    udfkit_scratch_forget_stale(t, key);
    udfkit_scratch_arena *a = udfkit_scratch_find(t, key);
    if (a && a->live)
        return UDFKIT_SCRATCH_BUSY;
    if (!base || !bytes) {
        if (a) {
            *a = (udfkit_scratch_arena){0};
            t->count--;
        }
        return UDFKIT_SCRATCH_SET;
    }
    for (size_t i = 0; !a && i < UDFKIT_SCRATCH_STREAMS; i++)
        if (!t->arenas[i].used) {
            a = &t->arenas[i];
            t->count++;
        }
    if (!a)
        return UDFKIT_SCRATCH_FULL;
    *a = (udfkit_scratch_arena){true, *key, base, bytes, 0, 0};
    return UDFKIT_SCRATCH_SET;
}

void *udfkit_scratch_take(udfkit_scratch_table *t, const udfkit_stream_key *key, size_t bytes)
{
    udfkit_scratch_forget_stale(t, key);
    udfkit_scratch_arena *a = udfkit_scratch_find(t, key);
    if (!a)
        return NULL;
    size_t at = (a->offset + UDFKIT_SCRATCH_ALIGN - 1) / UDFKIT_SCRATCH_ALIGN * UDFKIT_SCRATCH_ALIGN;
    if (at > a->bytes || bytes > a->bytes - at)
        return NULL;
    a->offset = at + (bytes ? bytes : 1);
    a->live++;
    return a->base + at;
}

bool udfkit_scratch_give(udfkit_scratch_table *t, const udfkit_stream_key *key, void *p)
{
    udfkit_scratch_arena *a = udfkit_scratch_find(t, key);
    bool mine = a && (char *)p >= a->base && (char *)p < a->base + a->bytes && a->live;
    if (mine && --a->live == 0)
        a->offset = 0; /* the next launch on the stream runs after this one: the bytes serve again */
    return mine;
}
