/* <udfkit/arrow.h> first, nanoarrow's headers after it (test_arrow_launchers.c has the other
 * order): both compile, the structs declared once. */
#include <udfkit/arrow.h>

#include <nanoarrow/nanoarrow.h>
#include <nanoarrow/nanoarrow_device.h>

int arrow_test_host_int64(int64_t n, struct ArrowArray *out, struct ArrowSchema *type);

/* An int64 array of n rows made with nanoarrow on the host, and its schema. */
int arrow_test_host_int64(int64_t n, struct ArrowArray *out, struct ArrowSchema *type)
{
    int rc = ArrowSchemaInitFromType(type, NANOARROW_TYPE_INT64);
    if (rc == NANOARROW_OK)
        rc = ArrowArrayInitFromType(out, NANOARROW_TYPE_INT64);
    if (rc == NANOARROW_OK)
        rc = ArrowArrayStartAppending(out);
    for (int64_t i = 0; i < n && rc == NANOARROW_OK; i++)
        rc = ArrowArrayAppendInt(out, i);
    if (rc == NANOARROW_OK)
        rc = ArrowArrayFinishBuildingDefault(out, NULL);
    return rc;
}
