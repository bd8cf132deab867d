/* The runtime on a GPU: the generated launchers for every type, a SOURCES kernel by name,
 * a caller-owned context and stream, load-time linking (and its cache across processes),
 * the PTX paths (driver JIT, nvPTXCompiler, PTX newer than both) and the error paths.
 *
 * usage: test_runtime all|cached <runtime artifacts dir> <test artifacts dir>
 * UDFKIT_CACHE_DIR names the cache that `all` empties and `cached` expects to hit.
 * Exit 77 (skipped) where no GPU is visible. */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "runtime_lib.h"
#include "gpu_test.h"

#include <udfkit/runtime.h>

#include <dlfcn.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *rto, *out;

static void *read_file(const char *dir, const char *name, size_t *size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc(*size + 1);
    if (fread(data, 1, *size, f) != *size)
        exit(1);
    data[*size] = '\0';
    fclose(f);
    return data;
}

static void *upload(const void *host, size_t bytes)
{
    void *d = NULL;
    if (udfkit_device_alloc(bytes, &d) || udfkit_copy_to_device(d, host, bytes)) {
        fprintf(stderr, "device memory: %s\n", udfkit_last_error());
        exit(1);
    }
    return d;
}

/* ---- the launchers, for every type ---- */

#define N 3001

#define MAP_CASE(fn, T, make, expect)                                                                      \
    do {                                                                                                   \
        T in[N], got[N];                                                                                   \
        for (int i = 0; i < N; i++)                                                                        \
            in[i] = (T)(make);                                                                             \
        void *din = upload(in, sizeof in), *dout = NULL;                                                   \
        udfkit_device_alloc(sizeof got, &dout);                                                            \
        udfkit_status s = runtime_lib_map_##fn(NULL, N, din, dout);                                       \
        udfkit_synchronize();                                                                              \
        udfkit_copy_to_host(got, dout, sizeof got);                                                        \
        int wrong = 0;                                                                                     \
        for (int i = 0; i < N; i++)                                                                        \
            wrong += !(got[i] == (T)(expect));                                                             \
        CHECK(s == UDFKIT_OK && wrong == 0, "map(" #fn "): %d of %d wrong", wrong, N);                      \
        udfkit_device_free(din);                                                                           \
        udfkit_device_free(dout);                                                                          \
    } while (0)

static uint16_t half_bits(float f)
{
    /* exact for the small integers used here */
    uint32_t b;
    memcpy(&b, &f, 4);
    uint32_t sign = (b >> 16) & 0x8000, exp = (b >> 23) & 0xff, mant = b & 0x7fffff;
    if (exp == 0)
        return (uint16_t)sign;
    return (uint16_t)(sign | ((exp - 112) << 10) | (mant >> 13));
}

static void test_launchers(void)
{
    MAP_CASE(not_b, bool, i % 3 == 0, !in[i]);
    MAP_CASE(inc_i8, int8_t, (i % 250) - 125, in[i] + 1);
    MAP_CASE(inc_i16, int16_t, i - 1500, in[i] + 1);
    MAP_CASE(inc_i32, int32_t, i * 1000 - 7, in[i] + 1);
    MAP_CASE(inc_i64, int64_t, (int64_t)i * 10000000000LL, in[i] + 1);
    MAP_CASE(inc_u8, uint8_t, i % 255, in[i] + 1);
    MAP_CASE(inc_u16, uint16_t, i * 7, in[i] + 1);
    MAP_CASE(inc_u32, uint32_t, i * 1000003u, in[i] + 1u);
    MAP_CASE(inc_u64, uint64_t, (uint64_t)i << 40, in[i] + 1u);
    MAP_CASE(twice_f16, uint16_t, half_bits((float)(i % 500)), half_bits(2.0f * (float)(i % 500)));
    MAP_CASE(twice_f32, float, i * 0.5f, 2.0f * in[i]);
    MAP_CASE(twice_f64, double, i * 0.25, 2.0 * in[i]);

    /* reduce, for several types; n = 0 gives init */
    int32_t i32[N];
    int64_t i64[N];
    uint64_t u64[N];
    double f64[N];
    int64_t want_i32 = 0, want_i64 = 5;
    uint64_t want_u64 = 1;
    double want_f64 = 0.5;
    for (int i = 0; i < N; i++) {
        i32[i] = i - 1000;
        i64[i] = (int64_t)i * 3000000000LL;
        u64[i] = (uint64_t)i * i;
        f64[i] = i * 0.125;
        want_i32 += i32[i];
        want_i64 += i64[i];
        want_u64 += u64[i];
        want_f64 += f64[i];
    }
    void *d32 = upload(i32, sizeof i32), *d64 = upload(i64, sizeof i64), *du64 = upload(u64, sizeof u64),
         *df64 = upload(f64, sizeof f64), *dres;
    udfkit_device_alloc(8, &dres);
    int32_t r32;
    int64_t r64;
    uint64_t ru64;
    double rf64;
    CHECK(runtime_lib_reduce_add_i32(NULL, N, d32, 0, dres) == UDFKIT_OK, "reduce(add_i32)");
    udfkit_copy_to_host(&r32, dres, 4);
    CHECK(r32 == (int32_t)want_i32, "reduce(add_i32) = %d, want %lld", r32, (long long)want_i32);
    CHECK(runtime_lib_reduce_add_i64(NULL, N, d64, 5, dres) == UDFKIT_OK, "reduce(add_i64)");
    udfkit_copy_to_host(&r64, dres, 8);
    CHECK(r64 == want_i64, "reduce(add_i64) = %lld, want %lld", (long long)r64, (long long)want_i64);
    CHECK(runtime_lib_reduce_add_u64(NULL, N, du64, 1, dres) == UDFKIT_OK, "reduce(add_u64)");
    udfkit_copy_to_host(&ru64, dres, 8);
    CHECK(ru64 == want_u64, "reduce(add_u64)");
    CHECK(runtime_lib_reduce_add_f64(NULL, N, df64, 0.5, dres) == UDFKIT_OK, "reduce(add_f64)");
    udfkit_copy_to_host(&rf64, dres, 8);
    CHECK(fabs(rf64 - want_f64) < 1e-9 * want_f64, "reduce(add_f64) = %g, want %g", rf64, want_f64);
    CHECK(runtime_lib_reduce_add_f64(NULL, 0, df64, 42.0, dres) == UDFKIT_OK, "reduce over no rows");
    udfkit_copy_to_host(&rf64, dres, 8);
    CHECK(rf64 == 42.0, "reduce over no rows gives init, got %g", rf64);

    /* filter: int16 and float64 predicates; ascending indices and their count */
    int16_t s16[N];
    for (int i = 0; i < N; i++)
        s16[i] = (int16_t)(i * 7 - 9000);
    void *ds16 = upload(s16, sizeof s16), *dind, *dcount;
    udfkit_device_alloc(N * 8, &dind);
    udfkit_device_alloc(8, &dcount);
    uint64_t count, *ind = malloc(N * 8);
    CHECK(runtime_lib_filter_is_odd16(NULL, N, ds16, dind, dcount) == UDFKIT_OK, "filter(is_odd16)");
    udfkit_copy_to_host(&count, dcount, 8);
    udfkit_copy_to_host(ind, dind, N * 8);
    uint64_t k = 0;
    int wrong = 0;
    for (int i = 0; i < N; i++)
        if (s16[i] & 1)
            wrong += k >= count || ind[k++] != (uint64_t)i;
    CHECK(wrong == 0 && k == count, "filter(is_odd16): %d wrong, count %llu of %llu", wrong, (unsigned long long)count,
          (unsigned long long)k);
    for (int i = 0; i < N; i++)
        f64[i] = (i % 5 == 0) ? -i - 1.0 : i;
    void *dneg = upload(f64, sizeof f64);
    CHECK(runtime_lib_filter_is_neg64(NULL, N, dneg, dind, dcount) == UDFKIT_OK, "filter(is_neg64)");
    udfkit_copy_to_host(&count, dcount, 8);
    CHECK(count == (N + 4) / 5, "filter(is_neg64) count %llu", (unsigned long long)count);
    free(ind);
    udfkit_device_free(d32);
    udfkit_device_free(d64);
    udfkit_device_free(du64);
    udfkit_device_free(df64);
    udfkit_device_free(dres);
    udfkit_device_free(ds16);
    udfkit_device_free(dind);
    udfkit_device_free(dcount);
    udfkit_device_free(dneg);
}

/* ---- a SOURCES kernel by name ---- */

static void test_by_name(void)
{
    udfkit_library *lib = runtime_lib_library();
    udfkit_kernel k;
    CHECK(lib != NULL, "runtime_lib_library()");
    CHECK(udfkit_library_get_kernel(lib, "fill_triple", &k) == UDFKIT_OK, "fill_triple by name");
    CHECK(udfkit_library_get_kernel(lib, "no_such_kernel", &k) == UDFKIT_ERROR_NOT_FOUND, "a missing kernel");
    /* A kernel without extern "C": the message names its C++ name, which finds it. */
    CHECK(udfkit_library_get_kernel(lib, "fill_double", &k) == UDFKIT_ERROR_NOT_FOUND &&
              strstr(udfkit_last_error(), "'_Z11fill_doublePiy', the C++ name of a kernel 'fill_double'") &&
              strstr(udfkit_last_error(), "extern \"C\""),
          "a C++ kernel asked by its plain name: %s", udfkit_last_error());
    CHECK(udfkit_library_get_kernel(lib, "_Z11fill_doublePiy", &k) == UDFKIT_OK, "and found by its C++ name");
    udfkit_library_get_kernel(lib, "fill_triple", &k);
    int *d, host[N];
    unsigned long long n = N;
    udfkit_device_alloc(sizeof host, (void **)&d);
    void *args[] = {&d, &n};
    CHECK(udfkit_launch(k, (udfkit_dim3){8, 1, 1}, (udfkit_dim3){128, 1, 1}, 0, NULL, args) == UDFKIT_OK, "launch");
    udfkit_copy_to_host(host, d, sizeof host);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += host[i] != 3 * i;
    CHECK(wrong == 0, "fill_triple: %d wrong", wrong);
    udfkit_device_free(d);
}

/* ---- a context and a stream of the caller's own ---- */

typedef int (*ctx_create_fn)(void **, void *, unsigned, int);
typedef int (*ctx_fn)(void *);
typedef int (*ctx_get_fn)(void **);
typedef int (*stream_create_fn)(void **, unsigned);
typedef int (*stream_fn)(void *);

static void test_caller_context(void)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
    ctx_create_fn create = (ctx_create_fn)dlsym(cuda, "cuCtxCreate_v4");
    ctx_fn destroy = (ctx_fn)dlsym(cuda, "cuCtxDestroy_v2");
    ctx_fn set = (ctx_fn)dlsym(cuda, "cuCtxSetCurrent");
    ctx_get_fn get = (ctx_get_fn)dlsym(cuda, "cuCtxGetCurrent");
    stream_create_fn stream_create = (stream_create_fn)dlsym(cuda, "cuStreamCreate");
    stream_fn stream_sync = (stream_fn)dlsym(cuda, "cuStreamSynchronize");
    stream_fn stream_destroy = (stream_fn)dlsym(cuda, "cuStreamDestroy_v2");
    void *before = NULL, *mine = NULL, *after = NULL, *stream = NULL;
    get(&before);
    if (!create || create(&mine, NULL, 0, 0) != 0) {
        CHECK(0, "cuCtxCreate");
        return;
    }
    set(mine);
    CHECK(stream_create(&stream, 1) == 0, "cuStreamCreate");
    /* A library loaded in the caller's context, launched on the caller's stream. */
    size_t size;
    void *image = read_file(out, "udfs.fatbin", &size);
    udfkit_library *lib;
    CHECK(udfkit_library_load(image, size, &lib) == UDFKIT_OK, "load in the caller's context");
    float *dx, *dy, x[N], y[N];
    for (int i = 0; i < N; i++)
        x[i] = i;
    dx = upload(x, sizeof x);
    void *dummy32, *dummy64, *dc, *dz;
    udfkit_device_alloc(N * 4, (void **)&dy);
    udfkit_device_alloc(N * 4, &dummy32);
    udfkit_device_alloc(N * 8, &dummy64);
    udfkit_device_alloc(N * 4, &dc);
    udfkit_device_alloc(N * 8, &dz);
    udfkit_kernel k;
    udfkit_library_get_kernel(lib, "apply_udfs", &k);
    int n = N;
    void *args[] = {&dx, &dummy32, &dummy64, &dy, &dc, &dz, &n};
    CHECK(udfkit_launch(k, (udfkit_dim3){(N + 127) / 128, 1, 1}, (udfkit_dim3){128, 1, 1}, 0, (udfkit_stream)stream,
                        args) == UDFKIT_OK,
          "launch on the caller's stream");
    stream_sync(stream);
    udfkit_copy_to_host(y, dy, sizeof y);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += fabsf(y[i] - (2.5f * x[i] + 0.5f)) > 1e-3f * (1 + fabsf(y[i]));
    CHECK(wrong == 0, "results in the caller's context: %d wrong", wrong);
    get(&after);
    CHECK(after == mine, "the caller's context stays current");
    udfkit_library_unload(lib);
    udfkit_device_free(dx);
    udfkit_device_free(dy);
    udfkit_device_free(dummy32);
    udfkit_device_free(dummy64);
    udfkit_device_free(dc);
    udfkit_device_free(dz);
    stream_destroy(stream);
    set(before);
    destroy(mine);
    free(image);
}

/* ---- load-time linking ---- */

static long long cache_count(const char *what)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", getenv("UDFKIT_CACHE_DIR"), what);
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void run_late(const char *what)
{
    size_t ks, us;
    void *kernel = read_file(rto, "late_kernel.ltoir", &ks), *udf = read_file(rto, "late_udf.ltoir", &us);
    udfkit_image parts[] = {{kernel, ks}, {udf, us}};
    udfkit_library *lib = NULL;
    udfkit_status s = udfkit_library_link(parts, 2, &lib);
    CHECK(s == UDFKIT_OK, "udfkit_library_link (%s)", what);
    if (s == UDFKIT_OK) {
        udfkit_kernel k;
        float in[N], got[N];
        for (int i = 0; i < N; i++)
            in[i] = i * 0.01f;
        void *din = upload(in, sizeof in), *dout;
        udfkit_device_alloc(sizeof got, &dout);
        unsigned long long n = N;
        void *args[] = {&din, &dout, &n};
        CHECK(udfkit_library_get_kernel(lib, "apply_late", &k) == UDFKIT_OK, "apply_late");
        udfkit_launch(k, (udfkit_dim3){16, 1, 1}, (udfkit_dim3){128, 1, 1}, 0, NULL, args);
        udfkit_copy_to_host(got, dout, sizeof got);
        int wrong = 0;
        for (int i = 0; i < N; i++)
            wrong += fabsf(got[i] - (in[i] * in[i] + 1.0f)) > 1e-5f * (1 + got[i]);
        CHECK(wrong == 0, "load-time linked kernel (%s): %d wrong", what, wrong);
        udfkit_device_free(din);
        udfkit_device_free(dout);
        udfkit_library_unload(lib);
    }
    free(kernel);
    free(udf);
}

static void test_link_first(void)
{
    nftw(getenv("UDFKIT_CACHE_DIR"), remove_one, 16, FTW_DEPTH | FTW_PHYS);
    run_late("first");
    CHECK(cache_count("misses") == 1 && cache_count("hits") == 0, "the first link is a miss");
    /* A library shipped with KEEP_LTOIR relinks for the device at hand from its fatbin. */
    extern const unsigned char runtime_lib_fatbin[];
    extern const size_t runtime_lib_fatbin_size;
    udfkit_image whole = {runtime_lib_fatbin, runtime_lib_fatbin_size};
    udfkit_library *lib;
    udfkit_kernel k;
    CHECK(udfkit_library_link(&whole, 1, &lib) == UDFKIT_OK, "linking a KEEP_LTOIR fatbin at load time");
    CHECK(udfkit_library_get_kernel(lib, "fill_triple", &k) == UDFKIT_OK, "its kernels are there");
    udfkit_library_unload(lib);
}

static int corrupted;

/* Corrupts every cache entry: their last bytes are the linked code. */
static int corrupt_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    FILE *f = flag == FTW_F && st->st_size > 1000 && strstr(path, ".entry") ? fopen(path, "r+b") : NULL;
    if (f) {
        fseek(f, -16, SEEK_END);
        fwrite("corrupt!corrupt!", 1, 16, f);
        fclose(f);
        corrupted++;
    }
    return 0;
}

static void test_link_cached(void)
{
    long long hits = cache_count("hits");
    run_late("cached");
    CHECK(cache_count("hits") == hits + 1, "a second process finds the linked code cached");
    /* A corrupt entry is noticed and rebuilt. */
    char entries[4096];
    snprintf(entries, sizeof entries, "%s/entries", getenv("UDFKIT_CACHE_DIR"));
    nftw(entries, corrupt_entry, 16, FTW_PHYS);
    CHECK(corrupted > 0, "cache entries to corrupt");
    long long misses = cache_count("misses");
    run_late("after corruption");
    CHECK(cache_count("misses") == misses + 1, "the corrupt entry is rebuilt");
}

/* ---- PTX and errors ---- */

static void test_ptx_paths(void)
{
    size_t size;
    void *fatbin = read_file(rto, "ptx_only.fatbin", &size);
    udfkit_library *lib;
    setenv("UDFKIT_PTX_COMPILE", "never", 1);
    CHECK(udfkit_library_load(fatbin, size, &lib) == UDFKIT_OK, "PTX only, JIT by the driver");
    udfkit_library_unload(lib);
    setenv("UDFKIT_PTX_COMPILE", "always", 1);
    CHECK(udfkit_library_load(fatbin, size, &lib) == UDFKIT_OK, "PTX only, compiled by nvPTXCompiler");
    udfkit_kernel k;
    CHECK(udfkit_library_get_kernel(lib, "apply_udfs", &k) == UDFKIT_OK, "its kernel");
    udfkit_library_unload(lib);
    free(fatbin);

    /* PTX newer than both the driver and nvPTXCompiler: each way fails, naming both versions. */
    char *ptx = read_file(rto, "plain.ptx", &size);
    char *v = strstr(ptx, ".version 9.0");
    CHECK(v != NULL, "the PTX says .version 9.0");
    if (v)
        memcpy(v, ".version 9.9", 12);
    setenv("UDFKIT_PTX_COMPILE", "auto", 1);
    udfkit_status s = udfkit_library_load(ptx, size, &lib);
    CHECK(s == UDFKIT_ERROR_NO_BINARY && strstr(udfkit_last_error(), "ISA 9.9") && strstr(udfkit_last_error(), "PTX ISA 9.0"),
          "auto with newer PTX: %s", udfkit_last_error());
    setenv("UDFKIT_PTX_COMPILE", "never", 1);
    s = udfkit_library_load(ptx, size, &lib);
    CHECK(s == UDFKIT_ERROR_NO_BINARY && strstr(udfkit_last_error(), "ISA 9.9") && strstr(udfkit_last_error(), "CUDA "),
          "never with newer PTX: %s", udfkit_last_error());
    unsetenv("UDFKIT_PTX_COMPILE");
    free(ptx);
}

/* `bytes` placed to end where a page no one may read begins: reading one byte past them faults. */
static void *at_page_end(const void *bytes, size_t size, void **mapping, size_t *mapped)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (size + page - 1) / page + 1;
    char *m = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m + (pages - 1) * page, page, PROT_NONE) != 0)
        exit(1);
    char *at = m + (pages - 1) * page - size;
    memcpy(at, bytes, size);
    *mapping = m;
    *mapped = pages * page;
    return at;
}

/* PTX images need not end in NUL: the runtime reads only the bytes it is given. */
static void test_ptx_without_nul(void)
{
    size_t size, mapped;
    void *mapping;
    char *ptx = read_file(rto, "plain.ptx", &size);
    udfkit_library *lib = NULL;
    const char *image = at_page_end(ptx, size, &mapping, &mapped);
    CHECK(udfkit_library_load(image, size, &lib) == UDFKIT_OK, "PTX that does not end in NUL loads");
    udfkit_kernel k;
    CHECK(lib && udfkit_library_get_kernel(lib, "apply_udfs", &k) == UDFKIT_OK, "and its kernel is there");
    udfkit_library_unload(lib);
    munmap(mapping, mapped);
    static const char cut[] = "// a comment, then the directive cut short\n.version";
    image = at_page_end(cut, sizeof cut - 1, &mapping, &mapped);
    lib = NULL;
    udfkit_status s = udfkit_library_load(image, sizeof cut - 1, &lib);
    CHECK(s == UDFKIT_ERROR_BAD_IMAGE && lib == NULL, "'.version' at the very end: %s", udfkit_status_string(s));
    munmap(mapping, mapped);
    free(ptx);
}

static void test_errors(void)
{
    size_t size;
    void *sm75 = read_file(rto, "sm75_only.fatbin", &size);
    udfkit_library *lib = NULL;
    udfkit_status s = udfkit_library_load(sm75, size, &lib);
    CHECK(s == UDFKIT_ERROR_NO_BINARY && lib == NULL, "a fatbin with no binary for this device: %s",
          udfkit_status_string(s));
    /* The device's compute capability: one the fatbins here were made for, and not 7.5 (whose
     * SASS would have loaded just now). */
    int major = -1, minor = -1, sms = -1;
    CHECK(udfkit_device_attribute(UDFKIT_DEVICE_COMPUTE_CAPABILITY_MAJOR, &major) == UDFKIT_OK &&
              udfkit_device_attribute(UDFKIT_DEVICE_COMPUTE_CAPABILITY_MINOR, &minor) == UDFKIT_OK &&
              udfkit_device_attribute(UDFKIT_DEVICE_MULTIPROCESSOR_COUNT, &sms) == UDFKIT_OK,
          "udfkit_device_attribute");
    printf("device: compute capability %d.%d, %d multiprocessors\n", major, minor, sms);
    CHECK(major >= 8 && major <= 12 && minor >= 0 && minor <= 9 && !(major == 7 && minor == 5),
          "compute capability %d.%d", major, minor);
    free(sm75);
    char junk[4096];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (char)(i * 37 + 11);
    s = udfkit_library_load(junk, sizeof junk, &lib);
    CHECK(s == UDFKIT_ERROR_BAD_IMAGE || s == UDFKIT_ERROR_NO_BINARY, "a bad image: %s (%s)", udfkit_status_string(s),
          udfkit_last_error());
    s = udfkit_runtime_check_abi(UDFKIT_RUNTIME_ABI_VERSION + 998, "test");
    CHECK(s == UDFKIT_ERROR_ABI_MISMATCH && strstr(udfkit_last_error(), "999"), "ABI mismatch: %s", udfkit_last_error());
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s all|cached <runtime artifacts> <test artifacts>\n", argv[0]);
        return 2;
    }
    rto = argv[2];
    out = argv[3];
    udfkit_status s = runtime_lib_load();
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        return 77;
    }
    CHECK(s == UDFKIT_OK, "runtime_lib_load: %s", udfkit_status_string(s));
    if (strcmp(argv[1], "cached") == 0) {
        test_link_cached();
    } else {
        test_launchers();
        test_by_name();
        test_caller_context();
        test_link_first();
        test_ptx_paths();
        test_ptx_without_nul();
        test_errors();
    }
    runtime_lib_unload();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
