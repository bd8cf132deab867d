/* What an `_arrow` launch costs the host over its raw launcher (docs/arrow.md, Cost), without a
 * GPU: library ak's launchers over the stand-in libcuda.so.1 whose launches of ak's kernels run
 * on the host (unit/runtime/fake_cuda.c with fake_kernels.c), which counts every driver call by
 * entry point. For map(mul_f64), nullable_map(mul_f64) (an input bitmap at offset 3) and
 * filter(positive) at 1024 rows, as bench/gpu `arrow` runs them on a GPU (the raw side with its
 * outputs allocated once; the raw filter followed by the same wait for its count):
 * - the driver calls of one launch of each, after warm-up, entry point by entry point; the
 *   `_arrow` launch may add to the raw launcher's only one stream-ordered allocation and one
 *   event record per result, and three cheap queries of the current context (its device, its
 *   id, once a launch): no event is created, no second allocation made, no input waited for
 *   where it has no sync event; the filter's no more than the map's (its own selection writes
 *   the kept values: no gather launched, no temporary block for row numbers, its count in the
 *   result's block), besides the wait for its count that the raw side has too;
 * - the release of its result: the memory given back in stream order after the result's event
 *   (cuStreamWaitEvent, cuMemFreeAsync), the event kept, every device block given back;
 * - host time a launch of each (median of rounds), printed: the stand-in's driver costs next to
 *   nothing, so the difference is the runtime's own work (checks, host allocation, the arrays'
 *   construction) with the stand-in's allocation (calloc) on top.
 * usage: test_arrow_overhead [rounds (15)] */
#define _POSIX_C_SOURCE 200809L
#include "ak.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROWS 1024
#define CALLS 200

static unsigned long long (*driver_calls)(const char *name);
static void (*driver_calls_reset)(void);
static void (*driver_calls_each)(void (*)(const char *, unsigned long long, void *), void *);
static size_t (*live_blocks)(void);
static void *(*stream_create)(void);
static void *(*ctx_create)(int device);
static int (*ctx_get_current)(void **);
static int (*ctx_set_current)(void *);
static int failures;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                       \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

static void must(udfkit_status st, const char *what)
{
    if (st) {
        fprintf(stderr, "%s: %s\n", what, udfkit_last_error());
        exit(1);
    }
}

/* The columns: two float64 inputs (3 rows more, for the slice at offset 3), a bitmap, the raw
 * side's outputs, and the Arrow arrays over them. */
static size_t rows_now = ROWS; /* the arrays' length */
static double *in1, *in2, *out;
static uint8_t *bits, *out_bits;
static uint64_t *rows, *count;
static const void *plain_buffers[2][2], *masked_buffers[2][2];
static struct ArrowDeviceArray plain[2], masked[2];
static struct ArrowSchema type;
static struct ArrowDeviceArray results[CALLS];
static struct ArrowSchema result_types[CALLS];

static void keep_array(struct ArrowArray *a)
{
    a->release = NULL;
}
static void keep_schema(struct ArrowSchema *s)
{
    s->release = NULL;
}

static udfkit_status map_raw(int i)
{
    (void)i;
    return ak_map_mul_f64(NULL, rows_now, in1, in2, out);
}
static udfkit_status map_arrow(int i)
{
    return ak_map_mul_f64_arrow(NULL, &plain[0], &type, &plain[1], &type, &results[i], &result_types[i]);
}
static udfkit_status nullable_raw(int i)
{
    (void)i;
    return ak_nullable_map_mul_f64(NULL, rows_now, in1 + 3, (udfkit_mask){bits, 3}, in2 + 3, (udfkit_mask){bits, 3}, out,
                                   out_bits, NULL);
}
static udfkit_status nullable_arrow(int i)
{
    return ak_nullable_map_mul_f64_arrow(NULL, &masked[0], &type, &masked[1], &type, &results[i], &result_types[i]);
}
static udfkit_status filter_raw(int i)
{
    (void)i;
    uint64_t kept = 0;
    udfkit_status st = ak_filter_positive(NULL, rows_now, in1, rows, count);
    if (!st)
        st = udfkit_copy_to_host_async(&kept, count, sizeof kept, NULL);
    return st ? st : udfkit_stream_synchronize(NULL);
}
static udfkit_status filter_arrow(int i)
{
    return ak_filter_positive_arrow(NULL, &plain[0], &type, &results[i], &result_types[i]);
}

static void release(int i)
{
    results[i].array.release(&results[i].array);
    result_types[i].release(&result_types[i]);
}

/* A snapshot of the driver calls since the last reset, by entry point. */
typedef struct tally_entry {
    const char *name;
    unsigned long long calls;
} tally_entry;
typedef struct tally {
    size_t n;
    tally_entry e[64];
} tally;

static void add_to(const char *name, unsigned long long calls, void *arg)
{
    tally *t = arg;
    if (t->n < 64)
        t->e[t->n++] = (tally_entry){name, calls};
}

static tally take_tally(void)
{
    tally t = {0};
    driver_calls_each(add_to, &t);
    return t;
}

static unsigned long long of(const tally *t, const char *name)
{
    unsigned long long n = 0;
    for (size_t i = 0; i < t->n; i++)
        if (!name || strcmp(t->e[i].name, name) == 0)
            n += t->e[i].calls;
    return n;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Host ns a launch of each, median of `rounds` rounds of CALLS, alternating; the `_arrow`
 * results released after each round, untimed. */
static void set_rows(size_t n)
{
    rows_now = n;
    for (int i = 0; i < 2; i++)
        plain[i].array.length = masked[i].array.length = (int64_t)n;
}

static void timing(const char *name, udfkit_status (*raw)(int), udfkit_status (*arrow)(int), int rounds)
{
    double with[64], without[64];
    /* The stand-in runs the kernels on the host, the same on both sides: at few rows their time
     * leaves the difference to the host's own work. */
    set_rows(16);
    for (int r = -2; r < rounds; r++)
        for (int v = 0; v < 2; v++) {
            udfkit_status (*call)(int) = (v == 0) == (r % 2 == 0) ? arrow : raw;
            double start = now_ns();
            for (int i = 0; i < CALLS; i++)
                must(call(i), name);
            double ns = (now_ns() - start) / CALLS;
            for (int i = 0; i < CALLS && call == arrow; i++)
                release(i);
            if (r >= 0)
                (call == arrow ? with : without)[r] = ns;
        }
    qsort(with, (size_t)rounds, sizeof *with, by_value);
    qsort(without, (size_t)rounds, sizeof *without, by_value);
    printf("%s: host ns a launch on the stand-in driver (16 rows): _arrow %.0f, raw %.0f, difference %.0f\n", name,
           with[rounds / 2], without[rounds / 2], with[rounds / 2] - without[rounds / 2]);
    set_rows(ROWS);
}

/* The driver calls of one launch of each and of the release. */
static void driver_work(const char *name, udfkit_status (*raw)(int), udfkit_status (*arrow)(int), int rounds)
{
    /* Warm-up: the library loaded, the pool made, an event made and kept by its release. */
    must(raw(0), name);
    must(arrow(0), name);
    release(0);
    driver_calls_reset();
    must(raw(0), name);
    const tally r = take_tally();
    driver_calls_reset();
    const size_t live = live_blocks();
    must(arrow(0), name);
    const tally a = take_tally();
    driver_calls_reset();
    release(0);
    const tally freed = take_tally();
    printf("%s: driver calls of a launch: raw %llu, _arrow %llu; release %llu\n", name, of(&r, NULL), of(&a, NULL),
           of(&freed, NULL));
    for (size_t i = 0; i < a.n; i++) {
        unsigned long long raw_calls = of(&r, a.e[i].name);
        if (a.e[i].calls != raw_calls)
            printf("  %s: %llu (raw %llu)\n", a.e[i].name, a.e[i].calls, raw_calls);
    }
    for (size_t i = 0; i < freed.n; i++)
        printf("  release: %s %llu\n", freed.e[i].name, freed.e[i].calls);
    const char *const queries[] = {"cuCtxGetCurrent", "cuCtxGetDevice", "cuCtxGetId"};
    unsigned long long added_queries = 0;
    for (size_t i = 0; i < 3; i++)
        added_queries += of(&a, queries[i]) > of(&r, queries[i]) ? of(&a, queries[i]) - of(&r, queries[i]) : 0;
    const unsigned long long allocs = of(&a, "cuMemAllocFromPoolAsync") + of(&a, "cuMemAllocAsync"),
                             raw_allocs = of(&r, "cuMemAllocFromPoolAsync") + of(&r, "cuMemAllocAsync");
    CHECK(allocs <= raw_allocs + 1, "%s: %llu allocations where the raw launcher makes %llu", name, allocs, raw_allocs);
    CHECK(of(&a, "cuEventRecord") <= of(&r, "cuEventRecord") + 1, "%s: %llu event records (raw %llu)", name,
          of(&a, "cuEventRecord"), of(&r, "cuEventRecord"));
    CHECK(of(&a, "cuEventCreate") == 0, "%s: an event created in a warm launch", name);
    CHECK(of(&a, "cuStreamWaitEvent") == 0, "%s: a wait where no input has a sync event", name);
    CHECK(added_queries <= 3, "%s: %llu more context queries", name, added_queries);
    CHECK(of(&a, "cuLaunchKernel") == of(&r, "cuLaunchKernel"), "%s: %llu launches (raw %llu)", name,
          of(&a, "cuLaunchKernel"), of(&r, "cuLaunchKernel"));
    CHECK(of(&a, "cuStreamSynchronize") == of(&r, "cuStreamSynchronize") &&
              of(&a, "cuMemcpyDtoHAsync_v2") == of(&r, "cuMemcpyDtoHAsync_v2"),
          "%s: %llu waits for the stream and %llu copies to the host (raw %llu and %llu)", name,
          of(&a, "cuStreamSynchronize"), of(&a, "cuMemcpyDtoHAsync_v2"), of(&r, "cuStreamSynchronize"),
          of(&r, "cuMemcpyDtoHAsync_v2"));
    CHECK(of(&a, NULL) <= of(&r, NULL) + 1 + 3, "%s: %llu driver calls, raw %llu", name, of(&a, NULL), of(&r, NULL));
    /* The release: the legacy stream waits for the result's event, then the block is kept with
     * the event recorded again there (or freed there, in stream order): no event destroyed, no
     * synchronous free. */
    CHECK(of(&freed, "cuStreamWaitEvent") == 1 && of(&freed, "cuMemFreeAsync") + of(&freed, "cuEventRecord") == 1 &&
              of(&freed, "cuEventDestroy_v2") == 0 && of(&freed, "cuMemFree_v2") == 0,
          "%s: the release is not one wait and one record (kept) or stream-ordered free", name);
    CHECK(allocs == raw_allocs, "%s: a warm launch allocated (%llu allocations) where a released result's "
          "block is kept", name, allocs);
    CHECK(live_blocks() == live, "%s: %zu device blocks and events before the launch, %zu after its release", name,
          live, live_blocks());
    timing(name, raw, arrow, rounds);
}

/* A kept block taken by a launch on another stream than the legacy one, where the release
 * recorded its event: that stream waits for the event before the launch writes the block. */
static void other_stream(void)
{
    udfkit_stream s = stream_create();
    must(map_arrow(0), "map(mul_f64)");
    release(0);
    driver_calls_reset();
    must(ak_map_mul_f64_arrow(s, &plain[0], &type, &plain[1], &type, &results[0], &result_types[0]), "on a stream");
    const tally a = take_tally();
    CHECK(of(&a, "cuStreamWaitEvent") == 1 && of(&a, "cuMemAllocFromPoolAsync") == 0,
          "on a stream: %llu waits and %llu allocations where a kept block is taken", of(&a, "cuStreamWaitEvent"),
          of(&a, "cuMemAllocFromPoolAsync"));
    release(0);
    /* Another context of the same device takes none of the first one's blocks or events. */
    void *first = NULL;
    ctx_get_current(&first);
    ctx_set_current(ctx_create(0));
    driver_calls_reset();
    must(map_arrow(0), "map(mul_f64) in another context");
    const tally other = take_tally();
    CHECK(of(&other, "cuMemAllocFromPoolAsync") == 1 && of(&other, "cuEventCreate") == 1 &&
              of(&other, "cuStreamWaitEvent") == 0,
          "another context took a kept block or event (%llu allocations, %llu events made)",
          of(&other, "cuMemAllocFromPoolAsync"), of(&other, "cuEventCreate"));
    release(0);
    ctx_set_current(first);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    rounds = rounds < 1 ? 1 : rounds > 64 ? 64 : rounds;
    must(ak_load(), "ak_load");
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!cuda || !(*(void **)&driver_calls = dlsym(cuda, "fake_driver_calls")) ||
        !(*(void **)&driver_calls_reset = dlsym(cuda, "fake_driver_calls_reset")) ||
        !(*(void **)&driver_calls_each = dlsym(cuda, "fake_driver_calls_each")) ||
        !(*(void **)&live_blocks = dlsym(cuda, "fake_live_blocks")) ||
        !(*(void **)&stream_create = dlsym(cuda, "fake_stream_create")) ||
        !(*(void **)&ctx_create = dlsym(cuda, "fake_ctx_create")) ||
        !(*(void **)&ctx_get_current = dlsym(cuda, "cuCtxGetCurrent")) ||
        !(*(void **)&ctx_set_current = dlsym(cuda, "cuCtxSetCurrent"))) {
        fprintf(stderr, "the stand-in libcuda.so.1 is not loaded (LD_LIBRARY_PATH)\n");
        return 1;
    }
    void *p[6];
    const size_t bytes[6] = {(ROWS + 3) * 8, (ROWS + 3) * 8, ROWS / 8 + 2, ROWS / 8 + 1, ROWS * 8, ROWS * 8 + 8};
    for (int i = 0; i < 6; i++) {
        must(udfkit_device_alloc(bytes[i], &p[i]), "udfkit_device_alloc");
        must(udfkit_device_memset_async(p[i], 0x55, bytes[i], NULL), "udfkit_device_memset_async");
    }
    in1 = p[0], in2 = p[1], bits = p[2], out_bits = p[3], out = p[4], rows = p[5], count = rows + ROWS;
    const size_t base = live_blocks();
    for (int i = 0; i < 2; i++) {
        plain_buffers[i][1] = i ? in2 : in1;
        masked_buffers[i][0] = bits;
        masked_buffers[i][1] = i ? in2 : in1;
        plain[i].array = (struct ArrowArray){.length = ROWS, .n_buffers = 2, .buffers = plain_buffers[i],
                                             .release = keep_array};
        plain[i].device_type = ARROW_DEVICE_CUDA;
        masked[i] = plain[i];
        masked[i].array.offset = 3;
        masked[i].array.null_count = -1;
        masked[i].array.buffers = masked_buffers[i];
    }
    type = (struct ArrowSchema){.format = "g", .name = "", .release = keep_schema};
    driver_work("map(mul_f64)", map_raw, map_arrow, rounds);
    other_stream();
    driver_work("nullable_map(mul_f64)", nullable_raw, nullable_arrow, rounds);
    driver_work("filter(positive)", filter_raw, filter_arrow, rounds);
    /* What the launches kept for the next ones goes back: only the test's own columns stay. */
    must(udfkit_release_kept(), "udfkit_release_kept");
    CHECK(live_blocks() == base, "udfkit_release_kept: %zu device blocks and events alive, %zu before any launch",
          live_blocks(), base);
    for (int i = 0; i < 6; i++)
        udfkit_device_free(p[i]);
    if (failures)
        fprintf(stderr, "%d checks failed\n", failures);
    return failures != 0;
}
