#include "nvidia/nvfatbin_wrap.h"

#include "nvidia/cuda_libs.h"

#include <stdio.h>
#include <string.h>

#include <nvFatbin.h>

/* nvFatbin's entry points, from the library loaded on first use (cuda_libs.h). */
static struct {
    nvFatbinResult (*create)(nvFatbinHandle *, const char **, size_t);
    nvFatbinResult (*add_cubin)(nvFatbinHandle, const void *, size_t, const char *, const char *);
    nvFatbinResult (*add_ptx)(nvFatbinHandle, const char *, size_t, const char *, const char *, const char *);
    nvFatbinResult (*add_ltoir)(nvFatbinHandle, const void *, size_t, const char *, const char *, const char *);
    nvFatbinResult (*size)(nvFatbinHandle, size_t *);
    nvFatbinResult (*get)(nvFatbinHandle, void *);
    nvFatbinResult (*destroy)(nvFatbinHandle *);
    const char *(*error_string)(nvFatbinResult);
    nvFatbinResult (*version)(unsigned *, unsigned *);
} api;

static udfkit_rc load_nvfatbin(void)
{
    const udfkit_symbol symbols[] = {
        {"nvFatbinCreate", (void **)&api.create},
        {"nvFatbinAddCubin", (void **)&api.add_cubin},
        {"nvFatbinAddPTX", (void **)&api.add_ptx},
        {"nvFatbinAddLTOIR", (void **)&api.add_ltoir},
        {"nvFatbinSize", (void **)&api.size},
        {"nvFatbinGet", (void **)&api.get},
        {"nvFatbinDestroy", (void **)&api.destroy},
        {"nvFatbinGetErrorString", (void **)&api.error_string},
        {"nvFatbinVersion", (void **)&api.version},
    };
    return udfkit_cuda_part_load(UDFKIT_PART_NVFATBIN, symbols, sizeof symbols / sizeof *symbols);
}

static udfkit_rc fatbin_fail(nvFatbinResult r, const char *what, const char *name)
{
    return udfkit_fail(UDFKIT_RC_INPUT, name, 0, "nvFatbin: %s failed: %s", what, api.error_string(r));
}

static const char *const compression_names[] = {
    [UDFKIT_COMPRESS_NONE] = "none",
    [UDFKIT_COMPRESS_SPEED] = "speed",
    [UDFKIT_COMPRESS_BALANCE] = "balance",
    [UDFKIT_COMPRESS_SIZE] = "size",
};

bool udfkit_fatbin_compression_parse(const char *text, udfkit_fatbin_compression *out)
{
    for (size_t i = 0; i < sizeof compression_names / sizeof *compression_names; i++)
        if (text && strcmp(text, compression_names[i]) == 0) {
            *out = (udfkit_fatbin_compression)i;
            return true;
        }
    return false;
}

const char *udfkit_fatbin_compression_name(udfkit_fatbin_compression c)
{
    return compression_names[c];
}

udfkit_rc udfkit_fatbin_build(const udfkit_fatbin_entry *entries, size_t count, udfkit_fatbin_compression compression,
                              udfkit_buf *out)
{
    udfkit_rc rc = load_nvfatbin();
    if (rc)
        return rc;
    char mode[64];
    snprintf(mode, sizeof mode, "-compress-mode=%s", compression_names[compression]);
    const char *none[] = {"-compress=false"}, *some[] = {"-compress=true", "-compress-all", mode};
    nvFatbinHandle h = NULL;
    nvFatbinResult r = compression == UDFKIT_COMPRESS_NONE ? api.create(&h, none, 1) : api.create(&h, some, 3);
    if (r != NVFATBIN_SUCCESS)
        return fatbin_fail(r, "creating a fatbin", NULL);
    for (size_t i = 0; i < count && !rc; i++) {
        const udfkit_fatbin_entry *e = &entries[i];
        switch (e->kind) {
        case UDFKIT_FATBIN_CUBIN:
            r = api.add_cubin(h, e->data, e->size, e->arch, e->name);
            break;
        case UDFKIT_FATBIN_PTX:
            r = api.add_ptx(h, e->data, e->size, e->arch, e->name, "");
            break;
        case UDFKIT_FATBIN_LTOIR:
            r = api.add_ltoir(h, e->data, e->size, e->arch, e->name, "");
            break;
        }
        if (r != NVFATBIN_SUCCESS)
            rc = fatbin_fail(r, "adding an entry", e->name);
    }
    size_t size = 0;
    if (!rc && (r = api.size(h, &size)) != NVFATBIN_SUCCESS)
        rc = fatbin_fail(r, "sizing the fatbin", NULL);
    if (!rc && !udfkit_buf_reserve(out, size))
        rc = udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    if (!rc && (r = api.get(h, out->data)) != NVFATBIN_SUCCESS)
        rc = fatbin_fail(r, "writing the fatbin", NULL);
    if (!rc) {
        out->size = size;
        out->data[size] = '\0';
    }
    api.destroy(&h);
    return rc;
}

udfkit_rc udfkit_fatbin_version(int *major, int *minor)
{
    udfkit_rc rc = load_nvfatbin();
    if (rc)
        return rc;
    unsigned ma = 0, mi = 0;
    if (api.version(&ma, &mi) != NVFATBIN_SUCCESS)
        ma = mi = 0;
    *major = (int)ma;
    *minor = (int)mi;
    return UDFKIT_RC_OK;
}
