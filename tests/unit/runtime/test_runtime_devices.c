/* The runtime across devices, contexts and streams, without a GPU: the runtime loads
 * tests/unit/runtime/fake_cuda.c as libcuda.so.1 (LD_LIBRARY_PATH), which has an sm_90 and an
 * sm_100 device and hands out handles again as the real driver does. The cases of
 * docs/runtime.md that a single GPU cannot show:
 * - a stream destroyed with its scratch set and a new one at its handle, through
 *   udfkit_device_alloc_async;
 * - the NULL stream of device 0 with a scratch and launches' memory on device 1's;
 * - a primary context reset with a scratch set;
 * - code nvPTXCompiler made for device 0 (this test's compiler, registered as
 *   udfkit::runtime_ptx registers nvPTXCompiler) launched on device 1: compiled again for
 *   sm_100 once, and the launch takes that code's kernel; its occupancy too;
 * - a cubin for sm_90 launched on the sm_100 device: refused with a message naming both;
 * - dependent launches per device: udfkit kernels' code with the marker on device 0 only
 *   launches dependently there and ordinarily on device 1; the caller's own code dependently
 *   on both;
 * - udfkit_copy_to_device_async / _to_host_async on the stream given;
 * - udfkit_copy_to_device done when it returns: the stand-in driver stages cuMemcpyHtoD as the
 *   real one does from pageable memory (the bytes land when the legacy stream gets there),
 *   and what a kernel on a non-blocking stream would read at once is the new bytes. */
#define _GNU_SOURCE
#include "udfkit/runtime.h"
#include "ptx_fallback.h"

#include <cuda.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static struct {
    void (*set_marker_devices)(unsigned);
    CUcontext (*ctx_create)(int);
    void (*ctx_destroy)(CUcontext);
    void (*primary_reset)(int);
    CUstream (*stream_create)(void);
    void (*stream_destroy)(CUstream);
    void (*last_launch)(CUkernel *, int *, int *, int *);
    CUstream (*last_copy_stream)(void);
    size_t (*staged_copies)(void);
    int (*library_loads)(void);
    CUresult (*primary_retain)(CUcontext *, CUdevice);
    CUresult (*ctx_set_current)(CUcontext);
} fake;

static CUcontext primary[2];

static void use(int device)
{
    assert_int_equal(fake.ctx_set_current(primary[device]), CUDA_SUCCESS);
}

static bool inside(const void *p, const void *base, size_t bytes)
{
    return (const char *)p >= (const char *)base && (const char *)p < (const char *)base + bytes;
}

/* ---- the PTX compiler: a cubin as fake_cuda.c reads it, counting its compiles ---- */

static int compiles;
static char last_gpu[16];

static void compiler_version(int *major, int *minor)
{
    *major = 13;
    *minor = 0;
}

static bool compile(const char *ptx, size_t size, const char *gpu_name, void **cubin, size_t *cubin_size, char **log)
{
    unsigned sm = 0;
    if (sscanf(gpu_name, "sm_%u", &sm) != 1) {
        *log = strdup("bad gpu name");
        return false;
    }
    compiles++;
    snprintf(last_gpu, sizeof last_gpu, "%s", gpu_name);
    const size_t text = strnlen(ptx, size);
    unsigned char *out = calloc(1, 64 + text + 1);
    memcpy(out, "\177ELF", 4);
    out[4] = 2;                                     /* ELFCLASS64 */
    out[5] = 1;                                     /* ELFDATA2LSB */
    out[6] = 1;                                     /* EV_CURRENT */
    out[8] = 8;                                     /* EI_ABIVERSION: CUDA v2 */
    const uint16_t machine = 190, header = 64;      /* EM_CUDA */
    const uint32_t flags = (uint32_t)sm << 8;
    memcpy(out + 18, &machine, 2);
    memcpy(out + 48, &flags, 4);
    memcpy(out + 52, &header, 2);                   /* e_ehsize; e_shoff stays 0: no sections */
    memcpy(out + 64, ptx, text);
    *cubin = out;
    *cubin_size = 64 + text + 1;
    return true;
}

static const udfkit_ptx_compiler compiler = {compiler_version, compile};

/* Code of `udfkit kernels` (the UDF error record, the marker), and the caller's own. */
static const char generated_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                    ".visible .global .align 8 .b8 udfkit_udf_error_record[24];\n"
                                    ".visible .entry work(\n.param .u64 p\n)\n{\nret;\n}\n"
                                    ".visible .entry udfkit_dependent_launch()\n{\nret;\n}\n";
static const char own_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                              ".visible .entry mine(\n.param .u64 p\n)\n{\nret;\n}\n";

static int setup(void **state)
{
    (void)state;
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
    if (!cuda) {
        fprintf(stderr, "the fake libcuda.so.1 is not on LD_LIBRARY_PATH: %s\n", dlerror());
        return -1;
    }
#define SYM(field, name) (*(void **)&fake.field = dlsym(cuda, name)) != NULL
    if (!(SYM(set_marker_devices, "fake_set_marker_devices") && SYM(ctx_create, "fake_ctx_create") &&
          SYM(ctx_destroy, "fake_ctx_destroy") && SYM(primary_reset, "fake_primary_reset") &&
          SYM(stream_create, "fake_stream_create") && SYM(stream_destroy, "fake_stream_destroy") &&
          SYM(last_launch, "fake_last_launch") && SYM(last_copy_stream, "fake_last_copy_stream") &&
          SYM(staged_copies, "fake_staged_copies") &&
          SYM(library_loads, "fake_library_loads") && SYM(primary_retain, "cuDevicePrimaryCtxRetain") &&
          SYM(ctx_set_current, "cuCtxSetCurrent")))
        return -1;
#undef SYM
    udfkit_runtime_ptx_register(&compiler);
    for (int d = 0; d < 2; d++)
        if (fake.primary_retain(&primary[d], d) != CUDA_SUCCESS)
            return -1;
    return 0;
}

static void test_recycled_stream_handle(void **state)
{
    (void)state;
    use(0);
    static char scratch[1 << 16];
    CUstream old = fake.stream_create();
    void *p = NULL, *a = NULL, *b = NULL;
    assert_int_equal(udfkit_stream_scratch((udfkit_stream)old, scratch, sizeof scratch), UDFKIT_OK);
    assert_int_equal(udfkit_device_alloc_async(1000, (udfkit_stream)old, &p), UDFKIT_OK);
    assert_ptr_equal(p, scratch);
    assert_int_equal(udfkit_device_free_async(p, (udfkit_stream)old), UDFKIT_OK);
    fake.stream_destroy(old); /* its scratch not ended */
    CUstream again = fake.stream_create();
    assert_ptr_equal(again, old); /* the driver hands the handle out again */
    assert_int_equal(udfkit_device_alloc_async(1000, (udfkit_stream)again, &a), UDFKIT_OK);
    assert_int_equal(udfkit_device_alloc_async(1000, (udfkit_stream)again, &b), UDFKIT_OK);
    assert_false(inside(a, scratch, sizeof scratch));
    assert_false(inside(b, scratch, sizeof scratch));
    assert_int_equal(udfkit_device_free_async(a, (udfkit_stream)again), UDFKIT_OK);
    assert_int_equal(udfkit_device_free_async(b, (udfkit_stream)again), UDFKIT_OK);
    /* The old stream's place is free again: its scratch is gone, the new stream's works. */
    assert_int_equal(udfkit_stream_scratch((udfkit_stream)again, scratch, sizeof scratch), UDFKIT_OK);
    assert_int_equal(udfkit_device_alloc_async(64, (udfkit_stream)again, &p), UDFKIT_OK);
    assert_ptr_equal(p, scratch);
    assert_int_equal(udfkit_device_free_async(p, (udfkit_stream)again), UDFKIT_OK);
    assert_int_equal(udfkit_stream_scratch((udfkit_stream)again, NULL, 0), UDFKIT_OK);
    fake.stream_destroy(again);
}

static void test_null_stream_of_two_devices(void **state)
{
    (void)state;
    static char scratch[1 << 16];
    void *p = NULL, *q = NULL;
    use(0);
    assert_int_equal(udfkit_stream_scratch(NULL, scratch, sizeof scratch), UDFKIT_OK);
    use(1);
    assert_int_equal(udfkit_device_alloc_async(64, NULL, &q), UDFKIT_OK);
    assert_false(inside(q, scratch, sizeof scratch));
    /* Given back on device 1's NULL stream: not taken for device 0's scratch. */
    assert_int_equal(udfkit_device_free_async(q, NULL), UDFKIT_OK);
    use(0);
    assert_int_equal(udfkit_device_alloc_async(64, NULL, &p), UDFKIT_OK);
    assert_ptr_equal(p, scratch);
    assert_int_equal(udfkit_device_free_async(p, NULL), UDFKIT_OK);
    /* A context created on device 0 has its own NULL stream too. */
    CUcontext other = fake.ctx_create(0);
    fake.ctx_set_current(other);
    assert_int_equal(udfkit_device_alloc_async(64, NULL, &q), UDFKIT_OK);
    assert_false(inside(q, scratch, sizeof scratch));
    assert_int_equal(udfkit_device_free_async(q, NULL), UDFKIT_OK);
    fake.ctx_destroy(other);
    use(0);
    assert_int_equal(udfkit_stream_scratch(NULL, NULL, 0), UDFKIT_OK);
}

static void test_context_reset(void **state)
{
    (void)state;
    static char scratch[1 << 16];
    void *p = NULL;
    use(1);
    assert_int_equal(udfkit_stream_scratch(NULL, scratch, sizeof scratch), UDFKIT_OK);
    fake.primary_reset(1);
    CUcontext again = NULL;
    assert_int_equal(fake.primary_retain(&again, 1), CUDA_SUCCESS);
    assert_ptr_equal(again, primary[1]); /* the same handle, a new context */
    use(1);
    assert_int_equal(udfkit_device_alloc_async(64, NULL, &p), UDFKIT_OK);
    assert_false(inside(p, scratch, sizeof scratch));
    assert_int_equal(udfkit_device_free_async(p, NULL), UDFKIT_OK);
    /* The reset context's scratch is forgotten: a new one is set without a word. */
    assert_int_equal(udfkit_stream_scratch(NULL, scratch, sizeof scratch), UDFKIT_OK);
    assert_int_equal(udfkit_stream_scratch(NULL, NULL, 0), UDFKIT_OK);
}

static void launch_on(int device, udfkit_kernel k, bool dependent, CUkernel *launched, int *sm, int *was_dependent)
{
    use(device);
    const udfkit_dim3 one = {1, 1, 1};
    void *args[] = {NULL};
    udfkit_status s = dependent ? udfkit_launch_dependent(k, one, one, 0, NULL, args)
                                : udfkit_launch(k, one, one, 0, NULL, args);
    assert_int_equal(s, UDFKIT_OK);
    int at = -1;
    fake.last_launch(launched, &at, was_dependent, sm);
    assert_int_equal(at, device);
}

static void test_ptx_fallback_on_another_architecture(void **state)
{
    (void)state;
    use(0);
    setenv("UDFKIT_PTX_COMPILE", "always", 1);
    compiles = 0;
    udfkit_library *lib = NULL;
    udfkit_kernel k = NULL;
    assert_int_equal(udfkit_library_load(generated_ptx, sizeof generated_ptx - 1, &lib), UDFKIT_OK);
    assert_int_equal(compiles, 1);
    assert_string_equal(last_gpu, "sm_90");
    assert_int_equal(udfkit_library_get_kernel(lib, "work", &k), UDFKIT_OK);
    CUkernel launched;
    int sm, dependent, loads = fake.library_loads();
    launch_on(0, k, false, &launched, &sm, &dependent);
    assert_ptr_equal(launched, (CUkernel)k);
    assert_int_equal(sm, 90);
    /* Device 1 is sm_100: the image compiled again for it, and its kernel launched. */
    launch_on(1, k, false, &launched, &sm, &dependent);
    assert_int_equal(compiles, 2);
    assert_string_equal(last_gpu, "sm_100");
    assert_int_equal(sm, 100);
    assert_ptr_not_equal(launched, (CUkernel)k);
    assert_int_equal(fake.library_loads(), loads + 1);
    /* Once: the next launch and the occupancy there use that code. */
    CUkernel first = launched;
    launch_on(1, k, false, &launched, &sm, &dependent);
    assert_ptr_equal(launched, first);
    int blocks = 0;
    assert_int_equal(udfkit_kernel_occupancy(k, 128, 0, &blocks), UDFKIT_OK);
    assert_int_equal(blocks, 4);
    assert_int_equal(compiles, 2);
    assert_int_equal(fake.library_loads(), loads + 1);
    /* Back on device 0: its own code. */
    launch_on(0, k, false, &launched, &sm, &dependent);
    assert_ptr_equal(launched, (CUkernel)k);
    /* The UDF error record read on device 1 is that code's, and clear. */
    use(1);
    assert_int_equal(udfkit_library_udf_error(lib, NULL, NULL, NULL), UDFKIT_OK);
    setenv("UDFKIT_PTX_COMPILE", "auto", 1);
    udfkit_library_unload(lib);
}

static void test_cubin_on_another_architecture(void **state)
{
    (void)state;
    void *cubin = NULL;
    size_t size = 0;
    char *log = NULL;
    assert_true(compile(own_ptx, sizeof own_ptx, "sm_90", &cubin, &size, &log));
    use(0);
    udfkit_library *lib = NULL;
    udfkit_kernel k = NULL;
    assert_int_equal(udfkit_library_load(cubin, size, &lib), UDFKIT_OK);
    assert_int_equal(udfkit_library_get_kernel(lib, "mine", &k), UDFKIT_OK);
    CUkernel launched;
    int sm, dependent;
    launch_on(0, k, false, &launched, &sm, &dependent);
    assert_int_equal(sm, 90);
    use(1);
    const udfkit_dim3 one = {1, 1, 1};
    void *args[] = {NULL};
    assert_int_equal(udfkit_launch(k, one, one, 0, NULL, args), UDFKIT_ERROR_NO_BINARY);
    const char *message = udfkit_last_error();
    assert_non_null(strstr(message, "sm_90"));
    assert_non_null(strstr(message, "sm_100"));
    assert_non_null(strstr(message, "cannot run"));
    use(0);
    udfkit_library_unload(lib);
    free(cubin);
}

static void test_dependent_launch_per_device(void **state)
{
    (void)state;
    fake.set_marker_devices(1u); /* the marker's code on device 0 only */
    use(0);
    udfkit_library *generated = NULL, *own = NULL;
    udfkit_kernel work = NULL, mine = NULL;
    assert_int_equal(udfkit_library_load(generated_ptx, sizeof generated_ptx - 1, &generated), UDFKIT_OK);
    assert_int_equal(udfkit_library_load(own_ptx, sizeof own_ptx - 1, &own), UDFKIT_OK);
    assert_int_equal(udfkit_library_get_kernel(generated, "work", &work), UDFKIT_OK);
    assert_int_equal(udfkit_library_get_kernel(own, "mine", &mine), UDFKIT_OK);
    CUkernel launched;
    int sm, dependent;
    launch_on(0, work, true, &launched, &sm, &dependent);
    assert_int_equal(dependent, 1);
    launch_on(1, work, true, &launched, &sm, &dependent);
    assert_int_equal(dependent, 0); /* compute capability 10.0, but its code does not wait */
    launch_on(0, mine, true, &launched, &sm, &dependent);
    assert_int_equal(dependent, 1);
    launch_on(1, mine, true, &launched, &sm, &dependent);
    assert_int_equal(dependent, 1); /* the caller's code waits, by udfkit_launch_dependent's contract */
    /* An ordinary launch stays ordinary. */
    launch_on(0, work, false, &launched, &sm, &dependent);
    assert_int_equal(dependent, 0);
    udfkit_library_unload(generated);
    udfkit_library_unload(own);
    fake.set_marker_devices(1u);
}

static void test_async_copies(void **state)
{
    (void)state;
    use(0);
    CUstream s = fake.stream_create();
    int host[64], back[64];
    for (int i = 0; i < 64; i++)
        host[i] = 3 * i + 1;
    void *dev = NULL;
    assert_int_equal(udfkit_device_alloc(sizeof host, &dev), UDFKIT_OK);
    assert_int_equal(udfkit_copy_to_device_async(dev, host, sizeof host, (udfkit_stream)s), UDFKIT_OK);
    assert_ptr_equal(fake.last_copy_stream(), s);
    assert_int_equal(udfkit_copy_to_host_async(back, dev, sizeof back, NULL), UDFKIT_OK);
    assert_null(fake.last_copy_stream());
    assert_memory_equal(host, back, sizeof host);
    assert_int_equal(udfkit_copy_to_host_async(NULL, dev, 4, (udfkit_stream)s), UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(udfkit_copy_to_device_async(NULL, NULL, 0, (udfkit_stream)s), UDFKIT_OK);
    udfkit_device_free(dev);
    fake.stream_destroy(s);
}

static void test_copy_to_device_done(void **state)
{
    (void)state;
    enum { N = 512 };
    int64_t host[N];
    for (int c = 0; c < 2; c++) {
        use(c); /* each device's context */
        for (int i = 0; i < N; i++)
            host[i] = 7 * i + 3 + c;
        void *dev = NULL;
        assert_int_equal(udfkit_device_alloc(sizeof host, &dev), UDFKIT_OK);
        assert_int_equal(udfkit_copy_to_device(dev, host, sizeof host), UDFKIT_OK);
        /* Nothing left on the legacy stream: device memory, as a kernel on a non-blocking
         * stream launched now reads it, holds the bytes. */
        assert_int_equal(fake.staged_copies(), 0);
        assert_memory_equal(dev, host, sizeof host);
        /* And the host's buffer may change at once. */
        host[0] = -1;
        assert_int_equal(((int64_t *)dev)[0], 3 + c);
        assert_int_equal(udfkit_copy_to_device(dev, host, 0), UDFKIT_OK);
        assert_int_equal(udfkit_device_free(dev), UDFKIT_OK);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recycled_stream_handle),
        cmocka_unit_test(test_null_stream_of_two_devices),
        cmocka_unit_test(test_ptx_fallback_on_another_architecture),
        cmocka_unit_test(test_cubin_on_another_architecture),
        cmocka_unit_test(test_dependent_launch_per_device),
        cmocka_unit_test(test_async_copies),
        cmocka_unit_test(test_copy_to_device_done),
        cmocka_unit_test(test_context_reset),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
