#include "frontend/compile.h"

#include "base/fs.h"
#include "frontend/cuda_compile.h"
#include "frontend/python_compile.h"

#include <string.h>

udfkit_rc udfkit_compile(const udfkit_compile_request *req)
{
    size_t python = 0;
    for (size_t i = 0; i < req->nsources; i++)
        python += strcmp(udfkit_path_extension(req->sources[i]), ".py") == 0;
    if (python && req->untrusted)
        return udfkit_fail(UDFKIT_RC_USAGE, NULL, 0,
                           "--untrusted compiles CUDA C/C++ only: compiling a Python UDF runs its module's code, "
                           "which no sandbox of udfkit's confines");
    if (python == 0)
        return udfkit_cuda_compile(req);
    if (python == req->nsources)
        return udfkit_python_compile(req);
    /* One interpreter start covers every Python source; CUDA sources compile per file. */
    return udfkit_fail(UDFKIT_RC_USAGE, NULL, 0,
                       "Python and CUDA C++ sources are compiled by separate calls of udfkit compile; link their "
                       "manifests together");
}
