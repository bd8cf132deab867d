/* Device functions udfkit gives UDFs. `udfkit compile` declares them in every CUDA C/C++
 * UDF it compiles (this header is pre-included); a UDF compiled by other means includes it.
 * The kernels of `udfkit kernels` (add_jit_library's KERNELS) define them. */
#ifndef UDFKIT_UDF_H
#define UDFKIT_UDF_H

/* A decimal128 value (SPEC.md): a two's complement 128-bit integer, its low and high halves;
 * the result a decimal128 UDF writes through its leading `udfkit_decimal128 *out`. Also in
 * <udfkit/runtime.h>. */
#ifndef UDFKIT_DECIMAL128_DEFINED
#define UDFKIT_DECIMAL128_DEFINED
#if defined(__CUDACC_RTC__)
typedef struct {
    unsigned long long lo;
    long long hi;
} udfkit_decimal128;
#else
#include <stdint.h>
typedef struct {
    uint64_t lo;
    int64_t hi;
} udfkit_decimal128;
#endif
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
/* Stops the current row with an error `code` (any int; the first call of a row counts): the
 * launch records the lowest failed row and its code, and <library>_udf_error reports them
 * (UDFKIT_ERROR_UDF); under nullable_map(f, nullify) the row becomes null instead. The
 * UDF still returns normally; what it returns for a failed row is not used by filters and
 * nullable templates. Outside udfkit's kernels the call does nothing. */
extern "C" __device__ void udfkit_row_error(int code);
#endif

/* Row error codes udfkit records itself (a UDF's own codes are any other int), also in
 * <udfkit/runtime.h>: a string result that was built with another size the second time
 * (docs/strings.md, the two launches); and those of <udfkit/decimal.cuh> and
 * <udfkit/datetime.cuh> (docs/decimals-and-dates.md): a decimal that does not fit its
 * precision (38 digits in between), a division by zero, text that is no decimal number (or
 * a NaN, an infinity, a scale outside 0..38), a date or time outside its type's range, and
 * a civil date or time of day that does not exist (February 30, 24:00). */
#ifndef UDFKIT_ROW_ERROR_STRING_CHANGED
#define UDFKIT_ROW_ERROR_STRING_CHANGED (-2147483647)
#endif
#ifndef UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW
#define UDFKIT_ROW_ERROR_DECIMAL_OVERFLOW (-2147483646)
#define UDFKIT_ROW_ERROR_DIVIDE_BY_ZERO (-2147483645)
#define UDFKIT_ROW_ERROR_INVALID_DECIMAL (-2147483644)
#define UDFKIT_ROW_ERROR_DATETIME_OVERFLOW (-2147483643)
#define UDFKIT_ROW_ERROR_INVALID_DATETIME (-2147483642)
#endif
/* A Python UDF's strings that the device heap could not hold (docs/strings.md, "Python UDFs"). */
#ifndef UDFKIT_ROW_ERROR_STRING_MEMORY
#define UDFKIT_ROW_ERROR_STRING_MEMORY (-2147483632)
#endif

#endif /* UDFKIT_UDF_H */
