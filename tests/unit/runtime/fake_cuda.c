/* A stand-in for libcuda.so.1, loaded by the runtime through LD_LIBRARY_PATH in
 * unit-runtime_devices: two devices of different architectures (sm_90 and sm_100), primary
 * and created contexts with the ids and handles the real driver hands out (a handle reused
 * after a destroy or a reset, with a new id), streams likewise, and libraries that know which
 * device can run them. Device memory is host memory (malloc), so copies are real copies.
 *
 * Images: PTX text, which any device runs; or a cubin made by the test's PTX compiler: a
 * 64-byte ELF header (EM_CUDA, the sm in e_flags) followed by the PTX it was made of, NUL
 * ended. A library's kernels are the `.entry` names of that text. udfkit_dependent_launch's
 * code exists only on the devices fake_set_marker_devices names, as a fatbin's sm_90 SASS has
 * it and older code not. Launches are recorded for fake_last_launch.
 *
 * cuMemcpyHtoD from host memory behaves as the real driver's from pageable memory: it returns
 * once the bytes are staged (a copy taken), and they reach the device memory only when the
 * legacy stream gets that far: cuStreamSynchronize of the legacy stream, cuCtxSynchronize, or
 * the next operation in the legacy stream's order (a copy, a launch or a memset on it, a free).
 * Until then the device memory holds what it held before, as a kernel on a non-blocking
 * stream launched at once would read it.
 *
 * Single-threaded use only, as the test makes. */
#include <cuda.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

#ifdef FAKE_CUDA_KERNELS
/* fake_kernels.c: a kernel of a fatbin run on the host. */
CUresult fake_kernel_run(const char *name, unsigned grid, void **args);
#endif

enum { DEVICES = 2, CONTEXTS = 8, STREAMS = 16, LIBRARIES = 32, KERNELS = 96 };
static const int cc_major[DEVICES] = {9, 10}, cc_minor[DEVICES] = {0, 0};
static unsigned marker_devices = 1u;
static unsigned long long next_id = 100;

struct CUctx_st {
    bool used, active;
    int device;
    unsigned long long id, legacy_id;
};
static struct CUctx_st contexts[CONTEXTS]; /* the first DEVICES are the primary contexts */
static _Thread_local CUcontext current;

struct CUstream_st {
    bool used;
    unsigned long long id;
};
static struct CUstream_st streams[STREAMS];

struct CUkern_st {
    struct CUlib_st *lib;
    char name[64];
};
struct CUlib_st {
    bool used;
    int sm; /* 0: PTX, any device */
    bool record;
    bool any; /* FAKE_CUDA_KERNELS: a fatbin, whose kernels are named on demand */
    uint64_t record_bytes[3];
    struct CUkern_st kernels[KERNELS];
    unsigned count;
};
static struct CUlib_st libraries[LIBRARIES];
static int library_loads;

static struct {
    CUkernel kernel;
    int device, dependent;
    CUstream stream;
    unsigned grid, block; /* cuLaunchKernel's x dimensions */
} last;
static CUstream last_copy_stream;

static int arch_of(int device)
{
    return cc_major[device] * 10 + cc_minor[device];
}

/* ---- what the test controls ---- */

API void fake_set_marker_devices(unsigned mask)
{
    marker_devices = mask;
}

API CUcontext fake_ctx_create(int device)
{
    for (int i = DEVICES; i < CONTEXTS; i++)
        if (!contexts[i].used) {
            contexts[i] = (struct CUctx_st){true, true, device, next_id++, next_id++};
            return &contexts[i];
        }
    return NULL;
}

API void fake_ctx_destroy(CUcontext c)
{
    c->used = false;
}

/* cuDevicePrimaryCtxReset: the same handle, inactive, a new id once retained again. */
API void fake_primary_reset(int device)
{
    contexts[device].active = false;
    contexts[device].id = next_id++;
    contexts[device].legacy_id = next_id++;
}

/* A stream of the current context, at the lowest free handle (as a destroyed one's comes back). */
API CUstream fake_stream_create(void)
{
    for (int i = 0; i < STREAMS; i++)
        if (!streams[i].used) {
            streams[i] = (struct CUstream_st){true, next_id++};
            return &streams[i];
        }
    return NULL;
}

API void fake_stream_destroy(CUstream s)
{
    s->used = false;
}

API void fake_last_launch(CUkernel *k, int *device, int *dependent, int *sm)
{
    *k = last.kernel;
    *device = last.device;
    *dependent = last.dependent;
    *sm = last.kernel ? last.kernel->lib->sm : -1;
}

/* The x dimensions of the last launch through cuLaunchKernel: blocks and threads a block. */
API void fake_last_grid(unsigned *grid, unsigned *block)
{
    *grid = last.grid;
    *block = last.block;
}

API CUstream fake_last_copy_stream(void)
{
    return last_copy_stream;
}

API int fake_library_loads(void)
{
    return library_loads;
}

/* ---- copies staged on the legacy stream (cuMemcpyHtoD from pageable memory) ---- */

typedef struct staged_copy {
    void *dst, *bytes;
    size_t size;
} staged_copy;
static staged_copy staged[64];
static size_t staged_count;
static pthread_mutex_t staged_lock = PTHREAD_MUTEX_INITIALIZER;

/* The legacy stream gets past its staged copies: they land in device memory, in order. */
static void legacy_stream_done(void)
{
    pthread_mutex_lock(&staged_lock);
    for (size_t i = 0; i < staged_count; i++) {
        memcpy(staged[i].dst, staged[i].bytes, staged[i].size);
        free(staged[i].bytes);
    }
    staged_count = 0;
    pthread_mutex_unlock(&staged_lock);
}

static bool is_legacy(CUstream s)
{
    return s == NULL || s == CU_STREAM_LEGACY;
}

API size_t fake_staged_copies(void)
{
    pthread_mutex_lock(&staged_lock);
    size_t n = staged_count;
    pthread_mutex_unlock(&staged_lock);
    return n;
}

/* ---- calls of the driver, counted by entry point (what a launcher costs the host in driver
 * calls: unit-arrow_overhead) ---- */

static struct {
    const char *name; /* the entry point's __func__ */
    unsigned long long calls;
} called_table[64];
static size_t called_names;

static void called(const char *name)
{
    size_t i = 0;
    while (i < called_names && called_table[i].name != name)
        i++;
    if (i == called_names) {
        if (called_names == sizeof called_table / sizeof *called_table)
            return;
        called_table[called_names++].name = name;
    }
    called_table[i].calls++;
}
#define CALLED() called(__func__)

/* Calls of the entry point `name` since the last fake_driver_calls_reset, or of all of them
 * where name is NULL. */
API unsigned long long fake_driver_calls(const char *name)
{
    unsigned long long n = 0;
    for (size_t i = 0; i < called_names; i++)
        if (!name || strcmp(called_table[i].name, name) == 0)
            n += called_table[i].calls;
    return n;
}

API void fake_driver_calls_reset(void)
{
    for (size_t i = 0; i < called_names; i++)
        called_table[i].calls = 0;
}

/* Each entry point called since the last reset, and how often, to `each`. */
API void fake_driver_calls_each(void (*each)(const char *name, unsigned long long calls, void *arg), void *arg)
{
    for (size_t i = 0; i < called_names; i++)
        if (called_table[i].calls)
            each(called_table[i].name, called_table[i].calls, arg);
}

/* ---- the driver ---- */

API CUresult cuInit(unsigned int flags)
{
    CALLED();
    (void)flags;
    return CUDA_SUCCESS;
}

API CUresult cuDriverGetVersion(int *v)
{
    CALLED();
    *v = 13000;
    return CUDA_SUCCESS;
}

static const char *error_name(CUresult r)
{
    switch (r) {
    case CUDA_SUCCESS:
        return "CUDA_SUCCESS";
    case CUDA_ERROR_NOT_FOUND:
        return "CUDA_ERROR_NOT_FOUND";
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
        return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case CUDA_ERROR_INVALID_HANDLE:
        return "CUDA_ERROR_INVALID_HANDLE";
    case CUDA_ERROR_INVALID_CONTEXT:
        return "CUDA_ERROR_INVALID_CONTEXT";
    default:
        return "CUDA_ERROR_INVALID_VALUE";
    }
}

API CUresult cuGetErrorName(CUresult r, const char **s)
{
    CALLED();
    *s = error_name(r);
    return CUDA_SUCCESS;
}

API CUresult cuGetErrorString(CUresult r, const char **s)
{
    CALLED();
    *s = error_name(r);
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    CALLED();
    if (ordinal < 0 || ordinal >= DEVICES)
        return CUDA_ERROR_INVALID_DEVICE;
    *d = ordinal;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetCount(int *n)
{
    CALLED();
    *n = DEVICES;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    CALLED();
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *v = cc_major[d];
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *v = cc_minor[d];
        break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        *v = 4;
        break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
        *v = 32;
        break;
    default:
        *v = 1024;
        break;
    }
    return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    CALLED();
    struct CUctx_st *p = &contexts[d];
    if (!p->used)
        *p = (struct CUctx_st){true, true, d, next_id++, next_id++};
    p->active = true;
    *c = p;
    return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned int *flags, int *active)
{
    CALLED();
    *flags = 0;
    *active = contexts[d].used && contexts[d].active;
    return CUDA_SUCCESS;
}

API CUresult cuCtxGetCurrent(CUcontext *c)
{
    CALLED();
    *c = current;
    return CUDA_SUCCESS;
}

API CUresult cuCtxSetCurrent(CUcontext c)
{
    CALLED();
    current = c;
    return CUDA_SUCCESS;
}

API CUresult cuCtxGetDevice(CUdevice *d)
{
    CALLED();
    if (!current)
        return CUDA_ERROR_INVALID_CONTEXT;
    *d = current->device;
    return CUDA_SUCCESS;
}

API CUresult cuCtxSynchronize(void)
{
    CALLED();
    legacy_stream_done();
    return CUDA_SUCCESS;
}

API CUresult cuCtxGetId(CUcontext c, unsigned long long *id)
{
    CALLED();
    if (!c || !c->used)
        return CUDA_ERROR_INVALID_CONTEXT;
    *id = c->id;
    return CUDA_SUCCESS;
}

API CUresult cuStreamGetId(CUstream s, unsigned long long *id)
{
    CALLED();
    if (!current)
        return CUDA_ERROR_INVALID_CONTEXT;
    if ((uintptr_t)s <= 2) { /* NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD (one thread here) */
        *id = current->legacy_id + ((uintptr_t)s == 2);
        return CUDA_SUCCESS;
    }
    if (!s->used)
        return CUDA_ERROR_INVALID_HANDLE;
    *id = s->id;
    return CUDA_SUCCESS;
}

API CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *status)
{
    CALLED();
    (void)s;
    *status = CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

API CUresult cuStreamSynchronize(CUstream s)
{
    CALLED();
    if (is_legacy(s))
        legacy_stream_done();
    return CUDA_SUCCESS;
}

/* ---- libraries and launches ---- */

static void read_entries(struct CUlib_st *lib, const char *text)
{
    for (const char *p = strstr(text, ".entry "); p && lib->count < KERNELS; p = strstr(p + 1, ".entry ")) {
        const char *name = p + 7;
        size_t len = strcspn(name, "( \n");
        struct CUkern_st *k = &lib->kernels[lib->count++];
        k->lib = lib;
        snprintf(k->name, sizeof k->name, "%.*s", (int)len, name);
    }
    lib->record = strstr(text, "udfkit_udf_error_record") != NULL;
}

/* A real cubin (nvJitLink's): its kernels are the functions marked as entries (STO_CUDA_ENTRY)
 * in its symbol table, its record the object udfkit_udf_error_record. False where it has no
 * symbol table (the tests' own stand-in cubins, text after an ELF header). */
static bool read_cubin_symbols(struct CUlib_st *lib, const unsigned char *elf)
{
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, elf + 0x28, 8);
    memcpy(&shentsize, elf + 0x3a, 2);
    memcpy(&shnum, elf + 0x3c, 2);
    if (!shoff || shentsize != 64 || !shnum)
        return false;
    bool any = false;
    for (uint16_t i = 0; i < shnum; i++) {
        const unsigned char *sh = elf + shoff + (uint64_t)i * shentsize;
        uint32_t type, link;
        uint64_t off, size;
        memcpy(&type, sh + 4, 4);
        memcpy(&off, sh + 0x18, 8);
        memcpy(&size, sh + 0x20, 8);
        memcpy(&link, sh + 0x28, 4);
        if (type != 2 /* SHT_SYMTAB */)
            continue;
        any = true;
        uint64_t stroff;
        memcpy(&stroff, elf + shoff + (uint64_t)link * shentsize + 0x18, 8);
        for (uint64_t k = 0; k < size / 24; k++) {
            const unsigned char *sym = elf + off + k * 24;
            uint32_t at;
            memcpy(&at, sym, 4);
            const char *name = (const char *)elf + stroff + at;
            if ((sym[4] & 0xf) == 2 /* STT_FUNC */ && (sym[5] & 0x10) && lib->count < KERNELS) {
                struct CUkern_st *kern = &lib->kernels[lib->count++];
                kern->lib = lib;
                snprintf(kern->name, sizeof kern->name, "%s", name);
            }
            lib->record |= (sym[4] & 0xf) == 1 && strcmp(name, "udfkit_udf_error_record") == 0;
        }
    }
    return any;
}

API CUresult cuLibraryLoadData(CUlibrary *out, const void *code, CUjit_option *jo, void **jv, unsigned int jn,
                               CUlibraryOption *lo, void **lv, unsigned int ln)
{
    CALLED();
    (void)jo, (void)jv, (void)jn, (void)lo, (void)lv, (void)ln;
    for (int i = 0; i < LIBRARIES; i++)
        if (!libraries[i].used) {
            struct CUlib_st *lib = &libraries[i];
            memset(lib, 0, sizeof *lib);
            lib->used = true;
            lib->record_bytes[0] = lib->record_bytes[1] = UINT64_MAX; /* no failed row */
            const unsigned char *p = code;
            if (memcmp(p, "\177ELF", 4) == 0) {
                uint32_t flags;
                memcpy(&flags, p + 48, sizeof flags); /* e_flags */
                lib->sm = (int)(flags >> 8 & 0xff);
                if (!read_cubin_symbols(lib, p))
                    read_entries(lib, (const char *)p + 64);
            } else {
                read_entries(lib, code);
            }
#ifdef FAKE_CUDA_KERNELS
            /* A fatbin (udfkit link's): its kernels are found by name, run by fake_kernels.c. */
            if (memcmp(p, "\x50\xed\x55\xba", 4) == 0) {
                lib->any = true;
                lib->record = true;
            }
#endif
            library_loads++;
            *out = lib;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

API CUresult cuLibraryUnload(CUlibrary lib)
{
    CALLED();
    lib->used = false;
    return CUDA_SUCCESS;
}

API CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name)
{
    CALLED();
    for (unsigned i = 0; i < lib->count; i++)
        if (strcmp(lib->kernels[i].name, name) == 0) {
            *k = &lib->kernels[i];
            return CUDA_SUCCESS;
        }
    if (lib->any && lib->count < KERNELS && strlen(name) < sizeof lib->kernels[0].name) {
        struct CUkern_st *kern = &lib->kernels[lib->count++];
        kern->lib = lib;
        snprintf(kern->name, sizeof kern->name, "%s", name);
        *k = kern;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_NOT_FOUND;
}

API CUresult cuLibraryGetKernelCount(unsigned int *n, CUlibrary lib)
{
    CALLED();
    *n = lib->count;
    return CUDA_SUCCESS;
}

API CUresult cuLibraryEnumerateKernels(CUkernel *ks, unsigned int n, CUlibrary lib)
{
    CALLED();
    for (unsigned i = 0; i < n && i < lib->count; i++)
        ks[i] = &lib->kernels[i];
    return CUDA_SUCCESS;
}

/* The kernel's code in the current context, as the driver loads it there. */
static CUresult code_here(CUkernel k)
{
    if (!current)
        return CUDA_ERROR_INVALID_CONTEXT;
    const int arch = arch_of(current->device);
    if (k->lib->sm && !(k->lib->sm / 10 == arch / 10 && k->lib->sm <= arch))
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    if (strcmp(k->name, "udfkit_dependent_launch") == 0 && !(marker_devices >> current->device & 1u))
        return CUDA_ERROR_NOT_FOUND;
    return CUDA_SUCCESS;
}

API CUresult cuKernelGetFunction(CUfunction *f, CUkernel k)
{
    CALLED();
    CUresult r = code_here(k);
    if (r == CUDA_SUCCESS)
        *f = (CUfunction)k;
    return r;
}

static CUresult launched(CUfunction f, CUstream s, int dependent)
{
    if (is_legacy(s))
        legacy_stream_done(); /* a kernel on the legacy stream runs after its copies */
    CUkernel k = (CUkernel)f;
    CUresult r = code_here(k);
    if (r == CUDA_SUCCESS) {
        last.kernel = k;
        last.device = current->device;
        last.dependent = dependent;
        last.stream = s;
    }
    return r;
}

API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, CUstream s, void **args, void **extra)
{
    CALLED();
    (void)gy, (void)gz, (void)by, (void)bz, (void)shared, (void)args, (void)extra;
    CUresult r = launched(f, s, 0);
    if (r == CUDA_SUCCESS)
        last.grid = gx, last.block = bx;
#ifdef FAKE_CUDA_KERNELS
    if (r == CUDA_SUCCESS && ((CUkernel)f)->lib->any)
        r = fake_kernel_run(((CUkernel)f)->name, gx, args);
#endif
    return r;
}

API CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **args, void **extra)
{
    CALLED();
    (void)args, (void)extra;
    int dependent = 0;
    for (unsigned i = 0; i < config->numAttrs; i++)
        dependent |= config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
                     config->attrs[i].value.programmaticStreamSerializationAllowed;
    CUresult r = launched(f, config->hStream, dependent);
#ifdef FAKE_CUDA_KERNELS
    if (r == CUDA_SUCCESS && ((CUkernel)f)->lib->any)
        r = fake_kernel_run(((CUkernel)f)->name, config->gridDimX, args);
#endif
    return r;
}

API CUresult cuLibraryGetGlobal(CUdeviceptr *p, size_t *bytes, CUlibrary lib, const char *name)
{
    CALLED();
    if (!lib->record || strcmp(name, "udfkit_udf_error_record") != 0)
        return CUDA_ERROR_NOT_FOUND;
    *p = (CUdeviceptr)(uintptr_t)lib->record_bytes;
    *bytes = sizeof lib->record_bytes;
    return CUDA_SUCCESS;
}

API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int threads, size_t shared)
{
    CALLED();
    (void)threads, (void)shared;
    CUresult r = code_here((CUkernel)f);
    *n = 4;
    return r;
}

/* ---- memory: host memory stands for the device's ---- */

/* Every live allocation and event, as the device holds them: what a process leaves to the
 * driver (the runtime's cached blocks of a context it saw reset) stays reachable here, as it
 * is on a device, instead of reading as a leak under LeakSanitizer. */
static void *live[1 << 14];
static size_t nlive;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void *keep(void *m)
{
    pthread_mutex_lock(&live_lock);
    if (m && nlive < sizeof live / sizeof *live)
        live[nlive++] = m;
    pthread_mutex_unlock(&live_lock);
    return m;
}

/* Device blocks and events alive. */
API size_t fake_live_blocks(void)
{
    pthread_mutex_lock(&live_lock);
    size_t n = nlive;
    pthread_mutex_unlock(&live_lock);
    return n;
}

static void drop(void *m)
{
    pthread_mutex_lock(&live_lock);
    for (size_t i = 0; i < nlive; i++)
        if (live[i] == m) {
            live[i] = live[--nlive];
            break;
        }
    pthread_mutex_unlock(&live_lock);
    free(m);
}

static CUresult host_alloc(CUdeviceptr *p, size_t bytes)
{
    void *m = keep(calloc(1, bytes ? bytes : 1));
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *p = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
    CALLED();
    return host_alloc(p, bytes);
}

API CUresult cuMemFree_v2(CUdeviceptr p)
{
    CALLED();
    legacy_stream_done(); /* cuMemFree waits for the device */
    drop((void *)(uintptr_t)p);
    return CUDA_SUCCESS;
}

static int pool_object;

API CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
    CALLED();
    (void)props;
    *pool = (CUmemoryPool)&pool_object;
    return CUDA_SUCCESS;
}

API CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void *v)
{
    CALLED();
    (void)pool, (void)a, (void)v;
    return CUDA_SUCCESS;
}

API CUresult cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t bytes, CUmemoryPool pool, CUstream s)
{
    CALLED();
    (void)pool, (void)s;
    return host_alloc(p, bytes);
}

API CUresult cuMemAllocAsync(CUdeviceptr *p, size_t bytes, CUstream s)
{
    CALLED();
    (void)s;
    return host_alloc(p, bytes);
}

API CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s)
{
    CALLED();
    (void)s;
    legacy_stream_done(); /* no staged copy may land in freed memory */
    drop((void *)(uintptr_t)p);
    return CUDA_SUCCESS;
}

API CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    CALLED();
    *free_bytes = 1u << 30;
    *total = 2u << 30;
    return CUDA_SUCCESS;
}

/* Staged: the bytes land when the legacy stream gets past the copy. */
API CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n)
{
    CALLED();
    legacy_stream_done(); /* a stream sync before the copy starts */
    void *copy = malloc(n ? n : 1);
    if (!copy)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(copy, h, n);
    pthread_mutex_lock(&staged_lock);
    if (staged_count == sizeof staged / sizeof *staged) {
        pthread_mutex_unlock(&staged_lock);
        free(copy);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    staged[staged_count++] = (staged_copy){(void *)(uintptr_t)d, copy, n};
    pthread_mutex_unlock(&staged_lock);
    return CUDA_SUCCESS;
}

/* Returns once the copy is done, after the legacy stream's work. */
API CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n)
{
    CALLED();
    legacy_stream_done();
    memcpy(h, (const void *)(uintptr_t)d, n);
    return CUDA_SUCCESS;
}

API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, CUstream s)
{
    CALLED();
    last_copy_stream = s;
    if (is_legacy(s))
        legacy_stream_done();
    memcpy((void *)(uintptr_t)d, h, n);
    return CUDA_SUCCESS;
}

API CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, CUstream s)
{
    CALLED();
    last_copy_stream = s;
    if (is_legacy(s))
        legacy_stream_done();
    memcpy(h, (const void *)(uintptr_t)d, n);
    return CUDA_SUCCESS;
}

API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s)
{
    CALLED();
    if (is_legacy(s))
        legacy_stream_done();
    memset((void *)(uintptr_t)d, v, n);
    return CUDA_SUCCESS;
}

/* ---- events: every one completed ---- */

API CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
    CALLED();
    (void)flags;
    *e = (CUevent)keep(malloc(1));
    return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

API CUresult cuEventRecord(CUevent e, CUstream s)
{
    CALLED();
    (void)e, (void)s;
    return CUDA_SUCCESS;
}

API CUresult cuEventQuery(CUevent e)
{
    CALLED();
    (void)e;
    return CUDA_SUCCESS;
}

API CUresult cuEventDestroy_v2(CUevent e)
{
    CALLED();
    drop(e);
    return CUDA_SUCCESS;
}

API CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags)
{
    CALLED();
    (void)s, (void)e, (void)flags;
    return CUDA_SUCCESS;
}
