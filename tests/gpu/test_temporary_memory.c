/* Temporary memory of the launchers (udfkit_device_alloc_async / free_async) on a GPU: the
 * small blocks kept per stream and what must never happen with them.
 * - a stream's next request takes the block it gave back;
 * - a block whose last use is still queued on one stream is not given to another (that
 *   stream's work neither shares it nor waits for the first's, which a kernel keeps busy
 *   until the checks are done);
 * - four threads, each on streams of its own that it destroys and creates again (more streams
 *   than the cache has blocks), reduce 2^16 + t rows again and again: every sum right;
 * - a reduce captured into a graph takes its memory in the graph (memory nodes), and the
 *   graph gives the right sum when launched, with ordinary calls on the stream between;
 * - after the primary context is reset (cuDevicePrimaryCtxReset, as cudaDeviceReset does)
 *   and retained again, the launchers work: no block of the old context is handed out.
 *
 * usage: test_temporary_memory; exit 77 (skipped) where no GPU is visible. */
#define _POSIX_C_SOURCE 200809L
#include "runtime_lib.h"
#include "gpu_test.h"

#include <udfkit/runtime.h>

#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver functions the test calls itself, from libcuda (the program must start without
 * one, to be skipped). */
static struct {
    __typeof__(&cuStreamCreate) stream_create;
    __typeof__(&cuStreamDestroy) stream_destroy;
    __typeof__(&cuStreamSynchronize) stream_synchronize;
    __typeof__(&cuStreamQuery) stream_query;
    __typeof__(&cuStreamBeginCapture) begin_capture;
    __typeof__(&cuStreamEndCapture) end_capture;
    __typeof__(&cuGraphGetNodes) graph_nodes;
    __typeof__(&cuGraphNodeGetType) node_type;
    __typeof__(&cuGraphInstantiateWithFlags) instantiate;
    __typeof__(&cuGraphLaunch) graph_launch;
    __typeof__(&cuGraphExecDestroy) exec_destroy;
    __typeof__(&cuGraphDestroy) graph_destroy;
    __typeof__(&cuDeviceGet) device_get;
    __typeof__(&cuDevicePrimaryCtxReset) primary_reset;
    __typeof__(&cuDevicePrimaryCtxRetain) primary_retain;
    __typeof__(&cuCtxSetCurrent) ctx_set_current;
    __typeof__(&cuCtxGetCurrent) ctx_get_current;
} cu;

static int load_driver(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
        return 0;
#define SYM(field, name) (*(void **)&cu.field = dlsym(lib, name)) != NULL
    return SYM(stream_create, "cuStreamCreate") && SYM(stream_destroy, "cuStreamDestroy_v2") &&
           SYM(stream_synchronize, "cuStreamSynchronize") && SYM(stream_query, "cuStreamQuery") &&
           SYM(begin_capture, "cuStreamBeginCapture_v2") && SYM(end_capture, "cuStreamEndCapture") &&
           SYM(graph_nodes, "cuGraphGetNodes") && SYM(node_type, "cuGraphNodeGetType") &&
           SYM(instantiate, "cuGraphInstantiateWithFlags") && SYM(graph_launch, "cuGraphLaunch") &&
           SYM(exec_destroy, "cuGraphExecDestroy") && SYM(graph_destroy, "cuGraphDestroy") &&
           SYM(device_get, "cuDeviceGet") && SYM(primary_reset, "cuDevicePrimaryCtxReset_v2") &&
           SYM(primary_retain, "cuDevicePrimaryCtxRetain") && SYM(ctx_set_current, "cuCtxSetCurrent") &&
           SYM(ctx_get_current, "cuCtxGetCurrent");
#undef SYM
}

static CUstream new_stream(void)
{
    CUstream s = NULL;
    CHECK(cu.stream_create(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS, "cuStreamCreate");
    return s;
}

/* n rows of values that depend on `seed`, on the device, and their sum. */
static int64_t *rows_on_device(size_t n, int64_t seed, int64_t *sum)
{
    int64_t *host = malloc(n * sizeof *host);
    *sum = 0;
    for (size_t i = 0; i < n; i++) {
        host[i] = (int64_t)((i * 2654435761u + (uint64_t)seed * 40503u) % 100003u) - 50000;
        *sum += host[i];
    }
    int64_t *dev = device_copy(host, n * sizeof *host);
    free(host);
    return dev;
}

static void test_same_stream(void)
{
    CUstream s = new_stream();
    void *a = NULL, *big = NULL, *b = NULL;
    CHECK(udfkit_device_alloc_async(4000, (udfkit_stream)s, &a) == UDFKIT_OK && a, "a small request");
    CHECK(udfkit_device_alloc_async(8u << 20, (udfkit_stream)s, &big) == UDFKIT_OK && big, "a large request");
    CHECK(udfkit_device_free_async(a, (udfkit_stream)s) == UDFKIT_OK, "giving the small one back");
    CHECK(udfkit_device_alloc_async(1000, (udfkit_stream)s, &b) == UDFKIT_OK && b == a,
          "the stream's next small request takes the block it gave back (%p, %p)", a, b);
    CHECK(udfkit_device_free_async(b, (udfkit_stream)s) == UDFKIT_OK &&
              udfkit_device_free_async(big, (udfkit_stream)s) == UDFKIT_OK,
          "giving both back");
    CHECK(udfkit_device_alloc_async(100, (udfkit_stream)s, &a) == UDFKIT_OK &&
              udfkit_device_alloc_async(100, (udfkit_stream)s, &b) == UDFKIT_OK && a != b,
          "two requests held at once get two blocks");
    udfkit_device_free_async(a, (udfkit_stream)s);
    udfkit_device_free_async(b, (udfkit_stream)s);
    cu.stream_synchronize(s);
    cu.stream_destroy(s);
}

static void test_pending_use(void)
{
    udfkit_library *lib = runtime_lib_library();
    udfkit_kernel spin = NULL, fill = NULL;
    CHECK(lib && udfkit_library_get_kernel(lib, "spin_until", &spin) == UDFKIT_OK &&
              udfkit_library_get_kernel(lib, "fill_triple", &fill) == UDFKIT_OK,
          "the test kernels");
    CUstream s1 = new_stream(), s2 = new_stream();
    void *a = NULL, *b = NULL;
    CHECK(udfkit_device_alloc_async(4000, (udfkit_stream)s1, &a) == UDFKIT_OK, "a block for s1");
    /* s1 runs until the host releases it after the checks (or 20 s have passed, where kernels
     * run one at a time). */
    int *release = NULL, one_flag = 1;
    CHECK(udfkit_device_alloc(sizeof *release, (void **)&release) == UDFKIT_OK &&
              udfkit_device_memset_async(release, 0, sizeof *release, NULL) == UDFKIT_OK &&
              udfkit_stream_synchronize(NULL) == UDFKIT_OK,
          "the release flag");
    unsigned long long timeout = 20000000000ull;
    void *spin_args[] = {&release, &timeout};
    const udfkit_dim3 one = {1, 1, 1};
    CHECK(udfkit_launch(spin, one, one, 0, (udfkit_stream)s1, spin_args) == UDFKIT_OK, "s1 busy");
    CHECK(udfkit_device_free_async(a, (udfkit_stream)s1) == UDFKIT_OK, "given back on s1 behind its work");
    /* Whether s2's work can finish while s1's runs at all (compute-sanitizer, for one, runs
     * one kernel at a time): a kernel on s2 that takes no temporary memory. */
    unsigned long long n = 1000;
    void *plain = NULL;
    udfkit_device_alloc(n * sizeof(int), &plain);
    void *plain_args[] = {&plain, &n};
    udfkit_launch(fill, (udfkit_dim3){8, 1, 1}, (udfkit_dim3){128, 1, 1}, 0, (udfkit_stream)s2, plain_args);
    cu.stream_synchronize(s2);
    const bool concurrent = cu.stream_query(s1) == CUDA_ERROR_NOT_READY;
    CHECK(udfkit_device_alloc_async(4000, (udfkit_stream)s2, &b) == UDFKIT_OK && b && b != a,
          "s2 does not get the block s1's queued work may still use (%p, %p)", a, b);
    void *fill_args[] = {&b, &n};
    CHECK(udfkit_launch(fill, (udfkit_dim3){8, 1, 1}, (udfkit_dim3){128, 1, 1}, 0, (udfkit_stream)s2, fill_args) ==
              UDFKIT_OK,
          "s2 writes its block");
    CHECK(cu.stream_synchronize(s2) == CUDA_SUCCESS, "s2 done");
    if (concurrent)
        CHECK(cu.stream_query(s1) == CUDA_ERROR_NOT_READY, "s2 finished without waiting for s1's work");
    else
        printf("kernels of two streams do not run at once here: not checked that s2 did not wait for s1\n");
    int host[1000];
    CHECK(udfkit_copy_to_host(host, b, sizeof host) == UDFKIT_OK, "reading s2's block");
    int wrong = 0;
    for (int i = 0; i < 1000; i++)
        wrong += host[i] != 3 * i;
    CHECK(wrong == 0, "s2's block holds what s2 wrote: %d wrong", wrong);
    udfkit_device_free_async(b, (udfkit_stream)s2);
    CHECK(udfkit_copy_to_device(release, &one_flag, sizeof one_flag) == UDFKIT_OK, "releasing s1");
    cu.stream_synchronize(s1);
    /* Freed only now: cuMemFree may wait for the device's work, s1's too. */
    udfkit_device_free(plain);
    udfkit_device_free(release);
    cu.stream_destroy(s1);
    cu.stream_destroy(s2);
}

enum { THREADS = 4, ROUNDS = 240, RING = 8, RENEW = 12 /* a new stream every RENEW rounds */ };

static void *reduce_rounds(void *arg)
{
    const int t = (int)(intptr_t)arg;
    const size_t n = (1u << 16) + (size_t)t * 977u;
    int64_t sums[RING], *in[RING], *out = NULL;
    for (int i = 0; i < RING; i++)
        in[i] = rows_on_device(n, t * RING + i, &sums[i]);
    CHECK(udfkit_device_alloc(RING * sizeof(int64_t), (void **)&out) == UDFKIT_OK, "outputs");
    CUstream s = new_stream();
    int wrong = 0, failed = 0, streams = 1;
    bool renewed = false;
    for (int r = 0; r < ROUNDS; r++) {
        const int i = r % RING;
        failed += runtime_lib_reduce_add_i64((udfkit_stream)s, n, in[i], 0, out + i) != UDFKIT_OK;
        if (r % RENEW == RENEW - 1) {
            cu.stream_destroy(s); /* with its work queued: it runs, and the stream goes after */
            s = new_stream();
            streams++;
            renewed = true;
        }
        if (i == RING - 1) {
            int64_t got[RING];
            /* Rows of this ring on a destroyed stream too: all the context's work. */
            if (renewed)
                udfkit_synchronize();
            else
                cu.stream_synchronize(s);
            renewed = false;
            udfkit_copy_to_host(got, out, sizeof got);
            for (int j = 0; j < RING; j++)
                wrong += got[j] != sums[j];
        }
    }
    cu.stream_synchronize(s);
    cu.stream_destroy(s);
    CHECK(failed == 0 && wrong == 0, "thread %d: %d reduces of %zu rows on %d streams: %d failed, %d wrong sums", t,
          ROUNDS, n, streams, failed, wrong);
    for (int i = 0; i < RING; i++)
        udfkit_device_free(in[i]);
    udfkit_device_free(out);
    return NULL;
}

static void test_threads(void)
{
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, reduce_rounds, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
}

static void test_capture(void)
{
    const size_t n = 50000;
    int64_t sum_a, sum_b;
    int64_t *a = rows_on_device(n, 101, &sum_a), *b = rows_on_device(n, 202, &sum_b), *out = NULL;
    udfkit_device_alloc(2 * sizeof(int64_t), (void **)&out);
    CUstream s = new_stream();
    /* Blocks of s in the cache first, so that a capture taking one would find it. */
    CHECK(runtime_lib_reduce_add_i64((udfkit_stream)s, n, b, 0, out + 1) == UDFKIT_OK, "an ordinary reduce on s");
    CHECK(cu.begin_capture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) == CUDA_SUCCESS, "cuStreamBeginCapture");
    udfkit_status st = runtime_lib_reduce_add_i64((udfkit_stream)s, n, a, 0, out);
    CUgraph graph = NULL;
    CHECK(cu.end_capture(s, &graph) == CUDA_SUCCESS && graph, "cuStreamEndCapture");
    CHECK(st == UDFKIT_OK, "reduce captured: %s", udfkit_status_string(st));
    CUgraphNode nodes[64];
    size_t count = 64;
    int allocs = 0, frees = 0, kernels = 0;
    if (graph && cu.graph_nodes(graph, nodes, &count) == CUDA_SUCCESS)
        for (size_t i = 0; i < count; i++) {
            CUgraphNodeType type;
            cu.node_type(nodes[i], &type);
            allocs += type == CU_GRAPH_NODE_TYPE_MEM_ALLOC;
            frees += type == CU_GRAPH_NODE_TYPE_MEM_FREE;
            kernels += type == CU_GRAPH_NODE_TYPE_KERNEL;
        }
    CHECK(allocs == 1 && frees == 1 && kernels == 2,
          "the captured reduce allocates and frees its partials in the graph: %d allocations, %d frees, %d kernels",
          allocs, frees, kernels);
    CUgraphExec exec = NULL;
    CHECK(graph && cu.instantiate(&exec, graph, 0) == CUDA_SUCCESS, "cuGraphInstantiate");
    int wrong = 0;
    for (int round = 0; exec && round < 3; round++) {
        int64_t got[2] = {0, 0};
        udfkit_device_memset_async(out, 0, 2 * sizeof(int64_t), (udfkit_stream)s);
        CHECK(cu.graph_launch(exec, s) == CUDA_SUCCESS, "cuGraphLaunch");
        CHECK(runtime_lib_reduce_add_i64((udfkit_stream)s, n, b, 0, out + 1) == UDFKIT_OK, "reduce between");
        cu.stream_synchronize(s);
        udfkit_copy_to_host(got, out, sizeof got);
        wrong += (got[0] != sum_a) + (got[1] != sum_b);
    }
    CHECK(wrong == 0, "the graph's sum and the ordinary calls' between its launches: %d wrong", wrong);
    if (exec)
        cu.exec_destroy(exec);
    if (graph)
        cu.graph_destroy(graph);
    cu.stream_destroy(s);
    udfkit_device_free(a);
    udfkit_device_free(b);
    udfkit_device_free(out);
}

/* Last: the reset frees every allocation of the context. */
static void test_context_reset(void)
{
    const size_t n = 70000;
    int64_t sum, got = 0;
    int64_t *in = rows_on_device(n, 7, &sum), *out = NULL;
    udfkit_device_alloc(sizeof(int64_t), (void **)&out);
    CHECK(runtime_lib_reduce_add_i64(NULL, n, in, 0, out) == UDFKIT_OK && udfkit_copy_to_host(&got, out, 8) == 0 &&
              got == sum,
          "reduce before the reset");
    CUcontext current = NULL;
    CUdevice dev;
    CHECK(cu.ctx_get_current(&current) == CUDA_SUCCESS && cu.device_get(&dev, 0) == CUDA_SUCCESS &&
              cu.primary_reset(dev) == CUDA_SUCCESS,
          "cuDevicePrimaryCtxReset");
    /* As the CUDA runtime does on its next call after cudaDeviceReset. */
    CHECK(cu.primary_retain(&current, dev) == CUDA_SUCCESS && cu.ctx_set_current(current) == CUDA_SUCCESS,
          "the primary context retained again");
    in = rows_on_device(n, 8, &sum);
    udfkit_device_alloc(sizeof(int64_t), (void **)&out);
    got = 0;
    for (int round = 0; round < 3; round++) {
        udfkit_status st = runtime_lib_reduce_add_i64(NULL, n, in, 0, out);
        CHECK(st == UDFKIT_OK && udfkit_stream_synchronize(NULL) == UDFKIT_OK &&
                  udfkit_copy_to_host(&got, out, 8) == UDFKIT_OK && got == sum,
              "reduce %d after the reset: %s, %lld against %lld", round, udfkit_status_string(st), (long long)got,
              (long long)sum);
    }
    udfkit_device_free(in);
    udfkit_device_free(out);
}

int main(void)
{
    udfkit_status s = runtime_lib_load();
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        return 77;
    }
    CHECK(s == UDFKIT_OK, "runtime_lib_load: %s", udfkit_status_string(s));
    if (!load_driver()) {
        fprintf(stderr, "FAIL: the driver lacks a function the test calls\n");
        return 1;
    }
    test_same_stream();
    test_pending_use();
    test_threads();
    test_capture();
    test_context_reset();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
