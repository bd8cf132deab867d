/* The `_arrow` launchers (docs/arrow.md) on a GPU, against pyarrow.compute: library ak
 * (tests/data/arrow/arrow_udfs.cu) run over Arrow arrays that pyarrow made
 * (tests/gpu/build_arrow_cases.py wrote them, and pyarrow's answers, as Arrow IPC streams).
 * The arrays go to the device and back through nanoarrow's device extension (over udfkit's
 * runtime: examples/arrow/udfkit_nanoarrow_device.c; utf8_view inputs buffer by buffer, see
 * view_to_device); every chunk of a case runs whole and as
 * slices with offsets that are not multiples of 8; each result is compared with pyarrow's bit
 * for bit: its format, length, validity of every row and the bytes of every valid row (a
 * string row's bytes). Then
 * the refusals: a wrong type, device, length, layout, each UDFKIT_ERROR_INVALID_ARGUMENT with
 * the output left untouched.
 *
 * usage: test_arrow <cases directory>; exit 77 (skipped) without a GPU. */
#include "ak.h"
#include "gpu_test.h"
#include "udfkit_nanoarrow_device.h"

#include <nanoarrow/nanoarrow.h>
#include <nanoarrow/nanoarrow_ipc.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#define MAX_COLUMNS 4

/* One launcher over up to MAX_COLUMNS inputs; a filter writes one output per input. */
typedef udfkit_status (*launch_fn)(const struct ArrowDeviceArray *const *a, const struct ArrowSchema *const *t,
                                   struct ArrowDeviceArray *out, struct ArrowSchema *out_type);

#define UNARY(name, fn)                                                                                        \
    static udfkit_status name(const struct ArrowDeviceArray *const *a, const struct ArrowSchema *const *t,     \
                              struct ArrowDeviceArray *o, struct ArrowSchema *ot)                             \
    {                                                                                                          \
        return fn(NULL, a[0], t[0], o, ot);                                                                    \
    }
#define BINARY(name, fn)                                                                                       \
    static udfkit_status name(const struct ArrowDeviceArray *const *a, const struct ArrowSchema *const *t,     \
                              struct ArrowDeviceArray *o, struct ArrowSchema *ot)                             \
    {                                                                                                          \
        return fn(NULL, a[0], t[0], a[1], t[1], o, ot);                                                        \
    }

UNARY(run_neg_f16, ak_map_neg_f16_arrow)
UNARY(run_blen, ak_map_blen_arrow)
UNARY(run_next_day, ak_map_next_day_arrow)
UNARY(run_dec_neg, ak_map_dec_neg_arrow)
UNARY(run_positive, ak_filter_positive_arrow)
UNARY(run_long_text, ak_filter_long_text_arrow)
BINARY(run_add_i64, ak_map_add_i64_arrow)
BINARY(run_mul_f64, ak_map_mul_f64_arrow)
BINARY(run_nullable_mul_f64, ak_nullable_map_mul_f64_arrow)
BINARY(run_add_f32, ak_map_add_f32_arrow)
BINARY(run_gt_f64, ak_map_gt_f64_arrow)
BINARY(run_and_b, ak_map_and_b_arrow)
BINARY(run_coalesce, ak_nullable_map_coalesce_i64_arrow)
BINARY(run_cat, ak_map_cat_arrow)
BINARY(run_ts_add, ak_map_ts_add_arrow)

static udfkit_status run_both(const struct ArrowDeviceArray *const *a, const struct ArrowSchema *const *t,
                              struct ArrowDeviceArray *o, struct ArrowSchema *ot)
{
    return ak_filter_both_arrow(NULL, a[0], t[0], a[1], t[1], &o[0], &ot[0], &o[1], &ot[1]);
}

static udfkit_status run_twice_len(const struct ArrowDeviceArray *const *a, const struct ArrowSchema *const *t,
                                   struct ArrowDeviceArray *o, struct ArrowSchema *ot)
{
    return ak_map_twice_len_arrow(NULL, a[0], t[0], &o[0], &ot[0], &o[1], &ot[1]);
}

static const struct {
    const char *name;
    launch_fn run;
    int inputs, outputs;
} cases[] = {
    {"map_add_i64", run_add_i64, 2, 1},
    {"map_mul_f64", run_mul_f64, 2, 1},
    {"nullable_map_mul_f64", run_nullable_mul_f64, 2, 1},
    {"map_add_f32", run_add_f32, 2, 1},
    {"map_neg_f16", run_neg_f16, 1, 1},
    {"map_gt_f64", run_gt_f64, 2, 1},
    {"map_and_b", run_and_b, 2, 1},
    {"map_blen_utf8", run_blen, 1, 1},
    {"map_blen_large", run_blen, 1, 1},
    {"map_blen_view", run_blen, 1, 1},
    {"nullable_map_coalesce_i64", run_coalesce, 2, 1},
    {"map_cat", run_cat, 2, 1},
    {"map_next_day", run_next_day, 1, 1},
    {"map_ts_add", run_ts_add, 2, 1},
    {"map_dec_neg", run_dec_neg, 1, 1},
    {"filter_positive", run_positive, 1, 1},
    {"filter_both", run_both, 2, 2},
    {"map_twice_len", run_twice_len, 1, 2},
    {"filter_long_utf8", run_long_text, 1, 1},
    {"filter_long_view", run_long_text, 1, 1},
};

static char where[256]; /* the case, chunk and window being checked, for messages */

/* The slices of a chunk of n rows: build_arrow_cases.py's windows(). */
static size_t windows(int64_t n, int64_t offsets[3], int64_t lengths[3])
{
    offsets[0] = 0, lengths[0] = n;
    if (n < 30)
        return 1;
    offsets[1] = 3, lengths[1] = n - 5;
    offsets[2] = 17, lengths[2] = n - 26;
    return 3;
}

static int open_stream(const char *dir, const char *name, const char *suffix, struct ArrowArrayStream *out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return EIO;
    }
    struct ArrowIpcInputStream in;
    int rc = ArrowIpcInputStreamInitFile(&in, f, 1);
    if (rc == NANOARROW_OK)
        rc = ArrowIpcArrayStreamReaderInit(out, &in, NULL);
    if (rc != NANOARROW_OK)
        fprintf(stderr, "%s: not an Arrow IPC stream nanoarrow reads (%d)\n", path, rc);
    return rc;
}

static void no_release(struct ArrowArray *a)
{
    a->release = NULL;
}

/* A host array on the device, through nanoarrow's device extension. */
static int to_device(const struct ArrowSchema *schema, const struct ArrowArray *host, struct ArrowDeviceArray *out)
{
    struct ArrowDeviceArray cpu;
    memset(&cpu, 0, sizeof cpu);
    cpu.array = *host;
    cpu.array.release = no_release;
    cpu.device_type = ARROW_DEVICE_CPU;
    struct ArrowDeviceArrayView view;
    struct ArrowError error;
    ArrowDeviceArrayViewInit(&view);
    int rc = ArrowArrayViewInitFromSchema(&view.array_view, schema, &error);
    if (rc == NANOARROW_OK)
        rc = ArrowDeviceArrayViewSetArray(&view, &cpu, &error);
    if (rc == NANOARROW_OK)
        rc = ArrowDeviceArrayViewCopy(&view, udfkit_nanoarrow_device(), out);
    ArrowDeviceArrayViewReset(&view);
    CHECK(rc == NANOARROW_OK, "%s: to the device: %s", where, error.message);
    return rc;
}

/* A device array back on the host, once its sync_event is reached. */
static int to_host(const struct ArrowSchema *schema, struct ArrowDeviceArray *dev, struct ArrowArray *out)
{
    struct ArrowDeviceArrayView view;
    struct ArrowError error;
    struct ArrowDeviceArray host;
    ArrowDeviceArrayViewInit(&view);
    int rc = ArrowArrayViewInitFromSchema(&view.array_view, schema, &error);
    if (rc == NANOARROW_OK)
        rc = ArrowDeviceArrayViewSetArray(&view, dev, &error);
    if (rc == NANOARROW_OK)
        rc = ArrowDeviceArrayViewCopy(&view, ArrowDeviceCpu(), &host);
    ArrowDeviceArrayViewReset(&view);
    CHECK(rc == NANOARROW_OK, "%s: to the host: %s", where, error.message);
    if (rc == NANOARROW_OK)
        ArrowArrayMove(&host.array, out);
    return rc;
}

/* A utf8_view array on the device, buffer by buffer: nanoarrow 0.9's device copy
 * (ArrowDeviceArrayViewCopy) carries a view array's views but not its data buffers. Each
 * buffer is copied whole, the array keeps its offset; release frees them. */
typedef struct view_blocks {
    void *blocks[64];
    const void *buffers[64];
    int64_t count;
} view_blocks;

static void view_release(struct ArrowArray *a)
{
    view_blocks *v = a->private_data;
    for (int64_t i = 0; i < v->count; i++)
        udfkit_device_free(v->blocks[i]);
    free(v);
    a->release = NULL;
}

static int view_to_device(const struct ArrowArray *host, const int64_t *sizes, struct ArrowDeviceArray *out)
{
    view_blocks *v = calloc(1, sizeof *v);
    if (!v)
        return ENOMEM;
    const int64_t rows = host->offset + host->length, data = host->n_buffers - 3;
    v->count = host->n_buffers;
    for (int64_t b = 0; b < host->n_buffers; b++) {
        size_t bytes = b == 0 ? (size_t)(rows + 7) / 8 : b == 1 ? (size_t)rows * 16
                     : b < 2 + data ? (size_t)sizes[b - 2] : (size_t)data * sizeof(int64_t);
        if (!host->buffers[b]) {
            v->buffers[b] = NULL;
            continue;
        }
        v->blocks[b] = device_copy(host->buffers[b], bytes);
        v->buffers[b] = v->blocks[b];
    }
    memset(out, 0, sizeof *out);
    out->array = *host;
    out->array.buffers = v->buffers;
    out->array.private_data = v;
    out->array.release = view_release;
    out->device_type = ARROW_DEVICE_CUDA;
    return NANOARROW_OK;
}

/* A utf8_view array as pyarrow laid it out: its views (with the validity) from the input
 * batch, its data buffers from <case>.a<i>.data.arrow's batch, the buffers' sizes made here.
 * The host array points into those batches; `sizes` holds the sizes. */
static void assemble_view(const struct ArrowArray *views, const struct ArrowArray *data, const void **buffers,
                          int64_t *sizes, struct ArrowArray *out)
{
    const int64_t *offsets = data->buffers[1];
    const uint8_t *bytes = data->buffers[2];
    int64_t count = data->length;
    buffers[0] = views->buffers[0];
    buffers[1] = views->buffers[1];
    for (int64_t j = 0; j < count; j++) {
        buffers[2 + j] = bytes + offsets[j];
        sizes[j] = offsets[j + 1] - offsets[j];
    }
    buffers[2 + count] = sizes;
    memset(out, 0, sizeof *out);
    out->length = views->length;
    out->null_count = views->null_count;
    out->offset = views->offset;
    out->n_buffers = 3 + count;
    out->buffers = buffers;
    out->release = no_release;
}

/* Whether a floating-point row is a NaN. Results that are NaN are compared as NaN, not bit for
 * bit: the GPU's arithmetic gives its canonical NaN (float32 0x7fffffff, float16 0x7fff), the
 * CPU's propagates an operand's sign and payload (0x7fc00000, 0xfe00); both are NaN to Arrow
 * (docs/arrow.md). */
static bool is_nan(const struct ArrowArrayView *v, int64_t row)
{
    const uint8_t *at = v->buffer_views[1].data.as_uint8;
    switch (v->storage_type) {
    case NANOARROW_TYPE_HALF_FLOAT: {
        uint16_t h;
        memcpy(&h, at + row * 2, 2);
        return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0;
    }
    case NANOARROW_TYPE_FLOAT: {
        float f;
        memcpy(&f, at + row * 4, 4);
        return isnan(f);
    }
    case NANOARROW_TYPE_DOUBLE: {
        double d;
        memcpy(&d, at + row * 8, 8);
        return isnan(d);
    }
    default:
        return false;
    }
}

/* The result against pyarrow's: format, length, every row's validity and every valid row's
 * bytes; a null_count other than Arrow's -1 ("not yet computed") must be the count. */
static void compare(const struct ArrowSchema *want_schema, const struct ArrowArray *want,
                    const struct ArrowSchema *got_schema, const struct ArrowArray *got)
{
    CHECK(strcmp(got_schema->format, want_schema->format) == 0, "%s: format '%s', pyarrow's '%s'", where,
          got_schema->format, want_schema->format);
    struct ArrowArrayView w, g;
    struct ArrowError error;
    if (ArrowArrayViewInitFromSchema(&w, want_schema, &error) || ArrowArrayViewSetArray(&w, want, &error) ||
        ArrowArrayViewInitFromSchema(&g, want_schema, &error) || ArrowArrayViewSetArray(&g, got, &error)) {
        CHECK(0, "%s: views: %s", where, error.message);
        return;
    }
    CHECK(got->length == want->length, "%s: %lld rows, pyarrow has %lld", where, (long long)got->length,
          (long long)want->length);
    const int64_t nulls = ArrowArrayViewComputeNullCount(&w);
    CHECK(got->null_count == -1 || got->null_count == nulls, "%s: null_count %lld, %lld rows are null", where,
          (long long)got->null_count, (long long)nulls);
    const int bits = w.layout.element_size_bits[1];
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < want->length && i < got->length; i++) {
        int8_t wn = ArrowArrayViewIsNull(&w, i), gn = ArrowArrayViewIsNull(&g, i);
        int same = wn == gn;
        if (same && !wn) {
            if (w.storage_type == NANOARROW_TYPE_STRING || w.storage_type == NANOARROW_TYPE_LARGE_STRING) {
                struct ArrowStringView ws = ArrowArrayViewGetStringUnsafe(&w, i), gs = ArrowArrayViewGetStringUnsafe(&g, i);
                same = ws.size_bytes == gs.size_bytes && memcmp(ws.data, gs.data, (size_t)ws.size_bytes) == 0;
            } else if (bits == 1)
                same = ArrowArrayViewGetIntUnsafe(&w, i) == ArrowArrayViewGetIntUnsafe(&g, i);
            else
                same = memcmp(w.buffer_views[1].data.as_uint8 + (w.offset + i) * (bits / 8),
                              g.buffer_views[1].data.as_uint8 + (g.offset + i) * (bits / 8), (size_t)bits / 8) == 0 ||
                       (is_nan(&w, w.offset + i) && is_nan(&g, g.offset + i));
        }
        if (!same && bad++ == 0)
            first = i;
    }
    CHECK(bad == 0, "%s: %lld rows differ from pyarrow's, the first row %lld", where, (long long)bad, (long long)first);
    if (bad && bits % 8 == 0 && bits > 0 && w.storage_type != NANOARROW_TYPE_STRING &&
        w.storage_type != NANOARROW_TYPE_LARGE_STRING) {
        /* The first such row as both have it: validity, then the value's bytes. */
        fprintf(stderr, "  row %lld: pyarrow's %s", (long long)first, ArrowArrayViewIsNull(&w, first) ? "null" : "valid");
        for (int b = 0; b < bits / 8; b++)
            fprintf(stderr, " %02x", w.buffer_views[1].data.as_uint8[(w.offset + first) * (bits / 8) + b]);
        fprintf(stderr, ", ours %s", ArrowArrayViewIsNull(&g, first) ? "null" : "valid");
        for (int b = 0; b < bits / 8; b++)
            fprintf(stderr, " %02x", g.buffer_views[1].data.as_uint8[(g.offset + first) * (bits / 8) + b]);
        fputc('\n', stderr);
    }
    ArrowArrayViewReset(&w);
    ArrowArrayViewReset(&g);
}

static void run_case(const char *dir, size_t c)
{
    struct ArrowArrayStream ins, outs, data[MAX_COLUMNS];
    struct ArrowSchema in_schema, out_schema, data_schema[MAX_COLUMNS];
    memset(data, 0, sizeof data);
    memset(data_schema, 0, sizeof data_schema);
    snprintf(where, sizeof where, "%s", cases[c].name);
    if (open_stream(dir, cases[c].name, ".in.arrow", &ins)) {
        CHECK(0, "%s: inputs", where);
        return;
    }
    if (open_stream(dir, cases[c].name, ".out.arrow", &outs)) {
        CHECK(0, "%s: answers", where);
        ins.release(&ins);
        return;
    }
    CHECK(ins.get_schema(&ins, &in_schema) == 0 && outs.get_schema(&outs, &out_schema) == 0, "%s: schemas", where);
    /* utf8_view inputs: their data buffers' stream beside, the schema the launcher sees. */
    struct ArrowSchema view_schema;
    ArrowSchemaInitFromType(&view_schema, NANOARROW_TYPE_STRING_VIEW);
    bool view[MAX_COLUMNS] = {false};
    for (int i = 0; i < cases[c].inputs; i++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, ".a%d.data.arrow", i + 1);
        char path[1024];
        snprintf(path, sizeof path, "%s/%s%s", dir, cases[c].name, suffix);
        FILE *probe = fopen(path, "rb");
        if (!probe)
            continue;
        fclose(probe);
        view[i] = !open_stream(dir, cases[c].name, suffix, &data[i]) &&
                  data[i].get_schema(&data[i], &data_schema[i]) == 0;
        CHECK(view[i], "%s: a%d's data buffers", where, i + 1);
    }
    for (int chunk = 0;; chunk++) {
        struct ArrowArray batch;
        if (ins.get_next(&ins, &batch) != 0 || !batch.release)
            break;
        struct ArrowDeviceArray dev[MAX_COLUMNS];
        const struct ArrowSchema *types[MAX_COLUMNS];
        memset(dev, 0, sizeof dev);
        struct ArrowArray data_batch[MAX_COLUMNS];
        memset(data_batch, 0, sizeof data_batch);
        int ok = 1;
        for (int i = 0; i < cases[c].inputs && ok; i++) {
            snprintf(where, sizeof where, "%s chunk %d a%d", cases[c].name, chunk, i + 1);
            types[i] = in_schema.children[i];
            if (!view[i]) {
                ok = to_device(types[i], batch.children[i], &dev[i]) == NANOARROW_OK;
                continue;
            }
            const void *buffers[64];
            int64_t sizes[64];
            struct ArrowArray host;
            ok = data[i].get_next(&data[i], &data_batch[i]) == 0 && data_batch[i].release &&
                 data_batch[i].children[0]->length < 60;
            CHECK(ok, "%s: its data buffers", where);
            if (!ok)
                break;
            assemble_view(batch.children[i], data_batch[i].children[0], buffers, sizes, &host);
            types[i] = &view_schema;
            ok = view_to_device(&host, sizes, &dev[i]) == NANOARROW_OK;
        }
        int64_t offsets[3], lengths[3];
        size_t nw = ok ? windows(batch.length, offsets, lengths) : 0;
        for (size_t w = 0; w < nw; w++) {
            struct ArrowArray answer;
            if (outs.get_next(&outs, &answer) != 0 || !answer.release) {
                CHECK(0, "%s: no answer for chunk %d window %zu", cases[c].name, chunk, w);
                break;
            }
            snprintf(where, sizeof where, "%s chunk %d rows [%lld, +%lld)", cases[c].name, chunk, (long long)offsets[w],
                     (long long)lengths[w]);
            /* The slice: the device arrays at an offset, sharing their buffers. */
            struct ArrowDeviceArray slice[MAX_COLUMNS];
            const struct ArrowDeviceArray *args[MAX_COLUMNS];
            for (int i = 0; i < cases[c].inputs; i++) {
                slice[i] = dev[i];
                slice[i].array.offset += offsets[w];
                slice[i].array.length = lengths[w];
                if (w)
                    slice[i].array.null_count = -1;
                slice[i].array.release = no_release;
                args[i] = &slice[i];
            }
            struct ArrowDeviceArray out[MAX_COLUMNS];
            struct ArrowSchema out_type[MAX_COLUMNS];
            memset(out, 0, sizeof out);
            memset(out_type, 0, sizeof out_type);
            if (!check(cases[c].run(args, types, out, out_type), where)) {
                for (int j = 0; j < cases[c].outputs; j++) {
                    CHECK(out[j].sync_event != NULL && out[j].device_type == ARROW_DEVICE_CUDA, "%s: out%d's device",
                          where, j + 1);
                    struct ArrowArray host;
                    if (to_host(out_type + j, &out[j], &host) == NANOARROW_OK) {
                        compare(out_schema.children[j], answer.children[j], &out_type[j], &host);
                        host.release(&host);
                    }
                    out[j].array.release(&out[j].array);
                    out_type[j].release(&out_type[j]);
                }
            }
            answer.release(&answer);
        }
        for (int i = 0; i < cases[c].inputs; i++) {
            if (dev[i].array.release)
                dev[i].array.release(&dev[i].array);
            if (data_batch[i].release)
                data_batch[i].release(&data_batch[i]);
        }
        batch.release(&batch);
    }
    for (int i = 0; i < cases[c].inputs; i++) {
        if (data[i].release)
            data[i].release(&data[i]);
        if (data_schema[i].release)
            data_schema[i].release(&data_schema[i]);
    }
    view_schema.release(&view_schema);
    in_schema.release(&in_schema);
    out_schema.release(&out_schema);
    ins.release(&ins);
    outs.release(&outs);
}

/* Refusals: each UDFKIT_ERROR_INVALID_ARGUMENT naming the argument, out left as it was. */
static void refusals(void)
{
    int64_t values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    struct ArrowSchema i64, f64;
    ArrowSchemaInitFromType(&i64, NANOARROW_TYPE_INT64);
    ArrowSchemaInitFromType(&f64, NANOARROW_TYPE_DOUBLE);
    void *d = device_copy(values, sizeof values);
    const void *buffers[2] = {NULL, d};
    struct ArrowDeviceArray a;
    memset(&a, 0, sizeof a);
    a.array.length = 8;
    a.array.n_buffers = 2;
    a.array.buffers = buffers;
    a.array.release = no_release;
    a.device_type = ARROW_DEVICE_CUDA;
    struct ArrowDeviceArray b = a, out;
    struct ArrowSchema out_type;
    memset(&out, 0, sizeof out);
    memset(&out_type, 0, sizeof out_type);
    snprintf(where, sizeof where, "refusals");
    struct {
        const char *what, *names;
        struct ArrowDeviceArray b;
        const struct ArrowSchema *tb;
    } bad[] = {
        {"a float64 schema", "t2", b, &f64},
        {"another device", "a2", b, &i64},
        {"CPU memory", "a2", b, &i64},
        {"a shorter array", "a2", b, &i64},
        {"three buffers", "a2", b, &i64},
    };
    bad[1].b.device_id = 7;
    bad[2].b.device_type = ARROW_DEVICE_CPU;
    bad[3].b.array.length = 7;
    bad[4].b.array.n_buffers = 3;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        udfkit_status st = ak_map_add_i64_arrow(NULL, &a, &i64, &bad[k].b, bad[k].tb, &out, &out_type);
        CHECK(st == UDFKIT_ERROR_INVALID_ARGUMENT && strstr(udfkit_last_error(), bad[k].names) &&
                  !out.array.release && !out_type.release,
              "%s: %s gives %s: %s", where, bad[k].what, udfkit_status_string(st), udfkit_last_error());
    }
    CHECK(strstr(udfkit_last_error(), "ak_map_add_i64_arrow: a2 ") != NULL, "the message names the launcher: %s",
          udfkit_last_error());
    udfkit_device_free(d);
    i64.release(&i64);
    f64.release(&f64);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_arrow <cases directory>\n");
        return 2;
    }
    udfkit_status st = ak_load();
    if (st == UDFKIT_ERROR_NO_DRIVER || st == UDFKIT_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", udfkit_last_error());
        return 77;
    }
    if (check(st, "ak_load"))
        return 1;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        run_case(argv[1], c);
    refusals();
    check(ak_udf_error(NULL, NULL, NULL), "ak_udf_error");
    ak_unload();
    /* The blocks and events released results left for the next launches go back, so that
     * compute-sanitizer's leak check sees every allocation freed. */
    check(udfkit_release_kept(), "udfkit_release_kept");
    printf("%d checks passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
