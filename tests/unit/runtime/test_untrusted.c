/* udfkit_compile_source_with: text from users, compiled confined and within limits
 * (docs/security.md). Each case of issue 24 as a hostile user would try it: includes of the
 * server's files (absolute, "..", /proc, computed, #include_next, through -I and a symbolic
 * link), __has_include asked about them, bombs of templates and macros, an include of a FIFO
 * nobody writes, a cancel from another thread. Each must end with a compile error that
 * holds no byte of a file the text may not read, the process intact, no thread or process
 * left, nothing leaked (run under ASan+UBSan too), and the cache consulted first.
 *
 * Environment: UDFKIT_CACHE_DIR (a cache of the test's own). */
#define _GNU_SOURCE
#include "udfkit/runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

static const char *const spec[] = {"f:float32(float32)"};
static const char *const arch80[] = {"--arch=80"};
static const char secret[] = "udfkit-test-secret-5c0b9e";

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static size_t threads(void)
{
    DIR *d = opendir("/proc/self/task");
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* No process of ours left: every helper was waited for. */
static void no_child_left(void)
{
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static char dir[64];

static const char *in_dir(const char *name)
{
    static char buf[8][256];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 256, "%s/%s", dir, name);
    return p;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    char *buf = calloc(1, 65536);
    size_t n = fread(buf, 1, 65535, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/udfkit-untrusted-XXXXXX");
    assert_non_null(mkdtemp(dir));
    /* The engine's include directory: a header users may include, a symbolic link out of it,
     * a FIFO; and beside it, a file they may not read. */
    assert_int_equal(mkdir(in_dir("inc"), 0755), 0);
    write_file(in_dir("inc/helper.h"), "__device__ inline float helper(float x) { return x * 3.0f; }\n");
    write_file(in_dir("secret.txt"), "udfkit-test-secret-file-line\n");
    assert_int_equal(symlink("/etc/hostname", in_dir("inc/host.h")), 0);
    assert_int_equal(mkfifo(in_dir("inc/pipe.h"), 0600), 0);
    setenv("UDFKIT_TEST_SECRET", secret, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    const char *names[] = {"inc/helper.h", "inc/host.h", "inc/pipe.h", "secret.txt"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        unlink(in_dir(names[i]));
    rmdir(in_dir("inc"));
    rmdir(dir);
    return 0;
}

/* Compiles `text` untrusted with -I<dir>/inc and the limits given; returns the status and
 * checks the rules every failure keeps. */
static udfkit_status compile(const char *text, double seconds, uint64_t memory, udfkit_cancel *cancel)
{
    char include[300];
    snprintf(include, sizeof include, "-I%s", in_dir("inc"));
    const char *options[] = {"--arch=80", include};
    udfkit_compile_options copts = UDFKIT_COMPILE_OPTIONS_INIT;
    copts.untrusted = 1;
    copts.time_limit = seconds;
    copts.memory_limit = memory;
    copts.cancel = cancel;
    udfkit_package *pkg = (udfkit_package *)1;
    size_t before = threads();
    udfkit_status s = udfkit_compile_source_with("user.cu", text, spec, 1, options, 2, &copts, &pkg);
    assert_true(s == UDFKIT_OK ? pkg != NULL : pkg == NULL);
    udfkit_package_close(pkg);
    assert_int_equal(threads(), before);
    no_child_left();
    const char *m = udfkit_last_error();
    char *passwd = read_text("/etc/passwd"), *hostname = read_text("/etc/hostname");
    char *first_line = strtok(passwd, "\n"), *host = strtok(hostname, "\n");
    /* No byte of a file it may not read: the server's environment, /etc/passwd's first line,
     * the host name, the secret beside the include directory. */
    if (s != UDFKIT_OK && (strstr(m, secret) || (first_line && strstr(m, first_line)) ||
                           (host && strlen(host) > 3 && strstr(m, host)) || strstr(m, "udfkit-test-secret-file-line")))
        fail_msg("a message shows a file's bytes: %s", m);
    free(passwd);
    free(hostname);
    return s;
}

static void expect_refused(const char *text, const char *needle)
{
    udfkit_status s = compile(text, 0, 0, NULL);
    if (s != UDFKIT_ERROR_COMPILE || !strstr(udfkit_last_error(), needle))
        fail_msg("'%s': a compile error with '%s' expected, got %s: %s", text, needle, udfkit_status_string(s),
                 udfkit_last_error());
}

#define BODY "__device__ float f(float x) { return x; }\n"

static void includes_of_the_servers_files_are_refused(void **state)
{
    (void)state;
    expect_refused("#include \"/etc/passwd\"\n" BODY, "user.cu:1: error: #include \"/etc/passwd\" is refused: an absolute path");
    expect_refused("#include \"../../etc/hostname\"\n" BODY, "#include \"../../etc/hostname\" is refused: a name with '..'");
    expect_refused("#include </proc/self/environ>\n" BODY, "#include \"/proc/self/environ\" is refused: an absolute path");
    expect_refused("#include \"/proc/self/fd/7\"\n" BODY, "is refused: an absolute path");
    expect_refused("#include_next <helper.h>\n" BODY, "user.cu:1: error: #include_next");
    /* Through the allowed directory: out of it with "..", a link out of it, a FIFO in it. */
    expect_refused("#include \"../secret.txt\"\n" BODY, "#include \"../secret.txt\" is refused");
    expect_refused("#include \"host.h\"\n" BODY, "#include \"host.h\" is refused: a name that leads outside");
    expect_refused("#include \"pipe.h\"\n" BODY, "#include \"pipe.h\" is refused: a name that is not a regular file");
    /* Through CUDA's include directory, out of it. */
    expect_refused("#include <cuda/../../../../../../../../etc/passwd>\n" BODY, "is refused: a name with '..'");
    /* Under #if 0 too: every directive counts. */
    expect_refused("#if 0\n#include \"/etc/passwd\"\n#endif\n" BODY, "user.cu:2: error: #include \"/etc/passwd\"");
}

/* What the include check cannot see, a computed include, NVRTC cannot open: Landlock. */
static void computed_includes_read_nothing(void **state)
{
    (void)state;
    const char *paths[] = {"/etc/passwd", "/proc/self/environ", "/proc/self/fd/0", "/dev/zero", NULL};
    for (const char *const *p = paths; *p; p++) {
        char text[512];
        snprintf(text, sizeof text, "#define Q(x) #x\n#define S(x) Q(x)\n#include S(%s)\n" BODY, *p);
        expect_refused(text, "cannot open source file");
        /* Existing or not, the same words: the reason NVRTC gives is cut. */
        assert_null(strstr(udfkit_last_error(), "Permission denied"));
    }
    char text[512];
    snprintf(text, sizeof text, "#define Q(x) #x\n#define S(x) Q(x)\n#include S(%s)\n" BODY, in_dir("secret.txt"));
    expect_refused(text, "cannot open source file");
    snprintf(text, sizeof text, "#define Q(x) #x\n#define S(x) Q(x)\n#include S(%s)\n" BODY, "/nonexistent/x.h");
    expect_refused(text, "cannot open source file");
}

/* __has_include says no for every file the text may not read, and yes for those it may. */
static void has_include_tells_nothing(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text,
             "#define Q(x) #x\n#define S(x) Q(x)\n"
             "#if __has_include(S(/etc/passwd)) || __has_include(S(/proc/self/environ)) || __has_include(S(%s))\n"
             "#error a path outside is said to exist\n#endif\n"
             "#if !__has_include(<helper.h>) || !__has_include(<cuda/std/optional>)\n"
             "#error an allowed header is said not to exist\n#endif\n" BODY,
             in_dir("secret.txt"));
    udfkit_status s = compile(text, 0, 0, NULL);
    if (s != UDFKIT_OK)
        fail_msg("%s: %s", udfkit_status_string(s), udfkit_last_error());
}

/* Allowed headers, CUDA's among them, work: a helper and a T? spec (cuda::std::optional). */
static void allowed_headers_compile(void **state)
{
    (void)state;
    assert_int_equal(compile("#include \"helper.h\"\n__device__ float f(float x) { return helper(x); }\n", 0, 0,
                             NULL),
                     UDFKIT_OK);
    char include[300];
    snprintf(include, sizeof include, "-I%s", in_dir("inc"));
    const char *options[] = {"--arch=80", include};
    const char *nullable[] = {"g:float32?(float32?)"};
    udfkit_compile_options copts = UDFKIT_COMPILE_OPTIONS_INIT;
    copts.untrusted = 1;
    udfkit_package *pkg = NULL;
    udfkit_status s = udfkit_compile_source_with(
        "user.cu", "#include <cuda/std/optional>\n__device__ cuda::std::optional<float> g(cuda::std::optional<float> x) "
                   "{ return x; }\n",
        nullable, 1, options, 2, &copts, &pkg);
    if (s != UDFKIT_OK)
        fail_msg("%s: %s", udfkit_status_string(s), udfkit_last_error());
    udfkit_package_close(pkg);
}

static const char template_bomb[] =
    "template <int N, int M> struct F { enum { v = F<N - 1, 2 * M>::v + F<N - 1, 2 * M + 1>::v }; };\n"
    "template <int M> struct F<0, M> { enum { v = 1 }; };\n"
    "__device__ float f(float x) { return x + F<40, 0>::v; }\n";

/* Each line doubles the expansion: 2^40 tokens. */
static char *macro_bomb(void)
{
    char *text = malloc(8192);
    size_t n = (size_t)sprintf(text, "#define M0 x +\n");
    for (int i = 1; i <= 40; i++)
        n += (size_t)sprintf(text + n, "#define M%d M%d M%d\n", i, i - 1, i - 1);
    sprintf(text + n, "__device__ float f(float x) { return M40 x; }\n");
    return text;
}

static void expect_stopped(udfkit_status s, double took, double limit, const char *needle)
{
    if (s != UDFKIT_ERROR_COMPILE || !strstr(udfkit_last_error(), needle))
        fail_msg("a compile error with '%s' expected, got %s: %s", needle, udfkit_status_string(s),
                 udfkit_last_error());
    if (took > limit + 5.0)
        fail_msg("stopped after %.1f s, where the limit was %.1f s", took, limit);
}

static void bombs_stop_at_the_time_limit(void **state)
{
    (void)state;
    double start = now();
    udfkit_status s = compile(template_bomb, 2.0, 0, NULL);
    expect_stopped(s, now() - start, 2.0, "stopped: it ran past its time limit of 2 s");
    char *macros = macro_bomb();
    start = now();
    s = compile(macros, 2.0, 0, NULL);
    free(macros);
    expect_stopped(s, now() - start, 2.0, "ran past its time limit of 2 s");
    /* A FIFO no one writes, reached where the include check cannot see it. */
    char text[512];
    snprintf(text, sizeof text, "#define Q(x) #x\n#define S(x) Q(x)\n#include S(%s)\n" BODY, in_dir("inc/pipe.h"));
    start = now();
    s = compile(text, 2.0, 0, NULL);
    expect_stopped(s, now() - start, 2.0, "ran past its time limit of 2 s");
}

static void bombs_stop_at_the_memory_limit(void **state)
{
    (void)state;
    double start = now();
    udfkit_status s = compile(template_bomb, 120.0, 512ull << 20, NULL);
    expect_stopped(s, now() - start, 120.0, "memory limit of 512 MiB");
}

typedef struct later {
    udfkit_cancel *token;
    double after;
} later;

static void *trigger_later(void *arg)
{
    later *l = arg;
    nanosleep(&(struct timespec){(time_t)l->after, (long)((l->after - (double)(time_t)l->after) * 1e9)}, NULL);
    udfkit_cancel_trigger(l->token);
    return NULL;
}

static void cancelled_from_another_thread(void **state)
{
    (void)state;
    udfkit_cancel *token = NULL;
    assert_int_equal(udfkit_cancel_create(&token), UDFKIT_OK);
    later l = {token, 0.5};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, trigger_later, &l), 0);
    double start = now();
    udfkit_status s = udfkit_compile_source_with("user.cu", template_bomb, spec, 1, arch80, 1,
                                                 &(udfkit_compile_options){UDFKIT_COMPILE_OPTIONS_VERSION, 1, 0, 0, token},
                                                 &(udfkit_package *){NULL});
    double took = now() - start;
    pthread_join(t, NULL);
    expect_stopped(s, took, 0.5, "stopped: it was cancelled");
    no_child_left();
    /* A token once triggered stops what starts later, at once. */
    start = now();
    udfkit_compile_options copts = UDFKIT_COMPILE_OPTIONS_INIT;
    copts.cancel = token;
    udfkit_package *pkg = (udfkit_package *)1;
    s = udfkit_compile_source_with("user.cu", "__device__ float f(float x) { return x - 7.0f; }\n", spec, 1, arch80,
                                   1, &copts, &pkg);
    expect_stopped(s, now() - start, 0.0, "it was cancelled");
    assert_null(pkg);
    udfkit_cancel_destroy(token);
    udfkit_cancel_destroy(NULL);
}

static size_t entries_found;

/* Counts the entries of compiled code: a trusted compile also stores the record of the headers
 * it read (an entry whose first part is "files", README "The cache"), which is not a result. */
static int count_entry(const char *file, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(file);
    if (type != FTW_F || n <= 6 || strcmp(file + n - 6, ".entry") != 0)
        return 0;
    char head[48] = {0};
    FILE *f = fopen(file, "rb");
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    entries_found += !(got >= 41 && memcmp(head + 36, "files", 5) == 0);
    return 0;
}

static size_t cache_entries(void)
{
    entries_found = 0;
    const char *cache = getenv("UDFKIT_CACHE_DIR");
    assert_non_null(cache);
    nftw(cache, count_entry, 16, FTW_PHYS);
    return entries_found;
}

/* The cache first, in this process: a cached untrusted compile needs no helper (it succeeds
 * with its token triggered, which stops any helper at once); trusted and untrusted compiles
 * of one text keep their results apart. */
static void cache_is_asked_first_and_kept_apart(void **state)
{
    (void)state;
    char text[128]; /* new to the cache at each run */
    snprintf(text, sizeof text, "__device__ float f(float x) { return x * %d.0f + %ld.0f; }\n", (int)getpid(),
             (long)time(NULL));
    udfkit_cancel *token = NULL;
    assert_int_equal(udfkit_cancel_create(&token), UDFKIT_OK);
    udfkit_compile_options copts = UDFKIT_COMPILE_OPTIONS_INIT;
    copts.untrusted = 1;
    copts.cancel = token;
    udfkit_package *a = NULL, *b = NULL, *c = NULL;
    assert_int_equal(udfkit_compile_source_with("user.cu", text, spec, 1, arch80, 1, &copts, &a), UDFKIT_OK);
    size_t entries = cache_entries();
    udfkit_cancel_trigger(token);
    double start = now();
    udfkit_status s = udfkit_compile_source_with("user.cu", text, spec, 1, arch80, 1, &copts, &b);
    double cached = now() - start;
    if (s != UDFKIT_OK)
        fail_msg("a cached compile ran a helper: %s", udfkit_last_error());
    assert_int_equal(cache_entries(), entries);
    const char *name, *sig;
    assert_int_equal(udfkit_package_function(b, 0, &name, &sig), UDFKIT_OK);
    assert_string_equal(name, "f");
    print_message("untrusted compile from the cache: %.2f ms\n", cached * 1e3);
    assert_int_equal(udfkit_compile_source("user.cu", text, spec, 1, arch80, 1, &c), UDFKIT_OK);
    assert_int_equal(cache_entries(), entries + 1);
    udfkit_package_close(a);
    udfkit_package_close(b);
    udfkit_package_close(c);
    udfkit_cancel_destroy(token);
}

static void options_are_checked(void **state)
{
    (void)state;
    udfkit_package *pkg = (udfkit_package *)1;
    udfkit_compile_options copts = UDFKIT_COMPILE_OPTIONS_INIT;
    copts.version = 99;
    assert_int_equal(udfkit_compile_source_with("u.cu", BODY, spec, 1, arch80, 1, &copts, &pkg),
                     UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(udfkit_last_error(), "version 99"));
    assert_null(pkg);
    copts = (udfkit_compile_options)UDFKIT_COMPILE_OPTIONS_INIT;
    copts.memory_limit = 1 << 20;
    assert_int_equal(udfkit_compile_source_with("u.cu", BODY, spec, 1, arch80, 1, &copts, &pkg),
                     UDFKIT_ERROR_INVALID_ARGUMENT);
    copts = (udfkit_compile_options)UDFKIT_COMPILE_OPTIONS_INIT;
    copts.time_limit = -1;
    assert_int_equal(udfkit_compile_source_with("u.cu", BODY, spec, 1, arch80, 1, &copts, &pkg),
                     UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(udfkit_cancel_create(NULL), UDFKIT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(udfkit_package_set_options(NULL, NULL), UDFKIT_ERROR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(includes_of_the_servers_files_are_refused),
        cmocka_unit_test(computed_includes_read_nothing),
        cmocka_unit_test(has_include_tells_nothing),
        cmocka_unit_test(allowed_headers_compile),
        cmocka_unit_test(bombs_stop_at_the_time_limit),
        cmocka_unit_test(bombs_stop_at_the_memory_limit),
        cmocka_unit_test(cancelled_from_another_thread),
        cmocka_unit_test(cache_is_asked_first_and_kept_apart),
        cmocka_unit_test(options_are_checked),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
