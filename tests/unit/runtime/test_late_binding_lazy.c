/* Late binding of a library packed with SASS of its kernels that call no slot (add_jit_library
 * with SLOTS packs it for each real architecture), on the stand-in driver
 * (unit/runtime/fake_cuda.c, an sm_90 device, which reads a cubin's kernels from its symbols):
 * the bind loads that SASS and links nothing; a kernel that calls a slot is linked on its
 * first use, once, with nvJitLink, and kept in the cache, which a new process finds; a kernel
 * that calls no slot, and a name the library does not have, link nothing.
 *
 * Environment: UDFKIT_TEST_LATE (the test packages), LD_LIBRARY_PATH (the stand-in driver). */
#include "late_engine.h"
#include "late_engine_each.h"
#include "library_internal.h"

#include <dlfcn.h>
#include <ftw.h>
#include <spawn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

extern char **environ;

static char cache_dir[] = "/tmp/udfkit-lazy-bind-XXXXXX";
static const char *self;

/* Whether this process has loaded nvJitLink (a bind that links nothing does not). */
static bool jitlink_loaded(void)
{
    void *h = dlopen("libnvJitLink.so.13", RTLD_NOW | RTLD_NOLOAD);
    if (h)
        dlclose(h);
    return h != NULL;
}
static size_t files;

/* The cache's entries (not its hit and miss counts). */
static int count_file(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    files += type == FTW_F && strstr(p, "/entries/") != NULL;
    return 0;
}

static size_t cache_files(void)
{
    files = 0;
    assert_int_equal(nftw(cache_dir, count_file, 16, FTW_PHYS), 0);
    return files;
}

static int remove_file(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    return remove(p);
}

static udfkit_package *open_named(const char *name)
{
    const char *dir = getenv("UDFKIT_TEST_LATE");
    assert_non_null(dir);
    char file[4096];
    snprintf(file, sizeof file, "%s/%s", dir, name);
    udfkit_package *pkg = NULL;
    if (udfkit_package_open(file, &pkg) != UDFKIT_OK)
        fail_msg("udfkit_package_open: %s", udfkit_last_error());
    return pkg;
}

static udfkit_package *open_cuda(void)
{
    return open_named("cuda.json");
}

static late_engine_instance *bind_all(udfkit_package *cuda)
{
    const udfkit_slot_binding b[] = {{"price", cuda, NULL}, {"keep", cuda, NULL}, {"widen", cuda, NULL},
                                     {"before", cuda, NULL}, {"maybe_price", cuda, NULL}};
    late_engine_instance *inst = NULL;
    udfkit_status s = late_engine_bind(b, 5, &inst);
    if (s == UDFKIT_ERROR_TOOLCHAIN) /* no nvJitLink on this machine */
        return NULL;
    if (s != UDFKIT_OK)
        fail_msg("late_engine_bind: %s: %s", udfkit_status_string(s), udfkit_last_error());
    return inst;
}

static void kernels_that_call_slots_link_on_first_use(void **state)
{
    (void)state;
    udfkit_package *cuda = open_cuda();
    late_engine_instance *inst = bind_all(cuda);
    if (!inst) {
        udfkit_package_close(cuda);
        skip();
    }
    udfkit_library *lib = late_engine_instance_library(inst);
    /* Bound: the SASS module loaded, nothing linked (nvJitLink not even loaded), nothing stored. */
    assert_false(jitlink_loaded());
    assert_non_null(lib->link_kernel);
    assert_int_equal(lib->nlinked, 0);
    udfkit_bind_info info;
    assert_int_equal(udfkit_library_bind_info(lib, &info), UDFKIT_OK);
    assert_int_equal(info.arch, 90);
    assert_int_equal(info.whole, 0);
    assert_int_equal(info.forwarders, 0);
    assert_int_equal(info.kernels_to_link, 13); /* 17 kernels, 4 of which call no slot (unit-slot_kernels' rule) */
    assert_int_equal(info.kernels_linked, 0);
    size_t stored = cache_files();
    udfkit_kernel k = NULL, again = NULL;
    /* A kernel that calls no slot is in the SASS. */
    assert_int_equal(udfkit_library_get_kernel(lib, "udfkit_late_engine_select_init", &k), UDFKIT_OK);
    assert_int_equal(udfkit_library_get_kernel(lib, "udfkit_late_engine_reduce_add_i64_final", &k), UDFKIT_OK);
    assert_int_equal(lib->nlinked, 0);
    /* The library knows its other kernels without linking them. */
    assert_true(udfkit_library_has_kernel(lib, "late_price_kept"));
    assert_false(udfkit_library_has_kernel(lib, "late_no_such_kernel"));
    assert_int_equal(lib->nlinked, 0);
    /* A kernel of SOURCES that calls a slot: linked now, once, and stored. */
    assert_int_equal(udfkit_library_get_kernel(lib, "late_price_kept", &k), UDFKIT_OK);
    assert_int_equal(lib->nlinked, 1);
    size_t after = cache_files();
    assert_true(after > stored);
    assert_int_equal(udfkit_library_get_kernel(lib, "late_price_kept", &again), UDFKIT_OK);
    assert_ptr_equal(k, again);
    assert_int_equal(lib->nlinked, 1);
    assert_int_equal(udfkit_library_bind_info(lib, &info), UDFKIT_OK);
    assert_int_equal(info.kernels_linked, 1);
    assert_int_equal(info.kernels_from_cache, 0);
    /* A name it does not have links nothing. */
    assert_int_equal(udfkit_library_get_kernel(lib, "late_no_such_kernel", &k), UDFKIT_ERROR_NOT_FOUND);
    assert_non_null(strstr(udfkit_last_error(), "no kernel named 'late_no_such_kernel'"));
    assert_int_equal(lib->nlinked, 1);
    /* A second instance bound the same way shares the code, and what it linked. */
    late_engine_instance *second = bind_all(cuda);
    assert_ptr_equal(late_engine_instance_library(second), lib);
    late_engine_release(second);
    /* A new process finds the linked kernel in the cache: it loads it, links nothing, stores
     * nothing. */
    char after_text[32];
    snprintf(after_text, sizeof after_text, "%zu", after);
    char *argv[] = {(char *)self, "--new-process", after_text, NULL};
    pid_t child;
    assert_int_equal(posix_spawn(&child, self, NULL, NULL, argv, environ), 0);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* A launcher resolves its kernels on first use: the map of price links map_price. */
    assert_int_equal(udfkit_library_get_kernel(lib, "udfkit_late_engine_map_price", &k), UDFKIT_OK);
    assert_int_equal(lib->nlinked, 2);
    assert_true(cache_files() > after);
    late_engine_release(inst);
    udfkit_package_close(cuda);
}

/* --new-process N: bind, use the kernel the first process linked; exit 0 where it came from
 * the cache (N files there, the same after) without nvJitLink. */
static int new_process(const char *files_before)
{
    udfkit_package *cuda = open_cuda();
    late_engine_instance *inst = bind_all(cuda);
    udfkit_library *lib = late_engine_instance_library(inst);
    udfkit_kernel k = NULL;
    udfkit_bind_info info = {0};
    int ok = lib && lib->nlinked == 0 && udfkit_library_get_kernel(lib, "late_price_kept", &k) == UDFKIT_OK &&
             lib->nlinked == 1 && !jitlink_loaded() && cache_files() == strtoull(files_before, NULL, 10) &&
             udfkit_library_bind_info(lib, &info) == UDFKIT_OK && info.kernels_linked == 1 &&
             info.kernels_from_cache == 1;
    if (!ok)
        fprintf(stderr, "new process: linked %zu, nvJitLink loaded %d, %zu files in the cache: %s\n",
                lib ? lib->nlinked : 0, jitlink_loaded(), cache_files(), udfkit_last_error());
    late_engine_release(inst);
    udfkit_package_close(cuda);
    return ok ? 0 : 1;
}

/* udfkit_library_bind_info: slots bound to functions of other names are counted as
 * forwarders (compiled only when a kernel is linked); a library that was not bound is refused. */
static void bind_info_of_renamed_slots(void **state)
{
    (void)state;
    udfkit_package *py = open_named("py.fatbin");
    const udfkit_slot_binding b[] = {{"price", py, "surcharge"}, {"keep", py, "is_round"}, {"widen", py, "triple"},
                                     {"before", py, "larger_first"}, {"maybe_price", py, "maybe_double"}};
    late_engine_instance *inst = NULL;
    if (late_engine_bind(b, 5, &inst) != UDFKIT_OK)
        fail_msg("late_engine_bind: %s", udfkit_last_error());
    udfkit_bind_info info;
    assert_int_equal(udfkit_library_bind_info(late_engine_instance_library(inst), &info), UDFKIT_OK);
    assert_int_equal(info.forwarders, 5);
    assert_int_equal(info.whole, 0);
    assert_int_equal(info.kernels_linked, 0);
    late_engine_release(inst);
    udfkit_package_close(py);
    assert_int_equal(udfkit_library_bind_info(NULL, &info), UDFKIT_ERROR_INVALID_ARGUMENT);
}

/* Code newer than every nvJitLink 13 reads is refused at the bind, as a bind that links at
 * once refuses it, not at a first launch. */
static void newer_code_refused_at_bind(void **state)
{
    (void)state;
    udfkit_package *newer = open_named("newer.json");
    const udfkit_slot_binding b[] = {{"price", newer, NULL}, {"keep", newer, NULL}, {"widen", newer, NULL},
                                     {"before", newer, NULL}, {"maybe_price", newer, NULL}};
    late_engine_instance *inst = (late_engine_instance *)1;
    udfkit_status s = late_engine_bind(b, 5, &inst);
    assert_int_equal(s, UDFKIT_ERROR_TOOLCHAIN);
    assert_null(inst);
    if (!strstr(udfkit_last_error(), "was made by NVRTC 99.0, newer than this nvJitLink"))
        fail_msg("unexpected message: %s", udfkit_last_error());
    udfkit_package_close(newer);
}

/* Code for compute_90 (LTOIR_PER_ARCHITECTURE) waits for the pass before: the SASS and each
 * kernel linked on first use carry the marker that has them started early. */
static void linked_kernels_keep_the_early_start_marker(void **state)
{
    (void)state;
    udfkit_package *cuda = open_cuda();
    const udfkit_slot_binding b[] = {{"price", cuda, NULL}, {"keep", cuda, NULL}, {"widen", cuda, NULL},
                                     {"before", cuda, NULL}, {"maybe_price", cuda, NULL}};
    late_engine_each_instance *inst = NULL;
    udfkit_status s = late_engine_each_bind(b, 5, &inst);
    if (s != UDFKIT_OK)
        fail_msg("late_engine_each_bind: %s", udfkit_last_error());
    udfkit_library *lib = late_engine_each_instance_library(inst);
    assert_true(udfkit_library_has_kernel(lib, "udfkit_dependent_launch"));
    udfkit_kernel k = NULL;
    assert_int_equal(udfkit_library_get_kernel(lib, "udfkit_late_engine_each_map_price", &k), UDFKIT_OK);
    assert_int_equal(lib->nlinked, 1);
    assert_true(udfkit_library_has_kernel(lib->linked[0], "udfkit_dependent_launch"));
    assert_true(udfkit_library_has_kernel(lib->linked[0], "udfkit_late_engine_each_map_price"));
    assert_false(udfkit_library_has_kernel(lib->linked[0], "udfkit_late_engine_each_map_widen"));
    late_engine_each_release(inst);
    udfkit_package_close(cuda);
}

/* --whole: UDFKIT_BIND_WHOLE=1 links every kernel at the bind (nvJitLink loaded then), as a
 * device without the library's SASS does; exit 0 where it did. */
static int whole_process(void)
{
    setenv("UDFKIT_BIND_WHOLE", "1", 1);
    udfkit_package *cuda = open_cuda();
    late_engine_instance *inst = bind_all(cuda);
    udfkit_library *lib = late_engine_instance_library(inst);
    udfkit_kernel k = NULL;
    udfkit_bind_info info = {0};
    int ok = lib && !lib->link_kernel && jitlink_loaded() && udfkit_library_bind_info(lib, &info) == UDFKIT_OK &&
             info.whole == 1 && info.from_cache == 0 && info.kernels_to_link == 0 && info.arch == 90 &&
             udfkit_library_get_kernel(lib, "udfkit_late_engine_map_price", &k) == UDFKIT_OK &&
             udfkit_library_get_kernel(lib, "late_price_kept", &k) == UDFKIT_OK;
    if (!ok)
        fprintf(stderr, "whole: %s\n", udfkit_last_error());
    late_engine_release(inst);
    udfkit_package_close(cuda);
    return ok ? 0 : 1;
}

/* --missing-jitlink: UDFKIT_NVJITLINK_LIBRARY names a file that is not there: the bind (which
 * links nothing) succeeds, the first use of a kernel that calls a slot (one no test linked
 * into the cache) is the error, naming the file; a kernel of the SASS is found. Exit 0 where
 * it is so. */
static int missing_jitlink_process(void)
{
    setenv("UDFKIT_NVJITLINK_LIBRARY", "/nonexistent/libnvJitLink.so.13", 1);
    udfkit_package *cuda = open_cuda();
    late_engine_instance *inst = bind_all(cuda);
    udfkit_library *lib = late_engine_instance_library(inst);
    udfkit_kernel k = NULL;
    int ok = lib && udfkit_library_get_kernel(lib, "udfkit_late_engine_select_init", &k) == UDFKIT_OK &&
             udfkit_library_get_kernel(lib, "udfkit_late_engine_map_widen", &k) == UDFKIT_ERROR_TOOLCHAIN &&
             strstr(udfkit_last_error(), "/nonexistent/libnvJitLink.so.13") != NULL && lib->nlinked == 0;
    if (!ok)
        fprintf(stderr, "missing nvJitLink: %s\n", udfkit_last_error());
    late_engine_release(inst);
    udfkit_package_close(cuda);
    return ok ? 0 : 1;
}

static void run_self(const char *mode)
{
    char *argv[] = {(char *)self, (char *)mode, NULL};
    pid_t child;
    assert_int_equal(posix_spawn(&child, self, NULL, NULL, argv, environ), 0);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void link_failure_is_the_first_use_s_error(void **state)
{
    (void)state;
    run_self("--missing-jitlink");
}

static void whole_bind_on_request(void **state)
{
    (void)state;
    char *argv[] = {(char *)self, "--whole", NULL};
    pid_t child;
    assert_int_equal(posix_spawn(&child, self, NULL, NULL, argv, environ), 0);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(int argc, char **argv)
{
    self = argv[0];
    if (argc == 2 && strcmp(argv[1], "--whole") == 0)
        return whole_process();
    if (argc == 2 && strcmp(argv[1], "--missing-jitlink") == 0)
        return missing_jitlink_process();
    if (argc == 3 && strcmp(argv[1], "--new-process") == 0) {
        const char *dir = getenv("UDFKIT_CACHE_DIR");
        snprintf(cache_dir, sizeof cache_dir, "%s", dir ? dir : "");
        return new_process(argv[2]);
    }
    if (!mkdtemp(cache_dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("UDFKIT_CACHE_DIR", cache_dir, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernels_that_call_slots_link_on_first_use),
        cmocka_unit_test(newer_code_refused_at_bind),
        cmocka_unit_test(bind_info_of_renamed_slots),
        /* Before the whole bind, whose code in the cache a later bind of the same packages
         * would load (every kernel there, nothing to link). */
        cmocka_unit_test(link_failure_is_the_first_use_s_error),
        cmocka_unit_test(whole_bind_on_request),
        cmocka_unit_test(linked_kernels_keep_the_early_start_marker),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    nftw(cache_dir, remove_file, 16, FTW_PHYS | FTW_DEPTH);
    return failed;
}
