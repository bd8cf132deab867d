# UDFKIT_SUPPORTED_ARCHITECTURES: the real architectures this NVRTC compiles for, asked of
# NVRTC itself at configure time, so that add_ptx_udf validates ARCHITECTURES early.
include_guard(GLOBAL)

set(_udfkit_probe "${CMAKE_CURRENT_BINARY_DIR}/udfkit_archs_probe.c")
file(WRITE "${_udfkit_probe}" [=[
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    int n = 0;
    if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0)
        return 1;
    int *archs = malloc((size_t)n * sizeof *archs);
    nvrtcGetSupportedArchs(archs);
    for (int i = 0; i < n; i++)
        printf("%s%d", i ? ";" : "", archs[i]);
    free(archs);
    return 0;
}
]=])
try_run(_udfkit_run_rc _udfkit_compile_ok "${CMAKE_CURRENT_BINARY_DIR}/udfkit_archs_probe" "${_udfkit_probe}"
  CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${UDFKIT_NVRTC_INCLUDE_DIR}"
  LINK_LIBRARIES "${UDFKIT_NVRTC_LIBRARY}"
  RUN_OUTPUT_VARIABLE _udfkit_archs)
if(_udfkit_compile_ok AND _udfkit_run_rc EQUAL 0)
  set(UDFKIT_SUPPORTED_ARCHITECTURES "${_udfkit_archs}")
else()
  set(UDFKIT_SUPPORTED_ARCHITECTURES "")
  message(WARNING "udfkit: NVRTC's architectures could not be listed; ARCHITECTURES are checked at build time only")
endif()
set(UDFKIT_DEFAULT_ARCHITECTURES 75)
