/* Manifests are untrusted (a UDF package comes from someone else): loading, reading each
 * function's spec back, and resolving each file the manifest names. */
#include "artifact/manifest.h"
#include "base/diag.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_make_dir();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("m.json", data, size);
    udfkit_manifest m;
    if (udfkit_manifest_load(path, &m) == UDFKIT_RC_OK) {
        size_t i;
        json_t *item;
        json_array_foreach(json_object_get(m.root, "functions"), i, item)
        {
            udfkit_spec spec;
            if (udfkit_manifest_function_spec(&m, item, &spec) == UDFKIT_RC_OK)
                udfkit_spec_free(&spec);
        }
        json_array_foreach(json_object_get(m.root, "artifacts"), i, item)
        {
            char *file = NULL;
            udfkit_manifest_resolve(&m, json_string_value(json_object_get(item, "path")), &file);
            free(file);
        }
    }
    udfkit_manifest_free(&m);
    udfkit_diag_clear();
    return 0;
}
