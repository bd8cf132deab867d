/* The identifiers of `udfkit pack`'s fatbin entries: written, read back, and malformed
 * ones refused, as the runtime reads them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact/package_id.h"

static udfkit_package_id_status parse(const char *text, udfkit_package_id *id)
{
    return udfkit_package_id_parse(text, strlen(text), id);
}

static void reads_every_line(void **state)
{
    (void)state;
    udfkit_package_id id;
    const char *text = "0:pkg.udfs.compute_80.ltoir\nudfkit-package 1\nproducer nvrtc 13.0\n"
                       "function discount float32(float32, float32)\nfunction clamp_i32 int32(int32, int32, int32)";
    assert_int_equal(parse(text, &id), UDFKIT_PACKAGE_ID_OK);
    assert_string_equal(id.group, "0");
    assert_string_equal(id.file, "pkg.udfs.compute_80.ltoir");
    assert_int_equal(id.version, 1);
    assert_string_equal(id.producer, "nvrtc");
    assert_int_equal(id.producer_major, 13);
    assert_int_equal(id.producer_minor, 0);
    assert_false(id.link);
    assert_int_equal(id.nfunctions, 2);
    assert_string_equal(id.functions[0].c_name, "discount");
    assert_string_equal(id.functions[0].signature, "float32(float32, float32)");
    assert_string_equal(id.functions[1].signature, "int32(int32, int32, int32)");
    udfkit_package_id_free(&id);

    assert_int_equal(parse("12:x:y.ltoir\nudfkit-package 1\nrole link", &id), UDFKIT_PACKAGE_ID_OK);
    assert_string_equal(id.group, "12");
    assert_string_equal(id.file, "x:y.ltoir"); /* the group ends at the first ':' */
    assert_null(id.producer);
    assert_true(id.link);
    assert_int_equal(id.nfunctions, 0);
    udfkit_package_id_free(&id);
}

/* Not NUL-terminated, as a fatbin entry's name is read in place. */
static void reads_a_name_in_place(void **state)
{
    (void)state;
    const char bytes[] = "3:a.ltoir\nudfkit-package 1\nproducer nvvm 13.1XXXX";
    udfkit_package_id id;
    assert_int_equal(udfkit_package_id_parse(bytes, strlen(bytes) - 4, &id), UDFKIT_PACKAGE_ID_OK);
    assert_string_equal(id.producer, "nvvm");
    assert_int_equal(id.producer_minor, 1);
    udfkit_package_id_free(&id);
}

static void plain_and_foreign_names(void **state)
{
    (void)state;
    udfkit_package_id id;
    assert_int_equal(parse("4:k.ltoir", &id), UDFKIT_PACKAGE_ID_OK); /* udfkit link --keep-ltoir */
    assert_int_equal(id.version, 0);
    assert_string_equal(id.group, "4");
    udfkit_package_id_free(&id);
    assert_int_equal(parse("lib.fatbin", &id), UDFKIT_PACKAGE_ID_FOREIGN);
    assert_int_equal(parse(":x", &id), UDFKIT_PACKAGE_ID_FOREIGN);
    assert_int_equal(parse("0:x\nsomething else", &id), UDFKIT_PACKAGE_ID_FOREIGN);
    assert_int_equal(udfkit_package_id_parse("0:x\0y", 5, &id), UDFKIT_PACKAGE_ID_FOREIGN);
    assert_null(id.group);
    udfkit_package_id_free(&id); /* nothing to free, and safe */
}

static void later_versions_and_unknown_lines(void **state)
{
    (void)state;
    udfkit_package_id id;
    assert_int_equal(parse("0:x\nudfkit-package 2\nchecksum abc\nfunction f int32(int32)", &id), UDFKIT_PACKAGE_ID_OK);
    assert_int_equal(id.version, 2);
    assert_int_equal(id.nfunctions, 1);
    udfkit_package_id_free(&id);
}

static void refuses_malformed_lines(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "0:x\nudfkit-package 0",
        "0:x\nudfkit-package one",
        "0:x\nudfkit-package 1\n",                          /* a trailing newline: an empty line */
        "0:x\nudfkit-package 1\nproducer nvrtc",
        "0:x\nudfkit-package 1\nproducer nvrtc 13",
        "0:x\nudfkit-package 1\nproducer nvrtc 13.0.1",
        "0:x\nudfkit-package 1\nproducer nvrtc 13.0\nproducer nvvm 13.0",
        "0:x\nudfkit-package 1\nrole kernel",
        "0:x\nudfkit-package 1\nfunction f",
        "0:x\nudfkit-package 1\nfunction  int32(int32)",
        "0:x\nudfkit-package 1\nproducer nvrtc 99999999999.0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        udfkit_package_id id;
        if (parse(bad[i], &id) != UDFKIT_PACKAGE_ID_MALFORMED)
            fail_msg("accepted: %s", bad[i]);
        assert_null(id.storage_);
    }
}

static void formats_what_it_reads(void **state)
{
    (void)state;
    udfkit_package_id_function fns[] = {{"discount", "float32(float32, float32)"}, {"half", "float16(float16)"}};
    udfkit_package_id id = {"2", "p.link-1.ltoir", 1, "nvvm", 13, 0, true, fns, 2, NULL};
    udfkit_buf text = UDFKIT_BUF_INIT;
    assert_true(udfkit_package_id_format(&id, &text));
    assert_string_equal(text.data, "2:p.link-1.ltoir\nudfkit-package 1\nproducer nvvm 13.0\nrole link\n"
                                   "function discount float32(float32, float32)\nfunction half float16(float16)");
    udfkit_package_id back;
    assert_int_equal(udfkit_package_id_parse(text.data, text.size, &back), UDFKIT_PACKAGE_ID_OK);
    assert_string_equal(back.file, "p.link-1.ltoir");
    assert_true(back.link);
    assert_int_equal(back.nfunctions, 2);
    assert_string_equal(back.functions[1].c_name, "half");
    udfkit_package_id_free(&back);
    udfkit_buf_free(&text);

    /* A raw .ltoir: no producer line. */
    udfkit_package_id raw = {"0", "k.ltoir", 1, NULL, 0, 0, false, NULL, 0, NULL};
    assert_true(udfkit_package_id_format(&raw, &text));
    assert_string_equal(text.data, "0:k.ltoir\nudfkit-package 1");
    udfkit_buf_free(&text);
}

static void refuses_fields_that_would_not_read_back(void **state)
{
    (void)state;
    udfkit_package_id_function spaced[] = {{"a b", "int32(int32)"}}, broken[] = {{"f", "int32(\nint32)"}};
    udfkit_package_id ids[] = {
        {"0", "a\nb.ltoir", 1, NULL, 0, 0, false, NULL, 0, NULL}, {"0:1", "x", 1, NULL, 0, 0, false, NULL, 0, NULL},
        {"", "x", 1, NULL, 0, 0, false, NULL, 0, NULL},           {"0", "x", 0, NULL, 0, 0, false, NULL, 0, NULL},
        {"0", "x", 1, "nv rtc", 13, 0, false, NULL, 0, NULL},      {"0", "x", 1, NULL, 0, 0, false, spaced, 1, NULL},
        {"0", "x", 1, NULL, 0, 0, false, broken, 1, NULL},
    };
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        udfkit_buf text = UDFKIT_BUF_INIT;
        if (udfkit_package_id_format(&ids[i], &text))
            fail_msg("formatted case %zu: %s", i, text.data);
        udfkit_buf_free(&text);
    }
}

/* A function table of 16 KB, as a large package has, reads back whole. */
/* A SLOTS library's SASS entry names the kernels it lacks, which a bind links. */
static void bound_kernel_lines(void **state)
{
    (void)state;
    const char *kernels[] = {"udfkit_engine_map_price", "late_price_kept"};
    udfkit_package_id id = {.group = "sass", .file = "engine.fatbin", .version = 1, .bound_kernels = kernels,
                            .nbound_kernels = 2};
    udfkit_buf text = UDFKIT_BUF_INIT;
    assert_true(udfkit_package_id_format(&id, &text));
    assert_string_equal(text.data, "sass:engine.fatbin\nudfkit-package 1\nbound-kernel udfkit_engine_map_price\n"
                                   "bound-kernel late_price_kept");
    udfkit_package_id back;
    assert_int_equal(udfkit_package_id_parse(text.data, text.size, &back), UDFKIT_PACKAGE_ID_OK);
    assert_int_equal(back.nbound_kernels, 2);
    assert_string_equal(back.bound_kernels[0], "udfkit_engine_map_price");
    assert_string_equal(back.bound_kernels[1], "late_price_kept");
    assert_int_equal(back.nfunctions, 0);
    udfkit_package_id_free(&back);
    udfkit_buf_free(&text);
    /* A kernel's name has no blank, and is not empty. */
    const char *blank[] = {"two words"};
    id.bound_kernels = blank;
    id.nbound_kernels = 1;
    assert_false(udfkit_package_id_format(&id, &text));
    udfkit_buf_free(&text);
    assert_int_equal(parse("sass:e.fatbin\nudfkit-package 1\nbound-kernel two words", &back),
                     UDFKIT_PACKAGE_ID_MALFORMED);
    assert_int_equal(parse("sass:e.fatbin\nudfkit-package 1\nbound-kernel ", &back), UDFKIT_PACKAGE_ID_MALFORMED);
}

/* Beside them, the slots each reaches (what a bind leaving an optional slot unbound reads). */
static void kernel_calls_lines(void **state)
{
    (void)state;
    const char *kernels[] = {"udfkit_engine_map_price"};
    const char *calls[] = {"udfkit_engine_map_price price keep"};
    udfkit_package_id id = {.group = "sass", .file = "engine.fatbin", .version = 1, .bound_kernels = kernels,
                            .nbound_kernels = 1, .kernel_calls = calls, .nkernel_calls = 1};
    udfkit_buf text = UDFKIT_BUF_INIT;
    assert_true(udfkit_package_id_format(&id, &text));
    assert_string_equal(text.data, "sass:engine.fatbin\nudfkit-package 1\nbound-kernel udfkit_engine_map_price\n"
                                   "kernel-calls udfkit_engine_map_price price keep");
    udfkit_package_id back;
    assert_int_equal(udfkit_package_id_parse(text.data, text.size, &back), UDFKIT_PACKAGE_ID_OK);
    assert_int_equal(back.nkernel_calls, 1);
    assert_string_equal(back.kernel_calls[0], "udfkit_engine_map_price price keep");
    udfkit_package_id_free(&back);
    udfkit_buf_free(&text);
    const char *leading[] = {" price"};
    id.kernel_calls = leading;
    assert_false(udfkit_package_id_format(&id, &text));
    udfkit_buf_free(&text);
    assert_int_equal(parse("sass:e.fatbin\nudfkit-package 1\nkernel-calls ", &back), UDFKIT_PACKAGE_ID_MALFORMED);
}

static void reads_a_long_table(void **state)
{
    (void)state;
    enum { N = 400 };
    udfkit_package_id_function fns[N];
    char names[N][16];
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "udf_%zu", i);
        fns[i] = (udfkit_package_id_function){names[i], "float64(float64, float64, int64)"};
    }
    udfkit_package_id id = {"0", "a.ltoir", 1, "nvrtc", 13, 0, false, fns, N, NULL}, back;
    udfkit_buf text = UDFKIT_BUF_INIT;
    assert_true(udfkit_package_id_format(&id, &text));
    assert_true(text.size > 16000);
    assert_int_equal(udfkit_package_id_parse(text.data, text.size, &back), UDFKIT_PACKAGE_ID_OK);
    assert_int_equal(back.nfunctions, N);
    assert_string_equal(back.functions[N - 1].c_name, "udf_399");
    udfkit_package_id_free(&back);
    udfkit_buf_free(&text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_every_line),
        cmocka_unit_test(reads_a_name_in_place),
        cmocka_unit_test(plain_and_foreign_names),
        cmocka_unit_test(later_versions_and_unknown_lines),
        cmocka_unit_test(refuses_malformed_lines),
        cmocka_unit_test(formats_what_it_reads),
        cmocka_unit_test(refuses_fields_that_would_not_read_back),
        cmocka_unit_test(reads_a_long_table),
        cmocka_unit_test(bound_kernel_lines),
        cmocka_unit_test(kernel_calls_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
