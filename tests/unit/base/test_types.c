/* The type table (base/types.c): every row as each reader of the table uses it, so that a
 * row added with a field missing or wrong fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/types.h"
#include "frontend/exporter.h"

/* What C says of each value kind's C ABI type: the table's size must agree. */
static size_t c_size(udfkit_kind k)
{
    switch (k) { /* the test's own oracle, one case per C type */
    case UDFKIT_BOOL:
        return sizeof(bool);
    case UDFKIT_INT8:
        return sizeof(int8_t);
    case UDFKIT_INT16:
        return sizeof(int16_t);
    case UDFKIT_INT32:
        return sizeof(int32_t);
    case UDFKIT_INT64:
        return sizeof(int64_t);
    case UDFKIT_UINT8:
        return sizeof(uint8_t);
    case UDFKIT_UINT16:
    case UDFKIT_FLOAT16:
        return sizeof(uint16_t);
    case UDFKIT_UINT32:
        return sizeof(uint32_t);
    case UDFKIT_UINT64:
        return sizeof(uint64_t);
    case UDFKIT_FLOAT32:
        return sizeof(float);
    case UDFKIT_FLOAT64:
        return sizeof(double);
    default: /* void, and string, which has no size of its own */
        return 0;
    }
}

static void every_row_is_complete(void **state)
{
    (void)state;
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++) {
        const udfkit_kind_row *row = udfkit_kind_info((udfkit_kind)k);
        assert_non_null(row->name);
        assert_non_null(row->c);
        assert_non_null(row->cuda);
        assert_non_null(row->numba);
        assert_non_null(row->cxx_kind);
        assert_int_equal(strncmp(row->cxx_kind, "__UDFKIT_K_", 11), 0);
        assert_non_null(row->cxx);
        assert_non_null(row->cxx[0].type);
        assert_non_null(row->c_names);
        bool value = row->flags & UDFKIT_KIND_VALUE;
        assert_int_equal(row->size, c_size((udfkit_kind)k));
        /* A value is one C parameter, or as many as its parts (a string: bytes and size). */
        size_t parts = 0;
        while (row->parts && parts < row->c_params && row->parts[parts].c)
            parts++;
        assert_int_equal(row->c_params, !value ? 0 : row->parts ? parts : 1);
        /* A value of no fixed size (text) has its own column types in launchers and kernels. */
        if (value && row->size == 0) {
            assert_non_null(row->column_c);
            assert_non_null(row->column_cuda);
            assert_non_null(row->element_cuda);
        }
        /* Arrow has a format for every value kind, one letter for the primitive ones. */
        if (value) {
            assert_non_null(row->arrow);
            assert_int_equal(strlen(row->arrow), 1);
        }
        /* A kind crossing as bits names the type, and both conversions. */
        assert_true((row->bits_type == NULL) == (row->from_bits == NULL));
        assert_true((row->bits_type == NULL) == (row->to_bits == NULL));
        /* Signed and integer are integer flags; a float is signed. */
        if (row->flags & UDFKIT_KIND_FLOAT)
            assert_false(row->flags & UDFKIT_KIND_INTEGER);
    }
}

static void names_round_trip(void **state)
{
    (void)state;
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++) {
        const udfkit_kind_row *row = udfkit_kind_info((udfkit_kind)k);
        udfkit_type t;
        assert_true(udfkit_type_parse(row->name, &t));
        assert_int_equal(t.kind, k);
        assert_false(t.pointer);
        udfkit_buf name = UDFKIT_BUF_INIT, c = UDFKIT_BUF_INIT, cuda = UDFKIT_BUF_INIT;
        udfkit_type_name(t, &name);
        assert_string_equal(name.data, row->name);
        udfkit_type_c(t, &c);
        assert_string_equal(c.data, row->c);
        udfkit_exporter_abi_type(t, &cuda);
        assert_string_equal(cuda.data, row->cuda);
        udfkit_buf_free(&name);
        udfkit_buf_free(&c);
        udfkit_buf_free(&cuda);
        /* Nullable: every value kind; void never. */
        char text[64];
        snprintf(text, sizeof text, "%s?", row->name);
        assert_int_equal(udfkit_type_parse(text, &t), (row->flags & UDFKIT_KIND_VALUE) != 0);
    }
}

/* A C or numpy name written for a kind is refused with the kind to write instead. */
static void c_names_suggest_their_kind(void **state)
{
    (void)state;
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++) {
        const udfkit_kind_row *row = udfkit_kind_info((udfkit_kind)k);
        for (const char *const *c = row->c_names; *c; c++) {
            char sig[96], why[512], want[160];
            udfkit_signature s;
            snprintf(sig, sizeof sig, "%s(int32)", *c);
            assert_false(udfkit_signature_parse(sig, &s, why, sizeof why));
            snprintf(want, sizeof want, "unknown type '%s': write %s (the spec names C's %s %s)", *c, row->name, *c,
                     row->name);
            assert_string_equal(why, want);
        }
    }
}

/* The list of types in messages comes from the table. */
static void messages_list_the_kinds(void **state)
{
    (void)state;
    udfkit_signature s;
    char why[512];
    assert_false(udfkit_signature_parse("float33(int32)", &s, why, sizeof why));
    assert_string_equal(why, "unknown type 'float33' (did you mean float32? types: bool, int8..int64, uint8..uint64, "
                             "float16, float32, float64, string, T*, void*)");
    assert_false(udfkit_signature_parse("int32(quaternion)", &s, why, sizeof why));
    assert_string_equal(why, "unknown type 'quaternion' (types: bool, int8..int64, uint8..uint64, float16, float32, "
                             "float64, string, T*, void*)");
}

/* The exporter's prelude lists every kind's enumerator, in the table's order (kind_of in
 * exporter.c counts on it), and a trait per C++ form. */
static void prelude_lists_every_kind(void **state)
{
    (void)state;
    udfkit_buf out = UDFKIT_BUF_INIT;
    udfkit_exporter_emit(NULL, 0, &out);
    const char *at = strstr(out.data, "__UDFKIT_K_UNKNOWN = 0,");
    assert_non_null(at);
    for (int k = 0; k < UDFKIT_KIND_COUNT; k++) {
        const udfkit_kind_row *row = udfkit_kind_info((udfkit_kind)k);
        char word[64];
        snprintf(word, sizeof word, " %s,", row->cxx_kind);
        const char *next = strstr(at, word);
        assert_non_null(next);
        at = next;
        for (const udfkit_cxx_form *f = row->cxx; f->type; f++) {
            char trait[256];
            snprintf(trait, sizeof trait, "template <> struct __udfkit_traits<%s> { static constexpr int __udfkit_kind = %s; };",
                     f->type, f->kind ? f->kind : row->cxx_kind);
            assert_non_null(strstr(out.data, trait));
        }
    }
    assert_null(strchr(out.data, '@'));
    udfkit_buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row_is_complete),
        cmocka_unit_test(names_round_trip),
        cmocka_unit_test(c_names_suggest_their_kind),
        cmocka_unit_test(messages_list_the_kinds),
        cmocka_unit_test(prelude_lists_every_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
