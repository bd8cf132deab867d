#include "driver.h"

udfkit_status udfkit_launch(udfkit_kernel k, udfkit_dim3 grid, udfkit_dim3 block, size_t shared_bytes, udfkit_stream s,
                            void **args)
{
    if (!k)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_launch: no kernel");
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    /* A CUkernel stands for its CUfunction in the current context when launched. */
    CUresult r = d->launch_kernel((CUfunction)k, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                  (unsigned int)shared_bytes, (CUstream)s, args, NULL);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuLaunchKernel");
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

udfkit_status udfkit_kernel_occupancy(udfkit_kernel k, unsigned block_threads, size_t shared_bytes, int *blocks_per_sm)
{
    if (!k || !blocks_per_sm || !block_threads)
        return udfkit_runtime_fail(UDFKIT_ERROR_INVALID_ARGUMENT, "udfkit_kernel_occupancy: missing argument");
    const udfkit_driver *d;
    udfkit_status st = udfkit_driver_enter(&d);
    if (st)
        return st;
    /* The kernel's function in the current context: its registers are the compiled code's. */
    CUfunction f;
    CUresult r = d->kernel_get_function(&f, (CUkernel)k);
    if (r == CUDA_SUCCESS)
        r = d->occupancy_max_active_blocks(blocks_per_sm, f, (int)block_threads, shared_bytes);
    return r == CUDA_SUCCESS ? UDFKIT_OK : udfkit_driver_fail(d, r, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
}
