/* Helpers shared by the GPU test programs that run generated launchers: a failure count, the
 * status check that reports a failed call, a deterministic random source, and device copies.
 * Each program includes it once. */
#ifndef UDFKIT_GPU_TEST_H
#define UDFKIT_GPU_TEST_H

#include <udfkit/runtime.h>

#include <stdint.h>
#include <stdio.h>

static int failures;

/* Counts and reports a call that did not give UDFKIT_OK; returns whether it failed. */
static int check(udfkit_status s, const char *what)
{
    if (s != UDFKIT_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, udfkit_status_string(s), udfkit_last_error());
        failures++;
        return 1;
    }
    return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

/* xorshift64: the same inputs in every run. */
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Device memory of `bytes` (at least 1), filled from `host` where it is not NULL. */
static void *device_copy(const void *host, size_t bytes)
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

#endif
