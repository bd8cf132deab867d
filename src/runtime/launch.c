#include "driver.h"
#include "library_internal.h"

#include <pthread.h>
#include <stdbool.h>

/* k on s, an ordinary launch, with the driver entered. */
static udfkit_status launch(const udfkit_driver *d, udfkit_kernel k, udfkit_dim3 grid, udfkit_dim3 block,
                            size_t shared_bytes, udfkit_stream s, void **args)
{
    /* A CUkernel stands for its CUfunction in the current context when launched. */
    CUresult r = d->launch_kernel((CUfunction)k, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                  (unsigned int)shared_bytes, (CUstream)s, args, NULL);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuLaunchKernel");
}

udfkit_status udfkit_launch(udfkit_kernel k, udfkit_dim3 grid, udfkit_dim3 block, size_t shared_bytes, udfkit_stream s,
                            void **args)
{
    if (!k)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_launch: no kernel");
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (!st)
        st = udfkit_kernel_for_device(d, &k, NULL); /* the code this device runs */
    return st ? st : launch(d, k, grid, block, shared_bytes, s, args);
}

udfkit_status udfkit_launch_dependent(udfkit_kernel k, udfkit_dim3 grid, udfkit_dim3 block, size_t shared_bytes,
                                      udfkit_stream s, void **args)
{
    if (!k)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_launch_dependent: no kernel");
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    /* Programmatic dependent launch came with compute capability 9.0 (the answer is kept per
     * device), and is for code whose kernels wait for the pass before: the caller's own, or
     * code of `udfkit kernels` that has udfkit_dependent_launch on this device (asked per
     * device: the launcher may have asked on another, whose code is another). Else, and on
     * drivers without cuLaunchKernelEx, an ordinary launch. */
    bool waits = false;
    if ((st = udfkit_kernel_for_device(d, &k, &waits)))
        return st;
    int major = 0;
    if (!waits || !d->launch_kernel_ex || udfkit_device_attribute(UDFKIT_DEVICE_COMPUTE_CAPABILITY_MAJOR, &major) ||
        major < 9)
        return launch(d, k, grid, block, shared_bytes, s, args);
    CUlaunchAttribute attribute = {.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION};
    attribute.value.programmaticStreamSerializationAllowed = 1;
    const CUlaunchConfig config = {.gridDimX = grid.x,
                                   .gridDimY = grid.y,
                                   .gridDimZ = grid.z,
                                   .blockDimX = block.x,
                                   .blockDimY = block.y,
                                   .blockDimZ = block.z,
                                   .sharedMemBytes = (unsigned int)shared_bytes,
                                   .hStream = (CUstream)s,
                                   .attrs = &attribute,
                                   .numAttrs = 1};
    CUresult r = d->launch_kernel_ex(&config, (CUfunction)k, args, NULL);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuLaunchKernelEx");
}

udfkit_status udfkit_synchronize(void)
{
    const udfkit_driver *d;
    udfkit_status s = udfkit_driver_enter(&d);
    if (s)
        return s;
    CUresult r = d->ctx_synchronize();
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuCtxSynchronize");
}

udfkit_status udfkit_stream_synchronize(udfkit_stream s)
{
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    CUresult r = d->stream_synchronize((CUstream)s);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuStreamSynchronize");
}

/* Occupancy depends on the kernel's code for the device and the block's shape only: each
 * (kernel, device, block threads, shared bytes) is asked of the driver once and kept in a
 * small table (the launchers ask on every call; a full neighbourhood of the table is asked
 * again each time). Entries go when their library is unloaded (udfkit_occupancy_forget), so
 * a kernel loaded later at the same address gets its own answer. */
#define OCCUPANCY_SLOTS 512
typedef struct occupancy_entry {
    CUkernel kernel;
    CUdevice device;
    unsigned block_threads;
    size_t shared_bytes;
    int blocks;
} occupancy_entry;
static occupancy_entry occupancy_table[OCCUPANCY_SLOTS];
static pthread_mutex_t occupancy_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t occupancy_slot(CUkernel k, CUdevice dev, unsigned block_threads, size_t shared_bytes)
{
    uintptr_t h = (uintptr_t)k * 0x9e3779b97f4a7c15u ^ (uintptr_t)dev * 31u ^ block_threads * 7919u ^ shared_bytes;
    return (size_t)(h ^ h >> 17) % OCCUPANCY_SLOTS;
}

/* The cached answer, or 0; with `store`, keeps `blocks` instead (where a slot is free). */
static int occupancy_cached(CUkernel k, CUdevice dev, unsigned block_threads, size_t shared_bytes, int store)
{
    int found = 0;
    pthread_mutex_lock(&occupancy_lock);
    size_t at = occupancy_slot(k, dev, block_threads, shared_bytes);
    for (size_t probe = 0; probe < 8; probe++, at = (at + 1) % OCCUPANCY_SLOTS) {
        occupancy_entry *e = &occupancy_table[at];
        if (e->kernel == k && e->device == dev && e->block_threads == block_threads && e->shared_bytes == shared_bytes) {
            if (store)
                e->blocks = store;
            found = e->blocks;
            break;
        }
        if (!e->kernel) {
            if (store)
                *e = (occupancy_entry){k, dev, block_threads, shared_bytes, store};
            break;
        }
    }
    pthread_mutex_unlock(&occupancy_lock);
    return store ? store : found;
}

void udfkit_occupancy_forget(const void *const *kernels, size_t count)
{
    pthread_mutex_lock(&occupancy_lock);
    for (size_t i = 0; i < OCCUPANCY_SLOTS; i++)
        for (size_t j = 0; j < count && occupancy_table[i].kernel; j++)
            if (occupancy_table[i].kernel == (CUkernel)kernels[j])
                occupancy_table[i] = (occupancy_entry){0};
    pthread_mutex_unlock(&occupancy_lock);
}

udfkit_status udfkit_kernel_occupancy(udfkit_kernel k, unsigned block_threads, size_t shared_bytes, int *blocks_per_sm)
{
    if (!k || !blocks_per_sm || !block_threads)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_kernel_occupancy: missing argument");
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    if ((st = udfkit_kernel_for_device(d, &k, NULL)))
        return st;
    CUdevice dev;
    CUresult r = d->ctx_get_device(&dev);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuCtxGetDevice");
    if ((*blocks_per_sm = occupancy_cached((CUkernel)k, dev, block_threads, shared_bytes, 0)) > 0)
        return UDFKIT_OK;
    /* The kernel's function in the current context: its registers are the compiled code's. */
    CUfunction f;
    r = d->kernel_get_function(&f, (CUkernel)k);
    if (r == CUDA_SUCCESS)
        r = d->occupancy_max_active_blocks(blocks_per_sm, f, (int)block_threads, shared_bytes);
    if (r != CUDA_SUCCESS)
        return udfkit_driver_fail(d, r, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if (*blocks_per_sm > 0)
        occupancy_cached((CUkernel)k, dev, block_threads, shared_bytes, *blocks_per_sm);
    return UDFKIT_OK;
}
