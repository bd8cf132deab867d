/* What the harnesses share: a private scratch directory for harnesses whose parser reads
 * files, removed when the fuzzer exits, and the input as a NUL-terminated string. */
#ifndef UDFKIT_FUZZ_COMMON_H
#define UDFKIT_FUZZ_COMMON_H

#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static inline void fuzz_remove_dir(void)
{
    if (fuzz_dir[0])
        nftw(fuzz_dir, fuzz_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Makes the scratch directory once; its path is fuzz_dir. */
static inline void fuzz_make_dir(void)
{
    snprintf(fuzz_dir, sizeof fuzz_dir, "/tmp/udfkit-fuzz-XXXXXX");
    if (!mkdtemp(fuzz_dir))
        abort();
    atexit(fuzz_remove_dir);
}

/* Empties the scratch directory, keeping it. */
static inline void fuzz_clear_dir(void)
{
    fuzz_remove_dir();
    if (mkdir(fuzz_dir, 0700) != 0)
        abort();
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
