/* Rewriting NVRTC logs: the IDE shape, and forwarder errors turned into messages about
 * the user's function. The logs are ones NVRTC 13.0 printed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "frontend/nvrtc_log.h"

static char *rewrite(const char *log, const char *spec_text, const char *file, int line, bool *error)
{
    static udfkit_buf out;
    udfkit_spec spec;
    assert_int_equal(udfkit_spec_parse(spec_text, &spec), UDFKIT_RC_OK);
    udfkit_log_export e = {&spec, file, line};
    udfkit_buf_free(&out);
    *error = udfkit_nvrtc_log_rewrite(log, &e, 1, &out);
    udfkit_spec_free(&spec);
    return out.data ? out.data : "";
}

static void plain_errors_get_ide_shape(void **state)
{
    (void)state;
    bool error;
    const char *log = "udfs.cu(7): error: expected an expression\n"
                      "  __device__ float syn(float a) { return a +; }\n"
                      "                                            ^\n\n"
                      "1 error detected in the compilation of \"udfs.cu\".\n";
    char *out = rewrite(log, "f:float32(float32)", "udfs.cu", 3, &error);
    assert_true(error);
    assert_non_null(strstr(out, "udfs.cu:7: error: expected an expression\n"));
    assert_null(strstr(out, "detected in the compilation"));
}

static void return_type_mismatch(void **state)
{
    (void)state;
    bool error;
    const char *log =
        "udfkit-export-prelude(59): error: static assertion failed with \"udfkit: the return type does not match the declared one\"\n"
        "      static_assert(traits<R>::kind == K, \"udfkit: the return type does not match the declared one\");\n"
        "      ^\n"
        "          detected during instantiation of \"void __udfkit::__udfkit_check_return<__udfkit_K,__udfkit_R>() [with __udfkit_K=12, __udfkit_R=double]\" at line 3 of udfkit-export:retd\n\n"
        "udfkit-export-prelude(47): error: static assertion failed with \"udfkit: ABI and source types differ in size\"\n"
        "          detected during instantiation of \"__udfkit_To __udfkit::__udfkit_bits<__udfkit_To,__udfkit_From>(const __udfkit_From &) [with __udfkit_To=float, __udfkit_From=double]\" at line 4 of udfkit-export:retd\n\n";
    char *out = rewrite(log, "retd:float32(float32)", "bad.cu", 1, &error);
    assert_true(error);
    assert_string_equal(out, "bad.cu:1: error: 'retd' does not match its declared signature float32(float32): it "
                             "returns 'double', declared float32\n");
}

static void parameter_mismatch(void **state)
{
    (void)state;
    bool error;
    const char *log = "udfkit-export:pint(3): error: no suitable conversion function from \"__udfkit::__udfkit_arg<12, 1, float>\" to \"int\" exists\n";
    char *out = rewrite(log, "pint:float32(float32, float32)", "bad.cu", 2, &error);
    assert_string_equal(out, "bad.cu:2: error: 'pint' does not match its declared signature float32(float32, float32): "
                             "parameter 2 is 'int', declared float32\n");
}

/* An index no forwarder writes (found by fuzz_nvrtc_log: LONG_MAX + 1 overflowed). */
static void parameter_index_out_of_range(void **state)
{
    (void)state;
    bool error;
    const char *log = "udfkit-export:pint(3): error: no suitable conversion function from "
                      "\"__udfkit::__udfkit_arg<12, 9223372036854775807, float>\" to \"int\" exists\n";
    char *out = rewrite(log, "pint:float32(float32, float32)", "bad.cu", 2, &error);
    assert_string_equal(out, "bad.cu:2: error: 'pint' does not match its declared signature float32(float32, float32): "
                             "parameter 1 is 'int', declared float32\n");
}

static void overloads_listed(void **state)
{
    (void)state;
    bool error;
    const char *log = "udfkit-export:ov_f(3): error: no instance of overloaded function \"ov\" matches the argument list\n"
                      "            argument types are: (__udfkit::__udfkit_arg<12, 0, float>)\n"
                      "bad.cu(4): note #3326-D: function \"ov(double)\" does not match because argument #1 does not match parameter\n"
                      "bad.cu(3): note #3326-D: function \"ov(int)\" does not match because argument #1 does not match parameter\n";
    char *out = rewrite(log, "ov_f=ov:float32(float32)", "bad.cu", 3, &error);
    assert_string_equal(out, "bad.cu:3: error: no overload of 'ov' matches its declared signature float32(float32); "
                             "candidates: ov(double), ov(int) (exported as 'ov_f')\n");
}

static void missing_function(void **state)
{
    (void)state;
    bool error;
    const char *log = "udfkit-export:nosuch(3): error: the global scope has no \"nosuch\"\n";
    char *out = rewrite(log, "nosuch:float32(float32)", "bad.cu", 0, &error);
    assert_string_equal(out, "bad.cu: error: function 'nosuch' is not defined in bad.cu\n");
    /* An undefined identifier inside the prelude is not the user's missing function. */
    log = "udfkit-export-prelude(48): error: identifier \"__builtin_x\" is undefined\n"
          "          detected during instantiation of \"f\" at line 4 of udfkit-export:nosuch\n";
    out = rewrite(log, "nosuch:float32(float32)", "bad.cu", 0, &error);
    assert_null(strstr(out, "is not defined"));
    assert_non_null(strstr(out, "cannot export 'nosuch'"));
}

static void warnings_are_not_errors(void **state)
{
    (void)state;
    bool error;
    const char *log = "udfs.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n";
    char *out = rewrite(log, "f:float32(float32)", "udfs.cu", 1, &error);
    assert_false(error);
    assert_non_null(strstr(out, "udfs.cu:3: warning: variable"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_errors_get_ide_shape), cmocka_unit_test(return_type_mismatch),
        cmocka_unit_test(parameter_mismatch),         cmocka_unit_test(parameter_index_out_of_range),
        cmocka_unit_test(overloads_listed),
        cmocka_unit_test(missing_function),           cmocka_unit_test(warnings_are_not_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
