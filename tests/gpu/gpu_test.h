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

#endif
