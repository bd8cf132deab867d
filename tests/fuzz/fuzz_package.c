/* UDF packages are untrusted (a user hands them to an engine, udfkit_package_open): a
 * package fatbin, or a manifest beside the one artifact file the harness writes (x.ltoir,
 * 32 bytes of LTO-IR, whose size and hash a manifest may name). The first byte picks: 'M' the rest is
 * the manifest, anything else the whole input is the file opened. What opens is listed, and
 * its code chosen for three devices, as udfkit_library_bind would. */
#include "fuzz_common.h"
#include "runtime/package.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_make_dir();
    /* The smallest LTO-IR the package reader takes (artifact/code_check: NVVM's container
     * header, its offsets inside the file), so that manifests naming it get past the check. */
    static const char ltoir[32] = {'\xed', 0x43, 0x4e, 0x7f, 0x01, 0x41, 0x02, 0x62, 0x03, 0x02, 0x07, 0x00, 0x18, 0x00, 0x01,
                                   0x00, 0x18, 0, 0, 0, 0x1c, 0, 0, 0, 'l', 't', 'o', 'i', 'r', '-', 'i', 'r'};
    fuzz_write("x.ltoir", ltoir, sizeof ltoir);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = size && data[0] == 'M' ? fuzz_write("m.json", data + 1, size - 1) : fuzz_write("p.bin", data, size);
    udfkit_package *pkg = NULL;
    if (udfkit_package_open(path, &pkg) == UDFKIT_OK) {
        for (size_t i = 0; i < udfkit_package_function_count(pkg); i++) {
            const char *name, *sig;
            if (udfkit_package_function(pkg, i, &name, &sig) == UDFKIT_OK) {
                fuzz_touch(name, strlen(name));
                fuzz_touch(sig, strlen(sig));
            }
        }
        const int archs[] = {75, 90, 100};
        for (size_t a = 0; a < 3; a++) {
            size_t *chosen = NULL, count = 0;
            if (udfkit_package_choose(pkg, archs[a], &chosen, &count) == UDFKIT_OK)
                for (size_t i = 0; i < count; i++)
                    fuzz_touch(pkg->parts[chosen[i]].data, pkg->parts[chosen[i]].size);
            free(chosen);
        }
    }
    udfkit_package_close(pkg);
    return 0;
}
