/* What the harnesses share: a private scratch directory for harnesses whose parser reads
 * files, removed when the fuzzer exits (or, after a crash, by the next harness to start),
 * and the input as a NUL-terminated string. */
#ifndef UDFKIT_FUZZ_COMMON_H
#define UDFKIT_FUZZ_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char fuzz_dir[64];

static inline int fuzz_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes `path` and everything under it (links are removed, never followed). */
static inline void fuzz_remove_tree(const char *path)
{
    nftw(path, fuzz_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void fuzz_remove_dir(void)
{
    if (fuzz_dir[0])
        fuzz_remove_tree(fuzz_dir);
}

/* Removes the scratch directories of harness processes that are gone: a crashed run leaves
 * its own (the sanitizer ends the process without atexit handlers). Names carry the pid. */
static inline void fuzz_sweep_stale(void)
{
    DIR *d = opendir("/tmp");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        long pid = 0;
        int end = 0;
        if (sscanf(e->d_name, "udfkit-fuzz-%ld-%*6[A-Za-z0-9]%n", &pid, &end) != 1 || end == 0 ||
            e->d_name[end] != '\0' || pid <= 0)
            continue;
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
            char path[4096];
            snprintf(path, sizeof path, "/tmp/%s", e->d_name);
            fuzz_remove_tree(path);
        }
    }
    if (d)
        closedir(d);
}

/* Makes the scratch directory once, /tmp/udfkit-fuzz-<pid>-XXXXXX; its path is fuzz_dir.
 * It is removed when the fuzzer exits, or by the next harness to start after a crash. */
static inline void fuzz_make_dir(void)
{
    fuzz_sweep_stale();
    snprintf(fuzz_dir, sizeof fuzz_dir, "/tmp/udfkit-fuzz-%ld-XXXXXX", (long)getpid());
    if (!mkdtemp(fuzz_dir))
        abort();
    atexit(fuzz_remove_dir);
}

/* Writes bytes to `name` inside the scratch directory; returns the path (static buffer). */
static inline const char *fuzz_write(const char *name, const void *data, size_t size)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    return path;
}

/* The input as a string (malloc'd, NUL-terminated; inner NULs end it early, as in C). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Reads every byte, so that ASan checks the whole range a parser handed back. */
static inline void fuzz_touch(const void *p, size_t n)
{
    volatile unsigned char sum = 0;
    for (size_t i = 0; i < n; i++)
        sum = (unsigned char)(sum + ((const unsigned char *)p)[i]);
    (void)sum;
}

#endif
