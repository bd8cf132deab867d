#include "artifact/code_check.h"

#include "artifact/elf_read.h"
#include "artifact/fatbin_read.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The container header (NVVM's BinaryLwvmIRContainer), little-endian. */
#define LTOIR_MAGIC 0x7f4e43edu
#define LTOIR_HEADER_SIZE 24

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned le16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* The first bytes, printable ones as they are, for "it starts with ..." */
static void shown(const unsigned char *p, size_t size, char *out, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < size && i < 8 && k + 5 < n; i++)
        k += (size_t)snprintf(out + k, n - k, p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\' ? "%c" : "\\x%02x", p[i]);
    out[k] = '\0';
}

bool udfkit_ltoir_check(const void *data, size_t size, char *why, size_t why_size)
{
    const unsigned char *p = data;
    char start[48];
    if (!p || size < LTOIR_HEADER_SIZE || le32(p) != LTOIR_MAGIC) {
        shown(p ? p : (const unsigned char *)"", p ? size : 0, start, sizeof start);
        snprintf(why, why_size, "is not LTO-IR: %s", size < LTOIR_HEADER_SIZE ? "it is shorter than the header"
                                                                                : "it does not start with its magic");
        if (size >= 4)
            snprintf(why + strlen(why), why_size - strlen(why), " (it starts with \"%s\")", start);
        return false;
    }
    unsigned container_major = p[4], options = le16(p + 12);
    uint32_t options_data = le32(p + 16), ir = le32(p + 20);
    if (container_major != 1) {
        snprintf(why, why_size, "is an LTO-IR container of version %u.%u, which udfkit does not know (1.x)",
                 container_major, p[5]);
        return false;
    }
    if (options < LTOIR_HEADER_SIZE || options_data < options || ir < options_data || ir >= size) {
        snprintf(why, why_size,
                 "is damaged LTO-IR: its header places the options at %u, their data at %u and the IR at %u of its "
                 "%zu bytes",
                 options, (unsigned)options_data, (unsigned)ir, size);
        return false;
    }
    return true;
}

bool udfkit_ptx_check(const void *data, size_t size, char *why, size_t why_size)
{
    const char *p = data;
    if (!p || !size || memchr(p, '\0', size)) {
        snprintf(why, why_size, "is not PTX: %s", !size ? "it is empty" : "it holds a NUL byte");
        return false;
    }
    bool version = false, target = false;
    for (size_t i = 0; i + 8 <= size && !(version && target); i++) {
        version |= memcmp(p + i, ".version", 8) == 0;
        target |= i + 7 <= size && memcmp(p + i, ".target", 7) == 0;
    }
    if (!version || !target) {
        snprintf(why, why_size, "is not PTX: it has no %s directive", version ? ".target" : ".version");
        return false;
    }
    return true;
}

/* A reader's message ("origin: error: what") without its prefix. */
static void reader_message(const char *prefix, char *why, size_t why_size)
{
    const char *m = udfkit_diag_message(), *at = strstr(m, ": error: ");
    snprintf(why, why_size, "%s%s", prefix, at ? at + 9 : m);
    udfkit_diag_clear();
}

bool udfkit_cubin_check(const void *data, size_t size, char *why, size_t why_size)
{
    unsigned machine = 0;
    if (!data || !udfkit_elf_sniff(data, size, &machine) || machine != UDFKIT_EM_CUDA) {
        snprintf(why, why_size, "is not a cubin: %s", data && udfkit_elf_sniff(data, size, &machine)
                                                          ? "it is an ELF file for another machine"
                                                          : "it is not an ELF64 file");
        return false;
    }
    udfkit_cubin_info info = {0};
    udfkit_rc rc = udfkit_cubin_read(data, size, "cubin", &info);
    udfkit_cubin_info_free(&info);
    if (rc)
        reader_message("is a damaged cubin: ", why, why_size);
    return rc == UDFKIT_RC_OK;
}

bool udfkit_fatbin_check(const void *data, size_t size, char *why, size_t why_size)
{
    if (!data || !udfkit_fatbin_sniff(data, size)) {
        snprintf(why, why_size, "is not a fatbin: it does not start with its magic");
        return false;
    }
    udfkit_fatbin_contents contents = {0};
    udfkit_rc rc = udfkit_fatbin_read(data, size, "fatbin", &contents);
    udfkit_fatbin_contents_free(&contents);
    if (rc)
        reader_message("is a damaged fatbin: ", why, why_size);
    return rc == UDFKIT_RC_OK;
}
