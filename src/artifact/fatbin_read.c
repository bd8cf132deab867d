#include "artifact/fatbin_read.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* The layout, as nvcc, fatbinary and nvFatbin of CUDA 13.0 write it (little-endian):
 *
 * container header, 16 bytes:
 *   0x00 u32 magic 0xBA55ED50   0x04 u16 version (1)   0x06 u16 header size (16)
 *   0x08 u64 size of the entries that follow the header
 * entry header, header-size bytes (64 to 120 seen), then the payload:
 *   0x00 u16 kind: 1 PTX, 2 ELF (cubin), 8 LTO-IR
 *   0x02 u16 version (0x0101)   0x04 u32 header size   0x08 u64 payload size as stored (padded to 8)
 *   0x10 u32 compressed size (0 when not compressed)
 *   0x18 u16 minor, 0x1a u16 major: PTX ISA version for PTX (9.0), code version for ELF (1.8)
 *   0x1c u32 architecture number (80, 90, 100, 120)
 *   0x20 u32 offset, 0x24 u32 length of the entry's name within the header (nvFatbin only)
 *   0x28 u64 flags   0x38 u64 uncompressed size (0 when not compressed)
 * Later bytes hold option strings and, from sm_100 on, further descriptors; nothing here needs them.
 * The same is known from ZLUDA (zluda_dump), cricket (cpu-elf2.c) and denvdis (fb.cc). */
#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_HEADER_SIZE 16u
#define ENTRY_HEADER_MIN 0x40u

#define KIND_PTX 1u
#define KIND_ELF 2u
#define KIND_LTOIR 8u

/* Flag bits seen in CUDA 13 output; the rest (0x1 64-bit, 0x10 Linux, 0x1000000 on sm_100+
 * cubins) do not matter for reading. */
#define FLAG_COMPRESS_OLD 0x1000ull   /* the pre-LZ4 scheme of older toolkits */
#define FLAG_COMPRESS_LZ4 0x2000ull
#define FLAG_COMPRESS_ZSTD 0x8000ull
#define FLAG_TRANSFORMED 0x10000ull   /* set on compressed LTO-IR, whose payload is then not a zstd frame */
#define FLAG_ARCH_SPECIFIC 0x100000ull /* sm_90a, compute_100a */
#define FLAG_FAMILY 0x200000ull        /* sm_100f, compute_100f */

/* Untrusted headers could claim any size; no real entry comes near this. */
#define MAX_UNCOMPRESSED ((uint64_t)1 << 30)
/* An entry decompresses to at most MAX_RATIO times its compressed size (or 1 MiB). */
#define MAX_RATIO 256u
#define MIN_UNCOMPRESSED_LIMIT ((uint64_t)1 << 20)

static uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

bool udfkit_fatbin_sniff(const void *data, size_t size)
{
    return size >= FATBIN_HEADER_SIZE && rd32(data) == FATBIN_MAGIC;
}

static udfkit_compression compression_of(uint64_t flags)
{
    if (flags & FLAG_TRANSFORMED)
        return (flags & (FLAG_COMPRESS_LZ4 | FLAG_COMPRESS_ZSTD | FLAG_COMPRESS_OLD)) ? UDFKIT_COMPRESSION_OPAQUE
                                                                                   : UDFKIT_COMPRESSION_NONE;
    if (flags & FLAG_COMPRESS_ZSTD)
        return UDFKIT_COMPRESSION_ZSTD;
    if (flags & FLAG_COMPRESS_LZ4)
        return UDFKIT_COMPRESSION_LZ4;
    if (flags & FLAG_COMPRESS_OLD)
        return UDFKIT_COMPRESSION_OPAQUE;
    return UDFKIT_COMPRESSION_NONE;
}

static udfkit_code_kind kind_of(unsigned code)
{
    switch (code) {
    case KIND_PTX:
        return UDFKIT_CODE_PTX;
    case KIND_ELF:
        return UDFKIT_CODE_SASS;
    case KIND_LTOIR:
        return UDFKIT_CODE_LTOIR;
    default:
        return UDFKIT_CODE_OTHER;
    }
}

static udfkit_rc add_entry(udfkit_fatbin_contents *out, const udfkit_fatbin_entry_info *e, size_t *cap)
{
    if (out->count == *cap) {
        size_t grown = *cap ? *cap * 2 : 8;
        udfkit_fatbin_entry_info *more = realloc(out->entries, grown * sizeof *more);
        if (!more)
            return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
        out->entries = more;
        *cap = grown;
    }
    out->entries[out->count++] = *e;
    return UDFKIT_RC_OK;
}

/* Offsets in messages are from the start of the buffer, so they can be found with a hex dump. */
static udfkit_rc read_entry(const unsigned char *base, size_t at, size_t end, const char *origin,
                            udfkit_fatbin_entry_info *e, size_t *next)
{
    const unsigned char *h = base + at;
    if (end - at < ENTRY_HEADER_MIN)
        return udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "fatbin entry at offset %zu is truncated", at);
    uint32_t header_size = rd32(h + 0x04);
    uint64_t payload_size = rd64(h + 0x08);
    if (header_size < ENTRY_HEADER_MIN || header_size > end - at)
        return udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "fatbin entry at offset %zu has a bad header size (%u)", at,
                           (unsigned)header_size);
    if (payload_size > end - at - header_size)
        return udfkit_fail(UDFKIT_RC_INPUT, origin, 0,
                           "fatbin entry at offset %zu claims %llu bytes, past the end of its container", at,
                           (unsigned long long)payload_size);
    uint64_t flags = rd64(h + 0x28);
    memset(e, 0, sizeof *e);
    e->kind_code = rd16(h);
    e->kind = kind_of(e->kind_code);
    e->version_minor = rd16(h + 0x18);
    e->version_major = rd16(h + 0x1a);
    e->target.number = rd32(h + 0x1c);
    e->target.sass = e->kind == UDFKIT_CODE_SASS;
    e->target.suffix = (flags & FLAG_ARCH_SPECIFIC) ? 'a' : (flags & FLAG_FAMILY) ? 'f' : '\0';
    e->compression = compression_of(flags);
    /* nvFatbin keeps the identifier it was given inside the header; others leave it out. */
    uint32_t name_offset = rd32(h + 0x20), name_size = rd32(h + 0x24);
    if (name_size && name_offset < header_size && name_size <= header_size - name_offset) {
        e->name = (const char *)h + name_offset;
        e->name_size = strnlen(e->name, name_size);
    }
    e->payload = h + header_size;
    e->payload_size = (size_t)payload_size;
    e->uncompressed_size = payload_size;
    if (e->compression != UDFKIT_COMPRESSION_NONE) {
        uint32_t compressed = rd32(h + 0x10);
        if (compressed > payload_size)
            return udfkit_fail(UDFKIT_RC_INPUT, origin, 0,
                               "fatbin entry at offset %zu: compressed size %u exceeds its payload (%llu)", at,
                               (unsigned)compressed, (unsigned long long)payload_size);
        e->payload_size = compressed;
        e->uncompressed_size = rd64(h + 0x38);
    }
    *next = at + header_size + (size_t)payload_size;
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_fatbin_read(const void *data, size_t size, const char *origin, udfkit_fatbin_contents *out)
{
    const unsigned char *base = data;
    size_t cap = 0, at = 0;
    udfkit_rc rc = UDFKIT_RC_OK;
    memset(out, 0, sizeof *out);
    while (at < size && !rc) {
        if (base[at] == 0) {
            at++;
            continue;
        }
        if (size - at < FATBIN_HEADER_SIZE || rd32(base + at) != FATBIN_MAGIC) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "no fatbin container at offset %zu", at);
            break;
        }
        unsigned version = rd16(base + at + 4);
        unsigned header_size = rd16(base + at + 6);
        uint64_t fat_size = rd64(base + at + 8);
        if (version != 1) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "fatbin container version %u at offset %zu is not supported",
                             version, at);
            break;
        }
        if (header_size < FATBIN_HEADER_SIZE || header_size > size - at || fat_size > size - at - header_size) {
            rc = udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "fatbin container at offset %zu is truncated", at);
            break;
        }
        size_t end = at + header_size + (size_t)fat_size;
        for (size_t p = at + header_size; p < end && !rc;) {
            udfkit_fatbin_entry_info e;
            rc = read_entry(base, p, end, origin, &e, &p);
            if (!rc)
                rc = add_entry(out, &e, &cap);
        }
        out->containers++;
        at = end;
    }
    if (!rc && out->containers == 0)
        rc = udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "not a fatbin: no container found");
    if (rc)
        udfkit_fatbin_contents_free(out);
    return rc;
}

void udfkit_fatbin_contents_free(udfkit_fatbin_contents *c)
{
    free(c->entries);
    c->entries = NULL;
    c->count = 0;
    c->containers = 0;
}

/* An LZ4 block (no frame), every read and write bounds-checked: the payload is untrusted. */
static bool lz4_block_decode(const unsigned char *src, size_t n, unsigned char *dst, size_t cap, size_t *written)
{
    size_t ip = 0, op = 0;
    while (ip < n) {
        unsigned token = src[ip++];
        size_t literals = token >> 4;
        if (literals == 15) {
            unsigned char b;
            do {
                if (ip >= n)
                    return false;
                b = src[ip++];
                literals += b;
            } while (b == 255);
        }
        if (literals > n - ip || literals > cap - op)
            return false;
        memcpy(dst + op, src + ip, literals);
        ip += literals;
        op += literals;
        if (ip == n)
            break; /* the last sequence is literals only */
        if (n - ip < 2)
            return false;
        size_t offset = (size_t)src[ip] | (size_t)src[ip + 1] << 8;
        ip += 2;
        if (offset == 0 || offset > op)
            return false;
        size_t match = (token & 15u) + 4;
        if ((token & 15u) == 15u) {
            unsigned char b;
            do {
                if (ip >= n)
                    return false;
                b = src[ip++];
                match += b;
            } while (b == 255);
        }
        if (match > cap - op)
            return false;
        for (size_t i = 0; i < match; i++) /* byte by byte: the match may overlap its own output */
            dst[op + i] = dst[op - offset + i];
        op += match;
    }
    *written = op;
    return true;
}

typedef size_t (*zstd_decompress_fn)(void *dst, size_t cap, const void *src, size_t size);
typedef unsigned (*zstd_is_error_fn)(size_t code);
typedef const char *(*zstd_error_name_fn)(size_t code);

/* libzstd is loaded only here, so that the tool neither links it nor needs its headers to build;
 * every Debian-like system has libzstd.so.1 because dpkg itself uses it. */
static udfkit_rc zstd_decode(const unsigned char *src, size_t n, unsigned char *dst, size_t cap, const char *origin,
                             size_t *written)
{
    void *lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return udfkit_fail(UDFKIT_RC_ENV, origin, 0,
                           "a fatbin entry is zstd-compressed and libzstd.so.1 could not be loaded (%s); "
                           "install libzstd1 to read it",
                           dlerror());
    zstd_decompress_fn decompress = (zstd_decompress_fn)dlsym(lib, "ZSTD_decompress");
    zstd_is_error_fn is_error = (zstd_is_error_fn)dlsym(lib, "ZSTD_isError");
    zstd_error_name_fn error_name = (zstd_error_name_fn)dlsym(lib, "ZSTD_getErrorName");
    udfkit_rc rc = UDFKIT_RC_OK;
    if (!decompress || !is_error || !error_name) {
        rc = udfkit_fail(UDFKIT_RC_ENV, origin, 0, "libzstd.so.1 lacks ZSTD_decompress; it is too old");
        goto done;
    }
    size_t r = decompress(dst, cap, src, n);
    if (is_error(r))
        rc = udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "a zstd-compressed fatbin entry is corrupt: %s", error_name(r));
    else
        *written = r;
done:
    dlclose(lib);
    return rc;
}

udfkit_rc udfkit_fatbin_entry_code(const udfkit_fatbin_entry_info *e, const char *origin, udfkit_buf *storage,
                                   const unsigned char **code, size_t *size)
{
    if (e->compression == UDFKIT_COMPRESSION_NONE) {
        *code = e->payload;
        *size = e->payload_size;
        return UDFKIT_RC_OK;
    }
    if (e->compression == UDFKIT_COMPRESSION_OPAQUE)
        return udfkit_fail(UDFKIT_RC_ENV, origin, 0, "a fatbin entry uses a compression udfkit cannot undo");
    /* What an entry claims is allocated before it is checked: bound it by the payload too,
     * so that a small file cannot make udfkit take a gigabyte. Real code compresses by a
     * factor of 3 to 20. */
    uint64_t limit = (uint64_t)e->payload_size * MAX_RATIO;
    if (limit < MIN_UNCOMPRESSED_LIMIT)
        limit = MIN_UNCOMPRESSED_LIMIT;
    if (limit > MAX_UNCOMPRESSED)
        limit = MAX_UNCOMPRESSED;
    if (e->uncompressed_size > limit)
        return udfkit_fail(UDFKIT_RC_INPUT, origin, 0,
                           "a fatbin entry of %zu compressed bytes claims %llu bytes uncompressed, more than udfkit "
                           "inflates (%llu)",
                           e->payload_size, (unsigned long long)e->uncompressed_size, (unsigned long long)limit);
    size_t want = (size_t)e->uncompressed_size;
    storage->size = 0;
    if (!udfkit_buf_reserve(storage, want))
        return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    unsigned char *dst = (unsigned char *)storage->data;
    size_t got = 0;
    if (e->compression == UDFKIT_COMPRESSION_LZ4) {
        if (!lz4_block_decode(e->payload, e->payload_size, dst, want, &got))
            return udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "an LZ4-compressed fatbin entry is corrupt");
    } else {
        udfkit_rc rc = zstd_decode(e->payload, e->payload_size, dst, want, origin, &got);
        if (rc)
            return rc;
    }
    if (got != want)
        return udfkit_fail(UDFKIT_RC_INPUT, origin, 0,
                           "a compressed fatbin entry decodes to %zu bytes, not the %zu its header says", got, want);
    storage->size = got;
    storage->data[got] = '\0';
    *code = dst;
    *size = got;
    return UDFKIT_RC_OK;
}
