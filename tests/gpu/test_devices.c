/* The runtime across devices, contexts and streams (docs/runtime.md): no stale or foreign
 * state.
 *
 * usage: test_devices one   two contexts on device 0 (exit 77 where no GPU is visible):
 *   - a stream destroyed with its scratch set, and new streams until one has its handle: the
 *     new stream takes nothing from the old scratch;
 *   - the NULL stream of two contexts (one handle): a scratch set for the first is not used
 *     by the second's launches, whose reduces are right;
 *   - a library whose code nvPTXCompiler compiled (UDFKIT_PTX_COMPILE=always) loaded in one
 *     context and launched in the other; whether its code waits (dependent launches) asked
 *     per context's device, against the device's compute capability and the code;
 *   - the UDF error record per context: a failed row in one context is not reported in the
 *     other, and each context reports its own;
 *   - udfkit_copy_to_device_async / _to_host_async in stream order behind a busy kernel;
 *   - udfkit_copy_to_device done when it returns: a thread per context copies 64 MiB of
 *     pageable memory and at once maps its last rows on a non-blocking stream, which does
 *     not wait for the legacy stream the copy ran on (the driver returns once the bytes are
 *     staged: before the fix, rounds read the last chunk's old rows);
 *   - last, cuDevicePrimaryCtxReset with a scratch set: after it, no memory of the old
 *     scratch is handed out, and the launchers are right.
 * usage: test_devices two   the same across devices 0 and 1 (exit 77, with a message, where
 *   fewer than two GPUs are visible): a scratch for device 0's NULL stream and launches on
 *   device 1's; a library loaded on device 0 (nvPTXCompiler's code, and a cubin linked at
 *   load time) launched on device 1, right where the architectures match and, where they
 *   differ, compiled again for device 1 or refused with a message; a thread per device with
 *   two streams each, every result right. */
#define _POSIX_C_SOURCE 200809L
#include "nk.h"
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

/* The runtime's answer for tests (library_devices.c). */
int udfkit_kernel_waits_here(udfkit_kernel k);

/* The driver functions the test calls itself, from libcuda (the program must start without
 * one, to be skipped). */
static struct {
    CUresult (*device_get)(CUdevice *, int);
    CUresult (*device_get_count)(int *);
    CUresult (*device_get_attribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (*ctx_create)(CUcontext *, unsigned int, CUdevice);           /* cuCtxCreate_v2 */
    CUresult (*ctx_create_v4)(CUcontext *, void *, unsigned int, CUdevice); /* where v2 is gone */
    CUresult (*ctx_destroy)(CUcontext);
    CUresult (*ctx_get_current)(CUcontext *);
    CUresult (*ctx_set_current)(CUcontext);
    CUresult (*primary_retain)(CUcontext *, CUdevice);
    CUresult (*primary_reset)(CUdevice);
    CUresult (*stream_create)(CUstream *, unsigned int);
    CUresult (*stream_destroy)(CUstream);
    CUresult (*stream_synchronize)(CUstream);
    CUresult (*mem_host_alloc)(void **, size_t, unsigned int);
    CUresult (*mem_free_host)(void *);
} cu;

static int load_driver(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
        return 0;
    *(void **)&cu.ctx_create = dlsym(lib, "cuCtxCreate_v2");
    *(void **)&cu.ctx_create_v4 = dlsym(lib, "cuCtxCreate_v4");
    if (!cu.ctx_create && !cu.ctx_create_v4)
        return 0;
#define SYM(field, name) (*(void **)&cu.field = dlsym(lib, name)) != NULL
    return SYM(device_get, "cuDeviceGet") && SYM(device_get_count, "cuDeviceGetCount") &&
           SYM(device_get_attribute, "cuDeviceGetAttribute") &&
           SYM(ctx_destroy, "cuCtxDestroy_v2") && SYM(ctx_get_current, "cuCtxGetCurrent") &&
           SYM(ctx_set_current, "cuCtxSetCurrent") && SYM(primary_retain, "cuDevicePrimaryCtxRetain") &&
           SYM(primary_reset, "cuDevicePrimaryCtxReset_v2") && SYM(stream_create, "cuStreamCreate") &&
           SYM(stream_destroy, "cuStreamDestroy_v2") && SYM(stream_synchronize, "cuStreamSynchronize") &&
           SYM(mem_host_alloc, "cuMemHostAlloc") && SYM(mem_free_host, "cuMemFreeHost");
#undef SYM
}

/* A context of its own on dev, made current. */
static CUresult create_context(CUcontext *c, CUdevice dev)
{
    return cu.ctx_create ? cu.ctx_create(c, 0, dev) : cu.ctx_create_v4(c, NULL, 0, dev);
}

static CUstream new_stream(void)
{
    CUstream s = NULL;
    CHECK(cu.stream_create(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS, "cuStreamCreate");
    return s;
}

static bool inside(const void *p, const void *base, size_t bytes)
{
    return (const char *)p >= (const char *)base && (const char *)p < (const char *)base + bytes;
}

/* n rows that depend on `seed`, on the device of the current context, and their sum. */
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

/* A reduce of 2^16 + 11 rows on s in the current context: whether its sum is right. */
static bool reduce_right(udfkit_stream s, int64_t seed)
{
    const size_t n = (1u << 16) + 11;
    int64_t sum, got = 0, *out = NULL;
    int64_t *in = rows_on_device(n, seed, &sum);
    udfkit_status st = udfkit_device_alloc(sizeof *out, (void **)&out);
    if (!st)
        st = runtime_lib_reduce_add_i64(s, n, in, 0, out);
    if (!st)
        st = udfkit_stream_synchronize(s);
    if (!st)
        st = udfkit_copy_to_host(&got, out, sizeof got);
    udfkit_device_free(in);
    udfkit_device_free(out);
    if (st || got != sum)
        fprintf(stderr, "reduce: %s, %lld against %lld (%s)\n", udfkit_status_string(st), (long long)got,
                (long long)sum, udfkit_last_error());
    return !st && got == sum;
}

/* fill_triple of lib on s over n ints: whether every one is 3 * i. */
static bool fill_right(udfkit_library *lib, udfkit_stream s, const char *what)
{
    enum { N = 5000 };
    udfkit_kernel k = NULL;
    int *dev = NULL;
    static int host[N];
    unsigned long long n = N;
    udfkit_status st = udfkit_library_get_kernel(lib, "fill_triple", &k);
    if (!st)
        st = udfkit_device_alloc(sizeof host, (void **)&dev);
    void *args[] = {&dev, &n};
    if (!st)
        st = udfkit_launch(k, (udfkit_dim3){8, 1, 1}, (udfkit_dim3){128, 1, 1}, 0, s, args);
    if (!st)
        st = udfkit_stream_synchronize(s);
    memset(host, 0, sizeof host);
    if (!st)
        st = udfkit_copy_to_host(host, dev, sizeof host);
    udfkit_device_free(dev);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += host[i] != 3 * i;
    if (st || wrong)
        fprintf(stderr, "%s: %s, %d wrong (%s)\n", what, udfkit_status_string(st), wrong, udfkit_last_error());
    return !st && !wrong;
}

static int compute_major(CUdevice dev)
{
    int major = 0;
    cu.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    return major;
}

/* ---- one GPU, two contexts ---- */

static void test_recycled_stream(void)
{
    const size_t bytes = 1u << 20;
    void *scratch = NULL, *p = NULL;
    CHECK(udfkit_device_alloc(bytes, &scratch) == UDFKIT_OK, "the scratch");
    CUstream old = new_stream();
    CHECK(udfkit_stream_scratch((udfkit_stream)old, scratch, bytes) == UDFKIT_OK, "scratch set for a stream");
    CHECK(udfkit_device_alloc_async(1000, (udfkit_stream)old, &p) == UDFKIT_OK && inside(p, scratch, bytes),
          "the stream's temporary memory comes from its scratch");
    udfkit_device_free_async(p, (udfkit_stream)old);
    CHECK(reduce_right((udfkit_stream)old, 1), "a reduce on the stream with scratch");
    cu.stream_destroy(old); /* without ending its scratch */
    /* New streams until one comes at the old handle (the others kept, so that the driver
     * hands out another). */
    enum { TRIES = 512 };
    CUstream made[TRIES], again = NULL;
    int count = 0;
    for (; count < TRIES && !again; count++) {
        made[count] = new_stream();
        if (made[count] == old)
            again = made[count];
    }
    if (!again) {
        printf("the driver gave no stream the destroyed one's handle in %d streams: checked on a new stream\n", TRIES);
        again = made[count - 1];
    } else {
        printf("a new stream had the destroyed one's handle after %d streams\n", count);
    }
    void *a = NULL, *b = NULL;
    CHECK(udfkit_device_alloc_async(1000, (udfkit_stream)again, &a) == UDFKIT_OK &&
              udfkit_device_alloc_async(1000, (udfkit_stream)again, &b) == UDFKIT_OK && !inside(a, scratch, bytes) &&
              !inside(b, scratch, bytes),
          "a new stream at the destroyed one's handle takes nothing from its scratch (%p, %p; scratch %p)", a, b,
          scratch);
    udfkit_device_free_async(a, (udfkit_stream)again);
    udfkit_device_free_async(b, (udfkit_stream)again);
    /* The old scratch freed, as its owner may once its stream is gone: launches are right. */
    udfkit_synchronize();
    udfkit_device_free(scratch);
    CHECK(reduce_right((udfkit_stream)again, 2), "a reduce on the new stream after the old scratch was freed");
    for (int i = 0; i < count; i++) {
        cu.stream_synchronize(made[i]);
        cu.stream_destroy(made[i]);
    }
}

/* Device memory of `bytes` made the NULL stream's scratch in the current context. */
static void *null_stream_scratch(size_t bytes)
{
    void *scratch = NULL;
    CHECK(udfkit_device_alloc(bytes, &scratch) == UDFKIT_OK &&
              udfkit_stream_scratch(NULL, scratch, bytes) == UDFKIT_OK,
          "scratch for the NULL stream");
    return scratch;
}

/* The NULL stream of `other` (another context; of another device in `two`) uses nothing of
 * the current context's NULL-stream scratch; back in the first, the scratch serves. */
static void check_null_streams(CUcontext first, CUcontext other, const char *what)
{
    const size_t bytes = 1u << 20;
    cu.ctx_set_current(first);
    void *scratch = null_stream_scratch(bytes), *p = NULL, *q = NULL;
    CHECK(udfkit_device_alloc_async(64, NULL, &p) == UDFKIT_OK && inside(p, scratch, bytes),
          "%s: the first context's NULL stream takes its scratch", what);
    udfkit_device_free_async(p, NULL);
    cu.ctx_set_current(other);
    CHECK(udfkit_device_alloc_async(64, NULL, &q) == UDFKIT_OK && !inside(q, scratch, bytes),
          "%s: the other context's NULL stream takes nothing of the first's scratch (%p; scratch %p)", what, q,
          scratch);
    udfkit_device_free_async(q, NULL);
    CHECK(reduce_right(NULL, 3), "%s: a reduce on the other context's NULL stream", what);
    cu.ctx_set_current(first);
    CHECK(reduce_right(NULL, 4), "%s: a reduce on the first context's NULL stream, from its scratch", what);
    CHECK(udfkit_stream_scratch(NULL, NULL, 0) == UDFKIT_OK, "%s: the scratch ended", what);
    udfkit_device_free(scratch);
}

/* A library of nvPTXCompiler's code loaded in `first` and launched in both. */
static void check_library_across(CUcontext first, CUcontext other, const char *what)
{
    cu.ctx_set_current(first);
    setenv("UDFKIT_PTX_COMPILE", "always", 1);
    udfkit_library *lib = NULL;
    udfkit_status st = udfkit_library_load(runtime_lib_fatbin, runtime_lib_fatbin_size, &lib);
    setenv("UDFKIT_PTX_COMPILE", "auto", 1);
    CHECK(st == UDFKIT_OK, "%s: runtime_lib's fatbin loaded with UDFKIT_PTX_COMPILE=always", what);
    if (st)
        return;
    CHECK(fill_right(lib, NULL, "fill_triple where it was loaded"), "%s: launched where it was loaded", what);
    cu.ctx_set_current(other);
    CHECK(fill_right(lib, NULL, "fill_triple in the other context"), "%s: launched in the other context", what);
    cu.ctx_set_current(first);
    udfkit_library_unload(lib);
}

/* Whether runtime_lib's reduce pass waits for the one before, per device: its code for
 * compute_90 and later has udfkit_dependent_launch, its sm_80 SASS not. */
static void check_dependent(CUcontext ctx, CUdevice dev, const char *what)
{
    cu.ctx_set_current(ctx);
    udfkit_kernel any = NULL;
    udfkit_library *lib = runtime_lib_library();
    int waits = -1;
    if (lib && udfkit_library_get_kernel(lib, "fill_triple", &any) == UDFKIT_OK)
        waits = udfkit_kernel_waits_here(any);
    const int major = compute_major(dev);
    CHECK(waits == (major >= 9), "%s: the code on this compute capability %d.x device %s", what, major,
          waits < 0 ? "could not be asked" : waits ? "waits for the pass before" : "does not wait");
}

/* A failing row in one context is the record of that context only. */
static void check_udf_error_per_context(CUcontext a, CUcontext b)
{
    enum { N = 2000 };
    static int32_t x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = i + 1;
        y[i] = 1 + i % 7;
    }
    const int row_a = 1234, row_b = 77;
    CUcontext ctxs[2] = {a, b};
    const int rows[2] = {row_a, row_b};
    for (int c = 0; c < 2; c++) {
        cu.ctx_set_current(ctxs[c]);
        y[rows[c]] = 0;
        int32_t *dx = device_copy(x, sizeof x), *dy = device_copy(y, sizeof y), *dout = device_copy(NULL, sizeof x);
        y[rows[c]] = 1 + rows[c] % 7;
        CHECK(nk_map_checked_div(NULL, N, dx, dy, dout) == UDFKIT_OK, "map(checked_div) in context %d", c);
        udfkit_synchronize();
        udfkit_device_free(dx);
        udfkit_device_free(dy);
        udfkit_device_free(dout);
    }
    for (int c = 0; c < 2; c++) {
        cu.ctx_set_current(ctxs[c]);
        uint64_t row = 0;
        int code = 0;
        udfkit_status st = nk_udf_error(NULL, &row, &code);
        CHECK(st == UDFKIT_ERROR_UDF && row == (uint64_t)rows[c] && code == rows[c] + 1,
              "context %d reports its own failed row: %s, row %llu code %d (want row %d code %d)", c,
              udfkit_status_string(st), (unsigned long long)row, code, rows[c], rows[c] + 1);
        CHECK(nk_udf_error(NULL, &row, &code) == UDFKIT_OK, "context %d's record is cleared", c);
    }
}

/* Stream-ordered copies behind a kernel that keeps the stream busy until released: the copy
 * to the device reads the page-locked buffer when the stream reaches it (after the host
 * changed it to -1s), the copy back runs after it. Copies run at once, or out of order,
 * would leave 7i + 1 or 0 in `back`. */
static void test_async_copies(void)
{
    enum { N = 4096 };
    udfkit_library *lib = runtime_lib_library();
    udfkit_kernel spin = NULL;
    CHECK(lib && udfkit_library_get_kernel(lib, "spin_until", &spin) == UDFKIT_OK, "spin_until");
    int *pinned = NULL, *back = NULL, *dev = NULL, *release = NULL, one = 1;
    CHECK(cu.mem_host_alloc((void **)&pinned, N * sizeof *pinned, 0) == CUDA_SUCCESS &&
              cu.mem_host_alloc((void **)&back, N * sizeof *back, 0) == CUDA_SUCCESS,
          "page-locked host memory");
    CHECK(udfkit_device_alloc(N * sizeof *dev, (void **)&dev) == UDFKIT_OK &&
              udfkit_device_alloc(sizeof *release, (void **)&release) == UDFKIT_OK &&
              udfkit_device_memset_async(release, 0, sizeof *release, NULL) == UDFKIT_OK &&
              udfkit_device_memset_async(dev, 0, N * sizeof *dev, NULL) == UDFKIT_OK &&
              udfkit_synchronize() == UDFKIT_OK,
          "device memory");
    if (!pinned || !back || !dev || !release || !spin)
        return;
    for (int i = 0; i < N; i++) {
        pinned[i] = 7 * i + 1;
        back[i] = -5;
    }
    CUstream s = new_stream();
    unsigned long long timeout = 20000000000ull;
    void *spin_args[] = {&release, &timeout};
    const udfkit_dim3 single = {1, 1, 1};
    CHECK(udfkit_launch(spin, single, single, 0, (udfkit_stream)s, spin_args) == UDFKIT_OK, "the stream busy");
    CHECK(udfkit_copy_to_device_async(dev, pinned, N * sizeof *pinned, (udfkit_stream)s) == UDFKIT_OK,
          "copy to the device queued");
    for (int i = 0; i < N; i++)
        pinned[i] = -1;
    CHECK(udfkit_copy_to_host_async(back, dev, N * sizeof *back, (udfkit_stream)s) == UDFKIT_OK,
          "copy back queued");
    int untouched = 0;
    for (int i = 0; i < N; i++)
        untouched += back[i] == -5;
    CHECK(udfkit_copy_to_device(release, &one, sizeof one) == UDFKIT_OK, "release");
    CHECK(udfkit_stream_synchronize((udfkit_stream)s) == UDFKIT_OK, "the stream done");
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += back[i] != -1;
    CHECK(untouched == N && wrong == 0,
          "the copies ran in stream order after the kernel: %d of %d untouched before the release, %d not -1 after",
          untouched, N, wrong);
    CHECK(udfkit_copy_to_device_async(NULL, pinned, 4, (udfkit_stream)s) == UDFKIT_ERROR_INVALID_ARGUMENT,
          "a copy to NULL refused");
    CHECK(udfkit_copy_to_host_async(pinned, dev, 0, (udfkit_stream)s) == UDFKIT_OK, "a copy of 0 bytes");
    cu.stream_destroy(s);
    udfkit_device_free(dev);
    udfkit_device_free(release);
    cu.mem_free_host(pinned);
    cu.mem_free_host(back);
}

/* ---- a copy to the device, then at once a kernel on a non-blocking stream ---- */

typedef struct copy_work {
    CUcontext ctx;
    int id, stale, failed;
    char last[256];
} copy_work;

static void *copy_then_map(void *arg)
{
    copy_work *w = arg;
    enum { ROUNDS = 16 };
    const size_t n = (size_t)8 << 20, tail = 4096; /* 64 MiB of int64 rows; the last 4096 mapped */
    cu.ctx_set_current(w->ctx);
    CUstream s = new_stream();
    int64_t *host = malloc(n * sizeof *host), *back = malloc(tail * sizeof *back), *dev = NULL, *out = NULL;
    udfkit_status st = host && back ? UDFKIT_OK : UDFKIT_ERROR_OUT_OF_MEMORY;
    if (!st)
        st = udfkit_device_alloc(n * sizeof *dev, (void **)&dev);
    if (!st)
        st = udfkit_device_alloc(tail * sizeof *out, (void **)&out);
    for (int round = 0; !st && round < ROUNDS; round++) {
        const int64_t base = ((int64_t)w->id * ROUNDS + round) * 1000003;
        for (size_t i = 0; i < n; i++)
            host[i] = base + (int64_t)i;
        if ((st = udfkit_copy_to_device(dev, host, n * sizeof *host)))
            break;
        /* Right away, on a stream that does not wait for the legacy one. */
        if (!st)
            st = runtime_lib_map_inc_i64((udfkit_stream)s, tail, dev + (n - tail), out);
        if (!st)
            st = udfkit_stream_synchronize((udfkit_stream)s);
        if (!st)
            st = udfkit_copy_to_host(back, out, tail * sizeof *back);
        size_t wrong = 0;
        for (size_t j = 0; !st && j < tail; j++)
            wrong += back[j] != base + (int64_t)(n - tail + j) + 1;
        if (wrong) {
            w->stale++;
            snprintf(w->last, sizeof w->last, "round %d: %zu of the last %zu rows were not the copied ones", round,
                     wrong, tail);
        }
    }
    if (st) {
        w->failed = 1;
        snprintf(w->last, sizeof w->last, "%s", udfkit_last_error());
    }
    cu.stream_synchronize(s);
    cu.stream_destroy(s);
    udfkit_device_free(dev);
    udfkit_device_free(out);
    free(host);
    free(back);
    return NULL;
}

static void test_copy_then_launch(CUcontext a, CUcontext b)
{
    copy_work w[2] = {{a, 0, 0, 0, ""}, {b, 1, 0, 0, ""}};
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&threads[i], NULL, copy_then_map, &w[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < 2; i++)
        CHECK(!w[i].failed && w[i].stale == 0,
              "context %d: a kernel on a non-blocking stream right after udfkit_copy_to_device reads the copied rows: "
              "%d stale rounds of 16 (%s)",
              i, w[i].stale, w[i].last[0] ? w[i].last : "-");
}

/* Last: the reset frees every allocation of the context, the scratch's too. */
static void test_context_reset(CUdevice dev)
{
    const size_t bytes = 1u << 20;
    void *scratch = null_stream_scratch(bytes), *a = NULL, *b = NULL;
    CHECK(reduce_right(NULL, 5), "a reduce from the scratch before the reset");
    CUcontext ctx = NULL;
    CHECK(cu.primary_reset(dev) == CUDA_SUCCESS, "cuDevicePrimaryCtxReset");
    /* As the CUDA runtime does on its next call after cudaDeviceReset. */
    CHECK(cu.primary_retain(&ctx, dev) == CUDA_SUCCESS && cu.ctx_set_current(ctx) == CUDA_SUCCESS,
          "the primary context retained again");
    /* Two requests held at once: from one scratch they would be 1024 bytes apart; the
     * temporary blocks are 64 KiB each. */
    CHECK(udfkit_device_alloc_async(1000, NULL, &a) == UDFKIT_OK && udfkit_device_alloc_async(1000, NULL, &b) == UDFKIT_OK,
          "temporary memory after the reset");
    const long long apart = (long long)((char *)b - (char *)a);
    CHECK(apart != 1024 /* 1000 rounded up to the scratch's 256-byte alignment */, "after the reset, nothing from the reset context's scratch (%p, %p; scratch %p)",
          a, b, scratch);
    udfkit_device_free_async(a, NULL);
    udfkit_device_free_async(b, NULL);
    for (int round = 0; round < 3; round++)
        CHECK(reduce_right(NULL, 6 + round), "reduce %d after the reset", round);
    void *again = null_stream_scratch(bytes), *c = NULL;
    CHECK(udfkit_device_alloc_async(64, NULL, &c) == UDFKIT_OK && inside(c, again, bytes),
          "a scratch set after the reset serves");
    udfkit_device_free_async(c, NULL);
    CHECK(reduce_right(NULL, 9), "a reduce from the new scratch");
    udfkit_stream_scratch(NULL, NULL, 0);
    udfkit_device_free(again);
}

static int run_one(void)
{
    CUdevice dev;
    CUcontext primary = NULL, other = NULL;
    CHECK(cu.device_get(&dev, 0) == CUDA_SUCCESS && cu.ctx_get_current(&primary) == CUDA_SUCCESS && primary,
          "device 0's primary context");
    CHECK(create_context(&other, dev) == CUDA_SUCCESS && other, "a second context on device 0");
    cu.ctx_set_current(primary);
    if (!primary || !other)
        return 1;
    test_recycled_stream();
    check_null_streams(primary, other, "two contexts of device 0");
    check_library_across(primary, other, "two contexts of device 0");
    check_dependent(primary, dev, "device 0's primary context");
    check_dependent(other, dev, "device 0's second context");
    check_udf_error_per_context(primary, other);
    cu.ctx_set_current(primary);
    test_async_copies();
    test_copy_then_launch(primary, other);
    cu.ctx_set_current(primary);
    cu.ctx_destroy(other);
    cu.ctx_set_current(primary);
    test_context_reset(dev);
    return 0;
}

/* ---- two GPUs ---- */

typedef struct device_work {
    CUcontext ctx;
    int device;
    int wrong;
    char last[256]; /* the thread's own last error (udfkit_last_error is per thread) */
} device_work;

/* Two streams of one device, one with scratch, reducing in turn. */
static void *device_thread(void *arg)
{
    device_work *w = arg;
    cu.ctx_set_current(w->ctx);
    CUstream s[2] = {new_stream(), new_stream()};
    const size_t bytes = 1u << 20;
    void *scratch = NULL;
    udfkit_device_alloc(bytes, &scratch);
    if (udfkit_stream_scratch((udfkit_stream)s[0], scratch, bytes) != UDFKIT_OK)
        w->wrong++;
    for (int round = 0; round < 40; round++)
        if (!reduce_right((udfkit_stream)s[round % 2], w->device * 1000 + round)) {
            w->wrong++;
            snprintf(w->last, sizeof w->last, "last wrong: round %d on stream %d, its line 'reduce: ...' above", round,
                     round % 2);
        }
    udfkit_stream_scratch((udfkit_stream)s[0], NULL, 0);
    for (int i = 0; i < 2; i++) {
        cu.stream_synchronize(s[i]);
        cu.stream_destroy(s[i]);
    }
    udfkit_device_free(scratch);
    return NULL;
}

/* A cubin linked at load time on device 0, launched on device 1. */
static void check_linked_across(CUcontext first, CUcontext other, int same_arch, const char *rto)
{
    if (!rto)
        return;
    size_t ks = 0, us = 0;
    char path[4096];
    void *parts_data[2] = {NULL, NULL};
    size_t *sizes[2] = {&ks, &us};
    const char *names[2] = {"late_kernel.ltoir", "late_udf.ltoir"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", rto, names[i]);
        FILE *f = fopen(path, "rb");
        if (!f)
            break;
        fseek(f, 0, SEEK_END);
        *sizes[i] = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        parts_data[i] = malloc(*sizes[i]);
        if (fread(parts_data[i], 1, *sizes[i], f) != *sizes[i])
            *sizes[i] = 0;
        fclose(f);
    }
    CHECK(ks && us, "the LTO-IR parts in %s", rto);
    if (!ks || !us)
        return;
    const udfkit_image parts[2] = {{parts_data[0], ks}, {parts_data[1], us}};
    cu.ctx_set_current(first);
    udfkit_library *lib = NULL;
    CHECK(udfkit_library_link(parts, 2, &lib) == UDFKIT_OK, "linked on device 0");
    udfkit_kernel k = NULL;
    if (lib)
        udfkit_library_get_kernel(lib, "apply_late", &k);
    /* The caller's own code (no udfkit kernels): udfkit_launch_dependent's contract holds. */
    CHECK(k && udfkit_kernel_waits_here(k) == 1, "linked code of the caller's is launched dependently, on device 0");
    cu.ctx_set_current(other);
    enum { N = 1000 };
    float in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)i / 8;
    float *din = device_copy(in, sizeof in), *dout = device_copy(NULL, sizeof out);
    unsigned long long n = N;
    void *args[] = {&din, &dout, &n};
    udfkit_status st = k ? udfkit_launch(k, (udfkit_dim3){4, 1, 1}, (udfkit_dim3){128, 1, 1}, 0, NULL, args)
                         : UDFKIT_ERROR_NOT_FOUND;
    if (same_arch) {
        int wrong = 0;
        if (!st)
            st = udfkit_copy_to_host(out, dout, sizeof out);
        for (int i = 0; !st && i < N; i++)
            wrong += out[i] != in[i] * in[i] + 1.0f;
        CHECK(!st && !wrong, "the cubin linked on device 0 runs on device 1 (same architecture): %d wrong", wrong);
    } else {
        CHECK(st == UDFKIT_ERROR_NO_BINARY && strstr(udfkit_last_error(), "cannot run"),
              "the cubin linked on device 0 is refused on device 1 (another architecture), with a message: %s",
              udfkit_last_error());
    }
    udfkit_device_free(din);
    udfkit_device_free(dout);
    cu.ctx_set_current(first);
    udfkit_library_unload(lib);
    free(parts_data[0]);
    free(parts_data[1]);
}

static int run_two(const char *rto)
{
    int count = 0;
    cu.device_get_count(&count);
    if (count < 2) {
        printf("skipped: %d GPU visible; this test needs two (run it on a two-GPU machine)\n", count);
        return 77;
    }
    CUdevice d0, d1;
    CUcontext c0 = NULL, c1 = NULL;
    CHECK(cu.device_get(&d0, 0) == CUDA_SUCCESS && cu.device_get(&d1, 1) == CUDA_SUCCESS &&
              cu.primary_retain(&c0, d0) == CUDA_SUCCESS && cu.primary_retain(&c1, d1) == CUDA_SUCCESS,
          "the primary contexts of devices 0 and 1");
    if (!c0 || !c1)
        return 1;
    int cc[2][2];
    for (int i = 0; i < 2; i++) {
        cu.device_get_attribute(&cc[i][0], CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, i ? d1 : d0);
        cu.device_get_attribute(&cc[i][1], CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, i ? d1 : d0);
    }
    const int same_arch = cc[0][0] == cc[1][0] && cc[0][1] == cc[1][1];
    printf("device 0: sm_%d%d, device 1: sm_%d%d\n", cc[0][0], cc[0][1], cc[1][0], cc[1][1]);
    /* runtime_lib loaded by device 0 (its launchers load it once for the process). */
    cu.ctx_set_current(c0);
    CHECK(runtime_lib_load() == UDFKIT_OK, "runtime_lib loaded on device 0");
    check_null_streams(c0, c1, "devices 0 and 1");
    check_library_across(c0, c1, "devices 0 and 1");
    check_dependent(c0, d0, "device 0");
    check_dependent(c1, d1, "device 1");
    check_udf_error_per_context(c0, c1);
    check_linked_across(c0, c1, same_arch, rto);
    device_work w[2] = {{c0, 0, 0, ""}, {c1, 1, 0, ""}};
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&threads[i], NULL, device_thread, &w[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    CHECK(w[0].wrong == 0 && w[1].wrong == 0,
          "a thread per device, two streams each (one with scratch): %d and %d wrong reduces (device 0: %s; device 1: "
          "%s)",
          w[0].wrong, w[1].wrong, w[0].wrong ? w[0].last : "-", w[1].wrong ? w[1].last : "-");
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "one";
    if (strcmp(mode, "one") != 0 && strcmp(mode, "two") != 0) {
        fprintf(stderr, "usage: test_devices one|two [runtime artifacts dir]\n");
        return 2;
    }
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
    int rc = strcmp(mode, "one") == 0 ? run_one() : run_two(argc > 2 ? argv[2] : NULL);
    if (rc == 77)
        return 77;
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0 || rc != 0;
}
