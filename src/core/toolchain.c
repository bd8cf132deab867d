#include "toolchain.h"

#include "nvfatbin_wrap.h"
#include "nvjitlink_wrap.h"
#include "nvrtc_wrap.h"
#include "ptxcompiler_wrap.h"

#include <stdio.h>

void udfkit_toolchain_query(udfkit_toolchain *tc)
{
    udfkit_nvrtc_version(&tc->nvrtc.major, &tc->nvrtc.minor);
    udfkit_jitlink_version(&tc->nvjitlink.major, &tc->nvjitlink.minor);
    udfkit_ptxcompiler_version(&tc->nvptxcompiler.major, &tc->nvptxcompiler.minor);
    udfkit_fatbin_version(&tc->nvfatbin.major, &tc->nvfatbin.minor);
}

int udfkit_version_compare(udfkit_version a, udfkit_version b)
{
    if (a.major != b.major)
        return a.major < b.major ? -1 : 1;
    if (a.minor != b.minor)
        return a.minor < b.minor ? -1 : 1;
    return 0;
}

bool udfkit_version_parse(const char *text, udfkit_version *out)
{
    return text && sscanf(text, "%d.%d", &out->major, &out->minor) == 2;
}

udfkit_rc udfkit_toolchain_check_producer(const udfkit_toolchain *tc, const char *producer, udfkit_version v,
                                          const char *what)
{
    if (udfkit_version_compare(tc->nvjitlink, v) >= 0)
        return UDFKIT_RC_OK;
    return udfkit_fail(UDFKIT_RC_ENV, what, 0,
                       "made by %s %d.%d, newer than this nvJitLink %d.%d, which cannot link it; %s, "
                       "then rebuild it",
                       producer, v.major, v.minor, tc->nvjitlink.major, tc->nvjitlink.minor, UDFKIT_FIX_TOOLCHAIN_HINT);
}

udfkit_rc udfkit_toolchain_check(const udfkit_toolchain *tc)
{
    const struct {
        const char *name;
        udfkit_version v;
    } parts[] = {{"NVRTC", tc->nvrtc}, {"nvJitLink", tc->nvjitlink}, {"nvPTXCompiler", tc->nvptxcompiler},
                 {"nvFatbin", tc->nvfatbin}};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (parts[i].v.major == 0)
            return udfkit_fail(UDFKIT_RC_ENV, NULL, 0, "%s does not report its version; %s", parts[i].name,
                               UDFKIT_FIX_TOOLCHAIN_HINT);
    for (size_t i = 1; i < sizeof parts / sizeof *parts; i++)
        if (parts[i].v.major != parts[0].v.major)
            return udfkit_fail(UDFKIT_RC_ENV, NULL, 0,
                               "%s %d.%d and %s %d.%d are from different CUDA major releases and cannot work "
                               "together; %s",
                               parts[0].name, parts[0].v.major, parts[0].v.minor, parts[i].name, parts[i].v.major,
                               parts[i].v.minor, UDFKIT_FIX_TOOLCHAIN_HINT);
    if (udfkit_version_compare(tc->nvjitlink, tc->nvrtc) < 0)
        return udfkit_fail(UDFKIT_RC_ENV, NULL, 0,
                           "nvJitLink %d.%d is older than NVRTC %d.%d and cannot link the LTO-IR it produces; %s",
                           tc->nvjitlink.major, tc->nvjitlink.minor, tc->nvrtc.major, tc->nvrtc.minor,
                           UDFKIT_FIX_TOOLCHAIN_HINT);
    return UDFKIT_RC_OK;
}
