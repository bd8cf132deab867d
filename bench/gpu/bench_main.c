/* udfkit_bench: the GPU benchmarks in one program, so that the runtime (and the nvPTXCompiler
 * it links statically, tens of MB) is linked once into what is carried to the GPU machine.
 * usage: udfkit_bench BENCHMARK [ARG...]; bench/gpu/run-on-device runs them all. */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} benchmarks[] = {
    {"map", bench_map_main, "udfkit map(affine) against nvcc and cudaMemcpy"},
    {"reduce", bench_reduce_main, "udfkit reduce(add_f32) against cub::DeviceReduce::Sum"},
    {"load", bench_load_main, "udfkit_library_load of SASS, and of PTX by the driver and by nvPTXCompiler"},
    {"compress", bench_compress_main, "size and SASS load time of fatbins packed plain and compressed"},
    {"nullable", bench_nullable_main, "nullable_map/filter against cudaMemcpy, map and CUB; error checks' cost"},
    {"scan", bench_scan_main, "inclusive_scan/exclusive_scan against cub::DeviceScan, int32 and float64"},
    {"reduce_by_key", bench_reduce_by_key_main, "reduce_by_key against cub::DeviceReduce::ReduceByKey"},
    {"reductions", bench_reductions_main, "transform_reduce, segmented_reduce against CUB's"},
    {"sort", bench_sort_main, "sort(less) against cub::DeviceMergeSort, int32 and float64, keys and with order"},
    {"ops", bench_ops_main, "filter (one pass, its 3 outputs), map, reduce against CUB at 2^20, 2^24, 2^28"},
    {"strings", bench_strings_main, "string UDFs (len, contains, starts_with, upper, filter) against nvcc; utf8_view"},
    {"decimals", bench_decimals_main, "decimal128 map and sum, date32 fields against __int128/civil_from_days by nvcc"},
    {"host", bench_host_main, "host time of a launcher call against CUB's (map, reduce, filter, inclusive_scan)"},
    {"launcher_checks", bench_launcher_checks_main, "host cost of the launchers' argument checks (with against without)"},
    {"arrow", bench_arrow_main, "host cost of an _arrow launcher (Arrow device arrays) over the raw launcher"},
    {"link", bench_link_main, "udfkit_library_link: first link against a cached one in a new process"},
    {"bind", bench_bind_main, "late binding: first, cached and repeated binds against loading SASS; compile_source"},
    {"bind_engine", bench_bind_engine_main, "late binding of issue 20's 41-kernel engine: binds, first launches"},
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc > 1 && i < sizeof benchmarks / sizeof benchmarks[0]; i++)
        if (strcmp(argv[1], benchmarks[i].name) == 0) {
            setvbuf(stdout, NULL, _IOLBF, 0);
            return benchmarks[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "usage: udfkit_bench BENCHMARK [ARG...]\n\nbenchmarks:\n");
    for (size_t i = 0; i < sizeof benchmarks / sizeof benchmarks[0]; i++)
        fprintf(stderr, "  %-8s %s\n", benchmarks[i].name, benchmarks[i].summary);
    return 2;
}
