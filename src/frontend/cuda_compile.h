/* `udfkit compile` for CUDA C/C++ sources: NVRTC in-process, one compile per source and
 * architecture, C-ABI forwarders for every function spec, a manifest and a depfile. */
#ifndef UDFKIT_CUDA_COMPILE_H
#define UDFKIT_CUDA_COMPILE_H

#include "base/diag.h"
#include "frontend/request.h"

udfkit_rc udfkit_cuda_compile(const udfkit_compile_request *req);

#endif
