#include "nvfatbin_wrap.h"

#include <nvFatbin.h>

static udfkit_rc fatbin_fail(nvFatbinResult r, const char *what, const char *name)
{
    return udfkit_fail(UDFKIT_RC_INPUT, name, 0, "nvFatbin: %s failed: %s", what, nvFatbinGetErrorString(r));
}

udfkit_rc udfkit_fatbin_build(const udfkit_fatbin_entry *entries, size_t count, udfkit_buf *out)
{
    /* Compressing makes loads slower and packing slower; the libraries that embed these
     * are shipped compressed by the package manager anyway. */
    const char *options[] = {"-compress=false"};
    nvFatbinHandle h = NULL;
    nvFatbinResult r = nvFatbinCreate(&h, options, 1);
    if (r != NVFATBIN_SUCCESS)
        return fatbin_fail(r, "creating a fatbin", NULL);
    udfkit_rc rc = UDFKIT_RC_OK;
    for (size_t i = 0; i < count && !rc; i++) {
        const udfkit_fatbin_entry *e = &entries[i];
        switch (e->kind) {
        case UDFKIT_FATBIN_CUBIN:
            r = nvFatbinAddCubin(h, e->data, e->size, e->arch, e->name);
            break;
        case UDFKIT_FATBIN_PTX:
            r = nvFatbinAddPTX(h, e->data, e->size, e->arch, e->name, "");
            break;
        case UDFKIT_FATBIN_LTOIR:
            r = nvFatbinAddLTOIR(h, e->data, e->size, e->arch, e->name, "");
            break;
        }
        if (r != NVFATBIN_SUCCESS)
            rc = fatbin_fail(r, "adding an entry", e->name);
    }
    size_t size = 0;
    if (!rc && (r = nvFatbinSize(h, &size)) != NVFATBIN_SUCCESS)
        rc = fatbin_fail(r, "sizing the fatbin", NULL);
    if (!rc && !udfkit_buf_reserve(out, size))
        rc = udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    if (!rc && (r = nvFatbinGet(h, out->data)) != NVFATBIN_SUCCESS)
        rc = fatbin_fail(r, "writing the fatbin", NULL);
    if (!rc) {
        out->size = size;
        out->data[size] = '\0';
    }
    nvFatbinDestroy(&h);
    return rc;
}

void udfkit_fatbin_version(int *major, int *minor)
{
    unsigned ma = 0, mi = 0;
    if (nvFatbinVersion(&ma, &mi) != NVFATBIN_SUCCESS)
        ma = mi = 0;
    *major = (int)ma;
    *minor = (int)mi;
}
