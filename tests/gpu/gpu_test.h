/* Helpers shared by the GPU test programs: the pass and failure counts, CHECK (a condition)
 * and check (a status) that report a failure, a deterministic random source, and copies to
 * and from the device. Each program includes it once; the counts may be updated from several
 * threads. */
#ifndef UDFKIT_GPU_TEST_H
#define UDFKIT_GPU_TEST_H

#include <udfkit/runtime.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures, passes;
static pthread_mutex_t gpu_test_lock = PTHREAD_MUTEX_INITIALIZER;

/* Counts cond as a pass or a failure; a failure is reported with its place, the message
 * (printf arguments) and the runtime's last error. */
#define CHECK(cond, ...)                                                                                   \
    do {                                                                                                   \
        const int check_ok_ = (cond);                                                                      \
        pthread_mutex_lock(&gpu_test_lock);                                                                \
        if (check_ok_) {                                                                                   \
            passes++;                                                                                      \
        } else {                                                                                           \
            failures++;                                                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                           \
            fprintf(stderr, __VA_ARGS__);                                                                  \
            fprintf(stderr, " (last error: %s)\n", udfkit_last_error());                                  \
        }                                                                                                  \
        pthread_mutex_unlock(&gpu_test_lock);                                                              \
    } while (0)

/* Counts and reports a call that did not give UDFKIT_OK; returns whether it failed. */
static inline int check(udfkit_status s, const char *what)
{
    pthread_mutex_lock(&gpu_test_lock);
    if (s != UDFKIT_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, udfkit_status_string(s), udfkit_last_error());
        failures++;
    } else {
        passes++;
    }
    pthread_mutex_unlock(&gpu_test_lock);
    return s != UDFKIT_OK;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

/* xorshift64: the same inputs in every run. */
static inline uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Device memory of `bytes` (at least 1), filled from `host` where it is not NULL. */
static inline void *device_copy(const void *host, size_t bytes)
{
    void *d = NULL;
    if (check(udfkit_device_alloc(bytes ? bytes : 1, &d), "udfkit_device_alloc"))
        return NULL;
    if (host && bytes && check(udfkit_copy_to_device(d, host, bytes), "udfkit_copy_to_device")) {
        udfkit_device_free(d);
        return NULL;
    }
    return d;
}

/* A host copy of `bytes` of device memory (at least 1 byte, zeroed where nothing is copied);
 * the caller frees it. Not inline: as its callers had it. */
__attribute__((unused)) static void *host_copy(const void *device, size_t bytes)
{
    void *h = calloc(bytes ? bytes : 1, 1);
    if (bytes)
        check(udfkit_copy_to_host(h, device, bytes), "udfkit_copy_to_host");
    return h;
}

/* The bytes of dir/name (malloc'd, at least 1 byte), NULL where it cannot be read. */
__attribute__((unused)) static void *read_dir_file(const char *dir, const char *name, size_t *size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    void *data = malloc(*size ? *size : 1);
    if (fread(data, 1, *size, f) != *size) {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

/* A directory of cases made at build time (the Python UDF tests): skip.txt where the cases could
 * not be made (exit 77, saying why), `fatbin` loaded (77 without a GPU), cases.txt opened.
 * Returns -1 with *image, *lib and *cases set, else the exit status to end with. */
__attribute__((unused)) static int open_cases(const char *dir, const char *fatbin, void **image, udfkit_library **lib,
                                              FILE **cases)
{
    size_t image_size, skip_size;
    char *skip = read_dir_file(dir, "skip.txt", &skip_size);
    if (skip) {
        printf("skipped: %.*s", (int)skip_size, skip);
        free(skip);
        return 77;
    }
    *image = read_dir_file(dir, fatbin, &image_size);
    if (!*image) {
        fprintf(stderr, "%s/%s cannot be read\n", dir, fatbin);
        return 1;
    }
    udfkit_status s = udfkit_library_load(*image, image_size, lib);
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        free(*image);
        return 77;
    }
    char what[256];
    snprintf(what, sizeof what, "loading %s", fatbin);
    if (check(s, what))
        return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/cases.txt", dir);
    *cases = fopen(path, "r");
    if (!*cases) {
        fprintf(stderr, "%s cannot be read\n", path);
        return 1;
    }
    return -1;
}

#endif
