/* udfkit_compile_source from the cache when a header it includes changes
 * (frontend/include_check.h): the first compile remembers the files the includes reach with
 * their stat data, a second one of the same text knows them without reading them, and an
 * edit to a header (the same size, its mtime put back), a header appearing earlier on the
 * include path and a header removed each give what a compile without the cache gives: in one
 * process (the entry kept in memory), and in new processes (each compile in a child of its
 * own, which reads the entry from disk), for the user's headers and for CUDA's (a CUDA
 * include directory of the test's: UDFKIT_CUDA_INCLUDE_DIR), CUDA's removed too. */
#define _GNU_SOURCE
#include "cache/cache.h"
#include "package.h"

#include <udfkit/runtime.h>

#include <dirent.h>
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
#include <sys/wait.h>
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

/* text written over path in place, with path's times put back (a change of the same size that
 * only a check of the bytes, or of the ctime, sees). */
static void rewrite_keeping_times(const char *path, const char *text)
{
    struct stat before;
    assert_int_equal(stat(path, &before), 0);
    write_file(path, text);
    const struct timespec times[2] = {before.st_atim, before.st_mtim};
    assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
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
    rewrite_keeping_times(header, "#define SCALE 3.0f\n");
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

/* What a new process's compile of `text` gives: the package's hash (or "error: <message>"
 * in `got`), and whether it found its includes as an earlier compile did, unchanged (the
 * entry on disk used). The child compiles with the cache and UDFKIT_VERBOSE (its notes
 * caught); this process has no entry of `text` in memory (it compiles only with the cache
 * off). */
static bool known_note;
static void catch_note(int level, const char *message, void *user)
{
    (void)level;
    (void)user;
    if (strstr(message, "as an earlier compile found them, unchanged"))
        known_note = true;
}

static const char *const *child_options(void)
{
    static char ia[4200], ib[4200];
    static const char *options[3];
    snprintf(ia, sizeof ia, "-I%s", dir_a);
    snprintf(ib, sizeof ib, "-I%s", dir_b);
    options[0] = ia;
    options[1] = ib;
    options[2] = "--arch=80";
    return options;
}

static bool compile_in_child(const char *text, char got[512])
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        setenv("UDFKIT_VERBOSE", "1", 1);
        udfkit_log_set(catch_note, NULL);
        const char *spec = "k:float32(float32)";
        udfkit_package *pkg = NULL;
        char out[512];
        udfkit_status s = udfkit_compile_source("k2.cu", text, &spec, 1, child_options(), 3, &pkg);
        if (s == UDFKIT_OK)
            snprintf(out, sizeof out, "%c%s", known_note ? 'K' : 'F', pkg->hash);
        else
            snprintf(out, sizeof out, "%cerror: %.400s", known_note ? 'K' : 'F', udfkit_last_error());
        ssize_t n = write(fds[1], out, strlen(out) + 1);
        _exit(n > 0 ? 0 : 1);
    }
    close(fds[1]);
    char buf[512] = {0};
    size_t have = 0;
    for (ssize_t n; have < sizeof buf - 1 && (n = read(fds[0], buf + have, sizeof buf - 1 - have)) > 0;)
        have += (size_t)n;
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(have > 1);
    snprintf(got, 512, "%s", buf + 1);
    return buf[0] == 'K';
}

/* The hash of `text` compiled here with the cache off, or "error: ...". */
static void compile_uncached(const char *text, char want[512])
{
    const char *spec = "k:float32(float32)";
    udfkit_package *pkg = NULL;
    setenv("UDFKIT_CACHE", "0", 1);
    udfkit_status s = udfkit_compile_source("k2.cu", text, &spec, 1, child_options(), 3, &pkg);
    unsetenv("UDFKIT_CACHE");
    if (s == UDFKIT_OK)
        snprintf(want, 512, "%s", pkg->hash);
    else
        snprintf(want, 512, "error: %.400s", udfkit_last_error());
    udfkit_package_close(pkg);
}

/* A new process's compile: right, and from the entry on disk (`known`) or not. */
static void expect_child(const char *text, bool known, char got[512])
{
    char want[512];
    bool was_known = compile_in_child(text, got);
    compile_uncached(text, want);
    if (strncmp(want, "error: ", 7) == 0)
        assert_true(strncmp(got, "error: ", 7) == 0);
    else
        assert_string_equal(got, want);
    if (was_known != known)
        fail_msg("a new process %s its includes from the entry on disk, expected %s", was_known ? "knew" : "followed",
                 known ? "knew" : "followed");
}

static void write_later(const char *path, const char *text)
{
    write_file(path, text);
    sleep(2); /* files changed within the last second are not remembered */
}

static void new_processes_follow_changes(void **state)
{
    (void)state;
    static const char text[] = "#include \"scale2.h\"\n"
                               "#include <extra.h>\n"
                               "#include <sub/more.h>\n"
                               "__device__ float k(float x) { return x * SCALE2 + EXTRA + MORE; }\n";
    char cuda[4200], ccl[4300], ccl_sub[4400], path[4500], got[512], first[512], again[512];
    snprintf(cuda, sizeof cuda, "%s/cuda-include", work);
    snprintf(ccl, sizeof ccl, "%s/cccl", cuda);
    snprintf(ccl_sub, sizeof ccl_sub, "%s/sub", ccl);
    assert_int_equal(mkdir(cuda, 0700) | mkdir(ccl, 0700) | mkdir(ccl_sub, 0700), 0);
    setenv("UDFKIT_CUDA_INCLUDE_DIR", cuda, 1);
    snprintf(path, sizeof path, "%s/scale2.h", dir_b);
    write_file(path, "#define SCALE2 2.0f\n");
    snprintf(path, sizeof path, "%s/more.h", ccl_sub);
    write_file(path, "#define MORE 0.0f\n");
    snprintf(path, sizeof path, "%s/extra.h", ccl);
    write_later(path, "#define EXTRA 1.0f\n");
    expect_child(text, false, first);
    expect_child(text, true, again);
    assert_string_equal(again, first);
    /* CUDA's header edited in place: the same size, its mtime put back. */
    rewrite_keeping_times(path, "#define EXTRA 7.0f\n");
    expect_child(text, false, got);
    assert_string_not_equal(got, first);
    sleep(2);
    expect_child(text, false, first); /* stored anew */
    expect_child(text, true, again);
    assert_string_equal(again, first);
    /* CUDA's header appearing earlier on the path: in a directory the walk looked in. */
    snprintf(path, sizeof path, "%s/extra.h", cuda);
    write_later(path, "#define EXTRA 9.0f\n");
    expect_child(text, false, got);
    assert_string_not_equal(got, first);
    memcpy(first, got, sizeof got);
    expect_child(text, true, again);
    assert_string_equal(again, first);
    /* ... and in a directory that did not exist: sub/ made in the CUDA include directory. */
    char unshadowed[512];
    memcpy(unshadowed, first, sizeof first);
    snprintf(path, sizeof path, "%s/sub", cuda);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/sub/more.h", cuda);
    write_later(path, "#define MORE 4.0f\n");
    expect_child(text, false, got);
    assert_string_not_equal(got, first);
    memcpy(first, got, sizeof got);
    expect_child(text, true, again);
    assert_string_equal(again, first);
    /* That CUDA header removed: the one under cccl/ found again. */
    unlink(path);
    expect_child(text, false, got);
    assert_string_equal(got, unshadowed);
    /* The user's header shadowed earlier on the -I path, then both removed. */
    snprintf(path, sizeof path, "%s/scale2.h", dir_a);
    write_file(path, "#define SCALE2 5.0f\n");
    expect_child(text, false, got);
    assert_string_not_equal(got, first);
    unlink(path);
    snprintf(path, sizeof path, "%s/scale2.h", dir_b);
    unlink(path);
    expect_child(text, false, got);
    assert_non_null(strstr(got, "scale2.h"));
    unsetenv("UDFKIT_CUDA_INCLUDE_DIR");
}

/* The key of the one entry of the cache's section "includes" (a cache of its own). */
static void only_entry_key(const char *cache_dir, char key[UDFKIT_CACHE_KEY_SIZE])
{
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/includes", cache_dir);
    DIR *top = opendir(dir);
    assert_non_null(top);
    size_t found = 0;
    for (struct dirent *d; (d = readdir(top));) {
        char sub[4700];
        if (d->d_name[0] == '.' || snprintf(sub, sizeof sub, "%s/%s", dir, d->d_name) >= (int)sizeof sub)
            continue;
        DIR *in = opendir(sub);
        for (struct dirent *f; in && (f = readdir(in));) {
            const char *dot = strstr(f->d_name, ".entry");
            if (dot && (size_t)(dot - f->d_name) == UDFKIT_CACHE_KEY_SIZE - 1 && found++ == 0)
                snprintf(key, UDFKIT_CACHE_KEY_SIZE, "%.*s", (int)(UDFKIT_CACHE_KEY_SIZE - 1), f->d_name);
        }
        if (in)
            closedir(in);
    }
    closedir(top);
    assert_int_equal(found, 1);
}

/* Puts `files` in place of the entry's list, keeping its hash. */
static void put_list(const char *key, const char *files, size_t size, const udfkit_buf *hash)
{
    udfkit_cache *c = udfkit_cache_open_section("includes");
    assert_non_null(c);
    udfkit_cache_entry e = {0};
    udfkit_cache_entry_add(&e, "files", files, size);
    udfkit_cache_entry_add(&e, "hash", hash->data, hash->size);
    udfkit_cache_put(c, key, &e);
    udfkit_cache_entry_free(&e);
    udfkit_cache_close(c);
}

/* An entry of the includes whose list is damaged (planted by another process, or written by
 * another version) is not used: each new process's compile gives what a compile without the
 * cache gives, and the list put back is used again. */
static void damaged_entries_are_not_used(void **state)
{
    (void)state;
    static const char text[] = "#include \"scale3.h\"\n"
                               "__device__ float k(float x) { return x * SCALE3; }\n";
    char own[4300], path[4300], key[UDFKIT_CACHE_KEY_SIZE], first[512], got[512];
    snprintf(own, sizeof own, "%s/cache-damaged", work);
    setenv("UDFKIT_CACHE_DIR", own, 1);
    snprintf(path, sizeof path, "%s/scale3.h", dir_b);
    write_later(path, "#define SCALE3 3.0f\n");
    expect_child(text, false, first);
    expect_child(text, true, got);
    only_entry_key(own, key);
    udfkit_cache *c = udfkit_cache_open_section("includes");
    udfkit_cache_entry e = {0};
    assert_true(c && udfkit_cache_get(c, key, &e));
    udfkit_cache_close(c);
    const udfkit_buf *list = udfkit_cache_entry_find(&e, "files"), *hash = udfkit_cache_entry_find(&e, "hash");
    assert_true(list && hash && list->size > 0);
    char *good = strndup(list->data, list->size);
    assert_non_null(good);
    char *file_line = strstr(good, "\nF ");
    assert_non_null(file_line);
    const size_t at = (size_t)(file_line - good) + 1;
    /* Each damage: the text from `good` with [at + from, at + to) replaced by `with`. */
    static const struct {
        size_t from, to;
        const char *with;
    } damages[] = {
        {2, 3, "ff"},                 /* a file in a directory not listed */
        {0, 1, "Q"},                  /* a line of no known kind */
        {2, 3, "0 1 12345678901234567"}, /* a number of 17 hexadecimal digits (and a stray one) */
        {0, 2, "A 0 0 1 /\nF "},      /* a place said to be empty, where a directory is */
        {0, 2, "A 1 0 0 x\nF "},      /* a place not empty said to be checked by its directory */
    };
    for (size_t i = 0; i < sizeof damages / sizeof *damages; i++) {
        udfkit_buf bad = UDFKIT_BUF_INIT;
        udfkit_buf_append(&bad, good, at + damages[i].from);
        udfkit_buf_puts(&bad, damages[i].with);
        udfkit_buf_puts(&bad, good + at + damages[i].to);
        put_list(key, bad.data, bad.size, hash);
        udfkit_buf_free(&bad);
        expect_child(text, false, got);
        assert_string_equal(got, first);
        put_list(key, good, strlen(good), hash);
    }
    /* Cut short, the last line without its end. */
    put_list(key, good, strlen(good) - 1, hash);
    expect_child(text, false, got);
    put_list(key, good, strlen(good), hash);
    expect_child(text, true, got);
    assert_string_equal(got, first);
    free(good);
    udfkit_cache_entry_free(&e);
    setenv("UDFKIT_CACHE_DIR", cache, 1);
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
    const struct CMUnitTest tests[] = {cmocka_unit_test(follows_header_changes),
                                       cmocka_unit_test(new_processes_follow_changes),
                                       cmocka_unit_test(damaged_entries_are_not_used)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    nftw(work, remove_one, 16, FTW_PHYS | FTW_DEPTH);
    return rc;
}
