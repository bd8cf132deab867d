/* nanoarrow's device extension over udfkit's runtime: an ArrowDevice for CUDA memory of the
 * current context, whose copies and allocations are udfkit's (udfkit_copy_to_device,
 * udfkit_device_alloc, ...), so that a program moves Arrow arrays between host and GPU with
 * nanoarrow (ArrowDeviceArrayViewCopy) and links no libcuda: udfkit finds the driver at run
 * time. nanoarrow's own CUDA device links libcuda; this file stands in for it: built with
 * NANOARROW_DEVICE_WITH_CUDA, nanoarrow's device.c resolves CUDA arrays (ArrowDeviceResolve)
 * through ArrowDeviceCuda, which this file defines. */
#ifndef UDFKIT_NANOARROW_DEVICE_H
#define UDFKIT_NANOARROW_DEVICE_H

#include <nanoarrow/nanoarrow_device.h>

/* CUDA device 0 (ARROW_DEVICE_CUDA, id 0), in the calling thread's current context (device 0's
 * primary context where none is current), as udfkit's runtime works. */
struct ArrowDevice *udfkit_nanoarrow_device(void);

#endif
