/* The kernels of library ak (tests/data/arrow/arrow_udfs.cu, the `_arrow` launchers' test
 * library) run on the host, for the stand-in libcuda.so.1 built with FAKE_CUDA_KERNELS
 * (fake_cuda.c; ctest unit-arrow_host). Device memory is host memory there, so a launch runs
 * here at once, on the arguments the generated launcher passed: test_arrow (the gpu-arrow
 * program) then checks everything the host does (its own slicing and pyarrow's answers,
 * nanoarrow's device copies, src/runtime/arrow.c, the generated launchers and their
 * arguments: values at the arrays' offsets, bitmaps at their bit offsets, string columns from
 * their row, bool columns unpacked and packed) without a GPU. Each kernel does what its
 * template's documentation says, row by row: the UDFs are arrow_udfs.cu's, written again in
 * C; validity is read bit by bit (row i of a mask: bit offset + i, LSB first) and written from
 * bit 0, whole bytes. The filters' passes keep their contracts between themselves (flag words,
 * per-block counts, their scan), not the GPU's partition into blocks. */
#include <cuda.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;

/* udfkit_mask and udfkit_strings (<udfkit/runtime.h>), as the kernels take them. */
typedef struct {
    const uint8_t *bits;
    u64 offset;
} mask;
typedef struct {
    int layout; /* 0 utf8, 1 large_utf8, 2 utf8_view */
    const void *offsets;
    const char *chars;
    const char *const *buffers;
    u64 offset;
} strings;
typedef struct {
    u64 lo;
    int64_t hi;
} dec128;

static bool bit(const uint8_t *bits, u64 b)
{
    return (bits[b >> 3] >> (b & 7)) & 1u;
}

static bool valid(const mask *m, u64 i)
{
    return !m->bits || bit(m->bits, m->offset + i);
}

/* Row i of a string column: its bytes and size. */
static const char *string_at(const strings *s, u64 i, int64_t *size)
{
    const u64 r = s->offset + i;
    if (s->layout == 0) {
        const int32_t *o = s->offsets;
        *size = o[r + 1] - o[r];
        return s->chars + o[r];
    }
    if (s->layout == 1) {
        const int64_t *o = s->offsets;
        *size = o[r + 1] - o[r];
        return s->chars + o[r];
    }
    const unsigned char *view = (const unsigned char *)s->offsets + 16 * r;
    int32_t length, buffer, at;
    memcpy(&length, view, 4);
    *size = length;
    if (length <= 12)
        return (const char *)view + 4;
    memcpy(&buffer, view + 8, 4);
    memcpy(&at, view + 12, 4);
    return s->buffers[buffer] + at;
}

#define ARG(i, type) (*(type *)args[i])

static int inputs_of(const char *f);

/* One row of a UDF: its inputs at row i of the columns in args[first...] (each followed by
 * its mask where `masks`), its result into out at row i. Returns whether the row is valid. */
static bool row(const char *f, void **args, int first, bool masks, u64 i, void *out)
{
    const int step = masks ? 2 : 1;
    const mask none = {NULL, 0};
    const mask *m1 = masks ? (const mask *)args[first + 1] : &none,
               *m2 = masks && inputs_of(f) > 1 ? (const mask *)args[first + 1 + step] : &none;
    const bool v1 = valid(m1, i), v2 = valid(m2, i);
#define IN(k, type) (ARG(first + (k) * step, const type *)[i])
    if (strcmp(f, "coalesce_i64") == 0) {
        if (!v2)
            return false;
        ((int64_t *)out)[i] = v1 ? IN(0, int64_t) : IN(1, int64_t);
        return true;
    }
    if (strcmp(f, "add_i64") == 0 || strcmp(f, "ts_add") == 0) {
        if (!v1 || !v2)
            return false;
        ((int64_t *)out)[i] = (int64_t)((uint64_t)IN(0, int64_t) + (uint64_t)IN(1, int64_t));
    } else if (strcmp(f, "mul_f64") == 0) {
        if (!v1 || !v2)
            return false;
        ((double *)out)[i] = IN(0, double) * IN(1, double);
    } else if (strcmp(f, "add_f32") == 0) {
        if (!v1 || !v2)
            return false;
        ((float *)out)[i] = IN(0, float) + IN(1, float);
    } else if (strcmp(f, "gt_f64") == 0) {
        if (!v1 || !v2)
            return false;
        ((bool *)out)[i] = IN(0, double) > IN(1, double);
    } else if (strcmp(f, "and_b") == 0) {
        if (!v1 || !v2)
            return false;
        ((bool *)out)[i] = IN(0, bool) && IN(1, bool);
    } else if (strcmp(f, "neg_f16") == 0) {
        if (!v1)
            return false;
        ((uint16_t *)out)[i] = IN(0, uint16_t) ^ 0x8000u;
    } else if (strcmp(f, "next_day") == 0) {
        if (!v1)
            return false;
        ((int32_t *)out)[i] = IN(0, int32_t) + 1;
    } else if (strcmp(f, "dec_neg") == 0) {
        if (!v1)
            return false;
        const dec128 a = IN(0, dec128);
        ((dec128 *)out)[i] = (dec128){~a.lo + 1, (int64_t)(~(uint64_t)a.hi + (a.lo == 0))};
    } else if (strcmp(f, "blen") == 0) {
        if (!v1)
            return false;
        int64_t size;
        string_at((const strings *)args[first], i, &size);
        ((int64_t *)out)[i] = size;
    } else if (strcmp(f, "positive") == 0) {
        if (!v1)
            return false;
        return IN(0, double) > 0;
    } else if (strcmp(f, "long_text") == 0) {
        if (!v1)
            return false;
        int64_t size;
        string_at((const strings *)args[first], i, &size);
        return size > 5;
    } else if (strcmp(f, "both") == 0) {
        if (!v1 || !v2)
            return false;
        return IN(0, bool) && IN(1, int64_t) > 0;
    } else {
        return false;
    }
#undef IN
    return true;
}

static bool known(const char *f)
{
    static const char *const udfs[] = {"coalesce_i64", "add_i64", "ts_add", "mul_f64", "add_f32", "gt_f64", "and_b",
                                       "neg_f16", "next_day", "dec_neg", "blen", "positive", "both", "long_text"};
    for (size_t i = 0; i < sizeof udfs / sizeof *udfs; i++)
        if (strcmp(f, udfs[i]) == 0)
            return true;
    return false;
}

static int inputs_of(const char *f)
{
    return strcmp(f, "neg_f16") == 0 || strcmp(f, "next_day") == 0 || strcmp(f, "dec_neg") == 0 ||
                   strcmp(f, "blen") == 0 || strcmp(f, "positive") == 0 || strcmp(f, "long_text") == 0
               ? 1
               : 2;
}

/* Bytes of a predicate's input k in udfkit's columns (a bool: 1); 0 for a string or a UDF
 * that is no filter's. */
static size_t value_bytes(const char *f, int k)
{
    if (strcmp(f, "positive") == 0)
        return 8;
    if (strcmp(f, "both") == 0)
        return k == 0 ? 1 : 8;
    return 0;
}

/* Whether `name` is prefix + a known UDF + suffix; the UDF into f. */
static bool named(const char *name, const char *prefix, const char *suffix, char *f, size_t size)
{
    size_t p = strlen(prefix), s = strlen(suffix), n = strlen(name);
    if (n <= p + s || strncmp(name, prefix, p) != 0 || strcmp(name + n - s, suffix) != 0 || n - p - s >= size)
        return false;
    memcpy(f, name + p, n - p - s);
    f[n - p - s] = '\0';
    return known(f);
}

/* A string result's sizes launch scans its sizes itself (text_sizes.cu.in): offsets[i] the
 * sum of the sizes before row i, offsets[n] the total, at either width (narrow, the _sizes32
 * kernel: int32, -1 from a total past INT32_MAX on, as offsets32_out writes them); the one write
 * kernel takes the width as an argument. */
static void exclusive_sums(void *offsets, bool narrow, const int64_t *sizes, u64 n)
{
    int64_t sum = 0;
    for (u64 i = 0; i <= n; i++) {
        if (narrow)
            ((int32_t *)offsets)[i] = sum < INT32_MAX ? (int32_t)sum : -1;
        else
            ((int64_t *)offsets)[i] = sum;
        sum += i < n ? sizes[i] : 0;
    }
}

static int64_t offset_at(const void *offsets, bool narrow, u64 i)
{
    return narrow ? ((const int32_t *)offsets)[i] : ((const int64_t *)offsets)[i];
}

/* The string concatenation (map(cat)): sizes, then bytes. */
static bool cat_row(void **args, bool masks, u64 i, const char **a, int64_t *as, const char **b, int64_t *bs)
{
    const int step = masks ? 2 : 1;
    if (masks && (!valid((const mask *)args[2], i) || !valid((const mask *)args[2 + step], i)))
        return false;
    *a = string_at((const strings *)args[1], i, as);
    *b = string_at((const strings *)args[1 + step], i, bs);
    return true;
}

/* Runs kernel `name` of a launch of `grid` blocks on its arguments; CUDA_ERROR_NOT_FOUND for a
 * kernel not emulated. */
CUresult fake_kernel_run(const char *name, unsigned grid, void **args)
{
    char f[64];
    const char *lib = "udfkit_ak_";
    if (strncmp(name, lib, strlen(lib)) != 0)
        return CUDA_ERROR_NOT_FOUND;
    if (strcmp(name, "udfkit_ak_arrow_unpack") == 0) {
        const uint8_t *bits = ARG(0, const uint8_t *);
        const u64 offset = ARG(1, u64), n = ARG(2, u64);
        bool *bytes = ARG(3, bool *);
        for (u64 i = 0; i < n; i++)
            bytes[i] = bit(bits, offset + i);
        return CUDA_SUCCESS;
    }
    if (strcmp(name, "udfkit_ak_arrow_pack") == 0) {
        const bool *bytes = ARG(0, const bool *);
        const u64 n = ARG(1, u64);
        uint8_t *bits = ARG(2, uint8_t *);
        memset(bits, 0, (n + 7) / 8);
        for (u64 i = 0; i < n; i++)
            bits[i / 8] |= (uint8_t)(bytes[i] << (i % 8));
        return CUDA_SUCCESS;
    }
    if (strcmp(name, "udfkit_ak_arrow_gather") == 0) {
        const unsigned char *in = ARG(0, const unsigned char *);
        const unsigned size = ARG(1, unsigned);
        const u64 *indices = ARG(2, const u64 *), n = *ARG(3, const u64 *);
        unsigned char *out = ARG(4, unsigned char *);
        for (u64 i = 0; i < n; i++)
            memcpy(out + i * size, in + indices[i] * size, size);
        return CUDA_SUCCESS;
    }
    /* map(f): (n, tiles, per_thread, a1, ..., out). */
    if (named(name, "udfkit_ak_map_", "", f, sizeof f)) {
        const u64 n = ARG(0, u64);
        void *out = ARG(3 + inputs_of(f), void *);
        for (u64 i = 0; i < n; i++)
            row(f, args, 3, false, i, out);
        return CUDA_SUCCESS;
    }
    /* nullable_map(f): (n, a1, m1, ..., out, out_bits, null_count), the dense kernel with
     * tiles and per_thread after n. */
    bool dense = named(name, "udfkit_ak_nullable_map_", "_arrow_masked_dense", f, sizeof f) ||
                 named(name, "udfkit_ak_nullable_map_", "_dense", f, sizeof f);
    if (dense || named(name, "udfkit_ak_nullable_map_", "_arrow_masked", f, sizeof f) ||
        named(name, "udfkit_ak_nullable_map_", "", f, sizeof f)) {
        const int first = dense ? 3 : 1, outs = first + 2 * inputs_of(f);
        const u64 n = ARG(0, u64);
        void *out = ARG(outs, void *);
        uint8_t *bits = ARG(outs + 1, uint8_t *);
        u64 *null_count = ARG(outs + 2, u64 *);
        memset(bits, 0, (n + 7) / 8);
        for (u64 i = 0; i < n; i++) {
            bool ok = row(f, args, first, true, i, out);
            bits[i / 8] |= (uint8_t)(ok << (i % 8));
            if (!ok && null_count)
                (*null_count)++;
        }
        return CUDA_SUCCESS;
    }
    /* filter(p): select_init(state, bytes, tiles, count) sets the count; each partition
     * (a1, ..., indices, count, state, bytes, tiles, offset, rows, total, kept) adds its
     * rows. */
    if (strcmp(name, "udfkit_ak_select_init") == 0) {
        *ARG(3, u64 *) = 0;
        return CUDA_SUCCESS;
    }
    /* filter(p, values), the `_arrow` launchers' selection where no input has nulls: each
     * partition (a1, ..., out1, ..., count, state, bytes, tiles, offset, rows, total, kept)
     * copies its kept rows' values of every input after those before it. */
    if (named(name, "udfkit_ak_filter_", "_arrow_values", f, sizeof f) && value_bytes(f, 0)) {
        const int k = inputs_of(f);
        u64 *count = ARG(2 * k, u64 *);
        const u64 offset = ARG(2 * k + 4, u64), rows = ARG(2 * k + 5, u64);
        for (u64 i = offset; i < offset + rows; i++) {
            if (!row(f, args, 0, false, i, NULL))
                continue;
            for (int c = 0; c < k; c++) {
                const size_t size = value_bytes(f, c);
                memcpy(ARG(k + c, unsigned char *) + *count * size, ARG(c, const unsigned char *) + i * size, size);
            }
            (*count)++;
        }
        return CUDA_SUCCESS;
    }
    if (named(name, "udfkit_ak_filter_", "", f, sizeof f)) {
        const int k = inputs_of(f);
        u64 *indices = ARG(k, u64 *), *count = ARG(k + 1, u64 *);
        const u64 offset = ARG(k + 5, u64), rows = ARG(k + 6, u64);
        for (u64 i = offset; i < offset + rows; i++)
            if (row(f, args, 0, false, i, NULL))
                indices[(*count)++] = i;
        return CUDA_SUCCESS;
    }
    /* nullable_filter(p): flags (n, tiles_per_block, a1, m1, ..., counts, flags) writes a
     * word per 32 rows and the kept count (all in block 0's); the scan (blocks, counts,
     * count) makes the counts each block's first position and writes the total; write (n,
     * tiles_per_block, offsets, flags, indices) the row numbers the words name. */
    if (named(name, "udfkit_ak_nullable_filter_", "_arrow_masked_flags", f, sizeof f)) {
        const int k = inputs_of(f);
        const u64 n = ARG(0, u64);
        u64 *counts = ARG(2 + 2 * k, u64 *);
        unsigned *flags = ARG(3 + 2 * k, unsigned *);
        memset(counts, 0, grid * sizeof *counts);
        memset(flags, 0, (n + 31) / 32 * sizeof *flags);
        for (u64 i = 0; i < n; i++)
            if (row(f, args, 2, true, i, NULL)) {
                flags[i / 32] |= 1u << (i % 32);
                counts[0]++;
            }
        return CUDA_SUCCESS;
    }
    if (strcmp(name, "udfkit_ak_filter_scan") == 0) {
        const u64 blocks = ARG(0, u64);
        u64 *counts = ARG(1, u64 *), *count = ARG(2, u64 *), sum = 0;
        for (u64 b = 0; b < blocks; b++) {
            const u64 c = counts[b];
            counts[b] = sum;
            sum += c;
        }
        *count = sum;
        return CUDA_SUCCESS;
    }
    if (named(name, "udfkit_ak_nullable_filter_", "_arrow_masked_write", f, sizeof f)) {
        const u64 n = ARG(0, u64), *offsets = ARG(2, const u64 *);
        const unsigned *flags = ARG(3, const unsigned *);
        u64 *indices = ARG(4, u64 *), at = offsets[0];
        for (u64 i = 0; i < n; i++)
            if (flags[i / 32] >> (i % 32) & 1u)
                indices[at++] = i;
        return CUDA_SUCCESS;
    }
    /* A filter's string columns (arrow_text.cu.in): the kept rows' sizes, then 0 up to
     * offsets[n]; after the offsets scan, their bytes. */
    if (strcmp(name, "udfkit_ak_arrow_text_sizes") == 0) {
        const strings *in = (const strings *)args[0];
        const u64 *indices = ARG(1, const u64 *), kept = *ARG(2, const u64 *), n = ARG(3, u64);
        int64_t *offsets = ARG(4, int64_t *);
        for (u64 i = 0; i <= n; i++) {
            int64_t size = 0;
            if (i < kept)
                string_at(in, indices[i], &size);
            offsets[i] = size;
        }
        return CUDA_SUCCESS;
    }
    if (strcmp(name, "udfkit_ak_arrow_text_copy") == 0) {
        const strings *in = (const strings *)args[0];
        const u64 *indices = ARG(1, const u64 *), kept = *ARG(2, const u64 *);
        const int64_t *offsets = ARG(3, const int64_t *);
        char *chars = ARG(4, char *);
        for (u64 i = 0; i < kept; i++) {
            int64_t size;
            const char *bytes = string_at(in, indices[i], &size);
            memcpy(chars + offsets[i], bytes, (size_t)size);
        }
        return CUDA_SUCCESS;
    }
    /* map(twice_len) (string twice, int64 size), nullable_map's where inputs have nulls:
     * sizes or sizes32 (n, a1, [m1,] state, bytes, tiles, out1_offsets: scanned), then write (n, a1, [m1,]
     * narrow, out1_offsets, out1_chars, [out1_bits,] out2, [out2_bits, null_count]). */
    const bool tl_masked = strncmp(name, "udfkit_ak_nullable_map_twice_len_arrow_masked_", 46) == 0;
    const char *tl = tl_masked ? name + 46 : strncmp(name, "udfkit_ak_map_twice_len_", 24) == 0 ? name + 24 : NULL;
    if (tl && (strcmp(tl, "sizes") == 0 || strcmp(tl, "sizes32") == 0 || strcmp(tl, "write") == 0)) {
        const u64 n = ARG(0, u64);
        const strings *a = (const strings *)args[1];
        const mask none = {NULL, 0}, *m = tl_masked ? (const mask *)args[2] : &none;
        const int at = tl_masked ? 3 : 2;
        if (strncmp(tl, "sizes", 5) == 0) {
            const bool narrow = tl[5] != '\0';
            void *offsets = ARG(at + 3, void *); /* after the scan's state, bytes, tiles */
            int64_t *sizes = calloc(n + 1, sizeof *sizes);
            if (!sizes)
                return CUDA_ERROR_OUT_OF_MEMORY;
            for (u64 i = 0; i < n; i++) {
                int64_t size = 0;
                if (valid(m, i))
                    string_at(a, i, &size);
                sizes[i] = 2 * size;
            }
            exclusive_sums(offsets, narrow, sizes, n);
            free(sizes);
            return CUDA_SUCCESS;
        }
        const bool narrow = ARG(at, int);
        const void *offsets = ARG(at + 1, const void *);
        char *chars = ARG(at + 2, char *);
        uint8_t *bits1 = tl_masked ? ARG(at + 3, uint8_t *) : NULL;
        int64_t *out2 = ARG(tl_masked ? at + 4 : at + 3, int64_t *);
        uint8_t *bits2 = tl_masked ? ARG(at + 5, uint8_t *) : NULL;
        u64 *null_count = tl_masked ? ARG(at + 6, u64 *) : NULL;
        if (bits1) {
            memset(bits1, 0, (n + 7) / 8);
            memset(bits2, 0, (n + 7) / 8);
        }
        for (u64 i = 0; i < n; i++) {
            const bool ok = valid(m, i);
            if (ok) {
                int64_t size;
                const char *bytes = string_at(a, i, &size);
                const int64_t at_i = offset_at(offsets, narrow, i);
                memcpy(chars + at_i, bytes, (size_t)size);
                memcpy(chars + at_i + size, bytes, (size_t)size);
                out2[i] = size;
            }
            if (bits1) {
                bits1[i / 8] |= (uint8_t)(ok << (i % 8));
                bits2[i / 8] |= (uint8_t)(ok << (i % 8));
            }
            if (!ok && null_count) {
                null_count[0]++;
                null_count[1]++;
            }
        }
        return CUDA_SUCCESS;
    }
    /* map(cat)'s two launches (nullable_map's where inputs have nulls): each row's size into
     * the n + 1 offsets scanned in the same launch, then the bytes. */
    const bool cat_masked = strncmp(name, "udfkit_ak_nullable_map_cat_arrow_masked_", 40) == 0;
    const char *cat = cat_masked ? name + 40 : strncmp(name, "udfkit_ak_map_cat_", 18) == 0 ? name + 18 : NULL;
    if (cat && (strcmp(cat, "sizes") == 0 || strcmp(cat, "sizes32") == 0)) {
        const u64 n = ARG(0, u64);
        const bool narrow = cat[5] != '\0';
        void *offsets = ARG(cat_masked ? 8 : 6, void *); /* after the scan's state, bytes, tiles */
        int64_t *sizes = calloc(n + 1, sizeof *sizes);
        if (!sizes)
            return CUDA_ERROR_OUT_OF_MEMORY;
        for (u64 i = 0; i < n; i++) {
            const char *a, *b;
            int64_t as, bs;
            sizes[i] = cat_row(args, cat_masked, i, &a, &as, &b, &bs) ? as + bs : 0;
        }
        exclusive_sums(offsets, narrow, sizes, n);
        free(sizes);
        return CUDA_SUCCESS;
    }
    if (strcmp(name, "udfkit_ak_offsets_init") == 0)
        return CUDA_SUCCESS;
    if (strcmp(name, "udfkit_ak_offsets_scan") == 0) {
        int64_t *offsets = ARG(0, int64_t *), sum = 0;
        const u64 rows = ARG(4, u64); /* n + 1 */
        for (u64 i = 0; i < rows; i++) {
            const int64_t size = offsets[i];
            offsets[i] = sum;
            sum += size;
        }
        return CUDA_SUCCESS;
    }
    if (cat && strcmp(cat, "write") == 0) {
        const u64 n = ARG(0, u64);
        const int at = cat_masked ? 5 : 3;
        const bool narrow = ARG(at, int);
        const void *offsets = ARG(at + 1, const void *);
        char *chars = ARG(at + 2, char *);
        uint8_t *bits = cat_masked ? ARG(at + 3, uint8_t *) : NULL;
        u64 *null_count = cat_masked ? ARG(at + 4, u64 *) : NULL;
        if (bits)
            memset(bits, 0, (n + 7) / 8);
        for (u64 i = 0; i < n; i++) {
            const char *a, *b;
            int64_t as, bs;
            const bool ok = cat_row(args, cat_masked, i, &a, &as, &b, &bs);
            if (ok) {
                const int64_t at_i = offset_at(offsets, narrow, i);
                memcpy(chars + at_i, a, (size_t)as);
                memcpy(chars + at_i + as, b, (size_t)bs);
            }
            if (bits)
                bits[i / 8] |= (uint8_t)(ok << (i % 8));
            if (!ok && null_count)
                (*null_count)++;
        }
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_NOT_FOUND;
}
