/* Finding function definitions in CUDA C++ text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/cxx_scan.h"

static const char source[] =
    "#include <cuda_fp16.h>\n"                                 /* 1 */
    "#define TWICE(x) ((x) * 2) \\\n"                          /* 2 */
    "    /* continued */\n"                                    /* 3 */
    "namespace ops {\n"                                        /* 4 */
    "template <class T> __device__ T clamp(T x, T lo, T hi)\n" /* 5 */
    "{ return x < lo ? lo : x; }\n"                            /* 6 */
    "namespace inner { __device__ int deep(void) { return 1; } }\n" /* 7 */
    "}\n"                                                      /* 8 */
    "struct S { __device__ float member(float x) { return x; } };\n" /* 9 */
    "// __device__ float commented(float x) { return x; }\n"   /* 10 */
    "const char *s = \"__device__ float str(float) {\";\n"     /* 11 */
    "extern \"C\" __device__ double cfun(double x) { return x; }\n" /* 12 */
    "extern \"C\" {\n"                                         /* 13 */
    "__device__ float in_block(float a, float b) { return a; }\n" /* 14 */
    "}\n"                                                      /* 15 */
    "__device__ __attribute__((always_inline)) float attr(float x) noexcept { return x; }\n" /* 16 */
    "__device__ float decl_only(float x);\n"                   /* 17 */
    "__device__ auto trailing(int x) -> int { return x; }\n"   /* 18 */
    "float S2::outside(int a) { return a; }\n"                 /* 19 */
    "namespace { __device__ float hidden(float x) { return x; } }\n" /* 20 */
    "__device__ float over(int x) { return x; }\n"              /* 21 */
    "__device__ float over(int x, int y) { return x + y; }\n"; /* 22 */

static const udfkit_cxx_def *find(const udfkit_cxx_defs *defs, const char *name, size_t nparams)
{
    const udfkit_cxx_def *d;
    return udfkit_cxx_find(defs, name, nparams, &d) ? d : NULL;
}

static void finds_definitions(void **state)
{
    (void)state;
    udfkit_cxx_defs defs = {0};
    udfkit_cxx_scan(source, &defs);
    const udfkit_cxx_def *d;
    assert_non_null(d = find(&defs, "ops::clamp", 3));
    assert_int_equal(d->line, 5);
    assert_true(d->is_template);
    assert_non_null(d = find(&defs, "ops::inner::deep", 0));
    assert_int_equal(d->nparams, 0);
    assert_non_null(d = find(&defs, "cfun", 1));
    assert_true(d->c_linkage);
    assert_int_equal(d->line, 12);
    assert_non_null(d = find(&defs, "in_block", 2));
    assert_true(d->c_linkage);
    assert_non_null(d = find(&defs, "attr", 1));
    assert_false(d->c_linkage);
    assert_int_equal(d->line, 16);
    assert_non_null(find(&defs, "trailing", 1));
    assert_non_null(d = find(&defs, "S2::outside", 1));
    assert_int_equal(d->line, 19);
    assert_non_null(find(&defs, "hidden", 1));
    udfkit_cxx_defs_free(&defs);
}

static void ignores_non_definitions(void **state)
{
    (void)state;
    udfkit_cxx_defs defs = {0};
    udfkit_cxx_scan(source, &defs);
    assert_null(find(&defs, "member", 1));
    assert_null(find(&defs, "S::member", 1));
    assert_null(find(&defs, "commented", 1));
    assert_null(find(&defs, "str", 1));
    assert_null(find(&defs, "decl_only", 1));
    assert_null(find(&defs, "TWICE", 1));
    udfkit_cxx_defs_free(&defs);
}

static void prefers_matching_overload(void **state)
{
    (void)state;
    udfkit_cxx_defs defs = {0};
    udfkit_cxx_scan(source, &defs);
    const udfkit_cxx_def *d;
    assert_int_equal(udfkit_cxx_find(&defs, "over", 2, &d), 2);
    assert_int_equal(d->line, 22);
    assert_int_equal(udfkit_cxx_find(&defs, "over", 1, &d), 2);
    assert_int_equal(d->line, 21);
    udfkit_cxx_defs_free(&defs);
}

static void base_names(void **state)
{
    (void)state;
    char *b = udfkit_cxx_base_name("::ops::clamp<int>");
    assert_string_equal(b, "ops::clamp");
    free(b);
    b = udfkit_cxx_base_name("a::f<b::c<int>, 3>");
    assert_string_equal(b, "a::f");
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_definitions),
        cmocka_unit_test(ignores_non_definitions),
        cmocka_unit_test(prefers_matching_overload),
        cmocka_unit_test(base_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
