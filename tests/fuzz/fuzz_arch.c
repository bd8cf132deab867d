/* Architecture lists in CMake's syntax, against a fixed list of supported architectures. */
#include "base/arch.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int supported[] = {75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121};
    char *text = fuzz_string(data, size);
    udfkit_target_list list;
    if (udfkit_arch_parse(text, supported, sizeof supported / sizeof *supported, &list) == UDFKIT_RC_OK) {
        udfkit_target virt[64];
        size_t n = udfkit_targets_virtual(&list, virt, 64);
        char name[32];
        for (size_t i = 0; i < n; i++)
            udfkit_target_name(virt[i], name, sizeof name);
    }
    udfkit_target t;
    udfkit_target_parse_name(text, &t);
    free(text);
    udfkit_diag_clear();
    return 0;
}
