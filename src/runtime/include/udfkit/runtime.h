/* udfkit runtime: loads the fatbins udfkit builds and launches their kernels.
 *
 * Plain C. The CUDA driver is found at run time, so a program linked with this library
 * starts, and reports UDFKIT_ERROR_NO_DRIVER, on a machine without a GPU. Every call works
 * in the calling thread's current CUDA context, else the first device's primary context,
 * as the CUDA runtime does. Every failure leaves a message for this thread in
 * udfkit_last_error().
 *
 * ---- Devices, contexts and streams ----
 *
 * One process may drive several devices, from one thread or many (a thread per device, a
 * context current in each: cudaSetDevice, cuCtxSetCurrent). What the runtime keeps is:
 * - per process: a loaded library (udfkit_library_load, _link, _bind; a generated
 *   library's <target>_load), loaded once and launched on every device: the driver takes
 *   each device's code from a fatbin. Code made for one device (a cubin; udfkit_library_link's
 *   and udfkit_library_bind's, linked for the device that was current; SASS that
 *   nvPTXCompiler made of PTX the driver is too old for) runs on the devices of that
 *   architecture; on another, a launch takes the image compiled again with nvPTXCompiler for
 *   it (once, at the first launch there), and where there is no PTX to compile (a cubin,
 *   linked or bound code) it fails with UDFKIT_ERROR_NO_BINARY and a message: load, link
 *   or bind it again with that device's context current. A bound SLOTS instance is such
 *   code: bind it once per architecture, and use it on every device of that one. The
 *   temporary blocks of udfkit_device_alloc_async (64 of 64 KiB, 4 MiB at most for the whole
 *   process, all devices together); the table of bound libraries; the log callback.
 * - per device: its attributes and memory pool (udfkit's own, never the device's default);
 *   whether a library's code there waits for the pass before (udfkit_launch_dependent asks
 *   per device and keeps the answer per library; the generated launchers start every pass
 *   after the first through it, so each device gets dependent launches exactly where its
 *   code waits, whichever device loaded the library).
 * - per context: every allocation, and the UDF error record of a udfkit kernels library
 *   (each context that runs its kernels has its own: udfkit_library_udf_error reads and
 *   clears the current context's). A temporary block serves streams of its own context only.
 * - per stream: the scratch of udfkit_stream_scratch, and which temporary block a stream
 *   takes first. Streams are told apart by cuStreamGetId within cuCtxGetId, never by their
 *   handle: a stream created at the handle of a destroyed one, the NULL stream of another
 *   context (the same handle on every device), and the per-thread default stream of another
 *   thread are other streams, and never see each other's scratch or blocks. The scratch of a
 *   destroyed stream is forgotten when its handle comes back with a new stream; end it
 *   (udfkit_stream_scratch(s, NULL, 0)) before destroying the stream to free its place at once.
 * - per thread: udfkit_last_error().
 * A thread with no current context gets device 0's primary context, retained for the process
 * (never released) and made current in that thread, as the CUDA runtime does; use
 * cudaSetDevice or cuCtxSetCurrent first for another device.
 * After cuDevicePrimaryCtxReset (cudaDeviceReset) every allocation of that context is gone:
 * the runtime forgets the temporary blocks and the scratch of the old context when the
 * context at its handle next asks (no stale memory is handed out); a thread with no current
 * context gets device 0's primary context retained again where the reset left it inactive,
 * and a thread whose current context was reset retains it again itself
 * (cuDevicePrimaryCtxRetain, cuCtxSetCurrent), as the CUDA runtime does; a library stays
 * loaded (its code is loaded into the new context at the next launch); memory the caller got
 * from the runtime must be allocated again, and a scratch set again. docs/runtime.md says
 * more. */
#ifndef UDFKIT_RUNTIME_H
#define UDFKIT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's functions, as a shared library exports them (its internals stay hidden). */
#if defined(__GNUC__) || defined(__clang__)
#define UDFKIT_RUNTIME_API __attribute__((visibility("default")))
#else
#define UDFKIT_RUNTIME_API
#endif

/* Generated code and this library check that they were made for the same ABI. */
#define UDFKIT_RUNTIME_ABI_VERSION 1

typedef enum udfkit_status {
    UDFKIT_OK = 0,
    UDFKIT_ERROR_INVALID_ARGUMENT,
    UDFKIT_ERROR_NO_DRIVER,     /* libcuda cannot be loaded */
    UDFKIT_ERROR_NO_DEVICE,     /* the driver sees no GPU */
    UDFKIT_ERROR_NO_BINARY,     /* the image holds nothing this device can run */
    UDFKIT_ERROR_BAD_IMAGE,     /* the image is not a fatbin, cubin or PTX the driver accepts */
    UDFKIT_ERROR_NOT_FOUND,     /* no kernel of that name */
    UDFKIT_ERROR_OUT_OF_MEMORY,
    UDFKIT_ERROR_LAUNCH,        /* a launch or the work it started failed */
    UDFKIT_ERROR_ABI_MISMATCH,  /* generated code made for another runtime ABI */
    UDFKIT_ERROR_DRIVER,        /* any other driver error; the message names it */
    UDFKIT_ERROR_UDF,           /* a UDF failed a row (<target>_udf_error says which) */
    UDFKIT_ERROR_COMPILE,       /* udfkit_compile_source: the source or a spec is wrong; the message
                                   holds the diagnostics, `name:line: error: ...` (NVRTC gives lines;
                                   the source line and a caret under the column follow) */
    UDFKIT_ERROR_TOOLCHAIN      /* a CUDA library loaded at run time (NVRTC, nvJitLink) is missing, or
                                   older than the code it is given was made for */
} udfkit_status;

/* A CUstream or cudaStream_t passes as it is; NULL is the default stream. */
typedef struct CUstream_st *udfkit_stream;

typedef struct udfkit_library udfkit_library;
typedef struct udfkit_kernel_st *udfkit_kernel;

/* An Arrow validity bitmap: row i is valid iff bit (offset + i) of bits is set, bits LSB
 * first within each byte. bits is device memory; NULL means every row is valid. */
typedef struct udfkit_mask {
    const uint8_t *bits;
    uint64_t offset; /* in bits */
} udfkit_mask;

/* A string column as Arrow holds it (docs/strings.md), every pointer device memory: row i is
 * the array's row offset + i. Launchers take one where a numeric column is `const T *`. */
typedef enum udfkit_string_layout {
    UDFKIT_STRINGS_UTF8,       /* Arrow utf8: int32 offsets[n + 1] into chars */
    UDFKIT_STRINGS_LARGE_UTF8, /* Arrow large_utf8: int64 offsets[n + 1] */
    UDFKIT_STRINGS_UTF8_VIEW   /* Arrow utf8_view: 16-byte views + data buffers */
} udfkit_string_layout;
typedef struct udfkit_strings {
    udfkit_string_layout layout;
    const void *offsets;        /* utf8, large_utf8: the offsets; utf8_view: the views */
    const char *chars;          /* utf8, large_utf8: the bytes */
    const char *const *buffers; /* utf8_view: the data buffers (a device array of pointers) */
    uint64_t offset;            /* the column's first row, as an Arrow array's offset */
} udfkit_strings;

/* A decimal128 column's value (SPEC.md, "Dates, times and decimals"): a two's complement
 * 128-bit integer, little-endian halves. Also in <udfkit/udf.h>. */
#ifndef UDFKIT_DECIMAL128_DEFINED
#define UDFKIT_DECIMAL128_DEFINED
typedef struct {
    uint64_t lo;
    int64_t hi;
} udfkit_decimal128;
#endif

/* Row error codes udfkit records itself (<library>_udf_error gives them as a UDF's own): a
 * string result that a UDF built with another size the second time (docs/strings.md); and
 * those of <udfkit/decimal.cuh> and <udfkit/datetime.cuh> (docs/decimals-and-dates.md): a
 * decimal that does not fit its precision (38 digits in between), a division by zero, text
 * that is no decimal number (or a NaN, an infinity, a scale outside 0..38), a date or time
 * outside its type's range, and a civil date or time of day that does not exist. */
#ifndef UDFKIT_ROW_ERROR_STRING_CHANGED
#define UDFKIT_ROW_ERROR_STRING_CHANGED (-2147483647)
#endif
#ifndef UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW
#define UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW (-2147483646)
#define UDFKIT_ROW_ERROR_DIVIDE_BY_ZERO (-2147483645)
#define UDFKIT_ROW_ERROR_INVALID_DECIMAL (-2147483644)
#define UDFKIT_ROW_ERROR_DATETIME_OVERFLOW (-2147483643)
#define UDFKIT_ROW_ERROR_INVALID_DATETIME (-2147483642)
#endif
/* A Python UDF's strings that the device heap could not hold (docs/strings.md, "Python UDFs"). */
#ifndef UDFKIT_ROW_ERROR_STRING_MEMORY
#define UDFKIT_ROW_ERROR_STRING_MEMORY (-2147483632)
#endif

typedef struct udfkit_dim3 {
    unsigned int x, y, z;
} udfkit_dim3;

/* Loads a fatbin, cubin or PTX image (context-independently) and resolves every kernel in
 * it for the current device, so a missing binary shows here and not at the first launch.
 * Where no SASS fits the device and its PTX is newer than the driver can JIT, the PTX is
 * compiled with nvPTXCompiler instead where the program links udfkit::runtime_ptx (else
 * the message says how); UDFKIT_PTX_COMPILE=auto (default), always (never let the driver
 * JIT PTX) or never controls it. */
UDFKIT_RUNTIME_API udfkit_status udfkit_library_load(const void *image, size_t size, udfkit_library **out);
/* One piece of device code for udfkit_library_link: LTO-IR, PTX, a cubin, or a fatbin,
 * of which the LTO-IR entries are used (add_jit_library(... KEEP_LTOIR) ships them). */
typedef struct udfkit_image {
    const void *data;
    size_t size;
} udfkit_image;

/* Links the parts for the current device at load time with nvJitLink (found at run time as
 * NVRTC is: UDFKIT_NVJITLINK_LIBRARY, else a CUDA toolkit's: $CUDA_HOME, $CUDA_PATH,
 * /usr/local/cuda, else libnvJitLink.so.13 through the loader's path; docs/late-binding.md,
 * "Deploying an engine") and loads the result. The linked code is cached on disk, keyed by every
 * part's bytes and the device's architecture (UDFKIT_CACHE_DIR, else $XDG_CACHE_HOME/udfkit;
 * UDFKIT_CACHE=0 turns it off), so another process finds it without loading nvJitLink (the
 * code is the same whichever nvJitLink 13 links it; `udfkit cache clear` relinks after
 * replacing nvJitLink); a corrupt entry is detected and rebuilt. */
UDFKIT_RUNTIME_API udfkit_status udfkit_library_link(const udfkit_image *parts, size_t count, udfkit_library **out);
/* Accepts NULL. */
UDFKIT_RUNTIME_API void udfkit_library_unload(udfkit_library *lib);
UDFKIT_RUNTIME_API udfkit_status udfkit_library_get_kernel(udfkit_library *lib, const char *name, udfkit_kernel *out);
/* 1 where the library has a kernel of that name, else 0 (no message either way). */
UDFKIT_RUNTIME_API int udfkit_library_has_kernel(udfkit_library *lib, const char *name);

/* How many blocks of k, of `block_threads` threads and `shared_bytes` of dynamic shared
 * memory, run at once on one multiprocessor of the current device (registers and shared
 * memory included): a grid of that many per multiprocessor fills the GPU in one wave. */
UDFKIT_RUNTIME_API udfkit_status udfkit_kernel_occupancy(udfkit_kernel k, unsigned block_threads, size_t shared_bytes,
                                                         int *blocks_per_sm);

/* args: one pointer per kernel parameter, as cuLaunchKernel takes them. */
UDFKIT_RUNTIME_API udfkit_status udfkit_launch(udfkit_kernel k, udfkit_dim3 grid, udfkit_dim3 block, size_t shared_bytes, udfkit_stream s,
                            void **args);
/* As udfkit_launch, but k may start before the kernel queued on s just before it has ended
 * (programmatic dependent launch, compute capability 9.0 and later; elsewhere, or on a driver
 * without cuLaunchKernelEx, an ordinary launch): k must wait for that kernel (PTX
 * griddepcontrol.wait) before it reads what that kernel wrote. The generated launchers use it
 * for the pass after the first of a reduce, filter, scan or reduce_by_key: the pass is then
 * resident and waiting when the first one ends. For a library with the UDF error record of
 * `udfkit kernels` the launch is dependent only where the code the current device runs has
 * the kernel udfkit_dependent_launch (code compiled for compute_90 or later), asked per
 * device and kept per library: ordinary on a device whose code lacks it, dependent on one
 * whose code has it, whichever device loaded the library. */
UDFKIT_RUNTIME_API udfkit_status udfkit_launch_dependent(udfkit_kernel k, udfkit_dim3 grid, udfkit_dim3 block,
                                                         size_t shared_bytes, udfkit_stream s, void **args);

UDFKIT_RUNTIME_API udfkit_status udfkit_device_alloc(size_t bytes, void **out);
/* Accepts NULL. */
UDFKIT_RUNTIME_API udfkit_status udfkit_device_free(void *p);
/* Stream-ordered, from a pool of udfkit's own that keeps freed memory for the next call:
 * the memory may be used by work queued on s after this call, and by other streams once
 * they wait for s. Free it on a stream after its last use. Requests of up to 64 KiB (a
 * launcher's partials and tile state below a few million rows) take one of 64 blocks that
 * stay allocated (4 MiB at most, for the whole process and all its devices; a block serves
 * the streams of one context): a block given back is kept for the stream it was given
 * back on, whose next request takes it again with no driver allocation and no operation on
 * the stream but an event; another stream gets it only once that event has completed, so no
 * stream ever waits for another's work. On a stream being captured into a graph the memory
 * is a memory node of the graph. */
UDFKIT_RUNTIME_API udfkit_status udfkit_device_alloc_async(size_t bytes, udfkit_stream s, void **out);
/* Accepts NULL. */
UDFKIT_RUNTIME_API udfkit_status udfkit_device_free_async(void *p, udfkit_stream s);
/* Gives back what the runtime keeps of the current context for its next launches: the
 * temporary blocks of up to 64 KiB above that no launch holds, and the blocks and events that
 * released `_arrow` results left (docs/arrow.md). Each block is freed in stream order after
 * the work that last used it (the legacy stream waits for its event), so nothing waits here.
 * Later launches allocate again. For an engine returning memory, before it destroys or resets
 * a context, and for leak checkers (compute-sanitizer's --leak-check full lists kept blocks
 * as allocations never freed). UDFKIT_ERROR_NO_DRIVER without a driver; OK with no current
 * context (nothing kept). */
UDFKIT_RUNTIME_API udfkit_status udfkit_release_kept(void);
/* Caller-owned temporary memory for stream s (as CUB's two-phase calls let a caller give its
 * storage): from now on udfkit_device_alloc_async on s, and so every launcher's temporary
 * memory on s (partials, tile state, sort buffers), is taken from `scratch` while it has
 * room, 256-byte aligned, and given back to it by udfkit_device_free_async; what does not
 * fit comes from the stream-ordered pool as before. Work on s runs in order, so each launch
 * reuses the same bytes. The memory must stay allocated while work queued on s may use
 * it. scratch NULL (or bytes 0) ends it; a stream's scratch cannot be replaced or ended
 * while a launcher on it holds memory from it. Up to 64 streams at once, in the whole
 * process. The scratch belongs to s in the current context (known by cuCtxGetId and
 * cuStreamGetId): another context's NULL stream, or a stream created later at s's handle,
 * does not use it. */
UDFKIT_RUNTIME_API udfkit_status udfkit_stream_scratch(udfkit_stream s, void *scratch, size_t bytes);
/* Sets `bytes` bytes at p to `value`, in stream order. */
UDFKIT_RUNTIME_API udfkit_status udfkit_device_memset_async(void *p, int value, size_t bytes, udfkit_stream s);
/* Copies between host and device memory of the current context, synchronously: on the
 * legacy default stream (cuMemcpyHtoD, cuMemcpyDtoH), so they start after the work queued
 * before on that stream and on blocking streams (cuStreamCreate's default flag), but do not
 * wait for non-blocking streams (CU_STREAM_NON_BLOCKING, cudaStreamNonBlocking), nor for
 * other contexts' work. Both return once the copy is done: udfkit_copy_to_host when the
 * data is in dst, udfkit_copy_to_device when it is in device memory, so that a kernel on any
 * stream or context launched after it reads the new bytes (the driver's cuMemcpyHtoD from
 * pageable memory returns once the bytes are staged, with the transfer still running on the
 * legacy stream, which non-blocking streams do not wait for: udfkit_copy_to_device
 * synchronizes the legacy stream after it). Under per-thread default streams (nvcc
 * --default-stream per-thread) the legacy stream is still the one used. For data a kernel
 * on a non-blocking stream writes, synchronize that stream first, or use
 * udfkit_copy_to_host_async on it. */
UDFKIT_RUNTIME_API udfkit_status udfkit_copy_to_device(void *dst, const void *src, size_t bytes);
UDFKIT_RUNTIME_API udfkit_status udfkit_copy_to_host(void *dst, const void *src, size_t bytes);
/* The same copies in stream order on s (cuMemcpyHtoDAsync, cuMemcpyDtoHAsync): they run
 * after the work queued on s before, and the work queued after waits for them. Host memory
 * that is page-locked (cudaMallocHost, cuMemHostAlloc, cuMemHostRegister) is copied by the
 * device while the call returns at once: it must stay unchanged (to the device) or unread
 * (to the host) until s has reached the copy (udfkit_stream_synchronize(s), or an event).
 * Pageable host memory is staged by the driver: a copy to the device may return before it
 * is done (src can be reused at once), a copy to the host returns once it is done. */
UDFKIT_RUNTIME_API udfkit_status udfkit_copy_to_device_async(void *dst, const void *src, size_t bytes,
                                                             udfkit_stream s);
UDFKIT_RUNTIME_API udfkit_status udfkit_copy_to_host_async(void *dst, const void *src, size_t bytes,
                                                           udfkit_stream s);
UDFKIT_RUNTIME_API udfkit_status udfkit_synchronize(void);
UDFKIT_RUNTIME_API udfkit_status udfkit_stream_synchronize(udfkit_stream s);

/* The UDF error record of a library made by `udfkit kernels` (its kernels keep the lowest
 * row a UDF failed with udfkit_row_error, and that code), in the current context: each
 * context that runs the library's kernels has a record of its own (a device global of the
 * library's code), shared by all its streams. Waits for s, then returns
 * UDFKIT_ERROR_UDF with *row and *code set (and the detail in udfkit_last_error()) where a
 * launch in this context failed a row since the last call, and clears the record; else
 * UDFKIT_OK. Launches on other streams of the context that are still running may add to
 * the record after it was read: wait for them (udfkit_synchronize) to see theirs. A
 * library without the record (no udfkit kernels in it) always gives UDFKIT_OK.
 * <target>_udf_error calls this with its library; row and code may be NULL. */
UDFKIT_RUNTIME_API udfkit_status udfkit_library_udf_error(udfkit_library *lib, udfkit_stream s, uint64_t *row,
                                                          int *code);

/* What launchers size their grids by, and which code the device runs (9 and 0 for sm_90),
 * of the device of the calling thread's context. */
typedef enum udfkit_device_attr {
    UDFKIT_DEVICE_MULTIPROCESSOR_COUNT,
    UDFKIT_DEVICE_MAX_THREADS_PER_BLOCK,
    UDFKIT_DEVICE_MAX_THREADS_PER_MULTIPROCESSOR,
    UDFKIT_DEVICE_WARP_SIZE,
    UDFKIT_DEVICE_COMPUTE_CAPABILITY_MAJOR,
    UDFKIT_DEVICE_COMPUTE_CAPABILITY_MINOR
} udfkit_device_attr;

UDFKIT_RUNTIME_API udfkit_status udfkit_device_attribute(udfkit_device_attr attr, int *out);
/* Free and total memory of that device, in bytes. */
UDFKIT_RUNTIME_API udfkit_status udfkit_device_memory(size_t *free_bytes, size_t *total_bytes);

/* UDFKIT_RUNTIME_ABI_VERSION as this library was built. */
UDFKIT_RUNTIME_API int udfkit_runtime_abi_version(void);
/* Generated code calls this before it loads anything, with the ABI version it was generated
 * for: UDFKIT_ERROR_ABI_MISMATCH, with a message naming `what` and both versions, unless it
 * is this library's. */
UDFKIT_RUNTIME_API udfkit_status udfkit_runtime_check_abi(int version, const char *what);

/* ---- Late binding: libraries that ship first and take their users' UDFs later ----
 *
 * A UDF package is what `udfkit compile` or add_ptx_udf built (a manifest and its
 * artifacts, installed by udfkit_install_udf), the one fatbin `udfkit pack` makes of it
 * (udfkit_install_udf(... FATBIN)), or CUDA C/C++ text compiled here at run time. Its
 * functions are bound to the slots of a library built with add_jit_library(... SLOTS ...),
 * whose <target>_bind links the library's LTO-IR with them for the current device. */
typedef struct udfkit_package udfkit_package;

/* Opens a package: a manifest (JSON; needs libjansson.so.4 at run time) and the artifacts it
 * names beside it, every one checked against its recorded size and hash, or a package
 * fatbin. Nothing is linked yet. UDFKIT_ERROR_NOT_FOUND where the file is missing,
 * UDFKIT_ERROR_BAD_IMAGE where it or an artifact is corrupt, truncated or not a package, or
 * not a regular file (a directory, a FIFO, a device: refused without reading it). */
UDFKIT_RUNTIME_API udfkit_status udfkit_package_open(const char *path, udfkit_package **out);
/* Accepts NULL. A library bound to the package's functions stays valid after it closes. */
UDFKIT_RUNTIME_API void udfkit_package_close(udfkit_package *pkg);
UDFKIT_RUNTIME_API size_t udfkit_package_function_count(const udfkit_package *pkg);
/* The i-th function's C name and signature ("float32(float32, float32?)", numba's type
 * names, as in function specs); both stay valid while the package is open. */
UDFKIT_RUNTIME_API udfkit_status udfkit_package_function(const udfkit_package *pkg, size_t i, const char **c_name,
                                                         const char **signature);

/* Compiles CUDA C/C++ `source` (named `name` in messages: any printable text, no extension
 * needed; a control character in it is UDFKIT_ERROR_INVALID_ARGUMENT) with NVRTC, loaded at run time
 * (UDFKIT_NVRTC_LIBRARY, else a CUDA toolkit's: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, else
 * libnvrtc.so.13 through the loader's path), exporting each function spec
 * as `udfkit compile --function` does, with the same checks and messages, into a package
 * of LTO-IR. Options: "-I<dir>", "-D<name>[=<value>]", "--std=c++17", "--arch=<list>"
 * (CMake's syntax; default: the current device's architecture), and any other option,
 * which goes to NVRTC as it is. Results are kept in udfkit's cache under the keys
 * `udfkit compile` uses, so compiling the same text again costs a lookup. CUDA's headers
 * (needed for T? specs) come from UDFKIT_CUDA_INCLUDE_DIR, else $CUDA_HOME/include, else
 * $CUDA_PATH/include, else /usr/local/cuda/include.
 * UDFKIT_ERROR_COMPILE with the diagnostics where the source or a spec is wrong. */
UDFKIT_RUNTIME_API udfkit_status udfkit_compile_source(const char *name, const char *source,
                                                       const char *const *specs, size_t spec_count,
                                                       const char *const *options, size_t option_count,
                                                       udfkit_package **out);

/* ---- Code from users: confinement, limits and cancel (docs/security.md) ----
 *
 * NVRTC and nvJitLink can be neither bounded nor stopped inside a process, and NVRTC reads
 * any file an #include names. A compile given any of the options below runs NVRTC out of
 * the caller's process, in udfkit's sandbox helper (udfkit-sandbox, installed beside the
 * runtime in <libdir>/../libexec/udfkit; UDFKIT_SANDBOX names another): a fresh process
 * with an empty environment, its address space and CPU time limited, killed at the time
 * limit or on cancel and waited for, so that no thread or process is left. The cache is
 * asked first, in the caller's process: a cached compile starts no helper. */

/* A way to stop compiles and binds from another thread. */
typedef struct udfkit_cancel udfkit_cancel;
UDFKIT_RUNTIME_API udfkit_status udfkit_cancel_create(udfkit_cancel **out);
/* From any thread, also from a signal handler: every compile or bind using the token, now
 * or later, that runs NVRTC or nvJitLink ends with UDFKIT_ERROR_COMPILE and a message saying
 * it was cancelled (one answered from the cache has nothing to stop, and returns its
 * result). A token stays triggered; make a new one for the next request. */
UDFKIT_RUNTIME_API void udfkit_cancel_trigger(udfkit_cancel *c);
/* Accepts NULL. No call may be using it, and no package given it (udfkit_package_set_options)
 * may be bound after. */
UDFKIT_RUNTIME_API void udfkit_cancel_destroy(udfkit_cancel *c);

#define UDFKIT_COMPILE_OPTIONS_VERSION 1
typedef struct udfkit_compile_options {
    unsigned version;      /* UDFKIT_COMPILE_OPTIONS_VERSION */
    /* The text is a user's: the mode for UDF text an engine takes from its users. NVRTC reads
     * only files below the "-I<dir>" options' directories and CUDA's headers (enforced by
     * Landlock in the helper, and checked before: an #include of an absolute path, of a name
     * with "..", an #include_next, or one leading outside those directories through a symbolic
     * link is UDFKIT_ERROR_COMPILE, before any file is read); nothing else can be read, so
     * no message holds a byte of another file and __has_include answers no for every other
     * path; the text has no directory of its own to include from; results are cached apart
     * from trusted compiles'. Limits default to 60 s and 4 GiB. Needs Linux 5.13 or newer with
     * Landlock (else UDFKIT_ERROR_TOOLCHAIN: it is never run unconfined). */
    int untrusted;
    double time_limit;     /* seconds of the whole call; 0: none (untrusted: 60) */
    uint64_t memory_limit; /* bytes of address space of each NVRTC, its ~0.3 GiB of code and
                              data included; 0: none (untrusted: 4 GiB) */
    udfkit_cancel *cancel; /* NULL: none */
} udfkit_compile_options;
#define UDFKIT_COMPILE_OPTIONS_INIT {UDFKIT_COMPILE_OPTIONS_VERSION, 0, 0.0, 0, NULL}

/* udfkit_compile_source, with `copts` (NULL: none, as udfkit_compile_source). A compile
 * stopped by a limit or cancelled is UDFKIT_ERROR_COMPILE with a message naming the limit
 * ("... stopped: it ran past its time limit of 2 s", "... ran out of its memory limit of
 * 512 MiB") or the cancel; a helper that cannot be found or started, or a kernel that cannot
 * confine, UDFKIT_ERROR_TOOLCHAIN. The package keeps `copts` for its binds (below). */
UDFKIT_RUNTIME_API udfkit_status udfkit_compile_source_with(const char *name, const char *source,
                                                            const char *const *specs, size_t spec_count,
                                                            const char *const *options, size_t option_count,
                                                            const udfkit_compile_options *copts,
                                                            udfkit_package **out);
/* How binds that link this package run nvJitLink: where `copts` asks for anything (a limit,
 * a cancel token, untrusted), in the sandbox helper under the strictest limits of the bound
 * packages, cancelled by any of their tokens, and, for untrusted ones, reading no file at
 * all; so damaged code that passed udfkit's checks costs the caller's process no memory
 * nvJitLink keeps. For packages a user handed over (udfkit_package_open), or to change a
 * compiled package's. NULL: in the process again. */
UDFKIT_RUNTIME_API udfkit_status udfkit_package_set_options(udfkit_package *pkg, const udfkit_compile_options *copts);

/* One slot of a late-bound library, and what a caller binds to it. */
typedef struct udfkit_slot {
    const char *name;      /* the SLOTS c_name */
    const char *signature; /* its signature, as in a function spec */
} udfkit_slot;

typedef struct udfkit_slot_binding {
    const char *slot;                 /* the SLOTS c_name */
    const udfkit_package *package;
    const char *function;             /* c_name in the package; NULL: same as slot */
} udfkit_slot_binding;

/* Links `image`, a fatbin of LTO-IR as `udfkit pack` writes it whose code calls the
 * functions `slots` names, with the package functions `bindings` binds to them, for the
 * current device, and loads the result (what <target>_bind of a SLOTS library calls).
 * Where the image holds SASS for the device's architecture of the kernels that call no
 * slot (`udfkit pack --sass`, as add_jit_library packs a SLOTS library), that is loaded and
 * each kernel that calls a slot is linked on its first udfkit_library_get_kernel (a link
 * failure is then that call's error); UDFKIT_BIND_WHOLE=1, an image without such SASS, and
 * a package that asks for the sandbox link every kernel here.
 * Every slot is bound exactly once, to a function whose signature is the slot's
 * (UDFKIT_ERROR_INVALID_ARGUMENT naming both signatures otherwise; a function the package
 * lacks is UDFKIT_ERROR_NOT_FOUND), all checked before anything is linked. Of the image
 * and of each package the LTO-IR for the highest architecture the device runs is used
 * (UDFKIT_ERROR_NO_BINARY where there is none); LTO-IR made by a newer NVRTC or NVVM than
 * nvJitLink's is UDFKIT_ERROR_TOOLCHAIN. A function of another name than its slot is
 * reached through a forwarder compiled with NVRTC. The linked code is cached on disk (as
 * udfkit_library_link's) and in the process: binding the same image to the same packages
 * again costs a lookup. image_hash: NULL, or the image's xxh3-128 in hex as `udfkit embed`
 * writes it (<symbol>_hash), which saves hashing the image at each call. Unload the result
 * with udfkit_library_unload; each bind gives a reference of its own. */
UDFKIT_RUNTIME_API udfkit_status udfkit_library_bind(const udfkit_image *image, const char *image_hash,
                                                     const udfkit_slot *slots, size_t slot_count,
                                                     const udfkit_slot_binding *bindings, size_t count,
                                                     udfkit_library **out);

/* udfkit_library_bind where the slots `optional` flags (NULL: none; else slot_count
 * entries, 1 for an optional slot, as add_jit_library's OPTIONAL_SLOTS) may be left
 * unbound (an optional slot is bound at most once). A kernel that calls an unbound one is
 * refused at every udfkit_library_get_kernel of it (UDFKIT_ERROR_INVALID_ARGUMENT naming
 * the kernel and the slot, nothing linked or launched; which kernels call which slots is
 * read from the image's SASS entry), and a bind that links every kernel at once
 * (UDFKIT_BIND_WHOLE=1, no SASS for the device, a sandboxed package) is refused the same
 * way, naming the slot. A separate array, so that udfkit_slot keeps its layout. */
UDFKIT_RUNTIME_API udfkit_status udfkit_library_bind_with_optional(const udfkit_image *image, const char *image_hash,
                                                                   const udfkit_slot *slots, size_t slot_count,
                                                                   const unsigned char *optional,
                                                                   const udfkit_slot_binding *bindings, size_t count,
                                                                   udfkit_library **out);

/* What a bound library is (udfkit_library_bind, <target>_instance_library of a bound
 * instance), for logs and tests. */
typedef struct udfkit_bind_info {
    int arch;                  /* the sm its code is for: 90 for sm_90 */
    int whole;                 /* 1: every kernel linked at the bind; 0: the image's SASS loaded */
    int from_cache;            /* whole: 1 where the linked code came from the cache (no nvJitLink) */
    size_t forwarders;         /* slots bound to functions of other names (NVRTC forwarders) */
    size_t kernels_to_link;    /* not whole: the kernels that call slots, linked on first use */
    size_t kernels_linked;     /* of those, linked (or found in the cache) so far */
    size_t kernels_from_cache; /* of those, found in the cache */
} udfkit_bind_info;

/* UDFKIT_ERROR_INVALID_ARGUMENT where lib is NULL or not a bound library. */
UDFKIT_RUNTIME_API udfkit_status udfkit_library_bind_info(udfkit_library *lib, udfkit_bind_info *out);

/* Whether the bind of `lib` bound a function to `slot` (*bound 1), or left that optional
 * slot unbound (*bound 0). UDFKIT_ERROR_INVALID_ARGUMENT where lib is NULL or not a bound
 * library, or `slot` is not one of its slots (they are listed in the message). */
UDFKIT_RUNTIME_API udfkit_status udfkit_library_slot_bound(udfkit_library *lib, const char *slot, int *bound);

/* ---- What the runtime has to say besides a failure ----
 *
 * The runtime never writes to the process's stderr unless asked. Warnings (a cache directory
 * that cannot be written or that other users could write, a corrupt cache entry, ...) go
 * to the callback set here; with none set they are dropped, unless the environment's
 * UDFKIT_VERBOSE is set (to anything but 0), which sends them to stderr. Notes (each NVRTC
 * compile and nvJitLink link, and where its result came from) come only under
 * UDFKIT_VERBOSE, to the callback where one is set. */
typedef enum udfkit_log_level { UDFKIT_LOG_WARNING = 1, UDFKIT_LOG_NOTE = 2 } udfkit_log_level;
/* level: a udfkit_log_level; message: one line, without a newline or a "udfkit: " prefix.
 * Called from whichever thread has something to say, so it must be thread-safe. */
typedef void (*udfkit_log_fn)(int level, const char *message, void *user);
/* fn NULL: back to the default. */
UDFKIT_RUNTIME_API void udfkit_log_set(udfkit_log_fn fn, void *user);

/* For generated code: sets this thread's message to `message` and returns s. */
UDFKIT_RUNTIME_API udfkit_status udfkit_report(udfkit_status s, const char *message);

UDFKIT_RUNTIME_API const char *udfkit_status_string(udfkit_status s);
/* This thread's detail of its last failure; never NULL. */
UDFKIT_RUNTIME_API const char *udfkit_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* UDFKIT_RUNTIME_H */
