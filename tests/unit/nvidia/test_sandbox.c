/* The sandbox helper (nvidia/sandbox.h): its messages read as untrusted input, an NVRTC
 * compile and an nvJitLink link run in it (confined, reading no file for the link), a
 * damaged link refused there without touching this process's memory, and a cancel. */
#include "base/buf.h"
#include "base/diag.h"
#include "nvidia/nvjitlink_wrap.h"
#include "nvidia/nvrtc_wrap.h"
#include "nvidia/sandbox.h"
#include "nvidia/sandbox_wire.h"

#include <errno.h>
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

static void wire_reads_only_whole_records(void **state)
{
    (void)state;
    udfkit_buf b = UDFKIT_BUF_INIT;
    udfkit_buf_append(&b, UDFKIT_WIRE_ANSWER, 8);
    assert_true(udfkit_wire_put_str(&b, UDFKIT_WIRE_LOG, "a log"));
    assert_true(udfkit_wire_put_u32(&b, UDFKIT_WIRE_RC, 7));
    udfkit_wire_reader r = udfkit_wire_read(b.data, b.size, UDFKIT_WIRE_ANSWER);
    char tag;
    const unsigned char *data;
    size_t size;
    uint32_t v = 0;
    assert_true(udfkit_wire_next(&r, &tag, &data, &size));
    assert_int_equal(tag, UDFKIT_WIRE_LOG);
    assert_int_equal(size, 5);
    assert_memory_equal(data, "a log", 5);
    assert_true(udfkit_wire_next(&r, &tag, &data, &size));
    assert_true(udfkit_wire_u32(data, size, &v));
    assert_int_equal(v, 7);
    assert_false(udfkit_wire_next(&r, &tag, &data, &size));
    assert_false(r.bad);
    /* Cut short, a length past the end, the wrong magic: bad, and nothing read past it. */
    for (size_t cut = 9; cut < b.size; cut += 3) {
        r = udfkit_wire_read(b.data, cut, UDFKIT_WIRE_ANSWER);
        while (udfkit_wire_next(&r, &tag, &data, &size))
            assert_true(data + size <= (const unsigned char *)b.data + cut);
    }
    memset(b.data + 9, 0xff, 8);
    r = udfkit_wire_read(b.data, b.size, UDFKIT_WIRE_ANSWER);
    assert_false(udfkit_wire_next(&r, &tag, &data, &size));
    assert_true(r.bad);
    r = udfkit_wire_read(b.data, b.size, UDFKIT_WIRE_REQUEST);
    assert_true(r.bad);
    assert_false(udfkit_wire_u32(data, 3, &v));
    udfkit_buf_free(&b);
}

static void no_child_left(void)
{
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static udfkit_buf ltoir = UDFKIT_BUF_INIT;

static void compiles_in_the_sandbox(void **state)
{
    (void)state;
    assert_non_null(udfkit_sandbox_helper());
    const char *options[] = {"-arch=compute_80", "-dlto", "-rdc=true"};
    udfkit_nvrtc_job job = {"extern \"C\" __device__ float twice(float x) { return 2 * x; }\n"
                            "extern \"C\" __global__ void k(float *p) { *p = twice(*p); }\n",
                            "k.cu", options, 3, NULL, NULL, 0, UDFKIT_CODE_LTOIR};
    /* NVRTC is found as the tool finds it: loaded here first. */
    int major, minor, *archs = NULL;
    size_t n = 0;
    assert_int_equal(udfkit_nvrtc_query(&major, &minor, &archs, &n), UDFKIT_RC_OK);
    free(archs);
    udfkit_sandbox sb = {.confine = true};
    udfkit_buf log = UDFKIT_BUF_INIT;
    udfkit_rc rc = udfkit_sandbox_nvrtc(&sb, &job, &ltoir, &log);
    if (rc)
        fail_msg("%s %s", udfkit_diag_message(), log.data ? log.data : "");
    assert_memory_equal(ltoir.data, "\xed\x43\x4e\x7f", 4);
    udfkit_buf_free(&log);
    no_child_left();
}

static const char *nvjitlink(void)
{
    const char *path = getenv("UDFKIT_TEST_NVJITLINK");
    assert_non_null(path);
    return path;
}

static void links_in_the_sandbox_reading_no_file(void **state)
{
    (void)state;
    const char *options[] = {"-arch=sm_80", "-lto"};
    udfkit_link_input in = {UDFKIT_INPUT_LTOIR, ltoir.data, ltoir.size, "k"};
    udfkit_sandbox sb = {.confine = true}; /* no roots: no file at all */
    udfkit_buf cubin = UDFKIT_BUF_INIT, log = UDFKIT_BUF_INIT;
    udfkit_rc rc = udfkit_sandbox_jitlink(&sb, nvjitlink(), options, 2, &in, 1, false, &cubin, &log);
    if (rc)
        fail_msg("%s %s", udfkit_diag_message(), log.data ? log.data : "");
    assert_memory_equal(cubin.data, "\x7f" "ELF", 4);
    udfkit_buf_free(&cubin);
    udfkit_buf_free(&log);
    no_child_left();
}

/* This process's resident memory, in KiB. */
static long resident_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    assert_int_equal(fscanf(f, "%ld %ld", &pages, &rss), 2);
    fclose(f);
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* LTO-IR whose header is right and whose IR is not: nvJitLink refuses it, in the helper, and
 * whatever it keeps of the refused link goes with the helper. */
static void damaged_links_cost_this_process_nothing(void **state)
{
    (void)state;
    udfkit_buf damaged = UDFKIT_BUF_INIT;
    udfkit_buf_append(&damaged, ltoir.data, ltoir.size);
    for (size_t i = 64; i < damaged.size; i += 7)
        damaged.data[i] ^= 0x5a;
    const char *options[] = {"-arch=sm_80", "-lto"};
    udfkit_link_input in = {UDFKIT_INPUT_LTOIR, damaged.data, damaged.size, "k"};
    udfkit_sandbox sb = {.confine = true, .memory = 2ull << 30};
    long before = 0;
    for (int i = 0; i < 6; i++) {
        udfkit_buf cubin = UDFKIT_BUF_INIT, log = UDFKIT_BUF_INIT;
        udfkit_rc rc = udfkit_sandbox_jitlink(&sb, nvjitlink(), options, 2, &in, 1, false, &cubin, &log);
        assert_int_equal(rc, UDFKIT_RC_INPUT);
        assert_true(log.size > 0 || strstr(udfkit_diag_message(), "stopped"));
        udfkit_buf_free(&cubin);
        udfkit_buf_free(&log);
        udfkit_diag_clear();
        if (i == 0)
            before = resident_kib();
    }
    long sandboxed = resident_kib() - before;
    /* The same links in a process of their own, as they would run in the caller's, for
     * comparison: what nvJitLink keeps of each refusal (printed; it depends on the input, 1 to
     * 6 MB for larger damaged packages). That child leaves by _exit: LeakSanitizer would
     * report nvJitLink's memory, which is the point. */
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        long grown = 0, start = 0;
        for (int i = 0; i < 6; i++) {
            udfkit_buf cubin = UDFKIT_BUF_INIT, log = UDFKIT_BUF_INIT;
            if (udfkit_jitlink_run(options, 2, &in, 1, false, &cubin, &log) != UDFKIT_RC_INPUT)
                _exit(1);
            udfkit_buf_free(&cubin);
            udfkit_buf_free(&log);
            if (i == 0)
                start = resident_kib();
        }
        grown = resident_kib() - start;
        _exit(write(pipefd[1], &grown, sizeof grown) == sizeof grown ? 0 : 1);
    }
    close(pipefd[1]);
    long in_process = -1;
    assert_int_equal(read(pipefd[0], &in_process, sizeof in_process), sizeof in_process);
    close(pipefd[0]);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    print_message("5 refused links: this process grew by %ld KiB with nvJitLink in the sandbox; a process running "
                  "them itself, by %ld KiB\n",
                  sandboxed, in_process);
    assert_true(sandboxed < 1024);
    udfkit_buf_free(&damaged);
    no_child_left();
}

static void a_cancel_stops_it(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], "x", 1), 1);
    const char *options[] = {"-arch=sm_80", "-lto"};
    udfkit_link_input in = {UDFKIT_INPUT_LTOIR, ltoir.data, ltoir.size, "k"};
    udfkit_sandbox sb = {.cancel_fds = fds, .ncancel = 1};
    udfkit_buf cubin = UDFKIT_BUF_INIT, log = UDFKIT_BUF_INIT;
    assert_int_equal(udfkit_sandbox_jitlink(&sb, nvjitlink(), options, 2, &in, 1, false, &cubin, &log),
                     UDFKIT_RC_INPUT);
    assert_non_null(strstr(udfkit_diag_message(), "stopped: it was cancelled"));
    assert_int_equal(cubin.size, 0);
    udfkit_buf_free(&cubin);
    udfkit_buf_free(&log);
    udfkit_diag_clear();
    close(fds[0]);
    close(fds[1]);
    no_child_left();
}

static int teardown(void **state)
{
    (void)state;
    udfkit_buf_free(&ltoir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wire_reads_only_whole_records),
        cmocka_unit_test(compiles_in_the_sandbox),
        cmocka_unit_test(links_in_the_sandbox_reading_no_file),
        cmocka_unit_test(damaged_links_cost_this_process_nothing),
        cmocka_unit_test(a_cancel_stops_it),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
