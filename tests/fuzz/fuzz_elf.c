/* ELF64: cubins' symbols and host objects' sections, every offset checked. */
#include "artifact/elf_read.h"
#include "base/diag.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned machine;
    if (udfkit_elf_sniff(data, size, &machine)) {
        udfkit_cubin_info info;
        if (udfkit_cubin_read(data, size, "fuzz", &info) == UDFKIT_RC_OK) {
            for (size_t i = 0; i < info.kernels.count; i++)
                fuzz_touch(info.kernels.names[i], strlen(info.kernels.names[i]));
            for (size_t i = 0; i < info.functions.count; i++)
                fuzz_touch(info.functions.names[i], strlen(info.functions.names[i]));
            udfkit_cubin_info_free(&info);
        }
        bool found;
        const unsigned char *section;
        size_t section_size;
        if (udfkit_elf_section(data, size, "fuzz", ".nv_fatbin", &found, &section, &section_size) == UDFKIT_RC_OK &&
            found)
            fuzz_touch(section, section_size);
    }
    udfkit_diag_clear();
    return 0;
}
