/* Python string UDFs on the GPU (gpu-python-strings): every UDF of
 * tests/data/strings/py_strings.py, compiled by udfkit under numba-cuda into library ps (built
 * at build time by tests/gpu/build_python_strings.py, with CPython's results over its corpus),
 * run through its map and nullable_map launchers over the corpus (several thousand strings:
 * ASCII, Latin, Greek, Cyrillic, CJK, emoji, empty, whitespace-only, ill-formed UTF-8, 1 byte to
 * 10 KB) in Arrow's three layouts (utf8, large_utf8, utf8_view) at Arrow offsets 0 and 3, over
 * 0, 1, the whole corpus and 2^20 + 7 rows (the corpus's rows of 100 bytes or less, repeated),
 * nulls in the nullable UDFs' input; string results by the two launches at int64 and int32
 * offsets. Every row is compared bit for bit with CPython's result (text by its UTF-8, doubles
 * by their bits); where CPython raised, the launch must report the lowest such row with code -1.
 * The device heap is raised to 1 GiB first (docs/strings.md, "Python UDFs").
 * usage: test_python_strings DIR; exit 77 (skipped) without a GPU. */
#include "ps.h"
#include "gpu_test.h"
#include "gpu_strings.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The inputs of one run: up to two string columns (s and t), the validity of the first as a
 * mask, and an int64 column. */
typedef struct inputs {
    udfkit_strings col[2];
    udfkit_mask mask;
    const void *x;
} inputs;

typedef udfkit_status (*map_fn)(const inputs *in, size_t n, void *out, uint8_t *out_bits);
typedef udfkit_status (*sizes_fn)(const inputs *in, size_t n, void *off);
typedef udfkit_status (*write_fn)(const inputs *in, size_t n, const void *off, char *chars, uint8_t *out_bits);

/* One UDF: its result kind ('i' int64, 'b' bool, 'f' float64, 's' string), whether it runs
 * under nullable_map, and its launchers. */
typedef struct ps_case {
    const char *name;
    char kind;
    int nullable;
    map_fn map;
    sizes_fn sizes, sizes32;
    write_fn write, write32;
} ps_case;

#include "ps_dispatch.c"

#define NCASES (sizeof ps_cases / sizeof *ps_cases)

static const char *dir;
static char current[200];

static void *read_all(const char *name, size_t *size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *data = malloc((size_t)n + 1);
    if (fread(data, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    if (size)
        *size = (size_t)n;
    return data;
}

/* Rows of text: int64 offsets and bytes, as the build script wrote them. */
typedef struct text {
    int64_t *off;
    char *chars;
} text;

static text read_text(const char *stem)
{
    char name[256];
    text t;
    snprintf(name, sizeof name, "%s.off", stem);
    t.off = read_all(name, NULL);
    snprintf(name, sizeof name, "%s.chars", stem);
    t.chars = read_all(name, NULL);
    return t;
}

static const char *row_of(const text *t, size_t i, size_t *len)
{
    *len = (size_t)(t->off[i + 1] - t->off[i]);
    return t->chars + t->off[i];
}

/* Device memory of a column: rows idx[0..n) of t in `layout`, `offset` junk rows first
 * (gpu_strings.h; utf8_view rows over 12 bytes in one data buffer). */
typedef gpu_strings column;

static column make_column(const text *t, const uint32_t *idx, size_t n, uint64_t offset, udfkit_string_layout layout)
{
    const char **row = calloc(n + 1, sizeof *row);
    size_t *len = calloc(n + 1, sizeof *len);
    for (size_t i = 0; i < n; i++)
        row[i] = row_of(t, idx[i], &len[i]);
    column c = gpu_strings_make(row, len, n, offset, layout, 1);
    free(row);
    free(len);
    return c;
}

static void column_free(column *c)
{
    gpu_strings_free(c);
}

/* CPython's results for one UDF, by corpus row. */
typedef struct reference {
    uint8_t *err, *null;
    void *out;  /* numbers */
    text chars; /* strings */
} reference;

static reference *refs;
static text corpus_s, corpus_t;
static int64_t *corpus_x;
static uint8_t *corpus_valid;

/* A kernel that faults loses the CUDA context: every later call fails the same way (device
 * memory too, so that later launchers would see NULL columns). Stop at the first, saying so. */
static void stop_if_lost(udfkit_status st, const ps_case *c, const char *launch)
{
    if (st != UDFKIT_ERROR_LAUNCH)
        return;
    fprintf(stderr, "FAIL %s %s %s: %s; the CUDA context is lost, nothing after this can run (%d passed, %d failed so far)\n",
            current, c->name, launch, udfkit_last_error(), passes, failures + 1);
    exit(1);
}

/* The launch's UDF error record against the lowest row CPython raised at. */
static void check_error(const ps_case *c, const uint32_t *idx, size_t n, const char *launch)
{
    const reference *r = &refs[c - ps_cases];
    size_t first = SIZE_MAX;
    for (size_t i = 0; i < n && first == SIZE_MAX; i++)
        if (r->err[idx[i]])
            first = i;
    uint64_t row = 0;
    int code = 0;
    udfkit_status st = ps_udf_error(NULL, &row, &code);
    stop_if_lost(st, c, launch);
    if (first == SIZE_MAX)
        CHECK(st == UDFKIT_OK, "%s %s %s: no row raises in CPython, but the launch reports row %llu code %d", current,
              c->name, launch, (unsigned long long)row, code);
    else
        CHECK(st == UDFKIT_ERROR_UDF && row == first && code == -1,
              "%s %s %s: CPython raises first at row %zu; the launch reports %s, row %llu, code %d", current, c->name,
              launch, first, udfkit_status_string(st), (unsigned long long)row, code);
}

static void check_bits(const ps_case *c, const uint32_t *idx, size_t n, const uint8_t *bits)
{
    const reference *r = &refs[c - ps_cases];
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < n && bad == SIZE_MAX; i++) {
        bool valid = (bits[i / 8] >> (i % 8)) & 1;
        if (!r->err[idx[i]] && valid != !r->null[idx[i]])
            bad = i;
    }
    CHECK(bad == SIZE_MAX, "%s %s: validity as CPython's None (first wrong row %zu)", current, c->name, bad);
}

static void run_numeric(const ps_case *c, const inputs *in, const uint32_t *idx, size_t n)
{
    const reference *r = &refs[c - ps_cases];
    size_t width = c->kind == 'b' ? 1 : 8;
    void *out = device_copy(NULL, n * width);
    uint8_t *bits = device_copy(NULL, (n + 7) / 8);
    udfkit_status st = c->map(in, n, out, bits);
    stop_if_lost(st, c, "map");
    if (!check(st, c->name)) {
        check_error(c, idx, n, "map");
        unsigned char *h = host_copy(out, n * width);
        size_t bad = SIZE_MAX;
        for (size_t i = 0; i < n && bad == SIZE_MAX; i++) {
            size_t k = idx[i];
            if (r->err[k] || r->null[k])
                continue;
            if (memcmp(h + i * width, (const unsigned char *)r->out + k * width, width) != 0)
                bad = i;
        }
        if (bad != SIZE_MAX) {
            int64_t got = 0, want = 0;
            memcpy(&got, h + bad * width, width);
            memcpy(&want, (const unsigned char *)r->out + idx[bad] * width, width);
            CHECK(false, "%s %s: row %zu (corpus row %u): got bits %llx, CPython's %llx", current, c->name, bad,
                  idx[bad], (unsigned long long)got, (unsigned long long)want);
        } else {
            CHECK(true, "%s", c->name);
        }
        if (c->nullable) {
            uint8_t *hb = host_copy(bits, (n + 7) / 8);
            check_bits(c, idx, n, hb);
            free(hb);
        }
        free(h);
    }
    udfkit_device_free(out);
    udfkit_device_free(bits);
}

static void run_string(const ps_case *c, const inputs *in, const uint32_t *idx, size_t n)
{
    const reference *r = &refs[c - ps_cases];
    for (int narrow = 0; narrow < 2; narrow++) {
        size_t width = narrow ? 4 : 8;
        void *off = device_copy(NULL, (n + 1) * width);
        uint8_t *bits = device_copy(NULL, (n + 7) / 8);
        const char *launch = narrow ? "sizes32" : "sizes";
        udfkit_status st = (narrow ? c->sizes32 : c->sizes)(in, n, off);
        stop_if_lost(st, c, launch);
        if (check(st, c->name)) {
            udfkit_device_free(off);
            udfkit_device_free(bits);
            continue;
        }
        check_error(c, idx, n, launch);
        unsigned char *h = host_copy(off, (n + 1) * width);
        int64_t *off64 = calloc(n + 1, 8);
        for (size_t i = 0; i <= n; i++) {
            int32_t v32;
            memcpy(narrow ? (void *)&v32 : (void *)&off64[i], h + i * width, width);
            if (narrow)
                off64[i] = v32;
        }
        size_t total = (size_t)off64[n];
        char *chars = device_copy(NULL, total);
        st = (narrow ? c->write32 : c->write)(in, n, off, chars, bits);
        stop_if_lost(st, c, narrow ? "write32" : "write");
        if (!check(st, c->name)) {
            check_error(c, idx, n, narrow ? "write32" : "write");
            char *hc = host_copy(chars, total);
            size_t bad = SIZE_MAX;
            for (size_t i = 0; i < n && bad == SIZE_MAX; i++) {
                size_t k = idx[i], want_len;
                if (r->err[k])
                    continue;
                const char *want = row_of(&r->chars, k, &want_len);
                if ((size_t)(off64[i + 1] - off64[i]) != want_len || memcmp(hc + off64[i], want, want_len) != 0)
                    bad = i;
            }
            if (bad != SIZE_MAX) {
                size_t want_len, got_len = (size_t)(off64[bad + 1] - off64[bad]);
                const char *want = row_of(&r->chars, idx[bad], &want_len);
                CHECK(false, "%s %s (%s offsets): row %zu (corpus row %u): got %zu bytes '%.*s', CPython's %zu '%.*s'",
                      current, c->name, narrow ? "int32" : "int64", bad, idx[bad], got_len,
                      (int)(got_len < 80 ? got_len : 80), hc + off64[bad], want_len,
                      (int)(want_len < 80 ? want_len : 80), want);
            } else {
                CHECK(true, "%s", c->name);
            }
            if (c->nullable) {
                uint8_t *hb = host_copy(bits, (n + 7) / 8);
                check_bits(c, idx, n, hb);
                free(hb);
            }
            free(hc);
        }
        udfkit_device_free(chars);
        udfkit_device_free(off);
        udfkit_device_free(bits);
        free(h);
        free(off64);
    }
}

/* Every UDF over rows idx[0..n) of the corpus, s and t in `layout` at `offset`. */
static void run_all(const uint32_t *idx, size_t n, udfkit_string_layout layout, uint64_t offset)
{
    column s = make_column(&corpus_s, idx, n, offset, layout);
    column t = make_column(&corpus_t, idx, n, offset + 1, (udfkit_string_layout)((layout + 1) % 3));
    int64_t *x = malloc((n + 1) * 8);
    uint8_t *valid = calloc((offset + n + 8) / 8 + 1, 1);
    for (size_t i = 0; i < n; i++) {
        x[i] = corpus_x[idx[i]];
        if (corpus_valid[idx[i]])
            valid[(offset + i) / 8] |= (uint8_t)(1u << ((offset + i) % 8));
    }
    void *dx = device_copy(x, n * 8);
    void *dvalid = device_copy(valid, (offset + n + 8) / 8 + 1);
    inputs in = {{s.s, t.s}, {dvalid, offset}, dx};
    for (size_t k = 0; k < NCASES; k++) {
        const ps_case *c = &ps_cases[k];
        if (c->kind == 's')
            run_string(c, &in, idx, n);
        else
            run_numeric(c, &in, idx, n);
    }
    udfkit_device_free(dx);
    udfkit_device_free(dvalid);
    free(x);
    free(valid);
    column_free(&s);
    column_free(&t);
}

/* The device heap a Python UDF's long strings take (8 MB by default): 1 GiB, before any
 * kernel that allocates runs. */
static void raise_heap(void)
{
    typedef int (*set_limit_fn)(int, size_t);
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
    set_limit_fn set = cuda ? (set_limit_fn)dlsym(cuda, "cuCtxSetLimit") : NULL;
    int rc = set ? set(0x02 /* CU_LIMIT_MALLOC_HEAP_SIZE */, (size_t)1 << 30) : -1;
    CHECK(rc == 0, "cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 1 GiB) gave %d", rc);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_python_strings DIR\n");
        return 2;
    }
    dir = argv[1];
    udfkit_status st = ps_load();
    if (st == UDFKIT_ERROR_NO_DRIVER || st == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        return 77;
    }
    if (check(st, "ps_load"))
        return 1;
    raise_heap();
    corpus_s = read_text("s");
    corpus_t = read_text("t");
    corpus_x = read_all("x.bin", NULL);
    corpus_valid = read_all("valid.bin", NULL);
    refs = calloc(NCASES, sizeof *refs);
    for (size_t k = 0; k < NCASES; k++) {
        char name[256];
        snprintf(name, sizeof name, "%s.err", ps_cases[k].name);
        refs[k].err = read_all(name, NULL);
        snprintf(name, sizeof name, "%s.null", ps_cases[k].name);
        refs[k].null = read_all(name, NULL);
        snprintf(name, sizeof name, "%s", ps_cases[k].name);
        if (ps_cases[k].kind == 's') {
            refs[k].chars = read_text(name);
        } else {
            snprintf(name, sizeof name, "%s.out", ps_cases[k].name);
            refs[k].out = read_all(name, NULL);
        }
    }
    /* Rows: the corpus in order; for 2^20 + 7 rows its rows of 100 bytes or less, repeated. */
    const size_t big = (1u << 20) + 7;
    uint32_t *idx = malloc(big * sizeof *idx), *small = malloc(PS_ROWS * sizeof *small);
    size_t nsmall = 0;
    for (uint32_t i = 0; i < PS_ROWS; i++) {
        size_t len;
        row_of(&corpus_s, i, &len);
        if (len <= 100)
            small[nsmall++] = i;
    }
    static const char *const layouts[] = {"utf8", "large_utf8", "utf8_view"};
    const size_t sizes[] = {0, 1, PS_ROWS, big};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t n = sizes[z];
        for (size_t i = 0; i < n; i++)
            idx[i] = n == big ? small[i % nsmall] : (uint32_t)i;
        for (int l = 0; l < 3; l++)
            for (uint64_t offset = 0; offset <= 3; offset += 3) {
                if (n == big && offset)
                    continue; /* the offsets are checked over the corpus */
                snprintf(current, sizeof current, "n=%zu layout=%s offset=%llu", n, layouts[l],
                         (unsigned long long)offset);
                run_all(idx, n, (udfkit_string_layout)l, offset);
            }
    }
    check(udfkit_synchronize(), "udfkit_synchronize");
    printf("%d passed, %d failed (%zu UDFs, %d corpus rows)\n", passes, failures, NCASES, PS_ROWS);
    return failures ? 1 : 0;
}
