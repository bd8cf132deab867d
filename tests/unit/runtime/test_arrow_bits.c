/* The device code's bit arithmetic on validity bitmaps and Arrow's bit-packed booleans, on the
 * host, at every bit offset 0..63 and lengths around byte, nibble and warp edges, against a
 * plain bit-by-bit reading (bit offset + i of a bitmap, LSB first; outputs from bit 0, the bits
 * past n zero): templates/kernels/prelude.cu.in's valid() and valid4() (a row's bit, four rows'
 * bits in one or two byte loads), write_nibbles() (lane pairs of a warp making whole bytes) and
 * write_ballots() (a warp's 32 rows as 4 bytes), and arrow_bits.cu.in's unpack and pack kernels
 * (each thread's rows of a grid-stride loop). The formulas are the templates' own: the test
 * first finds each line it runs in the template files (argv[1]: the source tree), so that a
 * change there fails here until it is reviewed here too.
 *
 * usage: test_arrow_bits <source directory> */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;

static int failures;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            if (failures++ < 20) {                                                                                     \
                fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                                        \
                fprintf(stderr, __VA_ARGS__);                                                                          \
                fputc('\n', stderr);                                                                                   \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

/* ---- the templates' formulas, line for line (the lines checked below) ---- */

typedef struct {
    const unsigned char *bits;
    u64 offset;
} mask;

static unsigned char all_valid = 0xffu;

/* prelude.cu.in: valid() */
static bool valid(const mask *m, u64 i)
{
    const u64 b = m->offset + i;
    const unsigned char *p = m->bits ? m->bits + (b >> 3) : &all_valid;
    return (*p >> (b & 7)) & 1u;
}

/* prelude.cu.in: valid4(), rows i..i+3 (i a multiple of 4, i + 3 < n) */
static unsigned valid4(const mask *m, u64 i)
{
    if (!m->bits)
        return 0xfu;
    const u64 b = m->offset + i;
    unsigned w = m->bits[b >> 3];
    if ((b & 7) > 4)
        w |= (unsigned)m->bits[(b >> 3) + 1] << 8;
    return (w >> (b & 7)) & 0xfu;
}

/* arrow_bits.cu.in: udfkit_<name>_arrow_unpack, every thread of `threads` */
static void unpack(const unsigned char *bits, u64 offset, u64 n, bool *bytes, u64 threads)
{
    for (u64 t = 0; t < threads; t++)
        for (u64 i = t; i < n; i += threads) {
            const u64 b = offset + i;
            bytes[i] = (bits[b >> 3] >> (b & 7)) & 1;
        }
}

/* arrow_bits.cu.in: udfkit_<name>_arrow_pack */
static void pack(const bool *bytes, u64 n, unsigned char *bits, u64 threads)
{
    const u64 nbytes = (n + 7) / 8;
    for (u64 t = 0; t < threads; t++)
        for (u64 j = t; j < nbytes; j += threads) {
            unsigned char v = 0;
            for (unsigned k = 0; k < 8; k++) {
                const u64 i = j * 8 + k;
                if (i < n && bytes[i])
                    v |= (unsigned char)(1u << k);
            }
            bits[j] = v;
        }
}

/* prelude.cu.in: write_nibbles() for one output, a warp of 32 lanes holding groups g0 + lane
 * (g0 even), valid[lane] and rows[lane] their bits; __shfl_down_sync(mine, 1) is lane + 1's. */
static void write_nibbles(unsigned char *bits, u64 g0, const unsigned *valid, const unsigned *rows, u64 nbytes,
                          u64 *nulls)
{
    unsigned mine[32];
    for (unsigned lane = 0; lane < 32; lane++)
        mine[lane] = valid[lane] & rows[lane];
    for (unsigned lane = 0; lane < 32; lane++) {
        const u64 g = g0 + lane;
        const unsigned next = lane + 1 < 32 ? mine[lane + 1] : mine[lane];
        if ((lane & 1u) == 0 && g / 2 < nbytes)
            bits[g / 2] = (unsigned char)(mine[lane] | next << 4);
        *nulls += (u64)__builtin_popcount(rows[lane] & ~mine[lane]);
    }
}

/* prelude.cu.in: write_ballots() for one output: lane l holds row first + l (first a multiple
 * of 32); the ballot is bit l: lane l's valid, masked by `rows`. */
static void write_ballots(unsigned char *bits, u64 first, const bool *valid, unsigned rows, u64 nbytes, u64 *nulls)
{
    unsigned ballot = 0;
    for (unsigned lane = 0; lane < 32; lane++)
        ballot |= (unsigned)valid[lane] << lane;
    const unsigned word = ballot & rows;
    for (unsigned lane = 0; lane < 32; lane++) {
        const u64 byte = first / 8 + lane;
        if (lane < 4 && byte < nbytes)
            bits[byte] = (unsigned char)(word >> (8 * lane));
        if (lane == 0)
            *nulls += (u64)__builtin_popcount(rows & ~word);
    }
}

/* ---- the lines above, found in the templates ---- */

static char *slurp(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/templates/kernels/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (!text || fread(text, 1, (size_t)size, f) != (size_t)size)
        exit(2);
    text[size] = '\0';
    fclose(f);
    return text;
}

static void has_lines(const char *file, const char *text, const char *const *lines, size_t count)
{
    for (size_t i = 0; i < count; i++)
        CHECK(strstr(text, lines[i]) != NULL, "%s no longer has the line this test runs: %s", file, lines[i]);
}

static void templates_say_so(const char *dir)
{
    char *prelude = slurp(dir, "prelude.cu.in"), *bits = slurp(dir, "arrow_bits.cu.in");
    static const char *const prelude_lines[] = {
        "    const unsigned char *p = m.bits ? m.bits + (b >> 3) : &all_valid;\n    return (*p >> (b & 7)) & 1u;",
        "    unsigned w = m.bits[b >> 3];\n    if ((b & 7) > 4)\n        w |= (unsigned)m.bits[(b >> 3) + 1] << 8;\n"
        "    return (w >> (b & 7)) & 0xfu;",
        "        const unsigned next = __shfl_down_sync(0xffffffffu, mine, 1);\n"
        "        if ((lane & 1u) == 0 && g / 2 < nbytes)\n            bits[j][g / 2] = (unsigned char)(mine | next << 4);",
        "    const u64 byte = first / 8 + lane;",
        "        if (lane < 4 && byte < nbytes)\n            bits[j][byte] = (unsigned char)(word >> (8 * lane));",
    };
    static const char *const bits_lines[] = {
        "        const unsigned long long b = offset + i;\n        bytes[i] = (bits[b >> 3] >> (b & 7)) & 1;",
        "            if (i < n && bytes[i])\n                v |= (unsigned char)(1u << k);",
        "    const unsigned long long nbytes = (n + 7) / 8;",
    };
    has_lines("prelude.cu.in", prelude, prelude_lines, sizeof prelude_lines / sizeof *prelude_lines);
    has_lines("arrow_bits.cu.in", bits, bits_lines, sizeof bits_lines / sizeof *bits_lines);
    free(prelude);
    free(bits);
}

/* ---- against bit-by-bit reading ---- */

static bool plain_bit(const unsigned char *bits, u64 b)
{
    return (bits[b / 8] >> (b % 8)) & 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_arrow_bits <source directory>\n");
        return 2;
    }
    templates_say_so(argv[1]);
    enum { MAX_N = 600, BYTES = (MAX_N + 64) / 8 + 2 };
    static const u64 lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 599};
    unsigned seed = 19;
    unsigned char in[BYTES];
    for (size_t k = 0; k < sizeof in; k++) {
        seed = seed * 1103515245u + 12345u;
        in[k] = (unsigned char)(seed >> 16);
    }
    long checked = 0;
    for (u64 offset = 0; offset < 64; offset++)
        for (size_t L = 0; L < sizeof lengths / sizeof *lengths; L++) {
            const u64 n = lengths[L];
            const mask m = {in, offset}, none = {NULL, offset};
            /* Reading: a row at a time and four at a time. */
            for (u64 i = 0; i < n; i++) {
                CHECK(valid(&m, i) == plain_bit(in, offset + i), "valid: offset %llu row %llu", offset, i);
                CHECK(valid(&none, i), "valid without a bitmap: row %llu", i);
            }
            for (u64 i = 0; i + 3 < n; i += 4) {
                unsigned want = 0;
                for (unsigned q = 0; q < 4; q++)
                    want |= (unsigned)plain_bit(in, offset + i + q) << q;
                CHECK(valid4(&m, i) == want, "valid4: offset %llu rows %llu..+3: %x, wanted %x", offset, i,
                      valid4(&m, i), want);
                CHECK(valid4(&none, i) == 0xfu, "valid4 without a bitmap");
            }
            /* Unpacked from the offset, packed back from bit 0, for grids of 1, 7 and 256 threads. */
            for (u64 threads = 1; threads <= 256; threads = threads == 1 ? 7 : threads == 7 ? 256 : 257) {
                bool bytes[MAX_N];
                unsigned char out[BYTES];
                memset(bytes, 0xaa, sizeof bytes);
                memset(out, 0xee, sizeof out);
                unpack(in, offset, n, bytes, threads);
                for (u64 i = 0; i < n; i++)
                    CHECK(bytes[i] == plain_bit(in, offset + i), "unpack: offset %llu row %llu", offset, i);
                pack(bytes, n, out, threads);
                for (u64 i = 0; i < (n + 7) / 8 * 8; i++)
                    CHECK(plain_bit(out, i) == (i < n && plain_bit(in, offset + i)),
                          "pack: offset %llu n %llu bit %llu", offset, n, i);
                CHECK(out[(n + 7) / 8] == 0xee, "pack wrote past ceil(n / 8) bytes (n %llu)", n);
            }
            /* Output bitmaps of rows whose validity is the input's bit offset + i: write_nibbles
             * (groups of 4 rows, a warp's 32 groups at a time) and write_ballots (32 rows). */
            const u64 nbytes = (n + 7) / 8;
            unsigned char nib[BYTES], bal[BYTES];
            memset(nib, 0xee, sizeof nib);
            memset(bal, 0xee, sizeof bal);
            u64 nib_nulls = 0, bal_nulls = 0, want_nulls = 0;
            for (u64 g0 = 0; g0 * 4 < n; g0 += 32) {
                unsigned v[32], rows[32];
                for (unsigned lane = 0; lane < 32; lane++) {
                    v[lane] = rows[lane] = 0;
                    for (unsigned q = 0; q < 4; q++) {
                        const u64 i = 4 * (g0 + lane) + q;
                        if (i < n) {
                            rows[lane] |= 1u << q;
                            v[lane] |= (unsigned)valid(&m, i) << q;
                        }
                    }
                }
                write_nibbles(nib, g0, v, rows, nbytes, &nib_nulls);
            }
            for (u64 first = 0; first < n; first += 32) {
                bool v[32];
                unsigned rows = 0;
                for (unsigned lane = 0; lane < 32; lane++) {
                    v[lane] = first + lane < n && valid(&m, first + lane);
                    rows |= (unsigned)(first + lane < n) << lane;
                }
                write_ballots(bal, first, v, rows, nbytes, &bal_nulls);
            }
            for (u64 i = 0; i < n; i++)
                want_nulls += !plain_bit(in, offset + i);
            for (u64 i = 0; i < nbytes * 8; i++) {
                const bool want = i < n && plain_bit(in, offset + i);
                CHECK(plain_bit(nib, i) == want, "write_nibbles: offset %llu n %llu bit %llu", offset, n, i);
                CHECK(plain_bit(bal, i) == want, "write_ballots: offset %llu n %llu bit %llu", offset, n, i);
            }
            CHECK(nib[nbytes] == 0xee && bal[nbytes] == 0xee, "a bitmap written past ceil(n / 8) bytes (n %llu)", n);
            CHECK(nib_nulls == want_nulls && bal_nulls == want_nulls, "null counts %llu and %llu, %llu rows null",
                  nib_nulls, bal_nulls, want_nulls);
            checked++;
        }
    printf("%ld (offset, length) pairs checked, %d failures\n", checked, failures);
    return failures ? 1 : 0;
}
