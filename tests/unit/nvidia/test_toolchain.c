/* Which CUDA part sets can work together; how the parts are loaded on first use; failures
 * of nvJitLink, injected through a library that replaces its link step, reach the user as
 * messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "nvidia/nvjitlink_wrap.h"
#include "nvidia/toolchain.h"

#include <nvJitLink.h>

static void consistent_set_passes(void **state)
{
    (void)state;
    udfkit_toolchain tc = {{13, 0}, {13, 0}, {13, 0}, {13, 0}};
    assert_int_equal(udfkit_toolchain_check(&tc), UDFKIT_RC_OK);
    tc.nvjitlink.minor = 2; /* a newer linker reads older LTO-IR */
    assert_int_equal(udfkit_toolchain_check(&tc), UDFKIT_RC_OK);
}

static void older_linker_is_refused(void **state)
{
    (void)state;
    udfkit_toolchain tc = {{13, 1}, {13, 0}, {13, 0}, {13, 0}};
    assert_int_equal(udfkit_toolchain_check(&tc), UDFKIT_RC_ENV);
    assert_non_null(strstr(udfkit_diag_message(), "nvJitLink 13.0 is older than NVRTC 13.1"));
    assert_non_null(strstr(udfkit_diag_message(), "pip install --no-deps nvidia-cuda-nvrtc==13.0."));
}

static void mixed_majors_are_refused(void **state)
{
    (void)state;
    udfkit_toolchain tc = {{13, 0}, {13, 0}, {12, 9}, {13, 0}};
    assert_int_equal(udfkit_toolchain_check(&tc), UDFKIT_RC_ENV);
    assert_non_null(strstr(udfkit_diag_message(), "nvPTXCompiler 12.9"));
}

static void newer_producer_is_refused(void **state)
{
    (void)state;
    udfkit_toolchain tc = {{13, 0}, {13, 0}, {13, 0}, {13, 0}};
    assert_int_equal(udfkit_toolchain_check_producer(&tc, "NVVM", (udfkit_version){13, 2}, "udfs.json"), UDFKIT_RC_ENV);
    assert_non_null(strstr(udfkit_diag_message(), "udfs.json: error: made by NVVM 13.2, newer than this nvJitLink 13.0"));
    assert_int_equal(udfkit_toolchain_check_producer(&tc, "NVRTC", (udfkit_version){12, 8}, "x"), UDFKIT_RC_OK);
}

static void parses_versions(void **state)
{
    (void)state;
    udfkit_version v;
    assert_true(udfkit_version_parse("13.0.88", &v));
    assert_int_equal(v.major, 13);
    assert_int_equal(v.minor, 0);
    assert_false(udfkit_version_parse("thirteen", &v));
}

static void parts_report_versions_and_stamps(void **state)
{
    (void)state;
    udfkit_toolchain tc;
    assert_int_equal(udfkit_toolchain_query(&tc), UDFKIT_RC_OK);
    assert_int_equal(tc.nvrtc.major, 13);
    assert_int_equal(tc.nvjitlink.major, 13);
    assert_int_equal(tc.nvfatbin.major, 13);
    const int *archs;
    size_t count;
    assert_int_equal(udfkit_toolchain_nvrtc_archs(&archs, &count), UDFKIT_RC_OK);
    assert_true(count > 3);
    assert_int_equal(archs[0], 75); /* CUDA 13's lowest */
    char stamp[4200];
    assert_true(udfkit_cuda_part_stamp(UDFKIT_PART_NVRTC, stamp, sizeof stamp));
    assert_non_null(strstr(stamp, "libnvrtc.so"));
}

/* The first load decides; this runs before anything loads nvJitLink in this process. */
static void link_failure_returns_input_error_with_reason(void **state)
{
    (void)state;
    setenv("UDFKIT_NVJITLINK_LIBRARY", FAKE_NVJITLINK, 1);
    const char *options[] = {"-arch=sm_80"};
    udfkit_link_input input = {UDFKIT_INPUT_PTX, ".version 9.0\n.target sm_80\n.address_size 64\n", 44, "x.ptx"};
    udfkit_buf out = UDFKIT_BUF_INIT, log = UDFKIT_BUF_INIT;
    assert_int_equal(udfkit_jitlink_run(options, 1, &input, 1, false, &out, &log), UDFKIT_RC_INPUT);
    assert_non_null(strstr(log.data, "NVVM (LTO) compilation failed"));
    udfkit_buf_free(&out);
    udfkit_buf_free(&log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(consistent_set_passes),
        cmocka_unit_test(older_linker_is_refused),
        cmocka_unit_test(mixed_majors_are_refused),
        cmocka_unit_test(newer_producer_is_refused),
        cmocka_unit_test(parses_versions),
        cmocka_unit_test(link_failure_returns_input_error_with_reason),
        cmocka_unit_test(parts_report_versions_and_stamps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
