/* Every launcher of the test libraries (tests/CMakeLists.txt: nk, gk, sk, dk, tpl, and lcs,
 * a SLOTS library) against docs/security.md's rules for launcher arguments: each bad argument
 * (n past the launcher's limit, a NULL, a misaligned or a wrapping column, a bitmap or string
 * column whose offset wraps, an unknown string layout) is UDFKIT_ERROR_INVALID_ARGUMENT with a
 * message "<launcher>: <parameter> ...", and the arguments the rules allow (n = 0 with every
 * pointer that may be NULL NULL; optional pointers NULL) pass the checks.
 *
 * Built twice. LC_GPU 0 (unit-launcher_checks, no GPU needed): dlopen is wrapped
 * (-Wl,--wrap=dlopen) so that libcuda is never loaded, and no bad call may have asked for it:
 * every check fires before the launcher touches the driver; an allowed call does reach it
 * (UDFKIT_ERROR_NO_DRIVER; a SLOTS launcher's "no instance"). LC_GPU 1 (gpu-launcher-checks):
 * every pointer is device memory; after each call the context must still run
 * tpl_map_inc8 right, an allowed call must succeed, and where n = 0 each result written also
 * then (count, runs, a reduction's out, string results' first offset) holds 0. */
#include "launcher_checks.h"
#if LC_GPU
#include "tpl.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, passes;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (cond) {                                                                        \
            passes++;                                                                      \
        } else {                                                                           \
            failures++;                                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                           \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, " (last error: %s)\n", udfkit_last_error());                  \
        }                                                                                  \
    } while (0)

/* Each pointer parameter j points at region j, a string column's characters at region
 * LC_MAX_PARAMS + j: 64 KiB each, room for 1000 rows of 16 bytes and their offsets. */
#define REGION ((size_t)64 << 10)
#define REGIONS (2 * LC_MAX_PARAMS)
static char *regions; /* device memory (LC_GPU), else host memory no launcher reads */

#if LC_GPU
static char *host; /* the regions' bytes, copied to and from the device */
#else
/* libcuda must never be asked for: a bad call may not reach the driver at all. */
static int driver_asked;
void *__real_dlopen(const char *file, int flags);
void *__wrap_dlopen(const char *file, int flags)
{
    if (file && strstr(file, "libcuda")) {
        driver_asked++;
        return NULL;
    }
    return __real_dlopen(file, flags);
}
/* The fatbin of lcs, which is never bound here. */
const unsigned char lcs_fatbin[1];
const size_t lcs_fatbin_size = 0;
const char lcs_fatbin_hash[] = "0";
#endif

static void *region(size_t j)
{
    return regions + j * REGION;
}

/* Valid arguments for n rows: every column in its region, every bitmap and string column
 * there too (utf8, from row 0). */
static lc_args valid_args(const lc_launcher *l, uint64_t n)
{
    lc_args a;
    memset(&a, 0, sizeof a);
    a.n = n;
    for (size_t j = 0; j < l->nparams; j++) {
        a.p[j] = region(j);
        a.m[j] = (udfkit_mask){(const uint8_t *)region(j), 0};
        a.str[j] = (udfkit_strings){UDFKIT_STRINGS_UTF8, region(j), (const char *)region(LC_MAX_PARAMS + j), NULL, 0};
    }
    return a;
}

/* An address of `size`-byte elements with room for 2 of them before the end of the address space. */
static void *near_top(size_t size)
{
    return (void *)((UINTPTR_MAX - 2 * size + 1) & ~(uintptr_t)(size - 1));
}

#if LC_GPU
/* The context still runs a launch right: tpl_map_inc8 over 4096 rows. */
static void still_usable(const char *after)
{
    enum { N = 4096 };
    static signed char in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (signed char)(i * 7 - 100);
    void *din = NULL, *dout = NULL;
    udfkit_status st = udfkit_device_alloc(N, &din);
    if (!st)
        st = udfkit_device_alloc(N, &dout);
    if (!st)
        st = udfkit_copy_to_device(din, in, N);
    if (!st)
        st = tpl_map_inc8(NULL, N, din, dout);
    if (!st)
        st = udfkit_synchronize();
    if (!st)
        st = udfkit_copy_to_host(out, dout, N);
    int wrong = 0;
    for (int i = 0; !st && i < N; i++)
        wrong += out[i] != (signed char)(in[i] + 1);
    CHECK(!st && !wrong, "after %s: tpl_map_inc8 gives %s, %d rows wrong", after, udfkit_status_string(st), wrong);
    udfkit_device_free(din);
    udfkit_device_free(dout);
}

/* The regions, filled with `byte`. */
static void fill_regions(int byte)
{
    memset(host, byte, REGIONS * REGION);
    CHECK(udfkit_copy_to_device(regions, host, REGIONS * REGION) == UDFKIT_OK, "filling memory");
}
#endif

static void refused(const lc_launcher *l, const lc_args *a, const char *param, const char *what)
{
    udfkit_report(UDFKIT_OK, "");
#if !LC_GPU
    const int asked = driver_asked;
#endif
    udfkit_status st = l->call(a);
    char want[256];
    snprintf(want, sizeof want, "%s: %s ", l->name, param);
    CHECK(st == UDFKIT_ERROR_INVALID_ARGUMENT, "%s with %s: %s, not invalid argument", l->name, what,
          udfkit_status_string(st));
    CHECK(strncmp(udfkit_last_error(), want, strlen(want)) == 0, "%s with %s: the message does not begin '%s'", l->name,
          what, want);
#if LC_GPU
    char after[320];
    snprintf(after, sizeof after, "%s with %s", l->name, what);
    still_usable(after);
#else
    CHECK(driver_asked == asked, "%s with %s: the driver was asked for", l->name, what);
#endif
}

static void bad_arguments(const lc_launcher *l)
{
    lc_args a = valid_args(l, UINT64_MAX);
    refused(l, &a, l->count, "n = 2^64 - 1");
    a = valid_args(l, l->max_rows + 1);
    refused(l, &a, l->count, "n one past its limit");
    for (size_t j = 0; j < l->nparams; j++) {
        const lc_param *p = &l->params[j];
        char what[128];
        if (p->kind == LC_POINTER && p->role != LC_UNCHECKED) {
            if (p->role == LC_ROWS || p->role == LC_ALWAYS) {
                a = valid_args(l, 5);
                a.p[j] = NULL;
                snprintf(what, sizeof what, "%s NULL and n = 5", p->name);
                refused(l, &a, p->name, what);
            }
            if (p->role == LC_ALWAYS) {
                a = valid_args(l, 0);
                a.p[j] = NULL;
                snprintf(what, sizeof what, "%s NULL and n = 0", p->name);
                refused(l, &a, p->name, what);
            }
            if (p->size > 1) {
                a = valid_args(l, 5);
                a.p[j] = (char *)a.p[j] + 1;
                snprintf(what, sizeof what, "%s misaligned", p->name);
                refused(l, &a, p->name, what);
            }
            if (p->extent == LC_N || p->extent == LC_N_PLUS_1 || p->extent == LC_BITS) {
                a = valid_args(l, 1000);
                a.p[j] = near_top(p->size);
                snprintf(what, sizeof what, "%s running past the end of the address space", p->name);
                refused(l, &a, p->name, what);
            }
        } else if (p->kind == LC_MASK) {
            a = valid_args(l, 5);
            a.m[j].offset = UINT64_MAX - 2;
            snprintf(what, sizeof what, "%s.offset + n past 2^64", p->name);
            refused(l, &a, p->name, what);
            a = valid_args(l, 1000);
            a.m[j].bits = (const uint8_t *)near_top(1);
            snprintf(what, sizeof what, "%s.bits running past the end of the address space", p->name);
            refused(l, &a, p->name, what);
        } else if (p->kind == LC_STRINGS) {
            a = valid_args(l, 5);
            a.str[j].layout = (udfkit_string_layout)9;
            snprintf(what, sizeof what, "%s of layout 9", p->name);
            refused(l, &a, p->name, what);
            a = valid_args(l, 5);
            a.str[j].offsets = NULL;
            snprintf(what, sizeof what, "%s.offsets NULL and n = 5", p->name);
            refused(l, &a, p->name, what);
            a = valid_args(l, 5);
            a.str[j].offsets = (const char *)a.str[j].offsets + 2;
            snprintf(what, sizeof what, "%s.offsets misaligned", p->name);
            refused(l, &a, p->name, what);
            a = valid_args(l, 5);
            a.str[j].layout = UDFKIT_STRINGS_LARGE_UTF8;
            a.str[j].offsets = (const char *)a.str[j].offsets + 4;
            snprintf(what, sizeof what, "%s.offsets (large_utf8) misaligned", p->name);
            refused(l, &a, p->name, what);
            a = valid_args(l, 5);
            a.str[j].offset = UINT64_MAX - 3;
            snprintf(what, sizeof what, "%s.offset + n past 2^64", p->name);
            refused(l, &a, p->name, what);
            a = valid_args(l, 1000);
            a.str[j].offsets = near_top(4);
            snprintf(what, sizeof what, "%s.offsets running past the end of the address space", p->name);
            refused(l, &a, p->name, what);
            a = valid_args(l, 5);
            a.str[j].layout = UDFKIT_STRINGS_UTF8_VIEW;
            a.str[j].buffers = (const char *const *)((char *)region(LC_MAX_PARAMS + j) + 1);
            snprintf(what, sizeof what, "%s.buffers misaligned", p->name);
            refused(l, &a, p->name, what);
        }
    }
}

/* A call the rules allow: it passes the checks. */
static void allowed(const lc_launcher *l, const lc_args *a, const char *what)
{
    udfkit_report(UDFKIT_OK, "");
    udfkit_status st = l->call(a);
    if (l->slotted) {
        CHECK(st == UDFKIT_ERROR_INVALID_ARGUMENT && strstr(udfkit_last_error(), "given no instance"),
              "%s with %s: %s, not the missing instance", l->name, what, udfkit_status_string(st));
        return;
    }
#if LC_GPU
    CHECK(st == UDFKIT_OK, "%s with %s: %s", l->name, what, udfkit_status_string(st));
    CHECK(udfkit_synchronize() == UDFKIT_OK, "%s with %s: the work failed", l->name, what);
    l->udf_error(NULL); /* a UDF may fail rows of zeros (a division): forget it */
    char after[320];
    snprintf(after, sizeof after, "%s with %s", l->name, what);
    still_usable(after);
#else
    CHECK(st == UDFKIT_ERROR_NO_DRIVER, "%s with %s: %s, not past the checks to the driver", l->name, what,
          udfkit_status_string(st));
#endif
}

static void allowed_arguments(const lc_launcher *l)
{
    /* n = 0: every pointer that may be NULL then is NULL; the others are written. */
    lc_args a = valid_args(l, 0);
    for (size_t j = 0; j < l->nparams; j++) {
        if (l->params[j].kind == LC_POINTER && l->params[j].role != LC_ALWAYS)
            a.p[j] = NULL;
        a.m[j] = (udfkit_mask){NULL, 0};
        a.str[j] = (udfkit_strings){UDFKIT_STRINGS_UTF8, NULL, NULL, NULL, 0};
    }
#if LC_GPU
    fill_regions(0xab);
#endif
    allowed(l, &a, "n = 0 and NULL pointers");
#if LC_GPU
    if (!l->slotted) {
        CHECK(udfkit_copy_to_host(host, regions, REGIONS * REGION) == UDFKIT_OK, "copy back");
        for (size_t j = 0; j < l->nparams; j++) {
            const lc_param *p = &l->params[j];
            if (p->kind != LC_POINTER || p->role != LC_ALWAYS || !p->written)
                continue;
            int zero = 1;
            for (size_t b = 0; b < p->size; b++)
                zero &= ((unsigned char *)host)[j * REGION + b] == 0;
            CHECK(zero, "%s with n = 0: %s[0] is not 0 (count, runs, init 0, the first offset)", l->name, p->name);
        }
    }
    fill_regions(0);
#endif
    /* Optional pointers NULL, rows there. */
    a = valid_args(l, 5);
    for (size_t j = 0; j < l->nparams; j++)
        if (l->params[j].kind == LC_POINTER && (l->params[j].role == LC_OPTIONAL || l->params[j].role == LC_ALIGNED))
            a.p[j] = NULL;
    allowed(l, &a, "optional pointers NULL");
#if LC_GPU
    fill_regions(0);
    a = valid_args(l, 5);
    allowed(l, &a, "every pointer given");
#endif
}

int main(void)
{
#if LC_GPU
    host = calloc(REGIONS, REGION);
    size_t free_bytes = 0, total = 0;
    udfkit_status st = udfkit_device_memory(&free_bytes, &total);
    if (st == UDFKIT_ERROR_NO_DRIVER || st == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        return 77;
    }
    void *device = NULL;
    if (!host || st || udfkit_device_alloc(REGIONS * REGION, &device)) {
        fprintf(stderr, "no device memory: %s\n", udfkit_last_error());
        return 1;
    }
    regions = device;
    fill_regions(0);
    still_usable("nothing");
#else
    regions = calloc(REGIONS, REGION);
    if (!regions)
        return 1;
#endif
    for (size_t i = 0; i < lc_launcher_count; i++)
        bad_arguments(&lc_launchers[i]);
#if !LC_GPU
    CHECK(driver_asked == 0, "a bad argument reached the driver");
#endif
    for (size_t i = 0; i < lc_launcher_count; i++)
        allowed_arguments(&lc_launchers[i]);
#if LC_GPU
    udfkit_device_free(regions);
    free(host);
#else
    CHECK(driver_asked == 1, "the allowed calls did not reach the driver (asked %d times)", driver_asked);
    free(regions);
#endif
    printf("%zu launchers: %d checks passed, %d failed\n", lc_launcher_count, passes, failures);
    return failures ? 1 : 0;
}
