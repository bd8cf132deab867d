#include "base/hash.h"

#include <stdio.h>
#include <xxhash.h>

void udfkit_hash_hex(const void *data, size_t size, char out[UDFKIT_HASH_HEX_SIZE])
{
    XXH128_hash_t h = XXH3_128bits(data, size);
    snprintf(out, UDFKIT_HASH_HEX_SIZE, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}
