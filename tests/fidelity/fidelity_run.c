/* One function of the fidelity test, in a process of its own (a fault cannot hide the
 * others): runs udfkit's map kernel for it (DIR/fid.fatbin) and numba-cuda's kernel for it
 * (DIR/<name>.numba.<k>.ptx, linked at load time where numba brings linking files) over the
 * same inputs, and writes OUT/<name>.udfkit.bin and OUT/<name>.numba.bin.
 *
 * usage: fidelity_run DIR NAME OUT   (exit 77 where no GPU is visible) */
#define _XOPEN_SOURCE 700
#include <udfkit/runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS 8

static const struct {
    const char *name;
    size_t size;
} type_sizes[] = {{"bool", 1},    {"int8", 1},   {"uint8", 1},   {"int16", 2},  {"uint16", 2},   {"float16", 2},
                  {"int32", 4},   {"uint32", 4}, {"float32", 4}, {"int64", 8},  {"uint64", 8},   {"float64", 8}};

static size_t size_of(const char *type)
{
    for (size_t i = 0; i < sizeof type_sizes / sizeof *type_sizes; i++)
        if (strcmp(type_sizes[i].name, type) == 0)
            return type_sizes[i].size;
    fprintf(stderr, "unknown type %s\n", type);
    exit(2);
}

static void *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc(*size + 1);
    if (!data || fread(data, 1, *size, f) != *size)
        exit(2);
    data[*size] = '\0';
    fclose(f);
    return data;
}

static void check(udfkit_status s, const char *what)
{
    if (s != UDFKIT_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, udfkit_status_string(s), udfkit_last_error());
        exit(s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE ? 77 : 1);
    }
}

/* Runs `k` over the inputs (params: n, inputs..., out) and writes the output to `path`. */
static void run(udfkit_kernel k, unsigned long long n, void **inputs, size_t nparams, size_t out_bytes,
                const char *path)
{
    void *out = NULL;
    check(udfkit_device_alloc(out_bytes, &out), "allocating the output");
    check(udfkit_copy_to_device(out, memset(malloc(out_bytes), 0xA5, out_bytes), out_bytes), "poisoning the output");
    void *args[MAX_PARAMS + 2];
    args[0] = &n;
    for (size_t p = 0; p < nparams; p++)
        args[p + 1] = &inputs[p];
    args[nparams + 1] = &out;
    unsigned grid = (unsigned)((n + 255) / 256);
    check(udfkit_launch(k, (udfkit_dim3){grid, 1, 1}, (udfkit_dim3){256, 1, 1}, 0, NULL, args), path);
    check(udfkit_synchronize(), path);
    void *host = malloc(out_bytes);
    check(udfkit_copy_to_host(host, out, out_bytes), path);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(host, 1, out_bytes, f) != out_bytes || fclose(f) != 0)
        exit(2);
    free(host);
    udfkit_device_free(out);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s DIR NAME OUT\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1], *name = argv[2], *outdir = argv[3];
    char path[4096], line[4096];
    snprintf(path, sizeof path, "%s/cases.txt", dir);
    FILE *cases = fopen(path, "r");
    if (!cases)
        return 2;
    char fname[512], ukernel[512], nentry[1024], ret[32], params[MAX_PARAMS][32];
    int nparts = 0, nparams = 0, found = 0;
    while (!found && fgets(line, sizeof line, cases)) {
        char *save = NULL, *tok = strtok_r(line, " \n", &save);
        if (!tok || strcmp(tok, name) != 0)
            continue;
        snprintf(fname, sizeof fname, "%s", tok);
        snprintf(ukernel, sizeof ukernel, "%s", strtok_r(NULL, " \n", &save));
        snprintf(nentry, sizeof nentry, "%s", strtok_r(NULL, " \n", &save));
        nparts = atoi(strtok_r(NULL, " \n", &save));
        snprintf(ret, sizeof ret, "%s", strtok_r(NULL, " \n", &save));
        while (nparams < MAX_PARAMS && (tok = strtok_r(NULL, " \n", &save)))
            snprintf(params[nparams++], sizeof params[0], "%s", tok);
        found = 1;
    }
    fclose(cases);
    if (!found) {
        fprintf(stderr, "%s is not in %s/cases.txt\n", name, dir);
        return 2;
    }
    unsigned long long n = 0;
    void *inputs[MAX_PARAMS];
    for (int p = 0; p < nparams; p++) {
        size_t size;
        snprintf(path, sizeof path, "%s/%s.in%d.bin", dir, name, p);
        void *host = read_all(path, &size);
        n = size / size_of(params[p]);
        check(udfkit_device_alloc(size, &inputs[p]), "allocating an input");
        check(udfkit_copy_to_device(inputs[p], host, size), "copying an input");
        free(host);
    }
    size_t out_bytes = (size_t)n * size_of(ret);

    size_t size;
    snprintf(path, sizeof path, "%s/fid.fatbin", dir);
    void *fatbin = read_all(path, &size);
    udfkit_library *ulib;
    udfkit_kernel uk, nk;
    check(udfkit_library_load(fatbin, size, &ulib), "loading udfkit's fatbin");
    check(udfkit_library_get_kernel(ulib, ukernel, &uk), ukernel);
    snprintf(path, sizeof path, "%s/%s.udfkit.bin", outdir, name);
    run(uk, n, inputs, (size_t)nparams, out_bytes, path);

    udfkit_image parts[8];
    for (int k = 0; k < nparts && k < 8; k++) {
        snprintf(path, sizeof path, "%s/%s.numba.%d.ptx", dir, name, k);
        parts[k].data = read_all(path, &parts[k].size);
        parts[k].size += 1; /* with its NUL, as the driver reads PTX */
    }
    udfkit_library *nlib;
    if (nparts == 1)
        check(udfkit_library_load(parts[0].data, parts[0].size, &nlib), "loading numba-cuda's PTX");
    else
        check(udfkit_library_link(parts, (size_t)nparts, &nlib), "linking numba-cuda's PTX");
    check(udfkit_library_get_kernel(nlib, nentry, &nk), nentry);
    snprintf(path, sizeof path, "%s/%s.numba.bin", outdir, name);
    run(nk, n, inputs, (size_t)nparams, out_bytes, path);
    printf("%s ok\n", fname);
    return 0;
}
