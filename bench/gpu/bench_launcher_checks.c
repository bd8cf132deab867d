/* launcher_checks: what the launchers' argument checks cost the host (docs/security.md,
 * "Column data: launcher arguments"). The same launchers of checklib twice: as generated, and
 * as checkbase, the same text with each launcher's check block taken out (strip_checks.py),
 * loading the same fatbin. At 2^10 rows (the GPU keeps up, so the time is the host's), per
 * round 100 calls back to back on one stream are timed on the host's clock, then the stream
 * is waited for (untimed); the two versions alternate round by round; median of the rounds,
 * after 3 warm-up rounds. Prints the host ns a launch of each (the median round's and the
 * least round's), their difference (the checks' cost) and the ratio checked / unchecked; the
 * goal is a difference under 200 ns.
 * usage: udfkit_bench launcher_checks [rounds (30)]; exits 77 without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"
#include "checkbase.h"
#include "checklib.h"

#include <stdint.h>
#include <string.h>

typedef struct launch_args {
    size_t n;
    float *f_in, *f_out;
    int *i_in, *i_out;
    uint64_t *rows, *count;
    uint8_t *bits, *out_bits;
} launch_args;

typedef udfkit_status (*launch_fn)(const launch_args *a);

/* One launcher of each kind the benchmark times, checked and not. */
static udfkit_status map_checked(const launch_args *a) { return checklib_map_affine(NULL, a->n, a->f_in, a->f_out); }
static udfkit_status map_base(const launch_args *a) { return checkbase_map_affine(NULL, a->n, a->f_in, a->f_out); }
static udfkit_status nullable_checked(const launch_args *a)
{
    return checklib_nullable_map_affine(NULL, a->n, a->f_in, (udfkit_mask){a->bits, 3}, a->f_out, a->out_bits, a->count);
}
static udfkit_status nullable_base(const launch_args *a)
{
    return checkbase_nullable_map_affine(NULL, a->n, a->f_in, (udfkit_mask){a->bits, 3}, a->f_out, a->out_bits, a->count);
}
static udfkit_status reduce_checked(const launch_args *a) { return checklib_reduce_add_i32(NULL, a->n, a->i_in, 0, a->i_out); }
static udfkit_status reduce_base(const launch_args *a) { return checkbase_reduce_add_i32(NULL, a->n, a->i_in, 0, a->i_out); }
static udfkit_status filter_checked(const launch_args *a)
{
    return checklib_filter_above_half(NULL, a->n, a->f_in, a->rows, a->count);
}
static udfkit_status filter_base(const launch_args *a)
{
    return checkbase_filter_above_half(NULL, a->n, a->f_in, a->rows, a->count);
}

/* Host ns per call of each of the two, over rounds of 100 calls, alternating. */
static void time_pair(const char *name, launch_fn checked, launch_fn base, const launch_args *a, int rounds)
{
    double *with = calloc((size_t)rounds, sizeof *with), *without = calloc((size_t)rounds, sizeof *without);
    if (!with || !without)
        exit(1);
    for (int r = -3; r < rounds; r++) {
        for (int v = 0; v < 2; v++) {
            const launch_fn call = (v == 0) == (r % 2 == 0) ? checked : base;
            const double start = bench_now_ms();
            for (int i = 0; i < 100; i++)
                bench_check_udfkit(call(a), name);
            const double ns = (bench_now_ms() - start) * 1e6 / 100;
            bench_check_udfkit(udfkit_stream_synchronize(NULL), name);
            if (r >= 0)
                (call == checked ? with : without)[r] = ns;
        }
    }
    /* bench_median sorts: the least round follows. */
    const double w = bench_median(with, (size_t)rounds), wo = bench_median(without, (size_t)rounds);
    printf("%s: median checked %.0f ns a launch, unchecked %.0f ns, checks %.1f ns\n", name, w, wo, w - wo);
    printf("%s: least checked %.0f ns a launch, unchecked %.0f ns, checks %.1f ns\n", name, with[0], without[0],
           with[0] - without[0]);
    printf("%s: checked / unchecked ratio %.3f\n", name, w / wo);
    free(with);
    free(without);
}

int bench_launcher_checks_main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 30;
    if (rounds < 1) {
        fprintf(stderr, "usage: udfkit_bench launcher_checks [rounds]\n");
        return 2;
    }
    udfkit_status st = checklib_load();
    bench_skip_without_gpu(st);
    bench_check_udfkit(st, "checklib_load");
    bench_check_udfkit(checkbase_load(), "checkbase_load");
    launch_args a = {.n = 1024};
    void *p[8];
    const size_t bytes[8] = {a.n * 4, a.n * 4, a.n * 4, 4, a.n * 8, 8 * 2, a.n / 8 + 1, a.n / 8 + 1};
    for (int i = 0; i < 8; i++) {
        bench_check_udfkit(udfkit_device_alloc(bytes[i], &p[i]), "udfkit_device_alloc");
        bench_check_udfkit(udfkit_device_memset_async(p[i], 0, bytes[i], NULL), "udfkit_device_memset_async");
    }
    a.f_in = p[0];
    a.f_out = p[1];
    a.i_in = p[2];
    a.i_out = p[3];
    a.rows = p[4];
    a.count = p[5];
    a.bits = p[6];
    a.out_bits = p[7];
    printf("launcher_checks: host time of a launch at %zu rows, median of %d rounds of 100\n", a.n, rounds);
    time_pair("map(affine)", map_checked, map_base, &a, rounds);
    time_pair("nullable_map(affine)", nullable_checked, nullable_base, &a, rounds);
    time_pair("reduce(add_i32)", reduce_checked, reduce_base, &a, rounds);
    time_pair("filter(above_half)", filter_checked, filter_base, &a, rounds);
    for (int i = 0; i < 8; i++)
        udfkit_device_free(p[i]);
    return 0;
}
