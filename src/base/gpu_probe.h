/* Asks the CUDA driver, if there is one, for the first GPU's compute capability. */
#ifndef UDFKIT_GPU_PROBE_H
#define UDFKIT_GPU_PROBE_H

#include <stdbool.h>
#include <stddef.h>

bool udfkit_gpu_probe_capability(int *major, int *minor, char *why, size_t why_size);

#endif
