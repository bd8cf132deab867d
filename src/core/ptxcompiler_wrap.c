#include "ptxcompiler_wrap.h"

#include <nvPTXCompiler.h>

void udfkit_ptxcompiler_version(int *major, int *minor)
{
    unsigned ma = 0, mi = 0;
    if (nvPTXCompilerGetVersion(&ma, &mi) != NVPTXCOMPILE_SUCCESS)
        ma = mi = 0;
    *major = (int)ma;
    *minor = (int)mi;
}
