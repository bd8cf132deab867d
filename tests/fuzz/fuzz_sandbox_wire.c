/* What the sandbox helper answers (and what it is asked) is read as untrusted input: a helper
 * that NVRTC's input took over may write anything on its socket. Records of a tag, a u64
 * length and bytes after a magic; the first byte picks the magic. What the records say is
 * then checked as code (artifact/code_check), as a compile's result is. */
#include "artifact/code_check.h"
#include "base/diag.h"
#include "fuzz_common.h"
#include "nvidia/sandbox_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    const char *magic = data[0] & 1 ? UDFKIT_WIRE_ANSWER : UDFKIT_WIRE_REQUEST;
    udfkit_wire_reader r = udfkit_wire_read(data + 1, size - 1, magic);
    char tag, why[256];
    const unsigned char *record;
    size_t n;
    uint32_t value;
    while (udfkit_wire_next(&r, &tag, &record, &n)) {
        fuzz_touch(record, n);
        if (udfkit_wire_u32(record, n, &value))
            fuzz_touch(&value, sizeof value);
        if (tag == UDFKIT_WIRE_CODE) {
            udfkit_ltoir_check(record, n, why, sizeof why);
            udfkit_ptx_check(record, n, why, sizeof why);
        }
    }
    /* The raw input as each kind of code, as a cached result is checked. */
    udfkit_ltoir_check(data, size, why, sizeof why);
    udfkit_ptx_check(data, size, why, sizeof why);
    udfkit_cubin_check(data, size, why, sizeof why);
    udfkit_fatbin_check(data, size, why, sizeof why);
    udfkit_diag_clear();
    return 0;
}
