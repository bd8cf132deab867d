/* The C++ scanner that finds function definitions in CUDA C++ sources and their headers. */
#include "frontend/cxx_scan.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    udfkit_cxx_defs defs = {0};
    udfkit_cxx_scan(text, &defs);
    const udfkit_cxx_def *def;
    for (size_t i = 0; i < defs.count; i++) {
        fuzz_touch(defs.items[i].qualified, strlen(defs.items[i].qualified));
        char *base = udfkit_cxx_base_name(defs.items[i].qualified);
        udfkit_cxx_find(&defs, base, defs.items[i].nparams, &def);
        free(base);
    }
    udfkit_cxx_defs_free(&defs);
    free(text);
    return 0;
}
