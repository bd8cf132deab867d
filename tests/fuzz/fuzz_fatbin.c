/* Fatbin containers: every header field is bounds-checked; every entry decodes (LZ4, zstd)
 * within its limits or is an error. */
#include "artifact/fatbin_read.h"
#include "base/diag.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    udfkit_fatbin_contents c;
    if (udfkit_fatbin_read(data, size, "fuzz", &c) == UDFKIT_RC_OK) {
        udfkit_buf storage = UDFKIT_BUF_INIT;
        for (size_t i = 0; i < c.count; i++) {
            const unsigned char *code;
            size_t code_size;
            fuzz_touch(c.entries[i].payload, c.entries[i].payload_size);
            if (c.entries[i].name)
                fuzz_touch(c.entries[i].name, c.entries[i].name_size);
            if (udfkit_fatbin_entry_code(&c.entries[i], "fuzz", &storage, &code, &code_size) == UDFKIT_RC_OK)
                fuzz_touch(code, code_size);
        }
        udfkit_buf_free(&storage);
        udfkit_fatbin_contents_free(&c);
    }
    udfkit_diag_clear();
    return 0;
}
