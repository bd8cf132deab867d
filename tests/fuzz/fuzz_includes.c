/* The include follower over a small tree of files the input makes: the input is split at
 * '\x01' into the texts of main.cu, a.h, sub/b.h, sub/deeper/c.h, ../up.h (one level above
 * the source's directory) and inc/d.h (in the -I directory), so that the fuzzer writes
 * #include lines that reach each other, relative and through -I, cycles included. */
#include "base/diag.h"
#include "frontend/includes.h"
#include "fuzz_common.h"

#include <sys/stat.h>

static const char *const names[] = {"src/main.cu", "src/a.h", "src/sub/b.h", "src/sub/deeper/c.h", "up.h",
                                    "inc/d.h"};
enum { FILES = sizeof names / sizeof *names };

/* The tree is made once: every input rewrites all six files (some empty), and the follower
 * only reads, so no input sees what an earlier one left. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_make_dir();
    static const char *const dirs[] = {"src", "src/sub", "src/sub/deeper", "inc"};
    char path[4096];
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(path, sizeof path, "%s/%s", fuzz_dir, dirs[i]);
        if (mkdir(path, 0700) != 0)
            abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t at = 0;
    for (int f = 0; f < FILES; f++) {
        size_t end = at;
        while (end < size && data[end] != 1)
            end++;
        fuzz_write(names[f], data + (at < size ? at : size), at < size ? end - at : 0);
        at = end + 1;
    }
    char source[4096], inc[4096];
    snprintf(source, sizeof source, "%s/%s", fuzz_dir, names[0]);
    snprintf(inc, sizeof inc, "%s/inc", fuzz_dir);
    const char *dirs[] = {inc};
    udfkit_include_set set;
    if (udfkit_includes_follow(source, dirs, 1, NULL, &set) == UDFKIT_RC_OK) {
        for (size_t i = 0; i < set.nfiles; i++)
            fuzz_touch(set.files[i].path, strlen(set.files[i].path));
        udfkit_include_set_free(&set);
    }
    udfkit_diag_clear();
    return 0;
}
