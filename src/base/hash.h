/* Content hashes for artifacts, manifests and embedded data (XXH3, 128 bits). */
#ifndef UDFKIT_HASH_H
#define UDFKIT_HASH_H

#include <stddef.h>

#define UDFKIT_HASH_HEX_SIZE 33

void udfkit_hash_hex(const void *data, size_t size, char out[UDFKIT_HASH_HEX_SIZE]);

#endif
