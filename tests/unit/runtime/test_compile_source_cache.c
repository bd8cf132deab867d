/* udfkit_compile_source from the cache, in one process, when a header it includes changes
 * (frontend/include_check.h): the first compile remembers the files the includes reach with
 * their stat data, a second one of the same text knows them without reading them, and an
 * edit to a header (the same size, its mtime put back), a header appearing earlier on the
 * include path and a header removed each give what a compile without the cache gives. */
#define _GNU_SOURCE
#include "package.h"

#include <udfkit/runtime.h>

#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

static char work[] = "/tmp/udfkit-compile-source-cache-XXXXXX";
static char dir_a[4096], dir_b[4096], cache[4096];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char source[] = "#include \"scale.h\"\n"
                             "#include <cuda/std/optional>\n"
                             "__device__ float k(float x) { return x * SCALE; }\n";

/* The package's hash (its functions and code) from a compile with the cache as set, and
 * from one with it off. */
static void compile_both(char got[UDFKIT_HASH_HEX_SIZE], char want[UDFKIT_HASH_HEX_SIZE])
{
    char ia[4200], ib[4200];
    snprintf(ia, sizeof ia, "-I%s", dir_a);
    snprintf(ib, sizeof ib, "-I%s", dir_b);
    const char *options[] = {ia, ib, "--arch=80"};
    const char *spec = "k:float32(float32)";
    for (int off = 0; off < 2; off++) {
        if (off)
            setenv("UDFKIT_CACHE", "0", 1);
        udfkit_package *pkg = NULL;
        udfkit_status s = udfkit_compile_source("k.cu", source, &spec, 1, options, 3, &pkg);
        unsetenv("UDFKIT_CACHE");
        if (s != UDFKIT_OK)
            fail_msg("udfkit_compile_source: %s: %s", udfkit_status_string(s), udfkit_last_error());
        memcpy(off ? want : got, pkg->hash, UDFKIT_HASH_HEX_SIZE);
        udfkit_package_close(pkg);
    }
}

static void follows_header_changes(void **state)
{
    (void)state;
    char header[4200], shadow[4200];
    snprintf(header, sizeof header, "%s/scale.h", dir_b);
    snprintf(shadow, sizeof shadow, "%s/scale.h", dir_a);
    write_file(header, "#define SCALE 2.0f\n");
    sleep(2); /* files changed within the last second are not remembered */
    char first[UDFKIT_HASH_HEX_SIZE], again[UDFKIT_HASH_HEX_SIZE], want[UDFKIT_HASH_HEX_SIZE];
    compile_both(first, want);
    assert_string_equal(first, want);
    compile_both(again, want); /* the includes known, in this process */
    assert_string_equal(again, first);
    /* Edited in place: the same size, the mtime put back. */
    struct stat before;
    assert_int_equal(stat(header, &before), 0);
    write_file(header, "#define SCALE 3.0f\n");
    const struct timespec times[2] = {before.st_atim, before.st_mtim};
    assert_int_equal(utimensat(AT_FDCWD, header, times, 0), 0);
    char edited[UDFKIT_HASH_HEX_SIZE];
    compile_both(edited, want);
    assert_string_equal(edited, want);
    assert_string_not_equal(edited, first);
    sleep(2);
    compile_both(edited, want); /* remembered anew */
    assert_string_equal(edited, want);
    compile_both(again, want);
    assert_string_equal(again, edited);
    /* A header of the same name earlier on the include path. */
    write_file(shadow, "#define SCALE 5.0f\n");
    char shadowed[UDFKIT_HASH_HEX_SIZE];
    compile_both(shadowed, want);
    assert_string_equal(shadowed, want);
    assert_string_not_equal(shadowed, edited);
    /* Both gone: a compile error naming the include. */
    unlink(shadow);
    unlink(header);
    const char *options[] = {"--arch=80"};
    const char *spec = "k:float32(float32)";
    udfkit_package *pkg = NULL;
    assert_int_equal(udfkit_compile_source("k.cu", source, &spec, 1, options, 1, &pkg), UDFKIT_ERROR_COMPILE);
    assert_non_null(strstr(udfkit_last_error(), "scale.h"));
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    return remove(path);
}

int main(void)
{
    if (!mkdtemp(work))
        return 1;
    snprintf(dir_a, sizeof dir_a, "%s/a", work);
    snprintf(dir_b, sizeof dir_b, "%s/b", work);
    snprintf(cache, sizeof cache, "%s/cache", work);
    if (mkdir(dir_a, 0700) || mkdir(dir_b, 0700))
        return 1;
    setenv("UDFKIT_CACHE_DIR", cache, 1);
    const struct CMUnitTest tests[] = {cmocka_unit_test(follows_header_changes)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    nftw(work, remove_one, 16, FTW_PHYS | FTW_DEPTH);
    return rc;
}
