/* Architecture lists in CMake's syntax. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/arch.h"

static const int supported[] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
#define NSUP (sizeof supported / sizeof *supported)

static void names(const udfkit_target_list *l, char *out, size_t size)
{
    out[0] = '\0';
    for (size_t i = 0; i < l->count; i++) {
        char n[32];
        udfkit_target_name(l->items[i], n, sizeof n);
        strncat(out, n, size - strlen(out) - 2);
        strcat(out, " ");
    }
}

static void plain_real_virtual(void **state)
{
    (void)state;
    udfkit_target_list l;
    char text[512];
    assert_int_equal(udfkit_arch_parse("75-real;80-real,90", supported, NSUP, &l), UDFKIT_RC_OK);
    names(&l, text, sizeof text);
    assert_string_equal(text, "sm_75 sm_80 sm_90 compute_90 ");
    assert_int_equal(udfkit_arch_parse("90-virtual", supported, NSUP, &l), UDFKIT_RC_OK);
    names(&l, text, sizeof text);
    assert_string_equal(text, "compute_90 ");
}

static void suffixes(void **state)
{
    (void)state;
    udfkit_target_list l;
    char text[512];
    assert_int_equal(udfkit_arch_parse("90a-real;100f", supported, NSUP, &l), UDFKIT_RC_OK);
    names(&l, text, sizeof text);
    assert_string_equal(text, "sm_90a sm_100f compute_100f ");
    assert_int_equal(udfkit_arch_parse("80a", supported, NSUP, &l), UDFKIT_RC_INPUT);
    assert_int_equal(udfkit_arch_parse("90f", supported, NSUP, &l), UDFKIT_RC_INPUT);
}

static void all_and_all_major(void **state)
{
    (void)state;
    udfkit_target_list l;
    char text[512];
    assert_int_equal(udfkit_arch_parse("all-major", supported, NSUP, &l), UDFKIT_RC_OK);
    names(&l, text, sizeof text);
    assert_string_equal(text, "sm_80 sm_90 sm_100 sm_110 sm_120 compute_120 ");
    assert_int_equal(udfkit_arch_parse("all", supported, NSUP, &l), UDFKIT_RC_OK);
    assert_int_equal(l.count, NSUP + 1);
}

static void rejects(void **state)
{
    (void)state;
    udfkit_target_list l;
    assert_int_equal(udfkit_arch_parse("35", supported, NSUP, &l), UDFKIT_RC_INPUT);
    assert_non_null(strstr(udfkit_diag_message(), "not supported by this toolchain (supported: 75 80"));
    assert_int_equal(udfkit_arch_parse("sm_80", supported, NSUP, &l), UDFKIT_RC_INPUT);
    assert_int_equal(udfkit_arch_parse("80-fake", supported, NSUP, &l), UDFKIT_RC_INPUT);
    assert_int_equal(udfkit_arch_parse(";", supported, NSUP, &l), UDFKIT_RC_INPUT);
    assert_non_null(strstr(udfkit_diag_message(), "names no architecture"));
}

static void virtual_compiles_and_acceptance(void **state)
{
    (void)state;
    udfkit_target_list l;
    assert_int_equal(udfkit_arch_parse("90;75-real;80-real;80-virtual", supported, NSUP, &l), UDFKIT_RC_OK);
    udfkit_target v[8];
    size_t n = udfkit_targets_virtual(&l, v, 8);
    assert_int_equal(n, 3);
    assert_int_equal(v[0].number, 75);
    assert_int_equal(v[2].number, 90);
    udfkit_target sm90 = {90, '\0', true}, c80 = {80, '\0', false}, c90a = {90, 'a', false}, c100f = {100, 'f', false};
    assert_true(udfkit_target_accepts(sm90, c80));
    assert_false(udfkit_target_accepts((udfkit_target){75, '\0', true}, c80));
    assert_false(udfkit_target_accepts(sm90, c90a));
    assert_true(udfkit_target_accepts((udfkit_target){90, 'a', true}, c90a));
    assert_true(udfkit_target_accepts((udfkit_target){103, 'f', true}, c100f));
    assert_false(udfkit_target_accepts((udfkit_target){110, 'f', true}, c100f));
}

static void parses_names(void **state)
{
    (void)state;
    udfkit_target t;
    assert_true(udfkit_target_parse_name("compute_90a", &t));
    assert_int_equal(t.number, 90);
    assert_int_equal(t.suffix, 'a');
    assert_false(t.sass);
    assert_true(udfkit_target_parse_name("sm_120", &t));
    assert_true(t.sass);
    assert_false(udfkit_target_parse_name("sm_", &t));
    assert_false(udfkit_target_parse_name("gfx90a", &t));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_real_virtual), cmocka_unit_test(suffixes),
        cmocka_unit_test(all_and_all_major),  cmocka_unit_test(rejects),
        cmocka_unit_test(virtual_compiles_and_acceptance), cmocka_unit_test(parses_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
