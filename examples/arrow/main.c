/* Arrow in, Arrow out: reads an Arrow IPC stream of order lines (price: float64, quantity:
 * int64, nulls allowed), moves each record batch's columns to the GPU with nanoarrow, runs
 * arrow_kernels_map_total_arrow (the UDF total = price * quantity over Arrow device arrays; a
 * row with a null input is null), brings the result back and writes it (total: float64) as an
 * Arrow IPC stream. check.py reads it with pyarrow and compares it with pyarrow.compute.
 *
 * usage: arrow_example IN.arrows OUT.arrows
 * Without a GPU it says so, writes nothing and exits 0. */
#include "arrow_kernels.h"
#include "udfkit_nanoarrow_device.h"

#include <nanoarrow/nanoarrow.h>
#include <nanoarrow/nanoarrow_ipc.h>

#include <stdio.h>
#include <string.h>

#define TRY(call, what)                                                                                       \
    do {                                                                                                      \
        int rc_ = (call);                                                                                     \
        if (rc_ != NANOARROW_OK) {                                                                            \
            fprintf(stderr, "arrow_example: %s: %s (%d)\n", what, error.message, rc_);                        \
            goto done;                                                                                        \
        }                                                                                                     \
    } while (0)

static void no_release(struct ArrowArray *a)
{
    a->release = NULL;
}

/* A host column on the GPU, and a device column back on the host, with nanoarrow's device
 * extension. */
static int copy_to(struct ArrowDevice *device, const struct ArrowSchema *type, struct ArrowDeviceArray *from,
                   struct ArrowDeviceArray *to, struct ArrowError *error)
{
    struct ArrowDeviceArrayView view;
    ArrowDeviceArrayViewInit(&view);
    int rc = ArrowArrayViewInitFromSchema(&view.array_view, type, error);
    if (rc == NANOARROW_OK)
        rc = ArrowDeviceArrayViewSetArray(&view, from, error);
    if (rc == NANOARROW_OK)
        rc = ArrowDeviceArrayViewCopy(&view, device, to);
    ArrowDeviceArrayViewReset(&view);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: arrow_example IN.arrows OUT.arrows\n");
        return 2;
    }
    udfkit_status st = arrow_kernels_load();
    if (st == UDFKIT_ERROR_NO_DRIVER || st == UDFKIT_ERROR_NO_DEVICE) {
        printf("arrow_example: no GPU visible (%s): nothing was run\n", udfkit_last_error());
        return 0;
    }
    if (st) {
        fprintf(stderr, "arrow_example: %s\n", udfkit_last_error());
        return 1;
    }
    int status = 1;
    long long rows = 0, batches = 0;
    struct ArrowError error = {{0}};
    struct ArrowArrayStream in = {0};
    struct ArrowSchema in_schema = {0}, out_schema = {0};
    struct ArrowIpcInputStream input;
    struct ArrowIpcOutputStream output = {0};
    struct ArrowIpcWriter writer = {0};
    FILE *in_file = fopen(argv[1], "rb"), *out_file = NULL;
    if (!in_file) {
        fprintf(stderr, "arrow_example: cannot open %s\n", argv[1]);
        return 1;
    }
    TRY(ArrowIpcInputStreamInitFile(&input, in_file, 1), "reading");
    TRY(ArrowIpcArrayStreamReaderInit(&in, &input, NULL), "reading");
    TRY(in.get_schema(&in, &in_schema), "the input's schema");
    if (in_schema.n_children != 2 || strcmp(in_schema.children[0]->name, "price") != 0 ||
        strcmp(in_schema.children[1]->name, "quantity") != 0) {
        fprintf(stderr, "arrow_example: %s: the columns are not (price, quantity)\n", argv[1]);
        goto done;
    }
    /* The output: one column, total, of the type the launcher gives (set at the first batch). */
    TRY(ArrowSchemaInitFromType(&out_schema, NANOARROW_TYPE_STRUCT), "the output's schema");
    TRY(ArrowSchemaAllocateChildren(&out_schema, 1), "the output's schema");
    out_file = fopen(argv[2], "wb");
    if (!out_file) {
        fprintf(stderr, "arrow_example: cannot write %s\n", argv[2]);
        goto done;
    }
    TRY(ArrowIpcOutputStreamInitFile(&output, out_file, 1), "writing");
    out_file = NULL; /* the stream closes it */
    TRY(ArrowIpcWriterInit(&writer, &output), "writing");
    for (;;) {
        struct ArrowArray batch;
        TRY(in.get_next(&in, &batch), "reading a batch");
        if (!batch.release)
            break;
        struct ArrowDeviceArray host[2], device[2], total, back;
        struct ArrowSchema total_type;
        memset(device, 0, sizeof device);
        memset(&total, 0, sizeof total);
        memset(&back, 0, sizeof back);
        memset(&total_type, 0, sizeof total_type);
        int rc = NANOARROW_OK;
        for (int i = 0; i < 2 && rc == NANOARROW_OK; i++) {
            memset(&host[i], 0, sizeof host[i]);
            host[i].array = *batch.children[i];
            host[i].array.release = no_release;
            host[i].device_type = ARROW_DEVICE_CPU;
            rc = copy_to(udfkit_nanoarrow_device(), in_schema.children[i], &host[i], &device[i], &error);
        }
        /* The UDF over the Arrow device arrays: the launcher checks their types against total's
         * (float64, int64), takes their offsets and validity, and gives a new array. */
        if (rc == NANOARROW_OK &&
            (st = arrow_kernels_map_total_arrow(NULL, &device[0], in_schema.children[0], &device[1],
                                                in_schema.children[1], &total, &total_type)) != UDFKIT_OK) {
            fprintf(stderr, "arrow_example: %s\n", udfkit_last_error());
            rc = EINVAL;
        }
        if (rc == NANOARROW_OK)
            rc = copy_to(ArrowDeviceCpu(), &total_type, &total, &back, &error);
        /* Arrow's -1 ("not yet computed") null count, counted now that the column is here. */
        struct ArrowArrayView view;
        if (rc == NANOARROW_OK && (rc = ArrowArrayViewInitFromSchema(&view, &total_type, &error)) == NANOARROW_OK) {
            if ((rc = ArrowArrayViewSetArray(&view, &back.array, &error)) == NANOARROW_OK)
                back.array.null_count = ArrowArrayViewComputeNullCount(&view);
            ArrowArrayViewReset(&view);
        }
        if (rc == NANOARROW_OK && batches == 0) {
            rc = ArrowSchemaDeepCopy(&total_type, out_schema.children[0]);
            if (rc == NANOARROW_OK)
                rc = ArrowSchemaSetName(out_schema.children[0], "total");
            if (rc == NANOARROW_OK)
                rc = ArrowIpcWriterWriteSchema(&writer, &out_schema, &error);
        }
        struct ArrowArray out_batch;
        memset(&out_batch, 0, sizeof out_batch);
        if (rc == NANOARROW_OK && (rc = ArrowArrayInitFromSchema(&out_batch, &out_schema, &error)) == NANOARROW_OK) {
            out_batch.children[0]->release(out_batch.children[0]);
            ArrowArrayMove(&back.array, out_batch.children[0]);
            out_batch.length = out_batch.children[0]->length;
            if ((rc = ArrowArrayViewInitFromSchema(&view, &out_schema, &error)) == NANOARROW_OK) {
                if ((rc = ArrowArrayViewSetArray(&view, &out_batch, &error)) == NANOARROW_OK)
                    rc = ArrowIpcWriterWriteArrayView(&writer, &view, &error);
                ArrowArrayViewReset(&view);
            }
            rows += out_batch.length;
            batches++;
        }
        struct ArrowArray *owned[] = {&out_batch, &back.array, &total.array, &device[0].array, &device[1].array, &batch};
        for (size_t i = 0; i < sizeof owned / sizeof *owned; i++)
            if (owned[i]->release)
                owned[i]->release(owned[i]);
        if (total_type.release)
            total_type.release(&total_type);
        TRY(rc, "a batch");
    }
    if (batches == 0) {
        fprintf(stderr, "arrow_example: %s has no record batch\n", argv[1]);
        goto done;
    }
    TRY(ArrowIpcWriterWriteArrayView(&writer, NULL, &error), "the end of the stream");
    printf("arrow_example: %lld rows in %lld batches: total = price * quantity on the GPU, written to %s\n", rows,
           batches, argv[2]);
    status = 0;
done:
    if (writer.private_data)
        ArrowIpcWriterReset(&writer);
    else if (output.release)
        output.release(&output);
    if (out_file)
        fclose(out_file);
    if (in.release)
        in.release(&in);
    if (in_schema.release)
        in_schema.release(&in_schema);
    if (out_schema.release)
        out_schema.release(&out_schema);
    if (status)
        remove(argv[2]);
    arrow_kernels_unload();
    return status;
}
