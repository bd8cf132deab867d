#include "ptx_jit.h"

#include "artifact/elf_read.h"
#include "artifact/fatbin_read.h"
#include "artifact/ptx_isa.h"
#include "ptx_fallback.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { PTX_AUTO, PTX_ALWAYS, PTX_NEVER } ptx_mode;

/* udfkit::runtime_ptx's nvPTXCompiler, where the program links it. A library loaded later
 * (dlopen) may register while another thread loads an image: hence atomic. */
static _Atomic(const udfkit_ptx_compiler *) fallback;

void udfkit_runtime_ptx_register(const udfkit_ptx_compiler *c)
{
    atomic_store(&fallback, c);
}

bool udfkit_runtime_ptx_available(void)
{
    return atomic_load(&fallback) != NULL;
}

static ptx_mode mode_from_env(void)
{
    const char *v = getenv("UDFKIT_PTX_COMPILE");
    if (v && strcmp(v, "always") == 0)
        return PTX_ALWAYS;
    if (v && strcmp(v, "never") == 0)
        return PTX_NEVER;
    return PTX_AUTO;
}

udfkit_status udfkit_runtime_device_arch(const udfkit_driver *d, int *arch)
{
    (void)d; /* udfkit_device_attribute enters the driver itself, and keeps each answer */
    int major = 0, minor = 0;
    udfkit_status s = udfkit_device_attribute(UDFKIT_DEVICE_COMPUTE_CAPABILITY_MAJOR, &major);
    if (!s)
        s = udfkit_device_attribute(UDFKIT_DEVICE_COMPUTE_CAPABILITY_MINOR, &minor);
    if (!s)
        *arch = major * 10 + minor;
    return s;
}

/* The highest PTX ISA a driver JIT-compiles: CUDA 12.x brought ISA 8.x, CUDA 13.x ISA 9.x,
 * with 12.6 still at 8.5 and 12.8/12.9 at 8.7/8.8. */
static int driver_ptx_isa(int cuda_version)
{
    int major = cuda_version / 1000, minor = cuda_version % 1000 / 10;
    if (major >= 13)
        return (major - 4) * 10 + minor;
    if (major == 12) {
        static const int isa[10] = {80, 81, 82, 83, 84, 85, 85, 86, 87, 88};
        return isa[minor < 10 ? minor : 9];
    }
    return 78; /* CUDA 11.8 */
}

/* SASS runs on its own major architecture and newer minors; arch-specific SASS only on its own. */
static bool sass_fits(udfkit_target t, int arch)
{
    if (t.suffix == 'a')
        return (int)t.number == arch;
    return (int)t.number / 10 == arch / 10 && (int)t.number <= arch;
}

static bool ptx_fits(udfkit_target t, int arch)
{
    if (t.suffix == 'a')
        return (int)t.number == arch;
    if (t.suffix == 'f')
        return (int)t.number / 10 == arch / 10 && (int)t.number <= arch;
    return (int)t.number <= arch;
}

static void isa_text(int isa, char *out, size_t size)
{
    snprintf(out, size, "%d.%d", isa / 10, isa % 10);
}

bool udfkit_runtime_sass_runs(int sm, int arch)
{
    return sm / 10 == arch / 10 && sm <= arch;
}

/* The PTX compiled here, by udfkit::runtime_ptx's nvPTXCompiler, for the sm_`arch` device. */
static udfkit_status compile_ptx(const char *ptx, size_t ptx_size, int arch, ptx_mode mode, udfkit_code_choice *out)
{
    const udfkit_ptx_compiler *c = atomic_load(&fallback);
    if (!c && mode == PTX_ALWAYS)
        return udfkit_runtime_fail(UDFKIT_ERROR_NO_BINARY,
                                   "UDFKIT_PTX_COMPILE=always, but this program has no PTX compiler: link it with "
                                   "udfkit::runtime_ptx (add_jit_library(... PTX_FALLBACK))");
    if (!c)
        return udfkit_runtime_fail(UDFKIT_ERROR_NO_BINARY,
                                   "no SASS fits this sm_%d device, and its PTX (ISA %s) is newer than the driver "
                                   "(CUDA %s, PTX ISA %s) can JIT: update the driver, add sm_%d to the library's "
                                   "architectures, or link the program with udfkit::runtime_ptx "
                                   "(add_jit_library(... PTX_FALLBACK)) to compile the PTX with nvPTXCompiler",
                                   arch, out->ptx_isa, out->driver_version, out->driver_isa, arch);
    char gpu[16];
    snprintf(gpu, sizeof gpu, "sm_%d", arch);
    void *cubin = NULL;
    size_t cubin_size = 0;
    char *log = NULL;
    udfkit_status result = UDFKIT_OK;
    if (c->compile(ptx, ptx_size, gpu, &cubin, &cubin_size, &log)) {
        udfkit_buf_append(&out->storage, cubin, cubin_size);
        const char *nul = memchr(ptx, '\0', ptx_size);
        size_t text = nul ? (size_t)(nul - ptx) : ptx_size;
        udfkit_buf_append(&out->compiled_ptx, ptx, text);
        udfkit_buf_append(&out->compiled_ptx, "", 1);
        if (!out->storage.data || !out->compiled_ptx.data)
            result = udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
        out->code = out->storage.data;
        out->size = out->storage.size;
        out->sass_arch = arch;
    } else {
        int ma, mi;
        c->version(&ma, &mi);
        result = udfkit_runtime_fail(UDFKIT_ERROR_NO_BINARY,
                                     "no SASS fits this sm_%d device; its PTX (ISA %s) is newer than the driver "
                                     "(CUDA %s, PTX ISA %s) can JIT, and nvPTXCompiler %d.%d could not compile it: %s",
                                     arch, out->ptx_isa, out->driver_version, out->driver_isa, ma, mi,
                                     log ? log : "no log");
    }
    free(cubin);
    free(log);
    return result;
}

udfkit_status udfkit_runtime_choose_code(const udfkit_driver *d, const void *image, size_t size, udfkit_code_choice *out)
{
    memset(out, 0, sizeof *out);
    out->code = image;
    out->size = size;
    int arch, cuda_version = 0;
    udfkit_status s = udfkit_runtime_device_arch(d, &arch);
    if (s)
        return s;
    d->driver_get_version(&cuda_version);
    int driver_isa = driver_ptx_isa(cuda_version);
    isa_text(driver_isa, out->driver_isa, sizeof out->driver_isa);
    snprintf(out->driver_version, sizeof out->driver_version, "%d.%d", cuda_version / 1000, cuda_version % 1000 / 10);

    /* What the image offers this device. The driver loads lazily, so it would report an image
     * it cannot use only at the first launch: udfkit looks first. */
    const char *ptx = NULL;
    size_t ptx_size = 0;
    udfkit_buf decompressed = UDFKIT_BUF_INIT;
    udfkit_fatbin_contents contents = {0};
    unsigned machine = 0;
    if (udfkit_fatbin_sniff(image, size)) {
        if (udfkit_fatbin_read(image, size, "image", &contents) != UDFKIT_RC_OK) {
            udfkit_status s2 = udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "%s", udfkit_diag_message());
            udfkit_diag_clear();
            return s2;
        }
        const udfkit_fatbin_entry_info *best = NULL;
        char held[256] = "";
        for (size_t i = 0; i < contents.count; i++) {
            const udfkit_fatbin_entry_info *e = &contents.entries[i];
            if (e->kind == UDFKIT_CODE_SASS && sass_fits(e->target, arch)) {
                udfkit_fatbin_contents_free(&contents);
                return UDFKIT_OK; /* SASS for this device: no JIT at all */
            }
            if (e->kind == UDFKIT_CODE_PTX && ptx_fits(e->target, arch) && (!best || e->target.number > best->target.number))
                best = e;
            if (e->kind == UDFKIT_CODE_SASS || e->kind == UDFKIT_CODE_PTX) {
                char name[32];
                udfkit_target_name(e->target, name, sizeof name);
                size_t used = strlen(held);
                snprintf(held + used, sizeof held - used, "%s%s", used ? ", " : "", name);
            }
        }
        if (!best) {
            udfkit_fatbin_contents_free(&contents);
            return udfkit_runtime_fail(UDFKIT_ERROR_NO_BINARY,
                                       "the image has no SASS for sm_%d and no PTX for compute_%d or lower (it holds: %s)",
                                       arch, arch, held[0] ? held : "nothing loadable");
        }
        const unsigned char *code;
        if (udfkit_fatbin_entry_code(best, "image", &decompressed, &code, &ptx_size) == UDFKIT_RC_OK)
            ptx = (const char *)code;
        udfkit_diag_clear();
    } else if (udfkit_elf_sniff(image, size, &machine)) {
        udfkit_cubin_info info;
        bool readable = machine == UDFKIT_EM_CUDA && udfkit_cubin_read(image, size, "image", &info) == UDFKIT_RC_OK;
        udfkit_diag_clear();
        if (!readable)
            return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "the image is an ELF file but not a CUDA cubin");
        udfkit_target t = {info.sm, '\0', true};
        udfkit_cubin_info_free(&info);
        if (!sass_fits(t, arch))
            return udfkit_runtime_fail(UDFKIT_ERROR_NO_BINARY, "the image is a cubin for sm_%u, which this sm_%d device cannot run",
                                       t.number, arch);
        out->sass_arch = (int)t.number;
        return UDFKIT_OK;
    } else if (size > 8 && udfkit_ptx_isa(image, size)) {
        ptx = image;
        ptx_size = size;
        /* The driver reads PTX up to its NUL: an image without one is given a copy that has it. */
        if (!memchr(image, '\0', size)) {
            udfkit_buf_append(&out->ptx_text, image, size);
            if (!out->ptx_text.data)
                return udfkit_runtime_fail(UDFKIT_ERROR_OUT_OF_MEMORY, "out of memory");
            ptx = out->ptx_text.data;
            out->code = out->ptx_text.data;
            out->size = size + 1;
        }
    } else {
        return udfkit_runtime_fail(UDFKIT_ERROR_BAD_IMAGE, "the image is not a fatbin, a cubin or PTX");
    }
    udfkit_status result = UDFKIT_OK;
    if (ptx) {
        int isa = udfkit_ptx_isa(ptx, ptx_size);
        isa_text(isa, out->ptx_isa, sizeof out->ptx_isa);
        ptx_mode mode = mode_from_env();
        if (mode == PTX_NEVER && isa > driver_isa)
            result = udfkit_runtime_fail(UDFKIT_ERROR_NO_BINARY,
                                         "the image's PTX (ISA %s) is newer than this driver (CUDA %s, PTX ISA %s) can JIT, "
                                         "and no SASS fits the sm_%d device; UDFKIT_PTX_COMPILE=never forbids compiling it "
                                         "with nvPTXCompiler",
                                         out->ptx_isa, out->driver_version, out->driver_isa, arch);
        else if (mode == PTX_ALWAYS || (mode == PTX_AUTO && isa > driver_isa))
            result = compile_ptx(ptx, ptx_size, arch, mode, out);
    }
    udfkit_buf_free(&decompressed);
    udfkit_fatbin_contents_free(&contents);
    return result;
}

void udfkit_code_choice_free(udfkit_code_choice *c)
{
    udfkit_buf_free(&c->storage);
    udfkit_buf_free(&c->ptx_text);
    udfkit_buf_free(&c->compiled_ptx);
}
