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
#include "udfkit/runtime.h"
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
    case UDFKIT_DATE32:
    case UDFKIT_DECIMAL32:
        return sizeof(int32_t);
    case UDFKIT_DATE64:
    case UDFKIT_TIMESTAMP:
    case UDFKIT_DURATION:
    case UDFKIT_DECIMAL64:
        return sizeof(int64_t);
    case UDFKIT_DECIMAL128:
        return sizeof(udfkit_decimal128);
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
        /* The exporter checks a kind by its C++ forms, or as the kind it is at the ABI. */
        assert_true(row->cxx[0].type || row->abi_kind);
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
        if (value)
            assert_non_null(row->arrow);
        if (value && !(row->flags & (UDFKIT_KIND_TEMPORAL | UDFKIT_KIND_DECIMAL)))
            assert_int_equal(strlen(row->arrow), 1);
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
        /* A kind with parameters is spelled with some. */
        char spelled[64];
        snprintf(spelled, sizeof spelled, "%s%s", row->name,
                 row->params == UDFKIT_PARAMS_UNIT ? "[us]" : row->params == UDFKIT_PARAMS_DECIMAL ? "(7,2)" : "");
        udfkit_type t;
        assert_true(udfkit_type_parse(spelled, &t));
        assert_int_equal(t.kind, k);
        assert_false(t.pointer);
        udfkit_buf name = UDFKIT_BUF_INIT, c = UDFKIT_BUF_INIT, cuda = UDFKIT_BUF_INIT;
        udfkit_type_name(t, &name);
        assert_string_equal(name.data, spelled);
        udfkit_type_c(t, &c);
        assert_string_equal(c.data, row->c);
        udfkit_exporter_abi_type(t, &cuda);
        assert_string_equal(cuda.data, row->cuda);
        udfkit_buf_free(&name);
        udfkit_buf_free(&c);
        udfkit_buf_free(&cuda);
        /* Nullable: every value kind; void never. */
        char text[96];
        snprintf(text, sizeof text, "%s?", spelled);
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
                             "float16, float32, float64, string, date32, date64, timestamp[unit], duration[unit], decimal32(p,s), "
                             "decimal64(p,s), decimal128(p,s), T*, void*)");
    assert_false(udfkit_signature_parse("int32(quaternion)", &s, why, sizeof why));
    assert_string_equal(why, "unknown type 'quaternion' (types: bool, int8..int64, uint8..uint64, float16, float32, "
                             "float64, string, date32, date64, timestamp[unit], duration[unit], decimal32(p,s), "
                             "decimal64(p,s), decimal128(p,s), T*, void*)");
}

/* The exporter's prelude lists every kind's enumerator, in the table's order (kind_of in
 * exporter.c counts on it), and a trait per C++ form. */
/* Arrow's format strings, with the types' parameters. */
static void arrow_formats(void **state)
{
    (void)state;
    const char *const cases[][2] = {{"float32", "f"},        {"string", "u"},        {"date32", "tdD"},
                                    {"date64", "tdm"},       {"timestamp[us]", "tsu:"}, {"timestamp[s]", "tss:"},
                                    {"duration[ns]", "tDn"}, {"decimal128(15,2)", "d:15,2"}, {"decimal64(18,0)", "d:18,0,64"},
                                    {"decimal32(9,9)", "d:9,9,32"}, {"bool", "b"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        udfkit_type t;
        udfkit_buf out = UDFKIT_BUF_INIT;
        assert_true(udfkit_type_parse(cases[i][0], &t));
        assert_true(udfkit_type_arrow(t, &out));
        assert_string_equal(out.data, cases[i][1]);
        udfkit_buf_free(&out);
    }
    udfkit_type v;
    udfkit_buf out = UDFKIT_BUF_INIT;
    assert_true(udfkit_type_parse("void", &v));
    assert_false(udfkit_type_arrow(v, &out));
}

/* Parameters a kind takes, and refusals of those it does not. */
static void parameters(void **state)
{
    (void)state;
    udfkit_signature s;
    char why[512];
    assert_true(udfkit_signature_parse("decimal128(38,4)(decimal128(15,2), timestamp[ns]?, int32)", &s, why, sizeof why));
    assert_int_equal(s.ret.precision, 38);
    assert_int_equal(s.ret.scale, 4);
    assert_int_equal(s.nparams, 3);
    assert_int_equal(s.params[0].precision, 15);
    assert_int_equal(s.params[1].unit, UDFKIT_UNIT_NS);
    assert_true(s.params[1].nullable);
    udfkit_buf name = UDFKIT_BUF_INIT;
    udfkit_signature_format(&s, &name);
    assert_string_equal(name.data, "decimal128(38,4)(decimal128(15,2), timestamp[ns]?, int32)");
    udfkit_buf_free(&name);
    const char *const bad[][2] = {
        {"int32(timestamp)", "'timestamp' is not a type: timestamp takes its unit, timestamp[s], timestamp[ms], "
                             "timestamp[us] or timestamp[ns]"},
        {"int32(duration[d])", "'duration[d]' is not a type: duration takes its unit"},
        {"int32(decimal32(10,2))", "'decimal32(10,2)' is not a type: decimal32 takes its precision and scale, "
                                   "decimal32(p,s) with 1 <= p <= 9 and 0 <= s <= p"},
        {"int32(decimal128(5,6))", "decimal128 takes its precision and scale"},
        {"int32(date32[us])", "'date32[us]' is not a type: date32 takes no parameters"},
        {"int32(float32[:])", "arrays cannot cross the C ABI"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_false(udfkit_signature_parse(bad[i][0], &s, why, sizeof why));
        if (!strstr(why, bad[i][1]))
            fail_msg("'%s': '%s' lacks '%s'", bad[i][0], why, bad[i][1]);
    }
}

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
        cmocka_unit_test(arrow_formats),
        cmocka_unit_test(parameters),
        cmocka_unit_test(prelude_lists_every_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
