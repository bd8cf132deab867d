/* The include follower: nvcc's resolution rules, each file once, no recursion a source can
 * exhaust, no cycle through spellings of one path; depfiles quoted as GCC quotes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "frontend/depfile.h"
#include "frontend/includes.h"

static int make_dir(void **state)
{
    char *dir = strdup("/tmp/udfkit-includes-XXXXXX");
    assert_non_null(mkdtemp(dir));
    *state = dir;
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int remove_dir(void **state)
{
    nftw(*state, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    free(*state);
    return 0;
}

static char *write_file(const char *dir, const char *name, const char *text)
{
    char *path = udfkit_path_join(dir, name);
    char *parent = udfkit_path_dirname(path);
    assert_true(udfkit_make_dirs(parent));
    free(parent);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Index of the listed file whose path ends in `suffix`, or -1. */
static long find(const udfkit_include_set *s, const char *suffix)
{
    for (size_t i = 0; i < s->nfiles; i++) {
        size_t n = strlen(s->files[i].path), k = strlen(suffix);
        if (n >= k && strcmp(s->files[i].path + n - k, suffix) == 0)
            return (long)i;
    }
    return -1;
}

/* A quoted name is found beside the file that names it, wherever the compile runs, and
 * two headers may use one name for two files. */
static void resolves_beside_the_includer(void **state)
{
    const char *dir = *state;
    char *src = write_file(dir, "src/main.cu", "#include \"sub/b.h\"\n#include \"inc/a.h\"\n");
    free(write_file(dir, "src/inc/a.h", "#include \"../common.h\"\n#include \"sub/b.h\"\n"));
    free(write_file(dir, "src/common.h", "int c;\n"));
    free(write_file(dir, "src/inc/sub/b.h", "int h;\n"));
    free(write_file(dir, "src/sub/b.h", "int k;\n"));
    udfkit_include_set s;
    assert_int_equal(udfkit_includes_follow(src, NULL, 0, NULL, &s), UDFKIT_RC_OK);
    assert_int_equal(s.nfiles, 4);
    /* In the order a compile reads them: depth first, directives in order. */
    assert_int_equal(find(&s, "/src/sub/b.h"), 0);
    assert_int_equal(find(&s, "/src/inc/a.h"), 1);
    assert_int_equal(find(&s, "/src/inc/../common.h"), 2);
    assert_int_equal(find(&s, "/src/inc/sub/b.h"), 3);
    udfkit_include_set_free(&s);
    free(src);
}

/* "x/../y/../a.h" names a.h however often it is spelled longer: it is read once. */
static void cycle_through_sibling_directories_ends(void **state)
{
    const char *dir = *state;
    char *src = write_file(dir, "c.cu", "#include \"cyc.h\"\n");
    free(write_file(dir, "cyc.h", "#pragma once\n#include \"x/../y/../cyc.h\"\n"));
    free(write_file(dir, "x/.keep", ""));
    free(write_file(dir, "y/.keep", ""));
    udfkit_include_set s;
    assert_int_equal(udfkit_includes_follow(src, NULL, 0, NULL, &s), UDFKIT_RC_OK);
    assert_int_equal(s.nfiles, 1);
    assert_true(find(&s, "/cyc.h") == 0);
    udfkit_include_set_free(&s);
    free(src);
}

/* A chain 60,000 headers deep: no recursion, so no stack overflow (ASan's stack is small). */
static void deep_chain_does_not_recurse(void **state)
{
    const char *dir = *state;
    enum { DEPTH = 60000 };
    char name[32], text[64];
    for (int i = 0; i < DEPTH; i++) {
        snprintf(name, sizeof name, "h%d.h", i);
        snprintf(text, sizeof text, i + 1 < DEPTH ? "#include \"h%d.h\"\n" : "int last;\n", i + 1);
        free(write_file(dir, name, text));
    }
    char *src = write_file(dir, "m.cu", "#include \"h0.h\"\n");
    udfkit_include_set s;
    assert_int_equal(udfkit_includes_follow(src, NULL, 0, NULL, &s), UDFKIT_RC_OK);
    assert_int_equal(s.nfiles, DEPTH);
    assert_true(find(&s, "/h59999.h") == DEPTH - 1);
    udfkit_include_set_free(&s);
    free(src);
}

/* -I directories after the includer's own, in order; <names> skip the includer's. */
static void search_order(void **state)
{
    const char *dir = *state;
    char *src = write_file(dir, "s/main.cu", "#include <t.h>\n#include \"u.h\"\n");
    free(write_file(dir, "s/t.h", "beside\n"));
    free(write_file(dir, "one/t.h", "one\n"));
    free(write_file(dir, "two/t.h", "two\n"));
    free(write_file(dir, "two/u.h", "two\n"));
    char *one = udfkit_path_join(dir, "one"), *two = udfkit_path_join(dir, "two");
    const char *dirs[] = {one, two};
    udfkit_include_set s;
    assert_int_equal(udfkit_includes_follow(src, dirs, 2, NULL, &s), UDFKIT_RC_OK);
    assert_int_equal(s.nfiles, 2);
    assert_true(find(&s, "/one/t.h") == 0);
    assert_true(find(&s, "/two/u.h") == 1);
    udfkit_include_set_free(&s);
    free(one);
    free(two);
    free(src);
}

/* GCC's quoting: a blank after 2N backslashes gets 2N+1; '#' and ':' a backslash; '$'
 * doubled. Each dependency once. */
static void depfile_quoting_and_duplicates(void **state)
{
    (void)state;
    const char *deps[] = {"/p/a b.h", "/p/tab\there.h", "/p/x\\ y.h", "/p/h#1.h", "/p/$v.h", "/p/a b.h", "/p/c:d.h"};
    udfkit_buf out = UDFKIT_BUF_INIT;
    udfkit_depfile_format("out/x.json", deps, sizeof deps / sizeof *deps, &out);
    assert_string_equal(out.data, "out/x.json: \\\n"
                                  "  /p/a\\ b.h \\\n"
                                  "  /p/tab\\\there.h \\\n"
                                  "  /p/x\\\\\\ y.h \\\n"
                                  "  /p/h\\#1.h \\\n"
                                  "  /p/$$v.h \\\n"
                                  "  /p/c\\:d.h\n");
    udfkit_buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(resolves_beside_the_includer, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(cycle_through_sibling_directories_ends, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(deep_chain_does_not_recurse, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(search_order, make_dir, remove_dir),
        cmocka_unit_test(depfile_quoting_and_duplicates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
