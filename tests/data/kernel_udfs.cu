// UDFs for the kernel templates (udfkit kernels): a predicate for filter, ops for reduce,
// and a map over a 1-byte type, for more than 2^31 rows.

__device__ bool is_even(int x)
{
    return (x & 1) == 0;
}

__device__ long long add64(long long a, long long b)
{
    return a + b;
}

// Affine maps x -> hi * x + lo on 32-bit integers, packed as hi << 32 | lo, composed first
// then second: associative but not commutative, so a reduce that combines rows out of order
// gives another result.
__device__ long long affine(long long first, long long second)
{
    unsigned long long f = (unsigned long long)first, s = (unsigned long long)second;
    unsigned int fh = (unsigned int)(f >> 32), fl = (unsigned int)f;
    unsigned int sh = (unsigned int)(s >> 32), sl = (unsigned int)s;
    unsigned int hi = sh * fh, lo = sh * fl + sl;
    return (long long)(((unsigned long long)hi << 32) | lo);
}

__device__ float max_f32(float a, float b)
{
    return a > b ? a : b;
}

__device__ signed char inc8(signed char x)
{
    return (signed char)(x + 1);
}

// A map with two output columns of different types: void(A1, O1*, O2*).
__device__ void split2(int x, int *half, long long *square)
{
    *half = x / 2;
    *square = (long long)x * x;
}

// A predicate of two columns, for filter(pick2, values): both columns' kept values.
__device__ bool pick2(int a, long long b)
{
    return a > 0 && (b & 3) == 0;
}

// One row in 8 of a 1-byte column, for a filter over more than 2^31 rows.
__device__ bool multiple8(signed char x)
{
    return (x & 7) == 0;
}

// is_even that fails rows holding 777 (code 5) and 4242 (code 6): a failed row is recorded,
// the lowest of a launch, and not kept.
__device__ bool even_or_fail(int x)
{
    if (x == 777)
        udfkit_row_error(5);
    if (x == 4242)
        udfkit_row_error(6);
    return (x & 1) == 0;
}

// x / 2, failing rows holding 777 (code 5) and 4242 (code 6): a map records the lowest failed
// row of a launch; every row's output is what the function returns.
__device__ int half_or_fail(int x)
{
    if (x == 777)
        udfkit_row_error(5);
    if (x == 4242)
        udfkit_row_error(6);
    return x / 2;
}
