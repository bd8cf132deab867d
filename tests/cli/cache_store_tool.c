/* Stores into udfkit's cache (UDFKIT_CACHE_DIR, bounded by UDFKIT_CACHE_SIZE) through the
 * cache's own API, as one of the many processes of a CI machine's parallel jobs does
 * (tests/cli/test_cache_stress.py, bench/cache_store/run.py):
 *   cache_store_tool put SEED COUNT SIZE   COUNT entries of SIZE payload bytes, each new
 *   cache_store_tool mix SEED COUNT        COUNT operations: a new entry of 200 to 2,000 bytes
 *                                          (half of them), an entry replacing one of the four
 *                                          that every process writes (a quarter), a lookup of
 *                                          an entry stored before (a hit, or a miss where it
 *                                          was evicted; a quarter)
 *   cache_store_tool clear                 what `udfkit cache clear` does
 * SEED makes the keys: processes given different seeds store different entries. */
#include "cache/cache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void make_key(uint64_t seed, uint64_t index, char key[UDFKIT_CACHE_KEY_SIZE])
{
    uint64_t a = mix64(seed * 0x100000000ull + index), b = mix64(a);
    snprintf(key, UDFKIT_CACHE_KEY_SIZE, "%016llx%016llx", (unsigned long long)a, (unsigned long long)b);
}

static void put(udfkit_cache *c, const char *key, size_t size, unsigned char fill)
{
    unsigned char *bytes = malloc(size ? size : 1);
    memset(bytes, fill, size);
    udfkit_cache_entry e = {0};
    udfkit_cache_entry_add(&e, "payload", bytes, size);
    udfkit_cache_put(c, key, &e);
    udfkit_cache_entry_free(&e);
    free(bytes);
}

static int usage(void)
{
    fputs("usage: cache_store_tool put SEED COUNT SIZE | mix SEED COUNT | clear\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "clear") == 0) {
        if (udfkit_cache_clear() == UDFKIT_RC_OK)
            return 0;
        fprintf(stderr, "cache_store_tool: %s\n", udfkit_diag_message());
        return 1;
    }
    bool mixed = argc == 4 && strcmp(argv[1], "mix") == 0;
    if (!mixed && !(argc == 5 && strcmp(argv[1], "put") == 0))
        return usage();
    uint64_t seed = strtoull(argv[2], NULL, 10), count = strtoull(argv[3], NULL, 10);
    size_t size = mixed ? 0 : (size_t)strtoull(argv[4], NULL, 10);
    udfkit_cache *c = udfkit_cache_open();
    if (!c) {
        fputs("cache_store_tool: the cache is off or unusable\n", stderr);
        return 1;
    }
    char key[UDFKIT_CACHE_KEY_SIZE];
    uint64_t random = mix64(seed);
    for (uint64_t i = 0; i < count; i++) {
        random = mix64(random);
        unsigned what = mixed ? (unsigned)(random % 4) : 0;
        size_t bytes = mixed ? 200 + (size_t)(random >> 8) % 1801 : size;
        if (what <= 1) {
            make_key(seed, i, key);
            put(c, key, bytes, (unsigned char)i);
        } else if (what == 2) {
            make_key(UINT32_MAX, (random >> 4) % 4, key);
            put(c, key, bytes, (unsigned char)seed);
        } else {
            make_key(seed, (random >> 4) % (i + 1), key);
            udfkit_cache_entry e = {0};
            udfkit_cache_get(c, key, &e);
            udfkit_cache_entry_free(&e);
        }
    }
    udfkit_cache_close(c);
    return 0;
}
