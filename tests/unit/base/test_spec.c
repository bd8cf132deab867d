/* Function specs and signatures (SPEC.md's grammar). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/buf.h"
#include "base/spec.h"

static void parses_full_spec(void **state)
{
    (void)state;
    udfkit_spec s;
    assert_int_equal(udfkit_spec_parse("clamp_i32=ops::clamp<int>@blend.cu:int32(int32, int32, int32)", &s), UDFKIT_RC_OK);
    assert_string_equal(s.c_name, "clamp_i32");
    assert_string_equal(s.source_name, "ops::clamp<int>");
    assert_string_equal(s.file, "blend.cu");
    assert_true(s.sig.has_return);
    assert_int_equal(s.sig.ret.kind, UDFKIT_INT32);
    assert_int_equal(s.sig.nparams, 3);
    udfkit_spec_free(&s);
}

static void splits_at_last_single_colon(void **state)
{
    (void)state;
    udfkit_spec s;
    assert_int_equal(udfkit_spec_parse("f=a::b::c:float64(float64*)", &s), UDFKIT_RC_OK);
    assert_string_equal(s.source_name, "a::b::c");
    assert_true(s.sig.params[0].pointer);
    assert_int_equal(s.sig.params[0].kind, UDFKIT_FLOAT64);
    udfkit_spec_free(&s);
}

static void default_c_name_is_source_name(void **state)
{
    (void)state;
    udfkit_spec s;
    assert_int_equal(udfkit_spec_parse("hypot2:(float64, float64)", &s), UDFKIT_RC_OK);
    assert_string_equal(s.c_name, "hypot2");
    assert_false(s.sig.has_return);
    udfkit_spec_free(&s);
}

static void void_return_and_void_params(void **state)
{
    (void)state;
    udfkit_spec s;
    assert_int_equal(udfkit_spec_parse("tick:void()", &s), UDFKIT_RC_OK);
    assert_int_equal(s.sig.ret.kind, UDFKIT_VOID);
    assert_int_equal(s.sig.nparams, 0);
    udfkit_spec_free(&s);
    assert_int_equal(udfkit_spec_parse("tock:void(void)", &s), UDFKIT_RC_OK);
    assert_int_equal(s.sig.nparams, 0);
    udfkit_spec_free(&s);
}

static void expect_error(const char *text, const char *fragment)
{
    udfkit_spec s;
    assert_int_equal(udfkit_spec_parse(text, &s), UDFKIT_RC_INPUT);
    const char *msg = udfkit_diag_message();
    if (!strstr(msg, fragment))
        fail_msg("message '%s' lacks '%s'", msg, fragment);
    udfkit_spec_free(&s);
}

static void rejects_bad_specs(void **state)
{
    (void)state;
    expect_error("scale", "has no signature");
    expect_error("scale:float33(float32)", "unknown type 'float33'");
    expect_error("scale:float32(float32", "is not of the form");
    expect_error("ops::clamp<int>:int32(int32)", "needs a c_name (e.g. clamp_int=");
    expect_error("sqrtf:float32(float32)", "already give this name C linkage");
    expect_error("__x=f:float32(float32)", "reserved to the implementation");
    expect_error("int=f:float32(float32)", "keyword");
    expect_error("9x=f:float32(float32)", "is not a C identifier");
    expect_error("f:float32(void, float32)", "parameter 1 is void");
    expect_error("f@:float32(float32)", "names no file");
    expect_error("f:float32(float32,)", "empty parameter type");
    expect_error("a=b;c:float32(float32)", "is not a function name");
    expect_error("udfkit_x=f:float32(float32)", "udfkit's own");
    /* C's names for the types: the spec name to write instead. */
    expect_error("f:double(float32)", "unknown type 'double': write float64 (the spec names C's double float64)");
    expect_error("f:float32(float*)", "unknown type 'float*': write float32* (the spec names C's float float32)");
    expect_error("f:float32(int, float32)", "unknown type 'int': write int32");
    expect_error("f:float32(unsigned long long)", "write uint64");
    expect_error("f:float32(long)", "write int64");
    expect_error("f:float32(size_t)", "write uint64");
    /* A near miss: did you mean. */
    expect_error("f:float32(flaot32)", "unknown type 'flaot32' (did you mean float32?");
    expect_error("f:float32(uint6*)", "did you mean uint8*?");
    expect_error("f:float32(strng)", "unknown type 'strng' (did you mean string? types: bool");
    /* Nullable types: void? and a nullable pointer are not types; a return is no output. */
    expect_error("f:void?(float32)", "'void?' is not a type: void cannot be null");
    expect_error("f:float32(float32*?)", "'float32*?' is not a type: a pointer cannot be null");
    expect_error("f:float32?*(float32)", "a return type cannot be a nullable output (float32?*)");
}

static void nullable_types(void **state)
{
    (void)state;
    udfkit_spec s;
    assert_int_equal(udfkit_spec_parse("coalesce:float32?(float32?, float32, int64?*)", &s), UDFKIT_RC_OK);
    assert_true(s.sig.ret.nullable && !s.sig.ret.pointer);
    assert_true(s.sig.params[0].nullable && !s.sig.params[1].nullable);
    assert_true(s.sig.params[2].nullable && s.sig.params[2].pointer);
    assert_true(udfkit_signature_nullable(&s.sig));
    assert_int_equal(udfkit_signature_c_arity(&s.sig), 6);
    udfkit_buf text = UDFKIT_BUF_INIT;
    udfkit_signature_format(&s.sig, &text);
    assert_string_equal(text.data, "float32?(float32?, float32, int64?*)");
    text.size = 0;
    udfkit_signature_c_prototype(&s.sig, "coalesce", &text);
    assert_string_equal(text.data,
                        "bool coalesce(float *out, float a0, bool a0_valid, float a1, int64_t *a2, bool *a2_valid)");
    udfkit_buf_free(&text);
    udfkit_spec_free(&s);
    assert_int_equal(udfkit_spec_parse("f:float16?()", &s), UDFKIT_RC_OK);
    udfkit_signature_c_prototype(&s.sig, "f", &text);
    assert_string_equal(text.data, "bool f(uint16_t *out)");
    udfkit_buf_free(&text);
    udfkit_spec_free(&s);
}

static void unique_c_names(void **state)
{
    (void)state;
    udfkit_spec s[2];
    assert_int_equal(udfkit_spec_parse("f:float32(float32)", &s[0]), UDFKIT_RC_OK);
    assert_int_equal(udfkit_spec_parse("f=g:float32(float32)", &s[1]), UDFKIT_RC_OK);
    assert_int_equal(udfkit_specs_check_unique(s, 2), UDFKIT_RC_INPUT);
    assert_non_null(strstr(udfkit_diag_message(), "exported twice"));
    udfkit_spec_free(&s[0]);
    udfkit_spec_free(&s[1]);
}

static void formats_signature_and_prototype(void **state)
{
    (void)state;
    udfkit_signature sig;
    char why[128];
    assert_true(udfkit_signature_parse("float16( int64 , uint8*,void*,bool)", &sig, why, sizeof why));
    udfkit_buf b = UDFKIT_BUF_INIT;
    udfkit_signature_format(&sig, &b);
    assert_string_equal(b.data, "float16(int64, uint8*, void*, bool)");
    b.size = 0;
    udfkit_signature_c_prototype(&sig, "f", &b);
    assert_string_equal(b.data, "uint16_t f(int64_t a0, uint8_t *a1, void *a2, bool a3)");
    udfkit_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_full_spec),
        cmocka_unit_test(splits_at_last_single_colon),
        cmocka_unit_test(default_c_name_is_source_name),
        cmocka_unit_test(void_return_and_void_params),
        cmocka_unit_test(rejects_bad_specs),
        cmocka_unit_test(nullable_types),
        cmocka_unit_test(unique_c_names),
        cmocka_unit_test(formats_signature_and_prototype),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
