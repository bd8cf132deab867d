/* Late binding without a GPU: udfkit_package_open of real packages (manifests and fatbins
 * that udfkit compile and udfkit pack made at build time) and of damaged copies of them,
 * udfkit_compile_source for a given architecture (its functions, its messages, the cache),
 * and the checks of a SLOTS library's <target>_bind, which all come before any device is
 * asked for. Where a GPU is visible the binds that pass the checks link too.
 *
 * Environment: UDFKIT_TEST_LATE (the test packages, tests/CMakeLists.txt), UDFKIT_TEST_KEEP_LTOIR
 * (a fatbin of udfkit link --keep-ltoir: LTO-IR without a package's function table),
 * UDFKIT_CACHE_DIR (a cache of the test's own). */
#include "late_calls_engine.h"
#include "late_engine.h"

#include <dirent.h>
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

size_t udfkit_bound_library_count(void);
udfkit_status udfkit_library_bind_link(const udfkit_image *image, const udfkit_slot *slots, size_t slot_count,
                                       const udfkit_slot_binding *bindings, size_t count, int arch, void **cubin,
                                       size_t *cubin_size);

static const char *late(void)
{
    const char *dir = getenv("UDFKIT_TEST_LATE");
    assert_non_null(dir);
    return dir;
}

/* dir/name, in one of a few buffers that stay valid for the next calls. */
static const char *path(const char *dir, const char *name)
{
    static char *buf[8];
    static int next;
    char **p = &buf[next++ % 8];
    free(*p);
    *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(*p, "%s/%s", dir, name);
    return *p;
}

static size_t read_all(const char *file, char **out)
{
    FILE *f = fopen(file, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    *out = malloc((size_t)size + 1);
    assert_int_equal(fread(*out, 1, (size_t)size, f), (size_t)size);
    (*out)[size] = '\0';
    fclose(f);
    return (size_t)size;
}

static void write_all(const char *file, const char *data, size_t size)
{
    FILE *f = fopen(file, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

/* A fresh directory holding a copy of every file of the test packages. */
static const char *copy_packages(void)
{
    static char dir[4096];
    snprintf(dir, sizeof dir, "/tmp/udfkit-late-XXXXXX");
    assert_non_null(mkdtemp(dir));
    DIR *d = opendir(late());
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *data;
        size_t size = read_all(path(late(), e->d_name), &data);
        write_all(path(dir, e->d_name), data, size);
        free(data);
    }
    closedir(d);
    return dir;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            unlink(path(dir, e->d_name));
    if (d)
        closedir(d);
    rmdir(dir);
}

static void expect_functions(const udfkit_package *pkg, const char *const *names, const char *const *sigs, size_t n)
{
    assert_int_equal(udfkit_package_function_count(pkg), n);
    for (size_t i = 0; i < n; i++) {
        const char *name, *sig;
        assert_int_equal(udfkit_package_function(pkg, i, &name, &sig), UDFKIT_OK);
        assert_string_equal(name, names[i]);
        assert_string_equal(sig, sigs[i]);
    }
    assert_int_equal(udfkit_package_function(pkg, n, NULL, NULL), UDFKIT_ERROR_INVALID_ARGUMENT);
}

static const char *const cuda_names[] = {"price", "keep", "widen", "before", "maybe_price", "price3"};
static const char *const cuda_sigs[] = {"float32(float32, float32)", "bool(float32)",
                                        "int64(int32)",              "bool(float32, float32)",
                                        "float32?(float32?, float32)", "float32(float32, float32, float32)"};

/* A manifest and the fatbin `udfkit pack` made of it list the same functions; so does the
 * Python package's fatbin. */
static void opens_manifests_and_fatbins(void **state)
{
    (void)state;
    udfkit_package *m = NULL, *f = NULL, *py = NULL;
    assert_int_equal(udfkit_package_open(path(late(), "cuda.json"), &m), UDFKIT_OK);
    expect_functions(m, cuda_names, cuda_sigs, 6);
    assert_int_equal(udfkit_package_open(path(late(), "cuda.fatbin"), &f), UDFKIT_OK);
    expect_functions(f, cuda_names, cuda_sigs, 6);
    /* The fatbin's manifest leads to the fatbin. */
    udfkit_package *fm = NULL;
    assert_int_equal(udfkit_package_open(path(late(), "cuda.fatbin.json"), &fm), UDFKIT_OK);
    expect_functions(fm, cuda_names, cuda_sigs, 6);
    const char *py_names[] = {"surcharge", "is_round", "triple", "larger_first", "maybe_double"};
    const char *py_sigs[] = {"float32(float32, float32)", "bool(float32)", "int64(int32)", "bool(float32, float32)",
                             "float32?(float32?, float32)"};
    assert_int_equal(udfkit_package_open(path(late(), "py.fatbin"), &py), UDFKIT_OK);
    expect_functions(py, py_names, py_sigs, 5);
    udfkit_package_close(m);
    udfkit_package_close(f);
    udfkit_package_close(fm);
    udfkit_package_close(py);
    udfkit_package_close(NULL);
}

/* Opening fails with one status and a message, leaving no package. */
static void expect_open_error(const char *file, udfkit_status want, const char *needle)
{
    udfkit_package *pkg = (udfkit_package *)1;
    udfkit_status s = udfkit_package_open(file, &pkg);
    if (s != want || pkg != NULL || !strstr(udfkit_last_error(), needle))
        fail_msg("%s: %s with '%s' expected, got %s: %s", file, udfkit_status_string(want), needle,
                 udfkit_status_string(s), udfkit_last_error());
}

static void refuses_damaged_packages(void **state)
{
    (void)state;
    const char *dir = copy_packages();
    char *data;
    expect_open_error(path(dir, "nothing.json"), UDFKIT_ERROR_NOT_FOUND, "no such package");
    assert_int_equal(udfkit_package_open(NULL, NULL), UDFKIT_ERROR_INVALID_ARGUMENT);

    /* A manifest cut short: its line in the message. */
    size_t size = read_all(path(dir, "cuda.json"), &data);
    write_all(path(dir, "cut.json"), data, size / 2);
    expect_open_error(path(dir, "cut.json"), UDFKIT_ERROR_BAD_IMAGE, "error: malformed JSON");
    /* A newer format, and a manifest naming a file outside its directory. */
    char *newer = strstr(data, "\"udfkit_manifest\": 1");
    assert_non_null(newer);
    newer[strlen("\"udfkit_manifest\": ")] = '7';
    write_all(path(dir, "format.json"), data, size);
    expect_open_error(path(dir, "format.json"), UDFKIT_ERROR_BAD_IMAGE, "format 7, newer than this runtime reads");
    newer[strlen("\"udfkit_manifest\": ")] = '1';
    char *artifact = strstr(data, "\"cuda.cuda_udfs.compute_80.ltoir\"");
    assert_non_null(artifact);
    memcpy(artifact + 1, "../cuda_udfs.compute_80", strlen("../cuda_udfs.compute_80"));
    write_all(path(dir, "escape.json"), data, size);
    expect_open_error(path(dir, "escape.json"), UDFKIT_ERROR_BAD_IMAGE, "which is not inside the manifest's directory");
    free(data);

    /* An artifact truncated, then one changed in place. */
    const char *ltoir = path(dir, "cuda.cuda_udfs.compute_80.ltoir");
    size = read_all(ltoir, &data);
    write_all(ltoir, data, size - 100);
    expect_open_error(path(dir, "cuda.json"), UDFKIT_ERROR_BAD_IMAGE, "bytes where the manifest says");
    data[size / 2] ^= 0x40;
    write_all(ltoir, data, size);
    expect_open_error(path(dir, "cuda.json"), UDFKIT_ERROR_BAD_IMAGE, "(its hash differs)");
    free(data);

    /* A fatbin cut short, and LTO-IR without a package's function table. */
    size = read_all(path(dir, "cuda.fatbin"), &data);
    write_all(path(dir, "cut.fatbin"), data, size - 64);
    expect_open_error(path(dir, "cut.fatbin"), UDFKIT_ERROR_BAD_IMAGE, "cut.fatbin");
    /* A fatbin whose LTO-IR is damaged (its header, here): refused before nvJitLink sees it. */
    char *magic = NULL;
    for (size_t i = 0; i + 4 <= size && !magic; i++)
        if (memcmp(data + i, "\xed\x43\x4e\x7f", 4) == 0)
            magic = data + i;
    assert_non_null(magic);
    memcpy(magic + 20, "\xff\xff\xff\x7f", 4); /* the IR's offset, past the end */
    write_all(path(dir, "damaged.fatbin"), data, size);
    expect_open_error(path(dir, "damaged.fatbin"), UDFKIT_ERROR_BAD_IMAGE, "is damaged LTO-IR: its header places");
    memcpy(magic, "text", 4);
    write_all(path(dir, "damaged.fatbin"), data, size);
    expect_open_error(path(dir, "damaged.fatbin"), UDFKIT_ERROR_BAD_IMAGE, "is not LTO-IR: it does not start with");
    write_all(path(dir, "junk.bin"), "\x7f" "ELF nothing", 12);
    expect_open_error(path(dir, "junk.bin"), UDFKIT_ERROR_BAD_IMAGE, "neither a udfkit manifest nor a package fatbin");
    free(data);
    expect_open_error(getenv("UDFKIT_TEST_KEEP_LTOIR"), UDFKIT_ERROR_BAD_IMAGE,
                      "without a udfkit package's function table");
    /* What is there but is no file is not "not found": a FIFO (without a writer: refused,
     * never waited on), a device, a directory. */
    assert_int_equal(mkfifo(path(dir, "pipe.fatbin"), 0600), 0);
    expect_open_error(path(dir, "pipe.fatbin"), UDFKIT_ERROR_BAD_IMAGE, "is a FIFO; udfkit reads only regular files");
    expect_open_error("/dev/zero", UDFKIT_ERROR_BAD_IMAGE, "is a character device");
    expect_open_error(dir, UDFKIT_ERROR_BAD_IMAGE, "is a directory");
    expect_open_error(path(dir, "cut.fatbin/x"), UDFKIT_ERROR_NOT_FOUND, "no such package");
    unlink(path(dir, "pipe.fatbin"));
    remove_dir(dir);
}

static void same_functions(const udfkit_package *a, const udfkit_package *b)
{
    assert_int_equal(udfkit_package_function_count(a), udfkit_package_function_count(b));
    for (size_t i = 0; i < udfkit_package_function_count(a); i++) {
        const char *na, *sa, *nb, *sb;
        assert_int_equal(udfkit_package_function(a, i, &na, &sa), UDFKIT_OK);
        assert_int_equal(udfkit_package_function(b, i, &nb, &sb), UDFKIT_OK);
        assert_string_equal(na, nb);
        assert_string_equal(sa, sb);
    }
}

/* An installed package's directory (<dir>/<target>/, as udfkit_install_udf lays it out) opens
 * its <target>.fatbin, else its <target>.json; a directory with neither names both. */
static void opens_an_installed_directory(void **state)
{
    (void)state;
    char root[] = "/tmp/udfkit-installed-XXXXXX";
    assert_non_null(mkdtemp(root));
    const char *dir = strdup(path(root, "cuda"));
    assert_int_equal(mkdir(dir, 0700), 0);
    DIR *d = opendir(late());
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *data;
        size_t size = read_all(path(late(), e->d_name), &data);
        write_all(path(dir, e->d_name), data, size);
        free(data);
    }
    closedir(d);
    udfkit_package *want = NULL, *pkg = NULL;
    assert_int_equal(udfkit_package_open(path(late(), "cuda.fatbin"), &want), UDFKIT_OK);
    char with_slash[4200];
    snprintf(with_slash, sizeof with_slash, "%s/", dir);
    const char *ways[] = {dir, with_slash};
    for (int w = 0; w < 2; w++) {
        if (udfkit_package_open(ways[w], &pkg) != UDFKIT_OK)
            fail_msg("%s: %s", ways[w], udfkit_last_error());
        same_functions(pkg, want);
        udfkit_package_close(pkg);
    }
    unlink(path(dir, "cuda.fatbin"));
    assert_int_equal(udfkit_package_open(dir, &pkg), UDFKIT_OK);
    same_functions(pkg, want);
    udfkit_package_close(pkg);
    d = opendir(dir);
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            unlink(path(dir, e->d_name));
    closedir(d);
    expect_open_error(dir, UDFKIT_ERROR_BAD_IMAGE, "is a directory without cuda.fatbin or cuda.json");
    rmdir(dir);
    rmdir(root);
    free((void *)dir);
    udfkit_package_close(want);
}

static const char text[] = "// run-time UDFs\n"
                           "__device__ float twice(float x) { return 2.0f * x; }\n"
                           "__device__ bool positive(float x) { return x > 0.0f; }\n";

/* Cache entries so far (the compile cache's files). */
static size_t entries_found;
static int count_entry(const char *file, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(file);
    entries_found += type == FTW_F && n > 6 && strcmp(file + n - 6, ".entry") == 0;
    return 0;
}

static size_t cache_entries(void)
{
    entries_found = 0;
    assert_int_equal(nftw(getenv("UDFKIT_CACHE_DIR"), count_entry, 16, FTW_PHYS), 0);
    return entries_found;
}

static void compiles_source_at_run_time(void **state)
{
    (void)state;
    const char *specs[] = {"twice:float32(float32)", "is_pos=positive:bool(float32)"};
    const char *options[] = {"--arch=80", "-DUNUSED=1"};
    udfkit_package *pkg = NULL;
    assert_int_equal(udfkit_compile_source("user.cu", text, specs, 2, options, 2, &pkg), UDFKIT_OK);
    const char *names[] = {"twice", "is_pos"}, *sigs[] = {"float32(float32)", "bool(float32)"};
    expect_functions(pkg, names, sigs, 2);
    udfkit_package_close(pkg);
    /* The same text again: from the cache, nothing new stored. */
    size_t entries = cache_entries();
    assert_int_equal(udfkit_compile_source("user.cu", text, specs, 2, options, 2, &pkg), UDFKIT_OK);
    assert_int_equal(cache_entries(), entries);
    udfkit_package_close(pkg);

    /* The compiler's messages, as udfkit compile gives them: name:line:. */
    const char *bad = "__device__ float twice(float x) {\n  return 2.0f * y;\n}\n";
    pkg = (udfkit_package *)1;
    assert_int_equal(udfkit_compile_source("bad.cu", bad, specs, 1, options, 1, &pkg), UDFKIT_ERROR_COMPILE);
    assert_null(pkg);
    assert_non_null(strstr(udfkit_last_error(), "bad.cu:2:"));
    assert_non_null(strstr(udfkit_last_error(), "error:"));
    assert_non_null(strstr(udfkit_last_error(), "\"y\" is undefined"));
    /* A function of another signature than its spec: named, as the tool names it. */
    const char *wrong[] = {"twice:int64(int64)"};
    assert_int_equal(udfkit_compile_source("user.cu", text, wrong, 1, options, 1, &pkg), UDFKIT_ERROR_COMPILE);
    assert_non_null(strstr(udfkit_last_error(), "twice"));
    /* Specs and options checked as the tool checks them. */
    const char *not_a_spec[] = {"twice float32(float32)"};
    assert_int_equal(udfkit_compile_source("user.cu", text, not_a_spec, 1, options, 1, &pkg), UDFKIT_ERROR_COMPILE);
    assert_non_null(strstr(udfkit_last_error(), "twice float32(float32)"));
    assert_int_equal(udfkit_compile_source("user.cu", text, NULL, 0, options, 1, &pkg), UDFKIT_ERROR_INVALID_ARGUMENT);
    const char *nvcc_arch[] = {"-arch=sm_80"};
    assert_int_equal(udfkit_compile_source("user.cu", text, specs, 1, nvcc_arch, 1, &pkg),
                     UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(udfkit_last_error(), "--arch=<list>"));
    const char *no_arch[] = {"--arch=12"};
    assert_int_not_equal(udfkit_compile_source("user.cu", text, specs, 1, no_arch, 1, &pkg), UDFKIT_OK);
    assert_null(pkg);
}

/* The name is only for messages: any printable name, no extension needed; a control
 * character, which would forge lines of the messages, is refused. */
static void names_are_for_messages_only(void **state)
{
    (void)state;
    const char *specs[] = {"twice:float32(float32)"};
    const char *options[] = {"--arch=80"};
    udfkit_package *pkg = NULL;
    for (const char *const *name = (const char *const[]){"user", "query 17: price rule", "udf.txt", NULL}; *name;
         name++) {
        assert_int_equal(udfkit_compile_source(*name, text, specs, 1, options, 1, &pkg), UDFKIT_OK);
        udfkit_package_close(pkg);
    }
    const char *bad = "__device__ float twice(float x) { return y; }\n";
    assert_int_equal(udfkit_compile_source("query 17", bad, specs, 1, options, 1, &pkg), UDFKIT_ERROR_COMPILE);
    assert_non_null(strstr(udfkit_last_error(), "query 17:1:"));
    const char *forged = "x.cu\nx.cu:1:1: error: the server's secret is";
    pkg = (udfkit_package *)1;
    assert_int_equal(udfkit_compile_source(forged, bad, specs, 1, options, 1, &pkg), UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_null(pkg);
    assert_non_null(strstr(udfkit_last_error(), "the name holds a control character (byte 4 is 0x0a)"));
    assert_null(strchr(udfkit_last_error(), '\n'));
    assert_int_equal(udfkit_compile_source("tab\there", bad, specs, 1, options, 1, &pkg),
                     UDFKIT_ERROR_INVALID_ARGUMENT);
}

/* Warnings (here: a corrupt cache entry) reach the callback, else nothing unless
 * UDFKIT_VERBOSE is set: the runtime writes nothing to its host's stderr unasked. */
typedef struct heard {
    int warnings;
    char last[512];
} heard;

static void listen(int level, const char *message, void *user)
{
    heard *h = user;
    if (level == UDFKIT_LOG_WARNING) {
        h->warnings++;
        snprintf(h->last, sizeof h->last, "%s", message);
    }
}

/* A byte of each cache entry's payload changed (its checksum no longer matches). */
static int damage_entry(const char *file, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(file);
    if (type != FTW_F || n < 6 || strcmp(file + n - 6, ".entry") != 0)
        return 0;
    FILE *f = fopen(file, "r+b");
    assert_non_null(f);
    /* The compile also stores the record of the headers it read (its first part is "files"):
     * only the compiled code's entry is damaged. */
    char head[48] = {0};
    size_t got = fread(head, 1, sizeof head, f);
    if (got >= 41 && memcmp(head + 36, "files", 5) == 0) {
        fclose(f);
        return 0;
    }
    assert_int_equal(fseek(f, 40, SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, 40, SEEK_SET), 0);
    fputc(c ^ 0x55, f);
    fclose(f);
    entries_found++;
    return 0;
}

static int remove_one(const char *file, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return type == FTW_DP ? rmdir(file) : unlink(file);
}

/* Compiles `source` once more, in a cache of its own, after damaging the one entry its
 * first compile stored, with stderr sent to a file: what reached stderr. */
static char *compile_over_a_corrupt_entry(const char *source)
{
    const char *specs[] = {"twice:float32(float32)"};
    const char *options[] = {"--arch=80"};
    udfkit_package *pkg = NULL;
    char cache[] = "/tmp/udfkit-warn-XXXXXX";
    assert_non_null(mkdtemp(cache));
    const char *before = getenv("UDFKIT_CACHE_DIR");
    char *saved_cache = before ? strdup(before) : NULL;
    setenv("UDFKIT_CACHE_DIR", cache, 1);
    assert_int_equal(udfkit_compile_source("user.cu", source, specs, 1, options, 1, &pkg), UDFKIT_OK);
    udfkit_package_close(pkg);
    entries_found = 0;
    assert_int_equal(nftw(cache, damage_entry, 16, FTW_PHYS), 0);
    assert_int_equal(entries_found, 1);
    char err[] = "/tmp/udfkit-stderr-XXXXXX";
    int fd = mkstemp(err), saved = dup(2);
    fflush(stderr);
    dup2(fd, 2);
    assert_int_equal(udfkit_compile_source("user.cu", source, specs, 1, options, 1, &pkg), UDFKIT_OK);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    udfkit_package_close(pkg);
    char *written = NULL;
    read_all(err, &written);
    unlink(err);
    if (saved_cache)
        setenv("UDFKIT_CACHE_DIR", saved_cache, 1);
    free(saved_cache);
    assert_int_equal(nftw(cache, remove_one, 16, FTW_PHYS | FTW_DEPTH), 0);
    return written;
}

static void warnings_reach_the_callback_not_stderr(void **state)
{
    (void)state;
    unsetenv("UDFKIT_VERBOSE");
    char *written = compile_over_a_corrupt_entry("__device__ float twice(float x) { return x + x; }\n");
    assert_string_equal(written, "");
    free(written);
    heard h = {0};
    udfkit_log_set(listen, &h);
    written = compile_over_a_corrupt_entry("__device__ float twice(float x) { return 2 * x; }\n");
    assert_string_equal(written, "");
    free(written);
    assert_int_equal(h.warnings, 1);
    assert_non_null(strstr(h.last, "is corrupt; it is removed and the result rebuilt"));
    udfkit_log_set(NULL, NULL);
    setenv("UDFKIT_VERBOSE", "1", 1);
    written = compile_over_a_corrupt_entry("__device__ float twice(float x) { return x * 2; }\n");
    unsetenv("UDFKIT_VERBOSE");
    assert_non_null(strstr(written, "udfkit: warning: cache entry "));
    free(written);
    assert_int_equal(h.warnings, 1);
}

/* A bind that must fail its checks: status, message, no instance, nothing loaded. */
static void expect_bind_error(const udfkit_slot_binding *b, size_t n, udfkit_status want, const char *needle)
{
    late_engine_instance *inst = (late_engine_instance *)1;
    size_t before = udfkit_bound_library_count();
    udfkit_status s = late_engine_bind(b, n, &inst);
    if (s != want || inst != NULL || !strstr(udfkit_last_error(), needle) || udfkit_bound_library_count() != before)
        fail_msg("%s with '%s' expected, got %s: %s", udfkit_status_string(want), needle, udfkit_status_string(s),
                 udfkit_last_error());
}

static void checks_bindings_before_linking(void **state)
{
    (void)state;
    udfkit_package *cuda = NULL, *py = NULL;
    assert_int_equal(udfkit_package_open(path(late(), "cuda.json"), &cuda), UDFKIT_OK);
    assert_int_equal(udfkit_package_open(path(late(), "py.fatbin"), &py), UDFKIT_OK);
    assert_int_equal(late_engine_slot_count(), 5);
    assert_string_equal(late_engine_slot(4)->name, "maybe_price");
    assert_string_equal(late_engine_slot(4)->signature, "float32?(float32?, float32)");
    assert_null(late_engine_slot(5));
    const udfkit_slot_binding all[] = {{"price", cuda, NULL}, {"keep", cuda, NULL}, {"widen", cuda, NULL},
                                       {"before", cuda, NULL}, {"maybe_price", cuda, NULL}};
    expect_bind_error(all, 3, UDFKIT_ERROR_INVALID_ARGUMENT, "slot 'before' (bool(float32, float32)) is not bound");
    const udfkit_slot_binding wrong[] = {{"price", cuda, NULL}, {"keep", py, "triple"}, {"widen", cuda, NULL},
                                         {"before", cuda, NULL}, {"maybe_price", cuda, NULL}};
    expect_bind_error(wrong, 5, UDFKIT_ERROR_INVALID_ARGUMENT,
                      "slot 'keep' is bool(float32), but 'triple' of ");
    const udfkit_slot_binding absent[] = {{"price", py, NULL}};
    expect_bind_error(absent, 1, UDFKIT_ERROR_NOT_FOUND,
                      "slot 'price' is bound to 'price', which ");
    const udfkit_slot_binding twice[] = {{"keep", cuda, NULL}, {"keep", cuda, NULL}};
    expect_bind_error(twice, 2, UDFKIT_ERROR_INVALID_ARGUMENT, "slot 'keep' is bound twice (bindings 0 and 1)");
    const udfkit_slot_binding unknown[] = {{"cost", cuda, "price"}};
    expect_bind_error(unknown, 1, UDFKIT_ERROR_INVALID_ARGUMENT,
                      "(its slots: price, keep, widen, before, maybe_price)");
    const udfkit_slot_binding nothing[] = {{"price", NULL, NULL}};
    expect_bind_error(nothing, 1, UDFKIT_ERROR_INVALID_ARGUMENT, "gives no package");
    /* Two packages both linked, both defining 'price' (py's is bound under the name price). */
    udfkit_package *text_pkg = NULL;
    const char *specs[] = {"price:float32(float32, float32)", "keep:bool(float32)"};
    const char *options[] = {"--arch=80"};
    assert_int_equal(udfkit_compile_source("other.cu",
                                           "__device__ float price(float a, float b) { return a * b; }\n"
                                           "__device__ bool keep(float p) { return p < 0.0f; }\n",
                                           specs, 2, options, 1, &text_pkg),
                     UDFKIT_OK);
    const udfkit_slot_binding both[] = {{"price", cuda, NULL}, {"keep", text_pkg, NULL}, {"widen", cuda, NULL},
                                        {"before", cuda, NULL}, {"maybe_price", cuda, NULL}};
    expect_bind_error(both, 5, UDFKIT_ERROR_INVALID_ARGUMENT, "both define 'price', and both are linked");
    assert_int_equal(late_engine_bind(all, 5, NULL), UDFKIT_ERROR_INVALID_ARGUMENT);
    /* Checks passed: a GPU binds, a machine without one says so. */
    late_engine_instance *inst = NULL;
    udfkit_status s = late_engine_bind(all, 5, &inst);
    if (s != UDFKIT_OK && s != UDFKIT_ERROR_NO_DRIVER && s != UDFKIT_ERROR_NO_DEVICE)
        fail_msg("a binding that passes the checks: %s: %s", udfkit_status_string(s), udfkit_last_error());
    late_engine_release(inst);
    assert_int_equal(late_engine_map_price(NULL, NULL, 0, NULL, NULL, NULL), UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(udfkit_last_error(), "no instance"));
    udfkit_package_close(text_pkg);
    udfkit_package_close(cuda);
    udfkit_package_close(py);
}

/* A bind whose package defines a C name of the library's own UDFS (late_engine_ops' add_f32)
 * is refused before any device is asked: the same answer with a GPU and without one. */
static void engine_names_checked_without_a_device(void **state)
{
    (void)state;
    /* Every slot bound to it, so that no other package is linked. */
    udfkit_package *clash = NULL;
    const char *specs[] = {"add_f32:float32(float32, float32)", "price:float32(float32, float32)",
                           "keep:bool(float32)", "widen:int64(int32)", "before:bool(float32, float32)",
                           "maybe_price:float32?(float32?, float32)"};
    const char *options[] = {"--arch=80"};
    udfkit_status s = udfkit_compile_source("clash.cu",
                                            "#include <cuda/std/optional>\n"
                                            "__device__ float add_f32(float a, float b) { return a - b; }\n"
                                            "__device__ float price(float a, float b) { return a; }\n"
                                            "__device__ bool keep(float p) { return p > 1.0f; }\n"
                                            "__device__ long long widen(int x) { return x; }\n"
                                            "__device__ bool before(float a, float b) { return a < b; }\n"
                                            "__device__ cuda::std::optional<float> maybe_price("
                                            "cuda::std::optional<float> l, float r) { return l; }\n",
                                            specs, 6, options, 1, &clash);
    if (s != UDFKIT_OK)
        fail_msg("udfkit_compile_source: %s", udfkit_last_error());
    const udfkit_slot_binding b[] = {{"price", clash, NULL}, {"keep", clash, NULL}, {"widen", clash, NULL},
                                     {"before", clash, NULL}, {"maybe_price", clash, NULL}};
    expect_bind_error(b, 5, UDFKIT_ERROR_INVALID_ARGUMENT, "defines 'add_f32', which the library defines itself");
    udfkit_package_close(clash);
}

/* The symbols of a cubin (ELF64): how many name `name`, how many of those the driver finds by
 * name, and how many data objects it has. */
typedef struct symbols {
    size_t named, named_global, objects;
} symbols;

static symbols cubin_symbols(const unsigned char *elf, size_t size, const char *name)
{
    symbols out = {0, 0, 0};
    assert_true(size > 64 && memcmp(elf, "\177ELF", 4) == 0 && elf[4] == 2);
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, elf + 0x28, 8);
    memcpy(&shentsize, elf + 0x3a, 2);
    memcpy(&shnum, elf + 0x3c, 2);
    assert_true(shoff + (uint64_t)shentsize * shnum <= size);
    for (uint16_t i = 0; i < shnum; i++) {
        const unsigned char *sh = elf + shoff + (uint64_t)i * shentsize;
        uint32_t type, link;
        uint64_t off, sz, entsize;
        memcpy(&type, sh + 4, 4);
        memcpy(&off, sh + 0x18, 8);
        memcpy(&sz, sh + 0x20, 8);
        memcpy(&link, sh + 0x28, 4);
        memcpy(&entsize, sh + 0x38, 8);
        if (type != 2 /* SHT_SYMTAB */)
            continue;
        const unsigned char *strsh = elf + shoff + (uint64_t)link * shentsize;
        uint64_t stroff, strsz;
        memcpy(&stroff, strsh + 0x18, 8);
        memcpy(&strsz, strsh + 0x20, 8);
        assert_true(off + sz <= size && stroff + strsz <= size && entsize == 24);
        for (uint64_t k = 0; k < sz / 24; k++) {
            const unsigned char *sym = elf + off + k * 24;
            uint32_t at;
            memcpy(&at, sym, 4);
            unsigned char info = sym[4];
            assert_true(at < strsz);
            const char *sname = (const char *)elf + stroff + at;
            out.objects += (info & 0xf) == 1 /* STT_OBJECT */;
            if (strcmp(sname, name) == 0) {
                out.named++;
                /* Visible to the driver by name: global, or weak (an inline variable). */
                out.named_global += (info >> 4) == 1 /* STB_GLOBAL */ || (info >> 4) == 2 /* STB_WEAK */;
            }
        }
    }
    return out;
}

/* The link a bind makes, without a device: every kernel of the engine (KERNELS and SOURCES),
 * one UDF error record that the runtime finds by name (global), and none of the thousands of
 * CUB and libcu++ variables that no device code uses (nvJitLink's -optimize-unused-variables). */
static void bind_link_keeps_kernels_drops_unused_variables(void **state)
{
    (void)state;
    udfkit_package *cuda = NULL;
    assert_int_equal(udfkit_package_open(path(late(), "cuda.json"), &cuda), UDFKIT_OK);
    const udfkit_slot_binding b[] = {{"price", cuda, NULL}, {"keep", cuda, NULL}, {"widen", cuda, NULL},
                                     {"before", cuda, NULL}, {"maybe_price", cuda, NULL}};
    const udfkit_image image = {late_engine_fatbin, late_engine_fatbin_size};
    void *cubin = NULL;
    size_t size = 0;
    setenv("UDFKIT_LINK_THREADS", "2", 1);
    udfkit_status s = udfkit_library_bind_link(&image, late_engine_slot(0), late_engine_slot_count(), b, 5, 90,
                                               &cubin, &size);
    unsetenv("UDFKIT_LINK_THREADS");
    if (s == UDFKIT_ERROR_TOOLCHAIN) {
        print_message("no nvJitLink here: %s\n", udfkit_last_error());
        udfkit_package_close(cuda);
        skip();
    }
    if (s != UDFKIT_OK)
        fail_msg("the bind's link: %s: %s", udfkit_status_string(s), udfkit_last_error());
    static const char *const kernels[] = {
        "udfkit_late_engine_map_price", "udfkit_late_engine_filter_keep", "udfkit_late_engine_filter_keep_values",
        "udfkit_late_engine_transform_reduce_price_add_f32_partials",
        "udfkit_late_engine_transform_reduce_price_add_f32_final", "udfkit_late_engine_map_widen",
        "udfkit_late_engine_reduce_add_i64_partials", "udfkit_late_engine_reduce_add_i64_final",
        "udfkit_late_engine_sort_before_merge_pairs", "udfkit_late_engine_nullable_map_maybe_price",
        "udfkit_late_engine_select_init", "late_price_kept"};
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++) {
        symbols k = cubin_symbols(cubin, size, kernels[i]);
        if (k.named_global != 1)
            fail_msg("kernel %s: %zu global symbol(s)", kernels[i], k.named_global);
    }
    symbols rec = cubin_symbols(cubin, size, "udfkit_udf_error_record");
    assert_int_equal(rec.named, 1);
    assert_int_equal(rec.named_global, 1);
    if (rec.objects > 16)
        fail_msg("the bound code keeps %zu variables; unused ones are dropped", rec.objects);
    free(cubin);
    udfkit_package_close(cuda);
}

/* A function of the engine's own (UDFS) that calls a slot, declared by add_ptx_udf CALLS:
 * the engine's sort(by_price) links with the package's price, and the link fails without it. */
static void udfs_function_calls_a_slot(void **state)
{
    (void)state;
    assert_int_equal(late_calls_engine_slot_count(), 1);
    assert_string_equal(late_calls_engine_slot(0)->name, "price");
    udfkit_package *cuda = NULL, *py = NULL;
    assert_int_equal(udfkit_package_open(path(late(), "cuda.json"), &cuda), UDFKIT_OK);
    const udfkit_image image = {late_calls_engine_fatbin, late_calls_engine_fatbin_size};
    const udfkit_slot_binding b[] = {{"price", cuda, NULL}};
    void *cubin = NULL;
    size_t size = 0;
    udfkit_status s = udfkit_library_bind_link(&image, late_calls_engine_slot(0), 1, b, 1, 90, &cubin, &size);
    if (s == UDFKIT_ERROR_TOOLCHAIN) {
        print_message("no nvJitLink here: %s\n", udfkit_last_error());
        udfkit_package_close(cuda);
        skip();
    }
    if (s != UDFKIT_OK)
        fail_msg("the bind's link: %s: %s", udfkit_status_string(s), udfkit_last_error());
    symbols k = cubin_symbols(cubin, size, "udfkit_late_calls_engine_sort_by_price_merge_pairs");
    assert_int_equal(k.named_global, 1);
    /* The slot's function is linked in (its own symbol, or inlined: then no undefined one). */
    symbols p = cubin_symbols(cubin, size, "price");
    assert_true(p.named <= 1);
    free(cubin);
    /* A package without price: the bind's checks name what is missing. */
    assert_int_equal(udfkit_package_open(path(late(), "clash.json"), &py), UDFKIT_OK);
    const udfkit_slot_binding missing[] = {{"price", py, NULL}};
    s = udfkit_library_bind_link(&image, late_calls_engine_slot(0), 1, missing, 1, 90, &cubin, &size);
    assert_int_equal(s, UDFKIT_ERROR_NOT_FOUND);
    assert_non_null(strstr(udfkit_last_error(), "price"));
    udfkit_package_close(py);
    udfkit_package_close(cuda);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(opens_manifests_and_fatbins),
        cmocka_unit_test(refuses_damaged_packages),
        cmocka_unit_test(compiles_source_at_run_time),
        cmocka_unit_test(names_are_for_messages_only),
        cmocka_unit_test(warnings_reach_the_callback_not_stderr),
        cmocka_unit_test(checks_bindings_before_linking),
        cmocka_unit_test(engine_names_checked_without_a_device),
        cmocka_unit_test(opens_an_installed_directory),
        cmocka_unit_test(bind_link_keeps_kernels_drops_unused_variables),
        cmocka_unit_test(udfs_function_calls_a_slot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
