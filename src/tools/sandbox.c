/* udfkit-sandbox: runs one NVRTC compile or nvJitLink link for udfkit (nvidia/sandbox.h),
 * confined. udfkit starts it with posix_spawn, an empty environment and a socket as its
 * standard input, and sends the job on that socket; the answer goes back on it.
 *
 *   udfkit-sandbox --memory BYTES --cpu-seconds N     (0: no limit)
 *
 * In order: die with the thread that started it; close every other descriptor; limit its
 * address space and CPU time, no core file; read the job; load the library the job names
 * and what it loads later (NVRTC's builtin headers' library; the time zone is read);
 * where the job asks, confine reads to its roots with Landlock (every other file access,
 * and TCP and abstract sockets and signals to other processes where the kernel offers
 * them, refused) and refuse new programs, sockets and tracing with seccomp; then run the
 * job and answer. A kernel without Landlock makes a confined job an environment error:
 * never a job run unconfined. */
#define _GNU_SOURCE
#include "base/buf.h"
#include "base/diag.h"
#include "nvidia/nvjitlink_wrap.h"
#include "nvidia/nvrtc_wrap.h"
#include "nvidia/sandbox_wire.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_REQUEST (2ull << 30)
#define MAX_LIST 4096

typedef struct job {
    const char *kind, *library;
    const char *roots[MAX_LIST];
    size_t nroots;
    bool confine;
    const char *name, *source;
    const char *options[MAX_LIST];
    size_t noptions;
    const char *headers[2 * MAX_LIST]; /* name, text, name, text, ... */
    size_t nheaders;
    uint32_t code_kind;
    udfkit_link_input inputs[MAX_LIST];
    size_t ninputs;
} job;

/* ---- the process ---- */

static void close_other_descriptors(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 ? max : 65536); fd++)
        close((int)fd);
}

static void limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit r = {soft, hard};
    setrlimit(resource, &r);
}

static void limit_self(unsigned long long memory, unsigned long long cpu)
{
    limit(RLIMIT_CORE, 0, 0);
    if (memory)
        limit(RLIMIT_AS, (rlim_t)memory, (rlim_t)memory);
    if (cpu)
        limit(RLIMIT_CPU, (rlim_t)cpu, (rlim_t)cpu + 1);
}

static bool read_all(int fd, udfkit_buf *out)
{
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n == 0)
            return true;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || out->size + (size_t)n > MAX_REQUEST || !udfkit_buf_append(out, chunk, (size_t)n))
            return false;
    }
}

static void write_all(int fd, const udfkit_buf *b)
{
    for (size_t at = 0; at < b->size;) {
        ssize_t n = write(fd, b->data + at, b->size - at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        at += (size_t)n;
    }
}

/* A record's bytes as a string: the request is read into a buffer kept for the whole run,
 * and each string copied out once. */
static const char *text(const unsigned char *data, size_t size)
{
    return strndup((const char *)data, size);
}

static bool parse(const udfkit_buf *request, job *j)
{
    udfkit_wire_reader r = udfkit_wire_read(request->data, request->size, UDFKIT_WIRE_REQUEST);
    char tag;
    const unsigned char *data;
    size_t size;
    uint32_t kind;
    while (udfkit_wire_next(&r, &tag, &data, &size)) {
        if (tag == UDFKIT_WIRE_JOB)
            j->kind = text(data, size);
        else if (tag == UDFKIT_WIRE_LIBRARY)
            j->library = text(data, size);
        else if (tag == UDFKIT_WIRE_CONFINE)
            j->confine = true;
        else if (tag == UDFKIT_WIRE_ROOT && j->nroots < MAX_LIST)
            j->roots[j->nroots++] = text(data, size);
        else if (tag == UDFKIT_WIRE_NAME)
            j->name = text(data, size);
        else if (tag == UDFKIT_WIRE_SOURCE)
            j->source = text(data, size);
        else if (tag == UDFKIT_WIRE_OPTION && j->noptions < MAX_LIST)
            j->options[j->noptions++] = text(data, size);
        else if (tag == UDFKIT_WIRE_HEADER && j->nheaders < 2 * MAX_LIST)
            j->headers[j->nheaders++] = text(data, size);
        else if (tag == UDFKIT_WIRE_KIND && !udfkit_wire_u32(data, size, &j->code_kind))
            return false;
        else if (tag == UDFKIT_WIRE_INPUT && j->ninputs < MAX_LIST) {
            if (size < 4 || !udfkit_wire_u32(data, 4, &kind))
                return false;
            char name[32];
            snprintf(name, sizeof name, "part%zu", j->ninputs);
            j->inputs[j->ninputs++] = (udfkit_link_input){(udfkit_input_kind)kind, data + 4, size - 4, strdup(name)};
        }
    }
    return !r.bad && j->kind && j->library && j->nheaders % 2 == 0;
}

/* ---- confinement ---- */

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

/* Landlock's ruleset, as the newest ABI lays it out (older kernels are given a prefix). */
struct ruleset {
    uint64_t handled_access_fs, handled_access_net, scoped;
};

/* Every file access right each ABI knows: execute, write, read, read a directory, remove,
 * make each kind of file (1), refer (2), truncate (3), device ioctls (5). */
static uint64_t fs_rights(int abi)
{
    uint64_t rights = (1ull << 13) - 1;
    if (abi >= 2)
        rights |= 1ull << 13;
    if (abi >= 3)
        rights |= 1ull << 14;
    if (abi >= 5)
        rights |= 1ull << 15;
    return rights;
}

static const char *landlock(const job *j, char *why, size_t why_size)
{
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        snprintf(why, why_size,
                 "this kernel cannot confine the compile (Landlock is %s): untrusted code is compiled only where "
                 "Linux 5.13 or newer has Landlock enabled",
                 errno == EOPNOTSUPP ? "disabled at boot" : "missing");
        return why;
    }
    struct ruleset attr = {fs_rights((int)abi), abi >= 4 ? 3u : 0u, abi >= 6 ? 3u : 0u};
    size_t attr_size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    int rs = (int)syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0);
    if (rs < 0) {
        snprintf(why, why_size, "Landlock refused the ruleset: %s", strerror(errno));
        return why;
    }
    for (size_t i = 0; i < j->nroots; i++) {
        int fd = open(j->roots[i], O_PATH | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) {
            if (fd >= 0)
                close(fd);
            continue; /* a root that does not exist holds nothing to read */
        }
        /* Reading files (and listing directories) below the root, nothing else. */
        struct landlock_path_beneath_attr rule = {(1ull << 2) | (S_ISDIR(st.st_mode) ? 1ull << 3 : 0), fd};
        long added = syscall(__NR_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
        close(fd);
        if (added != 0) {
            snprintf(why, why_size, "Landlock refused the rule for %s: %s", j->roots[i], strerror(errno));
            close(rs);
            return why;
        }
    }
    long done = syscall(__NR_landlock_restrict_self, rs, 0);
    close(rs);
    if (done != 0) {
        snprintf(why, why_size, "Landlock could not confine the compile: %s", strerror(errno));
        return why;
    }
    return NULL;
}

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH AUDIT_ARCH_AARCH64
#endif

/* Refused with EPERM: new programs, new sockets, tracing and reading other processes,
 * namespaces and mounts, kernel objects a compiler has no use for. */
static const long refused[] = {
    __NR_execve, __NR_execveat, __NR_socket, __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
    __NR_unshare, __NR_setns, __NR_mount, __NR_umount2, __NR_pivot_root, __NR_bpf, __NR_perf_event_open,
    __NR_userfaultfd, __NR_keyctl, __NR_add_key, __NR_request_key, __NR_open_by_handle_at, __NR_kexec_load,
    __NR_init_module, __NR_finit_module, __NR_delete_module,
#ifdef __NR_io_uring_setup
    __NR_io_uring_setup,
#endif
};

static const char *seccomp(char *why, size_t why_size)
{
#ifdef THIS_ARCH
    enum { N = sizeof refused / sizeof *refused };
    struct sock_filter filter[4 + 2 * N + 1];
    size_t k = 0;
    filter[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    filter[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 1, 0);
    filter[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    filter[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (size_t i = 0; i < N; i++) {
        filter[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)refused[i], 0, 1);
        filter[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    }
    filter[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = {(unsigned short)k, filter};
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
        snprintf(why, why_size, "seccomp could not confine the compile: %s", strerror(errno));
        return why;
    }
#else
    (void)why;
    (void)why_size;
#endif
    return NULL;
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

/* Landlock confines the calling thread (and the threads it starts): the warm-up must have
 * left no other thread behind. */
static const char *confine(const job *j, char *why, size_t why_size)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(why, why_size, "the sandbox cannot drop privileges: %s", strerror(errno));
        return why;
    }
    size_t n = threads();
    if (j->confine && n != 1) {
        snprintf(why, why_size, "the sandbox cannot confine a process of %zu threads", n);
        return why;
    }
    if (j->confine && landlock(j, why, why_size))
        return why;
    return seccomp(why, why_size);
}

/* ---- the jobs ---- */

/* NVRTC loaded, and what it loads on its first compile (its builtins' library, found beside
 * it) loaded too, without compiling: a compile may leave a thread of NVRTC's behind (the
 * CUDA toolkit's NVRTC does), and Landlock confines only the thread that asks and those it
 * starts later. The time zone is read now (NVRTC's __DATE__ and __TIME__). */
static udfkit_rc warm_up(const job *j)
{
    tzset();
    if (strcmp(j->kind, "nvrtc") == 0) {
        setenv("UDFKIT_NVRTC_LIBRARY", j->library, 1);
        int major, minor, *archs = NULL;
        size_t count = 0;
        udfkit_rc rc = udfkit_nvrtc_query(&major, &minor, &archs, &count);
        free(archs);
        if (rc)
            return rc;
        char builtins[4096];
        const char *slash = strrchr(j->library, '/');
        int dir = slash ? (int)(slash - j->library) : 0;
        const char *names[] = {"libnvrtc-builtins.so.%d.%d", "libnvrtc-builtins.so.%d", "libnvrtc-builtins.so"};
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            char name[64];
            snprintf(name, sizeof name, names[i], major, minor);
            snprintf(builtins, sizeof builtins, "%.*s%s%s", dir, j->library, slash ? "/" : "", name);
            if (dlopen(builtins, RTLD_NOW | RTLD_GLOBAL))
                break;
        }
        return UDFKIT_RC_OK;
    }
    setenv("UDFKIT_NVJITLINK_LIBRARY", j->library, 1);
    int major, minor;
    return udfkit_jitlink_version(&major, &minor);
}

static udfkit_rc run_job(const job *j, udfkit_buf *code, udfkit_buf *log)
{
    if (strcmp(j->kind, "nvrtc") == 0) {
        const char *names[MAX_LIST], *texts[MAX_LIST];
        for (size_t i = 0; i < j->nheaders / 2; i++) {
            names[i] = j->headers[2 * i];
            texts[i] = j->headers[2 * i + 1];
        }
        udfkit_nvrtc_job nj = {j->source ? j->source : "", j->name ? j->name : "udf.cu", j->options, j->noptions,
                               texts, names, j->nheaders / 2, (udfkit_code_kind)j->code_kind};
        return udfkit_nvrtc_compile(&nj, code, log);
    }
    return udfkit_jitlink_run(j->options, j->noptions, j->inputs, j->ninputs, j->code_kind != 0, code, log);
}

static void answer(udfkit_rc rc, const udfkit_buf *code, const udfkit_buf *log, const char *message)
{
    udfkit_buf out = UDFKIT_BUF_INIT;
    udfkit_buf_append(&out, UDFKIT_WIRE_ANSWER, 8);
    if (code && code->size)
        udfkit_wire_put(&out, UDFKIT_WIRE_CODE, code->data, code->size);
    if (log && log->size)
        udfkit_wire_put(&out, UDFKIT_WIRE_LOG, log->data, log->size);
    if (rc && message && *message)
        udfkit_wire_put_str(&out, UDFKIT_WIRE_MESSAGE, message);
    udfkit_wire_put_u32(&out, UDFKIT_WIRE_RC, (uint32_t)rc);
    write_all(STDIN_FILENO, &out);
    udfkit_buf_free(&out);
}

/* The message without the "udfkit: error: " that udfkit_fail put before it. */
static const char *message(void)
{
    const char *m = udfkit_diag_message();
    return strncmp(m, "udfkit: error: ", 15) == 0 ? m + 15 : m;
}

int main(int argc, char **argv)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        return 1; /* the process that started it is gone already */
    close_other_descriptors();
    unsigned long long memory = 0, cpu = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--memory") == 0)
            memory = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--cpu-seconds") == 0)
            cpu = strtoull(argv[i + 1], NULL, 10);
    }
    limit_self(memory, cpu);
    udfkit_buf request = UDFKIT_BUF_INIT, code = UDFKIT_BUF_INIT, log = UDFKIT_BUF_INIT;
    static job j;
    if (!read_all(STDIN_FILENO, &request) || !parse(&request, &j)) {
        answer(UDFKIT_RC_ENV, NULL, NULL,
               "the sandbox helper cannot read the job: it is of another udfkit version than the caller");
        return 1;
    }
    char why[512];
    udfkit_rc rc = warm_up(&j);
    if (rc) {
        answer(rc, NULL, NULL, message());
        return 1;
    }
    if (confine(&j, why, sizeof why)) {
        answer(UDFKIT_RC_ENV, NULL, NULL, why);
        return 1;
    }
    rc = run_job(&j, &code, &log);
    answer(rc, &code, &log, message());
    return 0;
}
