/* Unit tests of udfkit_inspect_*, udfkit_fatbin_read and udfkit_cubin_read.
 *
 * Inputs, all optional (a test whose input is not set is skipped), given as environment
 * variables naming files:
 *   UDFKIT_TEST_FATBIN    a fatbin (from `udfkit link --emit fatbin`, nvFatbin or nvcc -fatbin)
 *   UDFKIT_TEST_CUBIN     a cubin (ELF, EM_CUDA)
 *   UDFKIT_TEST_PTX       a PTX file
 *   UDFKIT_TEST_LTOIR     LTO-IR from NVRTC -dlto (udfkit compile --emit ltoir)
 *   UDFKIT_TEST_OBJECT    a host object or archive with device code (nvcc -c, nvcc -lib)
 *   UDFKIT_TEST_MANIFEST  a udfkit manifest
 * and, for each of those <VAR>s, what it must contain (comma-separated, each optional):
 *   <VAR>_KERNELS    kernel names that must be listed, e.g. "k_scale,_Z5k_cppPi"
 *   <VAR>_FUNCTIONS  non-kernel function names that must be listed
 *   <VAR>_ARCHS      entry architectures that must be present, e.g. "sm_80,compute_90"
 * The fatbin and cubin are also truncated and mutated to check that malformed input is an
 * input error and never a crash (build with UDFKIT_SANITIZE=address;undefined to see reads
 * past a buffer). The remaining tests build their inputs in memory and need no files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "artifact/elf_read.h"
#include "artifact/fatbin_read.h"
#include "artifact/inspect.h"
#include "base/buf.h"
#include "base/diag.h"
#include "base/fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

static bool list_has(const json_t *list, const char *name)
{
    for (size_t i = 0; i < json_array_size(list); i++)
        if (strcmp(json_string_value(json_array_get(list, i)), name) == 0)
            return true;
    return false;
}

static bool entries_have_arch(const json_t *desc, const char *arch)
{
    const json_t *entries = json_object_get(desc, "entries");
    for (size_t i = 0; i < json_array_size(entries); i++) {
        const char *a = json_string_value(json_object_get(json_array_get(entries, i), "arch"));
        if (a && strcmp(a, arch) == 0)
            return true;
    }
    return false;
}

static const char *str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

/* Checks every name of the comma-separated list in variable `var` with `has`. */
static void expect_each(const char *var, const json_t *desc, const char *key)
{
    const char *list = getenv(var);
    if (!list || !*list)
        return;
    char *copy = strdup(list), *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        bool found = key ? list_has(json_object_get(desc, key), item) : entries_have_arch(desc, item);
        if (!found)
            fail_msg("%s names '%s', which inspect does not list", var, item);
    }
    free(copy);
}

static void expect_contents(const char *var, const json_t *desc)
{
    char name[128];
    snprintf(name, sizeof name, "%s_KERNELS", var);
    expect_each(name, desc, "kernels");
    snprintf(name, sizeof name, "%s_FUNCTIONS", var);
    expect_each(name, desc, "functions");
    snprintf(name, sizeof name, "%s_ARCHS", var);
    expect_each(name, desc, NULL);
}

/* Inspects the file in `var`, or skips the test where it is not set. */
static json_t *inspect_input(const char *var)
{
    const char *path = getenv(var);
    if (!path || !*path)
        skip();
    json_t *desc = NULL;
    udfkit_rc rc = udfkit_inspect_file(path, &desc);
    if (rc)
        fail_msg("inspecting %s failed: %s", path, udfkit_diag_message());
    assert_non_null(desc);
    assert_string_equal(str(desc, "path"), path);
    expect_contents(var, desc);
    return desc;
}

static void read_input(const char *var, udfkit_buf *out)
{
    const char *path = getenv(var);
    if (!path || !*path)
        skip();
    assert_int_equal(udfkit_read_file(path, out), UDFKIT_RC_OK);
}

static udfkit_rc inspect_bytes(const void *data, size_t size, json_t **desc)
{
    *desc = NULL;
    udfkit_rc rc = udfkit_inspect_data(data, size, "test-input", desc);
    if (rc)
        assert_null(*desc);
    return rc;
}

static void assert_entry_shape(const json_t *e)
{
    const char *kind = str(e, "kind");
    assert_true(strcmp(kind, "sass") == 0 || strcmp(kind, "ptx") == 0 || strcmp(kind, "ltoir") == 0);
    const char *arch = str(e, "arch");
    assert_true(strncmp(arch, strcmp(kind, "sass") == 0 ? "sm_" : "compute_", strcmp(kind, "sass") == 0 ? 3 : 8) == 0);
    assert_true(json_is_boolean(json_object_get(e, "compressed")));
    assert_true(json_integer_value(json_object_get(e, "size")) > 0);
    assert_true(json_is_array(json_object_get(e, "kernels")));
    assert_true(json_is_array(json_object_get(e, "functions")));
    if (strcmp(kind, "ptx") == 0)
        assert_non_null(strchr(str(e, "ptx_isa"), '.'));
    if (strcmp(kind, "ltoir") == 0)
        assert_true(strlen(str(e, "note")) > 0);
}

/* ---- real inputs ---- */

static void test_fatbin_input(void **state)
{
    (void)state;
    json_t *d = inspect_input("UDFKIT_TEST_FATBIN");
    assert_string_equal(str(d, "kind"), "fatbin");
    const json_t *entries = json_object_get(d, "entries");
    assert_true(json_array_size(entries) > 0);
    for (size_t i = 0; i < json_array_size(entries); i++)
        assert_entry_shape(json_array_get(entries, i));
    udfkit_inspect_print(d, stdout);
    json_decref(d);
}

static void test_cubin_input(void **state)
{
    (void)state;
    json_t *d = inspect_input("UDFKIT_TEST_CUBIN");
    assert_string_equal(str(d, "kind"), "cubin");
    assert_int_equal(json_array_size(json_object_get(d, "entries")), 1);
    assert_entry_shape(json_array_get(json_object_get(d, "entries"), 0));
    assert_true(strncmp(str(d, "arch"), "sm_", 3) == 0 && atoi(str(d, "arch") + 3) >= 50);
    assert_true(json_array_size(json_object_get(d, "kernels")) + json_array_size(json_object_get(d, "functions")) > 0);
    udfkit_inspect_print(d, stdout);
    json_decref(d);
}

static void test_ptx_input(void **state)
{
    (void)state;
    json_t *d = inspect_input("UDFKIT_TEST_PTX");
    assert_string_equal(str(d, "kind"), "ptx");
    assert_true(strncmp(str(d, "arch"), "compute_", 8) == 0);
    assert_non_null(strchr(str(d, "ptx_isa"), '.'));
    assert_entry_shape(json_array_get(json_object_get(d, "entries"), 0));
    json_decref(d);
}

static void test_ltoir_input(void **state)
{
    (void)state;
    json_t *d = inspect_input("UDFKIT_TEST_LTOIR");
    assert_string_equal(str(d, "kind"), "ltoir");
    assert_int_equal(json_array_size(json_object_get(d, "functions")), 0);
    assert_true(strlen(str(d, "note")) > 0);
    json_decref(d);
}

static void test_object_input(void **state)
{
    (void)state;
    json_t *d = inspect_input("UDFKIT_TEST_OBJECT");
    assert_true(strcmp(str(d, "kind"), "object") == 0 || strcmp(str(d, "kind"), "archive") == 0);
    assert_true(json_array_size(json_object_get(d, "entries")) > 0);
    json_decref(d);
}

static void test_manifest_input(void **state)
{
    (void)state;
    json_t *d = inspect_input("UDFKIT_TEST_MANIFEST");
    assert_string_equal(str(d, "kind"), "manifest");
    json_decref(d);
}

/* Every proper prefix of a fatbin cuts its container short. */
static void test_fatbin_truncated(void **state)
{
    (void)state;
    udfkit_buf data = UDFKIT_BUF_INIT;
    read_input("UDFKIT_TEST_FATBIN", &data);
    size_t step = data.size > 65536 ? data.size / 4096 : 1;
    for (size_t n = 0; n < data.size; n += n < 512 ? 1 : step) {
        json_t *d;
        unsigned char *copy = malloc(n ? n : 1); /* exact-size copies, so a sanitizer sees overreads */
        memcpy(copy, data.data, n);
        if (inspect_bytes(copy, n, &d) != UDFKIT_RC_INPUT)
            fail_msg("a fatbin cut to %zu of %zu bytes was not an input error", n, data.size);
        free(copy);
    }
    udfkit_buf_free(&data);
}

/* A cubin cut short may still parse (its tail is not always needed); it must never crash. */
static void test_cubin_truncated(void **state)
{
    (void)state;
    udfkit_buf data = UDFKIT_BUF_INIT;
    read_input("UDFKIT_TEST_CUBIN", &data);
    size_t step = data.size > 65536 ? data.size / 4096 : 1;
    for (size_t n = 0; n < data.size; n += step) {
        json_t *d;
        unsigned char *copy = malloc(n ? n : 1);
        memcpy(copy, data.data, n);
        udfkit_rc rc = inspect_bytes(copy, n, &d);
        assert_true(rc == UDFKIT_RC_OK || rc == UDFKIT_RC_INPUT);
        json_decref(d);
        free(copy);
    }
    udfkit_buf_free(&data);
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Overwrites header bytes of the fatbin: sizes, kinds, flags and offsets all get garbage. */
static void test_fatbin_mutated(void **state)
{
    (void)state;
    udfkit_buf data = UDFKIT_BUF_INIT;
    read_input("UDFKIT_TEST_FATBIN", &data);
    uint64_t seed = 0x9e3779b97f4a7c15u;
    unsigned char *copy = malloc(data.size);
    for (int round = 0; round < 2000; round++) {
        memcpy(copy, data.data, data.size);
        size_t span = data.size < 512 ? data.size : 512;
        for (int k = 0; k < 1 + round % 4; k++)
            copy[next_random(&seed) % span] = (unsigned char)next_random(&seed);
        json_t *d;
        udfkit_rc rc = inspect_bytes(copy, data.size, &d);
        if (rc != UDFKIT_RC_OK && rc != UDFKIT_RC_INPUT)
            fail_msg("round %d: rc %d: %s", round, rc, udfkit_diag_message());
        json_decref(d);
    }
    free(copy);
    udfkit_buf_free(&data);
}

/* ---- inputs built here ---- */

static void put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

typedef struct fake_entry {
    uint16_t kind;
    uint32_t arch;
    uint64_t flags;
    uint16_t major, minor;
    const void *payload;
    size_t payload_size;      /* bytes of payload written */
    uint64_t uncompressed;    /* non-zero for compressed entries */
} fake_entry;

#define FAKE_HEADER 64u

/* Appends one container in the layout fatbin_read.c documents. */
static void add_container(udfkit_buf *out, const fake_entry *entries, size_t count)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += FAKE_HEADER + ((entries[i].payload_size + 7) & ~(size_t)7);
    unsigned char h[16] = {0};
    put32(h, 0xBA55ED50u);
    put16(h + 4, 1);
    put16(h + 6, 16);
    put64(h + 8, total);
    udfkit_buf_append(out, h, sizeof h);
    for (size_t i = 0; i < count; i++) {
        const fake_entry *e = &entries[i];
        size_t padded = (e->payload_size + 7) & ~(size_t)7;
        unsigned char eh[FAKE_HEADER] = {0};
        put16(eh, e->kind);
        put16(eh + 2, 0x0101);
        put32(eh + 4, FAKE_HEADER);
        put64(eh + 8, padded);
        put32(eh + 0x10, e->uncompressed ? (uint32_t)e->payload_size : 0);
        put16(eh + 0x18, e->minor);
        put16(eh + 0x1a, e->major);
        put32(eh + 0x1c, e->arch);
        put64(eh + 0x28, e->flags);
        put64(eh + 0x38, e->uncompressed);
        udfkit_buf_append(out, eh, sizeof eh);
        udfkit_buf_append(out, e->payload, e->payload_size);
        udfkit_buf_append(out, "\0\0\0\0\0\0\0", padded - e->payload_size);
    }
}

static const char ptx_text[] = "//\n// Generated by hand\n//\n\n"
                               ".version 8.7\n"
                               ".target sm_80\n"
                               ".address_size 64\n\n"
                               ".extern .func (.param .b32 func_retval0) outside(.param .b32 a);\n"
                               ".func (.param .b32 func_retval0) internal_fn(.param .b32 a)\n{\n\tret;\n}\n"
                               ".visible .func (.param .b32 func_retval0) add_f32(\n\t.param .b32 a\n)\n{\n\tret;\n}\n"
                               ".visible .func noret()\n{\n\tret;\n}\n"
                               ".weak .func (.param .b64 func_retval0) weak_fn(\n)\n{\n\tret;\n}\n"
                               ".visible .entry k_map(\n\t.param .u64 p\n)\n{\n\tret;\n}\n"
                               "\t.visible .entry k_indented(\n)\n{\n\tret;\n}\n";

static void test_ptx_text(void **state)
{
    (void)state;
    json_t *d;
    assert_int_equal(inspect_bytes(ptx_text, strlen(ptx_text), &d), UDFKIT_RC_OK);
    assert_string_equal(str(d, "kind"), "ptx");
    assert_string_equal(str(d, "arch"), "compute_80");
    assert_string_equal(str(d, "ptx_isa"), "8.7");
    const json_t *k = json_object_get(d, "kernels"), *f = json_object_get(d, "functions");
    assert_int_equal(json_array_size(k), 2);
    assert_true(list_has(k, "k_map") && list_has(k, "k_indented"));
    assert_int_equal(json_array_size(f), 3);
    assert_true(list_has(f, "add_f32") && list_has(f, "noret") && list_has(f, "weak_fn"));
    json_decref(d);
}

static void test_fatbin_built(void **state)
{
    (void)state;
    static const unsigned char ltoir[] = {0xed, 0x43, 0x4e, 0x7f, 0x01, 0x41, 0x02, 0x62};
    fake_entry e[] = {
        {2 /* ELF */, 90, 0x100011 /* sm_90a */, 1, 8, "\x7f" "ELF", 4, 0},
        {1 /* PTX */, 80, 0x11, 8, 7, ptx_text, sizeof ptx_text, 0},
        {8 /* LTO-IR */, 80, 0x11, 1, 0x41, ltoir, sizeof ltoir, 0},
    };
    udfkit_buf fb = UDFKIT_BUF_INIT;
    add_container(&fb, e + 1, 2);
    udfkit_buf_append(&fb, "\0\0\0\0\0\0\0\0", 8); /* padding between containers, as in __nv_relfatbin */
    add_container(&fb, e, 1);

    udfkit_fatbin_contents c;
    assert_int_equal(udfkit_fatbin_read(fb.data, fb.size, "built", &c), UDFKIT_RC_OK);
    assert_int_equal(c.containers, 2);
    assert_int_equal(c.count, 3);
    assert_int_equal(c.entries[0].kind, UDFKIT_CODE_PTX);
    assert_int_equal(c.entries[0].version_major, 8);
    assert_int_equal(c.entries[0].version_minor, 7);
    assert_int_equal(c.entries[1].kind, UDFKIT_CODE_LTOIR);
    assert_int_equal(c.entries[2].kind, UDFKIT_CODE_SASS);
    assert_int_equal(c.entries[2].target.number, 90);
    assert_int_equal(c.entries[2].target.suffix, 'a');
    assert_true(c.entries[2].target.sass);
    assert_int_equal(c.entries[2].compression, UDFKIT_COMPRESSION_NONE);
    udfkit_fatbin_contents_free(&c);

    /* The cubin entry is not a real ELF: listing its symbols is an input error. */
    json_t *d;
    assert_int_equal(inspect_bytes(fb.data, fb.size, &d), UDFKIT_RC_INPUT);

    fb.size = 0;
    add_container(&fb, e + 1, 2);
    assert_int_equal(inspect_bytes(fb.data, fb.size, &d), UDFKIT_RC_OK);
    assert_string_equal(str(d, "kind"), "fatbin");
    const json_t *ptx = json_array_get(json_object_get(d, "entries"), 0);
    assert_string_equal(str(ptx, "kind"), "ptx");
    assert_string_equal(str(ptx, "arch"), "compute_80");
    assert_string_equal(str(ptx, "ptx_isa"), "8.7");
    assert_true(list_has(json_object_get(d, "kernels"), "k_map"));
    assert_true(list_has(json_object_get(d, "functions"), "add_f32"));
    const json_t *lto = json_array_get(json_object_get(d, "entries"), 1);
    assert_string_equal(str(lto, "kind"), "ltoir");
    assert_int_equal(json_array_size(json_object_get(lto, "functions")), 0);
    assert_true(strlen(str(lto, "note")) > 0);
    json_decref(d);
    udfkit_buf_free(&fb);
}

/* LZ4 block: "/" then a 19-byte match at offset 1 (overlapping), then the rest as literals. */
static size_t lz4_encode(const char *text, unsigned char *out, bool corrupt)
{
    size_t n = 0, len = strlen(text);
    out[n++] = 0x1f;
    out[n++] = '/';
    out[n++] = corrupt ? 5 : 1; /* offset 5 reaches before the start of the output */
    out[n++] = 0;
    out[n++] = 0; /* match length 4 + 15 + 0 */
    out[n++] = (unsigned char)((len < 15 ? len : 15) << 4);
    if (len >= 15) {
        size_t rest = len - 15;
        for (; rest >= 255; rest -= 255)
            out[n++] = 255;
        out[n++] = (unsigned char)rest;
    }
    memcpy(out + n, text, len);
    return n + len;
}

static void test_fatbin_lz4(void **state)
{
    (void)state;
    unsigned char block[sizeof ptx_text + 64];
    const char *text = ptx_text + 3; /* from "// Generated" on, after the first comment line */
    size_t n = lz4_encode(text, block, false);
    size_t decoded = 20 + strlen(text);
    fake_entry e = {1, 80, 0x2011, 8, 7, block, n, decoded};
    udfkit_buf fb = UDFKIT_BUF_INIT;
    add_container(&fb, &e, 1);
    json_t *d;
    assert_int_equal(inspect_bytes(fb.data, fb.size, &d), UDFKIT_RC_OK);
    const json_t *entry = json_array_get(json_object_get(d, "entries"), 0);
    assert_true(json_is_true(json_object_get(entry, "compressed")));
    assert_string_equal(str(entry, "compression"), "lz4");
    assert_int_equal(json_integer_value(json_object_get(entry, "uncompressed_size")), decoded);
    assert_true(list_has(json_object_get(d, "kernels"), "k_map"));
    json_decref(d);

    udfkit_fatbin_contents c;
    udfkit_buf storage = UDFKIT_BUF_INIT;
    const unsigned char *code;
    size_t size;
    assert_int_equal(udfkit_fatbin_read(fb.data, fb.size, "built", &c), UDFKIT_RC_OK);
    assert_int_equal(udfkit_fatbin_entry_code(&c.entries[0], "built", &storage, &code, &size), UDFKIT_RC_OK);
    assert_int_equal(size, decoded);
    assert_memory_equal(code, "////////////////////", 20);
    assert_memory_equal(code + 20, text, strlen(text));
    udfkit_fatbin_contents_free(&c);

    /* A header that promises more bytes than the block gives. */
    fb.size = 0;
    e.uncompressed = decoded + 1;
    add_container(&fb, &e, 1);
    assert_int_equal(inspect_bytes(fb.data, fb.size, &d), UDFKIT_RC_INPUT);

    fb.size = 0;
    e.uncompressed = decoded;
    e.payload_size = lz4_encode(text, block, true);
    add_container(&fb, &e, 1);
    assert_int_equal(inspect_bytes(fb.data, fb.size, &d), UDFKIT_RC_INPUT);
    udfkit_buf_free(&storage);
    udfkit_buf_free(&fb);
}

static void test_fatbin_malformed(void **state)
{
    (void)state;
    fake_entry e = {1, 80, 0x11, 8, 7, ptx_text, sizeof ptx_text, 0};
    udfkit_buf fb = UDFKIT_BUF_INIT;
    add_container(&fb, &e, 1);
    unsigned char *p = (unsigned char *)fb.data;
    json_t *d;
    udfkit_fatbin_contents c;

    put16(p + 4, 2); /* container version */
    assert_int_equal(inspect_bytes(p, fb.size, &d), UDFKIT_RC_INPUT);
    put16(p + 4, 1);

    put16(p + 6, 8); /* container header smaller than its fields */
    assert_int_equal(inspect_bytes(p, fb.size, &d), UDFKIT_RC_INPUT);
    put16(p + 6, 16);

    put32(p + 16 + 4, 32); /* entry header smaller than its fields */
    assert_int_equal(inspect_bytes(p, fb.size, &d), UDFKIT_RC_INPUT);
    put32(p + 16 + 4, 0xfffffff0u); /* entry header past the end */
    assert_int_equal(inspect_bytes(p, fb.size, &d), UDFKIT_RC_INPUT);
    put32(p + 16 + 4, FAKE_HEADER);

    put64(p + 16 + 8, UINT64_MAX - 8); /* payload past the end, sums that overflow */
    assert_int_equal(inspect_bytes(p, fb.size, &d), UDFKIT_RC_INPUT);
    put64(p + 16 + 8, (sizeof ptx_text + 7) & ~(size_t)7);

    put64(p + 16 + 0x28, 0x8011); /* claims zstd, but the payload is plain text */
    put32(p + 16 + 0x10, sizeof ptx_text);
    put64(p + 16 + 0x38, (uint64_t)1 << 40);
    assert_int_equal(inspect_bytes(p, fb.size, &d), UDFKIT_RC_INPUT);
    put64(p + 16 + 0x38, 4096);
    udfkit_rc rc = inspect_bytes(p, fb.size, &d);
    assert_true(rc == UDFKIT_RC_INPUT || (rc == UDFKIT_RC_OK && strlen(str(json_array_get(json_object_get(d, "entries"), 0), "note"))));
    json_decref(d);
    put32(p + 16 + 0x10, 0xffffffffu); /* compressed size beyond the payload */
    assert_int_equal(udfkit_fatbin_read(p, fb.size, "built", &c), UDFKIT_RC_INPUT);
    put64(p + 16 + 0x28, 0x11);

    assert_int_equal(udfkit_fatbin_read(p, fb.size, "built", &c), UDFKIT_RC_OK);
    udfkit_fatbin_contents_free(&c);
    udfkit_buf_append(&fb, "junk", 4); /* bytes after the last container that are not one */
    assert_int_equal(udfkit_fatbin_read(fb.data, fb.size, "built", &c), UDFKIT_RC_INPUT);
    assert_non_null(strstr(udfkit_diag_message(), "built"));
    udfkit_buf_free(&fb);
}

static void test_elf_malformed(void **state)
{
    (void)state;
    unsigned char elf[64 + 64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x41, 8};
    put16(elf + 18, UDFKIT_EM_CUDA);
    udfkit_cubin_info info;
    assert_int_equal(udfkit_cubin_read(elf, sizeof elf, "e", &info), UDFKIT_RC_OK); /* no sections, no symbols */
    assert_int_equal(info.kernels.count + info.functions.count, 0);
    udfkit_cubin_info_free(&info);
    put64(elf + 0x28, 64);         /* e_shoff */
    put16(elf + 0x3a, 64);         /* e_shentsize */
    put16(elf + 0x3c, 50);         /* e_shnum: more headers than the file holds */
    assert_int_equal(udfkit_cubin_read(elf, sizeof elf, "e", &info), UDFKIT_RC_INPUT);
    put16(elf + 0x3c, 0);          /* extended numbering: the count is in section 0 */
    put64(elf + 64 + 0x20, 1000);  /* section 0's sh_size */
    assert_int_equal(udfkit_cubin_read(elf, sizeof elf, "e", &info), UDFKIT_RC_INPUT);
    put64(elf + 0x28, 0);
    elf[8] = 3; /* an ABI version with an unknown e_flags layout */
    assert_int_equal(udfkit_cubin_read(elf, 64, "e", &info), UDFKIT_RC_INPUT);
    put16(elf + 18, 62); /* x86-64: not a cubin */
    assert_int_equal(udfkit_cubin_read(elf, 64, "e", &info), UDFKIT_RC_INPUT);
}

static void test_random_bytes(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    for (int round = 0; round < 500; round++) {
        size_t n = (size_t)(next_random(&seed) % 4096);
        unsigned char *p = malloc(n ? n : 1);
        for (size_t i = 0; i < n; i++)
            p[i] = (unsigned char)next_random(&seed);
        json_t *d;
        assert_int_equal(inspect_bytes(p, n, &d), UDFKIT_RC_INPUT);
        if (n >= 16) { /* random entries behind a valid-looking container header */
            put32(p, 0xBA55ED50u);
            put16(p + 4, 1);
            put16(p + 6, 16);
            put64(p + 8, n - 16);
            udfkit_rc rc = inspect_bytes(p, n, &d);
            assert_true(rc == UDFKIT_RC_OK || rc == UDFKIT_RC_INPUT);
            json_decref(d);
        }
        free(p);
    }
    json_t *d;
    assert_int_equal(inspect_bytes("", 0, &d), UDFKIT_RC_INPUT);
    assert_int_equal(inspect_bytes("hello, world\n", 13, &d), UDFKIT_RC_INPUT);
    assert_non_null(strstr(udfkit_diag_message(), "test-input"));
}

static void test_ltoir_and_manifest_bytes(void **state)
{
    (void)state;
    static const unsigned char ltoir[] = {0xed, 0x43, 0x4e, 0x7f, 0x01, 0x41, 0x02, 0x62, 0, 0};
    json_t *d;
    assert_int_equal(inspect_bytes(ltoir, sizeof ltoir, &d), UDFKIT_RC_OK);
    assert_string_equal(str(d, "kind"), "ltoir");
    assert_int_equal(json_array_size(json_object_get(d, "functions")), 0);
    assert_true(strlen(str(d, "note")) > 0);
    json_decref(d);

    static const char manifest[] = "{\"udfkit_manifest\": 1, \"kind\": \"udfs\", "
                                   "\"functions\": [{\"c_name\": \"add_f32\", \"signature\": \"float32(float32, float32)\"}], "
                                   "\"artifacts\": [{\"kind\": \"ltoir\", \"arch\": \"compute_80\", \"path\": \"a.ltoir\", \"size\": 10}]}";
    assert_int_equal(inspect_bytes(manifest, strlen(manifest), &d), UDFKIT_RC_OK);
    assert_string_equal(str(d, "kind"), "manifest");
    assert_true(list_has(json_object_get(d, "functions"), "add_f32"));
    assert_string_equal(str(json_array_get(json_object_get(d, "entries"), 0), "path"), "a.ltoir");
    json_decref(d);
    assert_int_equal(inspect_bytes(manifest, 40, &d), UDFKIT_RC_INPUT); /* cut short: malformed JSON */
}

static void test_missing_file(void **state)
{
    (void)state;
    json_t *d = NULL;
    assert_int_equal(udfkit_inspect_file("/nonexistent/udfkit-test.fatbin", &d), UDFKIT_RC_INPUT);
    assert_null(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fatbin_input),
        cmocka_unit_test(test_cubin_input),
        cmocka_unit_test(test_ptx_input),
        cmocka_unit_test(test_ltoir_input),
        cmocka_unit_test(test_object_input),
        cmocka_unit_test(test_manifest_input),
        cmocka_unit_test(test_fatbin_truncated),
        cmocka_unit_test(test_cubin_truncated),
        cmocka_unit_test(test_fatbin_mutated),
        cmocka_unit_test(test_ptx_text),
        cmocka_unit_test(test_fatbin_built),
        cmocka_unit_test(test_fatbin_lz4),
        cmocka_unit_test(test_fatbin_malformed),
        cmocka_unit_test(test_elf_malformed),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_ltoir_and_manifest_bytes),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
