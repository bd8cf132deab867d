/* The PTX version scan the runtime makes before it hands an image to the driver: it reads
 * only the bytes it is given (a heap copy of exactly `size` bytes, no NUL after it). */
#include "artifact/ptx_isa.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size ? size : 1);
    if (!copy)
        abort();
    memcpy(copy, data, size);
    int isa = udfkit_ptx_isa(copy, size);
    if (isa < 0 || isa > 999 * 10 + 999)
        abort();
    free(copy);
    return 0;
}
