/* Loaded by test_toolchain through UDFKIT_NVJITLINK_LIBRARY: an nvJitLink whose link step
 * fails as an NVVM error does. It links the real library, so every other entry point
 * udfkit looks up in it resolves to the real one. */
#include <nvJitLink.h>

nvJitLinkResult __nvJitLinkComplete_13_0(nvJitLinkHandle handle);

nvJitLinkResult __nvJitLinkComplete_13_0(nvJitLinkHandle handle)
{
    (void)handle;
    return NVJITLINK_ERROR_NVVM_COMPILE;
}
