/* Per-stream state of the runtime (udfkit_stream_scratch's arenas), keyed so that a recycled
 * handle, another context or another device never sees another stream's memory.
 *
 * CUDA reuses handles: a stream destroyed and a new one created may share an address (also
 * in another context, on another device), and the NULL (legacy) stream and the per-thread
 * default stream are one handle for every context (the per-thread one for every thread).
 * A stream is therefore known by its context's cuCtxGetId and its own cuStreamGetId, both
 * unique for the process; the handles are kept beside them only to notice, when a handle
 * comes back with another id, that the context or stream that had it is gone, and to drop
 * what it left. No driver call here: the caller asks for the ids (memory.c). */
#ifndef UDFKIT_RUNTIME_STREAM_STATE_H
#define UDFKIT_RUNTIME_STREAM_STATE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct udfkit_stream_key {
    unsigned long long ctx_id;    /* cuCtxGetId of the current context */
    unsigned long long stream_id; /* cuStreamGetId of the stream, in that context */
    const void *ctx_handle;       /* the CUcontext */
    const void *stream_handle;    /* the CUstream as the caller gave it (NULL: legacy) */
} udfkit_stream_key;

/* Handles that name a different stream per context or per thread (NULL, CU_STREAM_LEGACY,
 * CU_STREAM_PER_THREAD): one coming back with another id says nothing about the old one. */
bool udfkit_stream_handle_is_special(const void *stream_handle);

#define UDFKIT_SCRATCH_STREAMS 64
#define UDFKIT_SCRATCH_ALIGN 256u

typedef struct udfkit_scratch_arena {
    bool used;
    udfkit_stream_key key;
    char *base;
    size_t bytes, offset;
    unsigned live; /* allocations taken and not yet given back */
} udfkit_scratch_arena;

typedef struct udfkit_scratch_table {
    udfkit_scratch_arena arenas[UDFKIT_SCRATCH_STREAMS];
    size_t count; /* arenas in use */
} udfkit_scratch_table;

typedef enum udfkit_scratch_result {
    UDFKIT_SCRATCH_SET = 0,
    UDFKIT_SCRATCH_BUSY, /* a launcher on the stream holds memory from its scratch */
    UDFKIT_SCRATCH_FULL  /* UDFKIT_SCRATCH_STREAMS streams have one */
} udfkit_scratch_result;

/* Drops the arenas that `key` shows to be stale: of a context whose handle now has another
 * id (destroyed, or a primary context reset), or of a stream whose handle, in the same
 * context, now has another id (destroyed; the handle recycled). Returns how many. */
size_t udfkit_scratch_forget_stale(udfkit_scratch_table *t, const udfkit_stream_key *key);

/* The stream's arena, or NULL. */
udfkit_scratch_arena *udfkit_scratch_find(udfkit_scratch_table *t, const udfkit_stream_key *key);

/* Sets (base and bytes non-zero) or ends (base NULL or bytes 0) the stream's scratch. */
udfkit_scratch_result udfkit_scratch_set(udfkit_scratch_table *t, const udfkit_stream_key *key, void *base,
                                         size_t bytes);

/* Memory from the stream's scratch, UDFKIT_SCRATCH_ALIGN-aligned, or NULL where it has none
 * or no room. */
void *udfkit_scratch_take(udfkit_scratch_table *t, const udfkit_stream_key *key, size_t bytes);

/* Whether p came from the stream's scratch (then it is given back; the last one given back
 * lets the next launch on the stream reuse the bytes from the start). */
bool udfkit_scratch_give(udfkit_scratch_table *t, const udfkit_stream_key *key, void *p);

#endif
