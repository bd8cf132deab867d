/* udfkit::runtime_ptx: registers the statically linked nvPTXCompiler with the runtime when
 * the program (or the library linking this) starts. */
#include "ptx_fallback.h"

#include "nvidia/ptxcompiler_wrap.h"

const int udfkit_runtime_ptx_anchor = 1;

static const udfkit_ptx_compiler compiler = {udfkit_ptxcompiler_version, udfkit_ptxcompiler_compile};

__attribute__((constructor)) static void register_compiler(void)
{
    udfkit_runtime_ptx_register(&compiler);
}
