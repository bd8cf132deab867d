// Operators for the grouped and ordered kernel templates (tests/gpu/test_grouped_kernels.c):
// associative, some not commutative, so that a reordering shows.
#include <cuda_fp16.h>

__device__ int add_i32(int a, int b)
{
    return (int)((unsigned)a + (unsigned)b);
}

__device__ double add_f64(double a, double b)
{
    return a + b;
}

__device__ unsigned char add_u8(unsigned char a, unsigned char b)
{
    return (unsigned char)(a + b);
}

__device__ bool or_bool(bool a, bool b)
{
    return a || b;
}

__device__ __half max_f16(__half a, __half b)
{
    return __hgt(b, a) ? b : a;
}

// "Keep the left one": associative, and any reordering of the rows changes the result.
__device__ int keep_left(int a, int b)
{
    (void)b;
    return a;
}

// 2x2 matrices of 16-bit integers (mod 2^16) packed in an int64, row by row; their product.
__device__ long long mat2_mul(long long x, long long y)
{
    unsigned long long a = (unsigned long long)x, b = (unsigned long long)y;
    unsigned a00 = a & 0xffff, a01 = (a >> 16) & 0xffff, a10 = (a >> 32) & 0xffff, a11 = (a >> 48) & 0xffff;
    unsigned b00 = b & 0xffff, b01 = (b >> 16) & 0xffff, b10 = (b >> 32) & 0xffff, b11 = (b >> 48) & 0xffff;
    unsigned long long c00 = (a00 * b00 + a01 * b10) & 0xffff, c01 = (a00 * b01 + a01 * b11) & 0xffff;
    unsigned long long c10 = (a10 * b00 + a11 * b10) & 0xffff, c11 = (a10 * b01 + a11 * b11) & 0xffff;
    return (long long)(c00 | c01 << 16 | c10 << 32 | c11 << 48);
}

// An op that fails rows: a negative operand stops the row with code 7 (udfkit_row_error:
// <udfkit/udf.h>, which udfkit compile includes). A scan's first row is only ever a left
// operand, so both operands are checked.
__device__ int checked_add(int a, int b)
{
    if (a < 0 || b < 0)
        udfkit_row_error(7);
    return (int)((unsigned)a + (unsigned)b);
}

// An op that checks both operands lie in [0, 2^24) (code 11): the test's rows are 0 to 7 and
// their sums stay below 2^24, so only a value the op was never meant to see fails it (a place
// of reduce_by_key's last tile that was not loaded, whose register holds anything).
__device__ int bounded_add(int a, int b)
{
    if (a < 0 || a >= (1 << 24) || b < 0 || b >= (1 << 24))
        udfkit_row_error(11);
    return a + b;
}

// transform_reduce's functions: one input, two inputs of different types, a predicate, and one
// that fails rows (x < 0, code 9, at the row itself).
__device__ long long square64(int x)
{
    return (long long)x * x;
}

__device__ double scaled(float x, signed char k)
{
    return (double)x * k;
}

__device__ bool is_negative(int x)
{
    return x < 0;
}

__device__ long long checked_square(int x)
{
    if (x < 0)
        udfkit_row_error(9);
    return (long long)x * x;
}

// A 2x2 matrix from two columns: [[1, a], [0, b]] mod 2^16, for mat2_mul.
__device__ long long upper(int a, int b)
{
    return (long long)(1ull | (unsigned long long)(a & 0xffff) << 16 | (unsigned long long)(b & 0xffff) << 48);
}

__device__ long long add_i64(long long a, long long b)
{
    return (long long)((unsigned long long)a + (unsigned long long)b);
}

// sort's comparators (less(a, b): a goes before b): ascending, descending, by absolute value
// (x and -x tie, so that stability shows), false before true, float16 by value, and one that
// fails where an operand is negative (code 8).
__device__ bool less_i32(int a, int b)
{
    return a < b;
}

__device__ bool abs_less_i32(int a, int b)
{
    return (a < 0 ? -(long long)a : a) < (b < 0 ? -(long long)b : b);
}

__device__ bool less_f64(double a, double b)
{
    return a < b;
}

__device__ bool greater_f64(double a, double b)
{
    return a > b;
}

__device__ bool less_u8(unsigned char a, unsigned char b)
{
    return a < b;
}

__device__ bool less_bool(bool a, bool b)
{
    return !a && b;
}

__device__ bool less_f16(__half a, __half b)
{
    return __hlt(a, b);
}

__device__ bool checked_less(int a, int b)
{
    if (a < 0 || b < 0)
        udfkit_row_error(8);
    return a < b;
}

// A uint8 row as an int64, for transform_reduce over more than 2^31 rows.
__device__ long long widen(unsigned char x)
{
    return x;
}
