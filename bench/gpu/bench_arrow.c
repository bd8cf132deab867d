/* arrow: what an `_arrow` launcher (docs/arrow.md) costs the host over the raw launcher it runs,
 * at 2^10 rows (the GPU keeps up, so the time is the host's). checklib's map(affine),
 * nullable_map(affine) (an input bitmap, the array at offset 3) and filter(above_half): per round
 * 100 calls back to back on one stream timed on the host's clock, the `_arrow` launcher (its
 * checks, the input's event waited for, the output allocated stream-ordered, an event recorded,
 * the result and schema built) against the raw launcher with outputs allocated once; the
 * results of a round are released after it, timed apart (release gives the device memory back
 * in stream order, or keeps a small block with its event for the next launches: docs/arrow.md,
 * Outputs). The filter's `_arrow` launcher waits for its count (Arrow's length is a host
 * number): it is timed against the raw filter followed by the same wait for its count (its
 * selection, a generated filter(above_half, values), writes the kept values at once: the same
 * two launches as the raw filter's, no gather). The two
 * alternate round by round; median of the rounds after 3 warm-up rounds. The goal is at most
 * 2 us more a launch.
 * usage: udfkit_bench arrow [rounds (30)]; exits 77 without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"
#include "checklib.h"

#include <stdint.h>
#include <string.h>

#define CALLS 100

typedef struct arrow_args {
    size_t n;
    float *in, *out;
    uint8_t *bits, *out_bits;
    uint64_t *rows, *count;
    struct ArrowDeviceArray plain, masked;
    struct ArrowSchema type;
    struct ArrowDeviceArray results[CALLS];
    struct ArrowSchema result_types[CALLS];
} arrow_args;

typedef udfkit_status (*launch_fn)(arrow_args *a, int i);

/* The input and its schema belong to the benchmark: their release does nothing. */
static void keep_array(struct ArrowArray *array)
{
    array->release = NULL;
}
static void keep_schema(struct ArrowSchema *schema)
{
    schema->release = NULL;
}

static udfkit_status map_raw(arrow_args *a, int i)
{
    (void)i;
    return checklib_map_affine(NULL, a->n, a->in, a->out);
}
static udfkit_status map_arrow(arrow_args *a, int i)
{
    return checklib_map_affine_arrow(NULL, &a->plain, &a->type, &a->results[i], &a->result_types[i]);
}
static udfkit_status nullable_raw(arrow_args *a, int i)
{
    (void)i;
    return checklib_nullable_map_affine(NULL, a->n, a->in + 3, (udfkit_mask){a->bits, 3}, a->out, a->out_bits, NULL);
}
static udfkit_status nullable_arrow(arrow_args *a, int i)
{
    return checklib_nullable_map_affine_arrow(NULL, &a->masked, &a->type, &a->results[i], &a->result_types[i]);
}
static udfkit_status filter_raw(arrow_args *a, int i)
{
    (void)i;
    uint64_t count = 0;
    udfkit_status st = checklib_filter_above_half(NULL, a->n, a->in, a->rows, a->count);
    if (!st)
        st = udfkit_copy_to_host_async(&count, a->count, sizeof count, NULL);
    return st ? st : udfkit_stream_synchronize(NULL);
}
static udfkit_status filter_arrow(arrow_args *a, int i)
{
    return checklib_filter_above_half_arrow(NULL, &a->plain, &a->type, &a->results[i], &a->result_types[i]);
}

/* Host ns a call of each, over rounds of CALLS calls, alternating; the `_arrow` rounds'
 * releases timed apart. */
static void time_pair(const char *name, launch_fn raw, launch_fn arrow, arrow_args *a, int rounds)
{
    double *with = calloc((size_t)rounds, sizeof *with), *without = calloc((size_t)rounds, sizeof *without),
           *release = calloc((size_t)rounds, sizeof *release);
    if (!with || !without || !release)
        exit(1);
    for (int r = -3; r < rounds; r++) {
        for (int v = 0; v < 2; v++) {
            const launch_fn call = (v == 0) == (r % 2 == 0) ? arrow : raw;
            memset(a->results, 0, sizeof a->results);
            const double start = bench_now_ms();
            for (int i = 0; i < CALLS; i++)
                bench_check_udfkit(call(a, i), name);
            const double ns = (bench_now_ms() - start) * 1e6 / CALLS;
            bench_check_udfkit(udfkit_stream_synchronize(NULL), name);
            const double freed = bench_now_ms();
            for (int i = 0; i < CALLS && call == arrow; i++) {
                a->results[i].array.release(&a->results[i].array);
                a->result_types[i].release(&a->result_types[i]);
            }
            if (r >= 0 && call == arrow)
                release[r] = (bench_now_ms() - freed) * 1e6 / CALLS;
            if (r >= 0)
                (call == arrow ? with : without)[r] = ns;
        }
    }
    const double w = bench_median(with, (size_t)rounds), wo = bench_median(without, (size_t)rounds),
                 rel = bench_median(release, (size_t)rounds);
    printf("%s: median _arrow %.0f ns a launch, raw %.0f ns, difference %.1f ns (goal <= 2000)\n", name, w, wo, w - wo);
    printf("%s: least _arrow %.0f ns a launch, raw %.0f ns, difference %.1f ns\n", name, with[0], without[0],
           with[0] - without[0]);
    printf("%s: release of an _arrow result and its schema %.0f ns (median)\n", name, rel);
    printf("%s: _arrow / raw ratio %.3f\n", name, w / wo);
    free(with);
    free(without);
    free(release);
}

int bench_arrow_main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 30;
    if (rounds < 1) {
        fprintf(stderr, "usage: udfkit_bench arrow [rounds]\n");
        return 2;
    }
    udfkit_status st = checklib_load();
    bench_skip_without_gpu(st);
    bench_check_udfkit(st, "checklib_load");
    static arrow_args a;
    a.n = 1024;
    void *p[6];
    const size_t bytes[6] = {(a.n + 3) * 4, a.n * 4, a.n / 8 + 2, a.n / 8 + 1, a.n * 8, 8};
    for (int i = 0; i < 6; i++) {
        bench_check_udfkit(udfkit_device_alloc(bytes[i], &p[i]), "udfkit_device_alloc");
        bench_check_udfkit(udfkit_device_memset_async(p[i], 0x55, bytes[i], NULL), "udfkit_device_memset_async");
    }
    a.in = p[0];
    a.out = p[1];
    a.bits = p[2];
    a.out_bits = p[3];
    a.rows = p[4];
    a.count = p[5];
    static const void *plain_buffers[2], *masked_buffers[2];
    plain_buffers[1] = a.in;
    masked_buffers[0] = a.bits;
    masked_buffers[1] = a.in;
    a.plain.array = (struct ArrowArray){.length = (int64_t)a.n, .n_buffers = 2, .buffers = plain_buffers,
                                        .release = keep_array};
    a.plain.device_type = ARROW_DEVICE_CUDA;
    a.masked = a.plain;
    a.masked.array.offset = 3;
    a.masked.array.null_count = -1;
    a.masked.array.buffers = masked_buffers;
    a.type = (struct ArrowSchema){.format = "f", .name = "", .release = keep_schema};
    printf("arrow: host time of a launch at %zu rows, median of %d rounds of %d\n", a.n, rounds, CALLS);
    time_pair("map(affine)", map_raw, map_arrow, &a, rounds);
    time_pair("nullable_map(affine)", nullable_raw, nullable_arrow, &a, rounds);
    time_pair("filter(above_half)", filter_raw, filter_arrow, &a, rounds);
    for (int i = 0; i < 6; i++)
        udfkit_device_free(p[i]);
    return 0;
}
