/* The runtime's per-stream scratch table (src/runtime/stream_state.c) and the PTX entry
 * names (src/runtime/ptx_entries.c), without a GPU: streams and contexts given as the ids the
 * driver would report (cuCtxGetId, cuStreamGetId) and the handles it would hand out, in
 * the cases where a table keyed by handle went wrong:
 * - a stream destroyed with its scratch set, and a new stream at the same handle;
 * - the NULL stream, one handle for every context (device 0's scratch, device 1's launch);
 * - the per-thread default stream, one handle for every thread;
 * - a primary context reset: the same context handle with a new id. */
#include "stream_state.h"
#include "ptx_entries.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

static char device0[1 << 16], device1[1 << 16];

static udfkit_stream_key key(unsigned long long ctx_id, const void *ctx, unsigned long long stream_id,
                             const void *stream)
{
    return (udfkit_stream_key){ctx_id, stream_id, ctx, stream};
}

#define CTX_A ((const void *)0x1000)
#define CTX_B ((const void *)0x2000)
#define STREAM ((const void *)0x7f00)

static void test_take_and_give(void **state)
{
    (void)state;
    static udfkit_scratch_table t;
    memset(&t, 0, sizeof t);
    udfkit_stream_key s = key(1, CTX_A, 10, STREAM);
    assert_int_equal(udfkit_scratch_set(&t, &s, device0, 1000), UDFKIT_SCRATCH_SET);
    char *a = udfkit_scratch_take(&t, &s, 100), *b = udfkit_scratch_take(&t, &s, 100);
    assert_ptr_equal(a, device0);
    assert_ptr_equal(b, device0 + UDFKIT_SCRATCH_ALIGN); /* 256-byte aligned after a */
    assert_null(udfkit_scratch_take(&t, &s, 1000));      /* no room left */
    assert_int_equal(udfkit_scratch_set(&t, &s, NULL, 0), UDFKIT_SCRATCH_BUSY);
    assert_true(udfkit_scratch_give(&t, &s, a));
    assert_true(udfkit_scratch_give(&t, &s, b));
    assert_false(udfkit_scratch_give(&t, &s, b)); /* nothing held any more */
    /* All given back: the next launch starts at the beginning again. */
    assert_ptr_equal(udfkit_scratch_take(&t, &s, 1000), device0);
    assert_true(udfkit_scratch_give(&t, &s, device0));
    assert_int_equal(udfkit_scratch_set(&t, &s, NULL, 0), UDFKIT_SCRATCH_SET);
    assert_int_equal(t.count, 0);
    assert_null(udfkit_scratch_take(&t, &s, 1));
}

/* A stream destroyed with its scratch set, and a new one that the driver created at the same
 * handle: another stream id, no memory of the old scratch. */
static void test_recycled_stream_handle(void **state)
{
    (void)state;
    static udfkit_scratch_table t;
    memset(&t, 0, sizeof t);
    udfkit_stream_key old = key(1, CTX_A, 10, STREAM), reused = key(1, CTX_A, 11, STREAM);
    assert_int_equal(udfkit_scratch_set(&t, &old, device0, 4096), UDFKIT_SCRATCH_SET);
    assert_null(udfkit_scratch_take(&t, &reused, 64));
    /* The old stream's arena is gone: the handle came back with another stream. */
    assert_int_equal(t.count, 0);
    assert_null(udfkit_scratch_take(&t, &old, 64));
    /* The new stream's own scratch works. */
    assert_int_equal(udfkit_scratch_set(&t, &reused, device1, 4096), UDFKIT_SCRATCH_SET);
    assert_ptr_equal(udfkit_scratch_take(&t, &reused, 64), device1);
}

/* The NULL stream of two contexts (two devices): one handle, two streams. */
static void test_null_stream_of_two_contexts(void **state)
{
    (void)state;
    static udfkit_scratch_table t;
    memset(&t, 0, sizeof t);
    udfkit_stream_key dev0 = key(1, CTX_A, 3, NULL), dev1 = key(2, CTX_B, 4, NULL);
    assert_int_equal(udfkit_scratch_set(&t, &dev0, device0, 4096), UDFKIT_SCRATCH_SET);
    assert_null(udfkit_scratch_take(&t, &dev1, 64));
    assert_int_equal(t.count, 1); /* device 0's is not stale: its context lives */
    assert_int_equal(udfkit_scratch_set(&t, &dev1, device1, 4096), UDFKIT_SCRATCH_SET);
    assert_ptr_equal(udfkit_scratch_take(&t, &dev1, 64), device1);
    assert_ptr_equal(udfkit_scratch_take(&t, &dev0, 64), device0);
    assert_false(udfkit_scratch_give(&t, &dev1, device0));
    assert_true(udfkit_scratch_give(&t, &dev0, device0));
    assert_true(udfkit_scratch_give(&t, &dev1, device1));
}

/* CU_STREAM_PER_THREAD: one handle, a stream per thread; another thread's id says nothing
 * about the first thread's stream. */
static void test_per_thread_stream(void **state)
{
    (void)state;
    static udfkit_scratch_table t;
    memset(&t, 0, sizeof t);
    const void *per_thread = (const void *)0x2;
    udfkit_stream_key t1 = key(1, CTX_A, 20, per_thread), t2 = key(1, CTX_A, 21, per_thread);
    assert_int_equal(udfkit_scratch_set(&t, &t1, device0, 4096), UDFKIT_SCRATCH_SET);
    assert_null(udfkit_scratch_take(&t, &t2, 64));
    assert_int_equal(t.count, 1);
    assert_ptr_equal(udfkit_scratch_take(&t, &t1, 64), device0);
}

/* cuDevicePrimaryCtxReset: the context's handle again, with a new id; every stream of the
 * old one is gone, the NULL stream too. */
static void test_context_reset(void **state)
{
    (void)state;
    static udfkit_scratch_table t;
    memset(&t, 0, sizeof t);
    udfkit_stream_key before = key(1, CTX_A, 3, NULL), other = key(1, CTX_A, 10, STREAM),
                      after = key(5, CTX_A, 30, NULL), device1_key = key(2, CTX_B, 4, NULL);
    assert_int_equal(udfkit_scratch_set(&t, &before, device0, 4096), UDFKIT_SCRATCH_SET);
    assert_int_equal(udfkit_scratch_set(&t, &other, device0 + 8192, 4096), UDFKIT_SCRATCH_SET);
    assert_int_equal(udfkit_scratch_set(&t, &device1_key, device1, 4096), UDFKIT_SCRATCH_SET);
    assert_null(udfkit_scratch_take(&t, &after, 64));
    assert_int_equal(t.count, 1); /* only the other context's is left */
    assert_ptr_equal(udfkit_scratch_take(&t, &device1_key, 64), device1);
}

static void test_full_table(void **state)
{
    (void)state;
    static udfkit_scratch_table t;
    memset(&t, 0, sizeof t);
    for (unsigned long long i = 0; i < UDFKIT_SCRATCH_STREAMS; i++) {
        udfkit_stream_key k = key(1, CTX_A, 100 + i, (const void *)(uintptr_t)(0x10000 + i * 64));
        assert_int_equal(udfkit_scratch_set(&t, &k, device0, 64), UDFKIT_SCRATCH_SET);
    }
    udfkit_stream_key extra = key(1, CTX_A, 999, (const void *)0x90000);
    assert_int_equal(udfkit_scratch_set(&t, &extra, device1, 64), UDFKIT_SCRATCH_FULL);
    /* A stream of the table destroyed and its handle reused frees its place. */
    udfkit_stream_key reused = key(1, CTX_A, 1000, (const void *)0x10000);
    assert_int_equal(udfkit_scratch_set(&t, &reused, device1, 64), UDFKIT_SCRATCH_SET);
    assert_int_equal(t.count, UDFKIT_SCRATCH_STREAMS);
}

static void test_ptx_entry_names(void **state)
{
    (void)state;
    static const char ptx[] = "//\n// .entry commented(\n/* .entry hidden( */\n.version 8.5\n.target sm_90\n"
                              ".visible .entry udfkit_map_f(\n.param .u64 p\n)\n{ ret; }\n"
                              ".weak .entry _Z5scalePfi (\n.param .u64 p\n)\n{ ret; }\n"
                              ".func (.reg .b32 r) helper(.reg .b32 a)\n{ ret; }\n"
                              ".visible .entry udfkit_dependent_launch()\n{ ret; }\n"
                              ".visible .entryx not_an_entry(\n";
    char names[256];
    size_t n = udfkit_ptx_entry_names(ptx, sizeof ptx - 1, names, sizeof names);
    assert_int_equal(n, 3);
    assert_string_equal(names, "udfkit_map_f");
    assert_string_equal(names + strlen("udfkit_map_f") + 1, "_Z5scalePfi");
    assert_string_equal(names + strlen("udfkit_map_f") + 1 + strlen("_Z5scalePfi") + 1, "udfkit_dependent_launch");
    /* Room for the first only: the rest are left out, not cut. */
    assert_int_equal(udfkit_ptx_entry_names(ptx, sizeof ptx - 1, names, 20), 1);
    assert_string_equal(names, "udfkit_map_f");
    /* The text ends at its NUL, or at its size. */
    assert_int_equal(udfkit_ptx_entry_names(ptx, 40, names, sizeof names), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take_and_give),
        cmocka_unit_test(test_recycled_stream_handle),
        cmocka_unit_test(test_null_stream_of_two_contexts),
        cmocka_unit_test(test_per_thread_stream),
        cmocka_unit_test(test_context_reset),
        cmocka_unit_test(test_full_table),
        cmocka_unit_test(test_ptx_entry_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
