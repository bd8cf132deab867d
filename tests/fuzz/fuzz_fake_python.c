/* The Python interpreter fuzz_python_answer runs instead of numba-cuda's: it reads the
 * request udfkit sends on standard input, writes into its "outdir" the files a real worker
 * writes for the harness's functions (<c_name>.<n>.ltoir|ptx and link.<n>.ltoir|ptx, what
 * an answer's "file" fields name), then prints the answer the harness left in
 * $UDFKIT_FUZZ_ANSWER and exits 0, or with the status in $UDFKIT_FUZZ_STATUS. Built
 * without sanitizers: it is not what is fuzzed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(FILE *f, size_t *size)
{
    size_t cap = 4096, n = 0;
    char *data = malloc(cap + 1);
    for (size_t got; data && (got = fread(data + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *grown = realloc(data, 2 * cap + 1);
            if (!grown) {
                free(data);
                return NULL;
            }
            data = grown;
            cap *= 2;
        }
    }
    if (data)
        data[n] = '\0';
    *size = n;
    return data;
}

/* The request's "outdir" (udfkit writes it compact, and a scratch path needs no escapes). */
static char *outdir(const char *request)
{
    static const char key[] = "\"outdir\":\"";
    const char *at = strstr(request, key);
    if (!at)
        return NULL;
    at += sizeof key - 1;
    const char *end = strchr(at, '"');
    if (!end)
        return NULL;
    char *dir = malloc((size_t)(end - at) + 1);
    if (dir) {
        memcpy(dir, at, (size_t)(end - at));
        dir[end - at] = '\0';
    }
    return dir;
}

static int write_files(const char *dir)
{
    static const char *const stems[] = {"add.0", "hypot2.0", "uses_declared_link.0", "uses_declared_link.1",
                                        "link.0", "link.1"};
    static const char *const kinds[] = {"ltoir", "ptx"};
    for (size_t i = 0; i < sizeof stems / sizeof *stems; i++) {
        for (size_t k = 0; k < 2; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.%s", dir, stems[i], kinds[k]);
            FILE *f = fopen(path, "wb");
            if (!f)
                return 1;
            /* Bytes of its own per file: link files are told apart by their hash. */
            if (k == 0)
                fprintf(f, "\xed\x43\x4e\x7f%s", stems[i]);
            else
                fprintf(f, ".version 9.0\n.target sm_80\n.address_size 64\n// %s\n", stems[i]);
            if (fclose(f) != 0)
                return 1;
        }
    }
    return 0;
}

int main(void)
{
    size_t size;
    char *request = read_all(stdin, &size);
    char *dir = request ? outdir(request) : NULL;
    if (!dir || write_files(dir) != 0)
        return 70;
    free(dir);
    free(request);
    const char *path = getenv("UDFKIT_FUZZ_ANSWER");
    FILE *f = path ? fopen(path, "rb") : NULL;
    char *answer = f ? read_all(f, &size) : NULL;
    if (!answer || fwrite(answer, 1, size, stdout) != size)
        return 70;
    fclose(f);
    free(answer);
    const char *status = getenv("UDFKIT_FUZZ_STATUS");
    return status ? atoi(status) : 0;
}
