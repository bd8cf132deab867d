/* Outputs appear together or not at all; templates, depfiles and identifiers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "codegen/header_gen.h"
#include "base/template.h"
#include "frontend/depfile.h"

static int make_dir(void **state)
{
    char *dir = strdup("/tmp/udfkit-outputs-XXXXXX");
    assert_non_null(mkdtemp(dir));
    *state = dir;
    return 0;
}

static int remove_dir(void **state)
{
    char *dir = *state;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' && (e->d_name[1] == '\0' || (e->d_name[1] == '.' && e->d_name[2] == '\0')))
            continue;
        char *p = udfkit_path_join(dir, e->d_name);
        unlink(p);
        free(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
    free(dir);
    return 0;
}

static size_t count_entries(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.' || (e->d_name[1] != '\0' && e->d_name[1] != '.');
    closedir(d);
    return n;
}

static void nothing_visible_before_commit(void **state)
{
    char *a = udfkit_path_join(*state, "a.json"), *b = udfkit_path_join(*state, "b.ltoir");
    udfkit_outputs *o = udfkit_outputs_new();
    assert_int_equal(udfkit_outputs_write(o, a, "{}", 2), UDFKIT_RC_OK);
    assert_int_equal(udfkit_outputs_write(o, b, "xyz", 3), UDFKIT_RC_OK);
    assert_false(udfkit_file_exists(a));
    assert_false(udfkit_file_exists(b));
    assert_int_equal(udfkit_outputs_commit(o), UDFKIT_RC_OK);
    udfkit_outputs_free(o);
    udfkit_buf text = UDFKIT_BUF_INIT;
    assert_int_equal(udfkit_read_file(b, &text), UDFKIT_RC_OK);
    assert_string_equal(text.data, "xyz");
    assert_int_equal(count_entries(*state), 2);
    udfkit_buf_free(&text);
    free(a);
    free(b);
}

static void abort_removes_everything_including_old_outputs(void **state)
{
    char *a = udfkit_path_join(*state, "a.json"), *b = udfkit_path_join(*state, "b.ltoir");
    FILE *f = fopen(b, "w");
    fputs("old", f);
    fclose(f);
    udfkit_outputs *o = udfkit_outputs_new();
    assert_int_equal(udfkit_outputs_claim(o, b), UDFKIT_RC_OK);
    assert_int_equal(udfkit_outputs_write(o, a, "{}", 2), UDFKIT_RC_OK);
    udfkit_outputs_free(o); /* no commit: a failure */
    assert_int_equal(count_entries(*state), 0);
    free(a);
    free(b);
}

static void writing_twice_is_refused(void **state)
{
    char *a = udfkit_path_join(*state, "a.json");
    udfkit_outputs *o = udfkit_outputs_new();
    assert_int_equal(udfkit_outputs_write(o, a, "1", 1), UDFKIT_RC_OK);
    assert_int_equal(udfkit_outputs_write(o, a, "2", 1), UDFKIT_RC_USAGE);
    udfkit_outputs_free(o);
    assert_int_equal(count_entries(*state), 0);
    free(a);
}

static void creates_missing_directories(void **state)
{
    char *sub = udfkit_path_join(*state, "x");
    char *file = udfkit_path_join(sub, "out.ptx");
    udfkit_outputs *o = udfkit_outputs_new();
    assert_int_equal(udfkit_outputs_write(o, file, "ptx", 3), UDFKIT_RC_OK);
    assert_int_equal(udfkit_outputs_commit(o), UDFKIT_RC_OK);
    udfkit_outputs_free(o);
    assert_true(udfkit_file_exists(file));
    unlink(file);
    rmdir(sub);
    free(file);
    free(sub);
}

static void paths(void **state)
{
    (void)state;
    char *r = udfkit_path_relative("/a/b/c/d.cu", "/a/b/x");
    assert_string_equal(r, "../c/d.cu");
    free(r);
    r = udfkit_path_stem("dir/udfs.v2.cu");
    assert_string_equal(r, "udfs.v2");
    free(r);
    assert_string_equal(udfkit_path_extension("a/b.ltoir"), ".ltoir");
    assert_string_equal(udfkit_path_extension("a.d/b"), "");
}

static void templates_and_depfiles(void **state)
{
    (void)state;
    udfkit_buf out = UDFKIT_BUF_INIT;
    const udfkit_template_var vars[] = {{"NAME", "x"}, {"SIZE", "3"}};
    assert_int_equal(udfkit_template_render("@NAME@[@SIZE@] @progbits @@ @MISSING", vars, 2, &out), UDFKIT_RC_OK);
    assert_string_equal(out.data, "x[3] @progbits @@ @MISSING");
    out.size = 0;
    assert_int_equal(udfkit_template_render("@UNKNOWN@", vars, 2, &out), UDFKIT_RC_INTERNAL);
    out.size = 0;
    /* A name given two values is an error where it is used, not the later value. */
    const udfkit_template_var twice[] = {{"NAME", "x"}, {"SIZE", "3"}, {"NAME", "y"}};
    assert_int_equal(udfkit_template_render("@SIZE@", twice, 3, &out), UDFKIT_RC_OK);
    out.size = 0;
    assert_int_equal(udfkit_template_render("@NAME@", twice, 3, &out), UDFKIT_RC_INTERNAL);
    assert_non_null(strstr(udfkit_diag_message(), "template placeholder @NAME@ has two values"));
    out.size = 0;
    /* The target as given; dependencies absolute, whatever the directory Ninja runs in. */
    const char *deps[] = {"/src/a b.cu", "c$d.h"};
    udfkit_depfile_format("out/x.json", deps, 2, &out);
    char cwd[4096], want[8192];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(want, sizeof want, "out/x.json: \\\n  /src/a\\ b.cu \\\n  %s/c$$d.h\n", cwd);
    assert_string_equal(out.data, want);
    udfkit_buf_free(&out);
    char *id = udfkit_identifier_from("9-my udfs");
    assert_string_equal(id, "_9_my_udfs");
    free(id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(nothing_visible_before_commit, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(abort_removes_everything_including_old_outputs, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(writing_twice_is_refused, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(creates_missing_directories, make_dir, remove_dir),
        cmocka_unit_test(paths),
        cmocka_unit_test(templates_and_depfiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
