/* Optional slots (add_jit_library OPTIONAL_SLOTS) on the stand-in driver (unit/runtime/fake_cuda.c,
 * an sm_90 device): a bind may leave them unbound, and says which it bound; a kernel that
 * calls an unbound one is refused, naming the kernel and the slot, before any link (nvJitLink
 * not even loaded); a kernel that calls none is linked as usual; a required slot left unbound
 * is still an error; a bind that links every kernel at once (UDFKIT_BIND_WHOLE=1, a sandboxed
 * package) is refused naming the slot.
 *
 * Environment: UDFKIT_TEST_LATE (the test packages), LD_LIBRARY_PATH (the stand-in driver). */
#include "late_hooks_engine.h"
#include "library_internal.h"

#include <dlfcn.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static char cache_dir[] = "/tmp/udfkit-optional-slots-XXXXXX";

static bool jitlink_loaded(void)
{
    void *h = dlopen("libnvJitLink.so.13", RTLD_NOW | RTLD_NOLOAD);
    if (h)
        dlclose(h);
    return h != NULL;
}

static int remove_file(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(p);
}

static udfkit_package *open_cuda(void)
{
    const char *dir = getenv("UDFKIT_TEST_LATE");
    assert_non_null(dir);
    char file[4096];
    snprintf(file, sizeof file, "%s/cuda.json", dir);
    udfkit_package *pkg = NULL;
    if (udfkit_package_open(file, &pkg) != UDFKIT_OK)
        fail_msg("udfkit_package_open: %s", udfkit_last_error());
    return pkg;
}

static void the_slot_table_marks_optional_slots(void **state)
{
    (void)state;
    assert_int_equal(late_hooks_engine_slot_count(), 3);
    assert_string_equal(late_hooks_engine_slot(0)->name, "price");
    assert_false(late_hooks_engine_slot_optional(0));
    assert_string_equal(late_hooks_engine_slot(1)->name, "keep");
    assert_true(late_hooks_engine_slot_optional(1));
    assert_string_equal(late_hooks_engine_slot(2)->name, "widen");
    assert_true(late_hooks_engine_slot_optional(2));
    assert_false(late_hooks_engine_slot_optional(3));
}

/* The package defines keep and widen too: left unbound, they are not linked in its place. */
static void a_bind_may_leave_optional_slots_unbound(void **state)
{
    (void)state;
    udfkit_package *cuda = open_cuda();
    const udfkit_slot_binding b[] = {{"price", cuda, NULL}};
    late_hooks_engine_instance *inst = NULL;
    if (late_hooks_engine_bind(b, 1, &inst) != UDFKIT_OK)
        fail_msg("late_hooks_engine_bind: %s", udfkit_last_error());
    assert_true(late_hooks_engine_slot_bound(inst, "price"));
    assert_false(late_hooks_engine_slot_bound(inst, "keep"));
    assert_false(late_hooks_engine_slot_bound(inst, "widen"));
    udfkit_library *lib = late_hooks_engine_instance_library(inst);
    int bound = -1;
    assert_int_equal(udfkit_library_slot_bound(lib, "widen", &bound), UDFKIT_OK);
    assert_int_equal(bound, 0);
    assert_int_equal(udfkit_library_slot_bound(lib, "price", &bound), UDFKIT_OK);
    assert_int_equal(bound, 1);
    assert_int_equal(udfkit_library_slot_bound(lib, "discount", &bound), UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(udfkit_last_error(), "no slot 'discount' (its slots: price, keep, widen)"));
    assert_false(late_hooks_engine_slot_bound(inst, "discount"));
    assert_int_equal(udfkit_library_slot_bound(NULL, "price", &bound), UDFKIT_ERROR_INVALID_ARGUMENT);

    /* A kernel that calls an unbound slot: refused before any link, each time. */
    udfkit_kernel k = NULL;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(udfkit_library_get_kernel(lib, "udfkit_late_hooks_engine_map_widen", &k),
                         UDFKIT_ERROR_INVALID_ARGUMENT);
        assert_non_null(strstr(udfkit_last_error(), "kernel 'udfkit_late_hooks_engine_map_widen' calls the optional "
                                                    "slot 'widen', which this instance leaves unbound"));
        assert_null(k);
    }
    assert_int_equal(lib->nlinked, 0);
    assert_false(jitlink_loaded());
    /* Its launcher says the same and launches nothing. */
    assert_int_equal(late_hooks_engine_map_widen(inst, NULL, 4, (const int32_t *)(uintptr_t)16,
                                                 (int64_t *)(uintptr_t)32),
                     UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(udfkit_last_error(), "slot 'widen'"));
    assert_int_equal(lib->nlinked, 0);
    /* The library still has it, and the kernels that call no unbound slot work. */
    assert_true(udfkit_library_has_kernel(lib, "udfkit_late_hooks_engine_map_widen"));
    udfkit_status s = udfkit_library_get_kernel(lib, "udfkit_late_hooks_engine_map_price", &k);
    if (s != UDFKIT_ERROR_TOOLCHAIN) { /* nvJitLink present: the kernel is linked */
        if (s != UDFKIT_OK)
            fail_msg("map(price): %s", udfkit_last_error());
        assert_int_equal(lib->nlinked, 1);
    }
    late_hooks_engine_release(inst);
    udfkit_package_close(cuda);
}

static void binding_an_optional_slot_links_its_kernels(void **state)
{
    (void)state;
    udfkit_package *cuda = open_cuda();
    const udfkit_slot_binding b[] = {{"price", cuda, NULL}, {"widen", cuda, NULL}};
    late_hooks_engine_instance *inst = NULL;
    if (late_hooks_engine_bind(b, 2, &inst) != UDFKIT_OK)
        fail_msg("late_hooks_engine_bind: %s", udfkit_last_error());
    assert_true(late_hooks_engine_slot_bound(inst, "widen"));
    assert_false(late_hooks_engine_slot_bound(inst, "keep"));
    udfkit_library *lib = late_hooks_engine_instance_library(inst);
    udfkit_kernel k = NULL;
    udfkit_status s = udfkit_library_get_kernel(lib, "udfkit_late_hooks_engine_map_widen", &k);
    if (s != UDFKIT_ERROR_TOOLCHAIN && s != UDFKIT_OK)
        fail_msg("map(widen): %s", udfkit_last_error());
    late_hooks_engine_release(inst);
    udfkit_package_close(cuda);
}

static void required_slots_still_need_a_function(void **state)
{
    (void)state;
    udfkit_package *cuda = open_cuda();
    const udfkit_slot_binding b[] = {{"keep", cuda, NULL}};
    late_hooks_engine_instance *inst = NULL;
    assert_int_equal(late_hooks_engine_bind(b, 1, &inst), UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_null(inst);
    assert_non_null(strstr(udfkit_last_error(), "slot 'price' (float32(float32, float32)) is not bound"));
    /* An optional slot is bound at most once, and to a function of its signature. */
    const udfkit_slot_binding twice[] = {{"price", cuda, NULL}, {"keep", cuda, NULL}, {"keep", cuda, NULL}};
    assert_int_equal(late_hooks_engine_bind(twice, 3, &inst), UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(udfkit_last_error(), "slot 'keep' is bound twice"));
    const udfkit_slot_binding wrong[] = {{"price", cuda, NULL}, {"widen", cuda, "keep"}};
    assert_int_equal(late_hooks_engine_bind(wrong, 2, &inst), UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(udfkit_last_error(), "slot 'widen' is int64(int32), but 'keep'"));
    assert_null(inst);
    udfkit_package_close(cuda);
}

static void whole_binds_need_every_slot(void **state)
{
    (void)state;
    setenv("UDFKIT_BIND_WHOLE", "1", 1);
    udfkit_package *cuda = open_cuda();
    const udfkit_slot_binding b[] = {{"price", cuda, NULL}, {"keep", cuda, NULL}};
    late_hooks_engine_instance *inst = NULL;
    udfkit_status s = late_hooks_engine_bind(b, 2, &inst);
    unsetenv("UDFKIT_BIND_WHOLE");
    assert_int_equal(s, UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_null(inst);
    assert_non_null(strstr(udfkit_last_error(), "the optional slot 'widen' is left unbound, but this bind links "
                                                "every kernel at once (UDFKIT_BIND_WHOLE=1)"));
    /* A package that asks for the sandbox is linked whole too (bindings no earlier test made:
     * code bound the same way in this process is found, not linked). */
    udfkit_compile_options copts = UDFKIT_COMPILE_OPTIONS_INIT;
    copts.time_limit = 30.0;
    assert_int_equal(udfkit_package_set_options(cuda, &copts), UDFKIT_OK);
    assert_int_equal(late_hooks_engine_bind(b, 2, &inst), UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_null(inst);
    assert_non_null(strstr(udfkit_last_error(), "the optional slot 'widen' is left unbound, but this bind links "
                                                "every kernel at once (a bound package asks for the sandbox)"));
    udfkit_package_close(cuda);
}

/* An image packed before kernel-calls lines (here: the engine's with those lines renamed, which
 * a reader skips) says only which kernels call some slot: with an optional slot unbound, each
 * of them is refused, saying why; the kernels of the SASS still work. */
static void images_without_kernel_calls_refuse_every_slot_kernel(void **state)
{
    (void)state;
    unsigned char *bytes = malloc(late_hooks_engine_fatbin_size);
    assert_non_null(bytes);
    memcpy(bytes, late_hooks_engine_fatbin, late_hooks_engine_fatbin_size);
    static const char line[] = "\nkernel-calls ";
    size_t renamed = 0;
    for (size_t i = 0; i + sizeof line - 1 <= late_hooks_engine_fatbin_size; i++)
        if (memcmp(bytes + i, line, sizeof line - 1) == 0) {
            memcpy(bytes + i, "\nkernel-xalls ", sizeof line - 1);
            renamed++;
        }
    /* The three entries' kernels that call a slot, and the six their _arrow launchers add (ARROW). */
    assert_int_equal(renamed, 9);
    udfkit_slot slots[3];
    unsigned char optional[3];
    for (size_t i = 0; i < 3; i++) {
        slots[i] = *late_hooks_engine_slot(i);
        optional[i] = late_hooks_engine_slot_optional(i);
    }
    udfkit_package *cuda = open_cuda();
    const udfkit_slot_binding b[] = {{"price", cuda, NULL}, {"keep", cuda, NULL}};
    const udfkit_image image = {bytes, late_hooks_engine_fatbin_size};
    udfkit_library *lib = NULL;
    if (udfkit_library_bind_with_optional(&image, NULL, slots, 3, optional, b, 2, &lib) != UDFKIT_OK)
        fail_msg("udfkit_library_bind_with_optional: %s", udfkit_last_error());
    udfkit_kernel k = NULL;
    assert_int_equal(udfkit_library_get_kernel(lib, "udfkit_late_hooks_engine_map_price", &k),
                     UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(udfkit_last_error(), "kernel 'udfkit_late_hooks_engine_map_price' calls a slot, and the "
                                                "library's image (packed by an older udfkit) does not say which, "
                                                "while the optional slot 'widen' is left unbound"));
    assert_int_equal(lib->nlinked, 0);
    assert_int_equal(udfkit_library_get_kernel(lib, "udfkit_late_hooks_engine_select_init", &k), UDFKIT_OK);
    udfkit_library_unload(lib);
    udfkit_package_close(cuda);
    free(bytes);
}

int main(void)
{
    if (!mkdtemp(cache_dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("UDFKIT_CACHE_DIR", cache_dir, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_slot_table_marks_optional_slots),
        cmocka_unit_test(a_bind_may_leave_optional_slots_unbound),
        cmocka_unit_test(binding_an_optional_slot_links_its_kernels),
        cmocka_unit_test(required_slots_still_need_a_function),
        cmocka_unit_test(whole_binds_need_every_slot),
        cmocka_unit_test(images_without_kernel_calls_refuse_every_slot_kernel),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    nftw(cache_dir, remove_file, 16, FTW_PHYS | FTW_DEPTH);
    return failed;
}
