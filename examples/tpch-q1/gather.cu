/* The engine's own kernel beside the templates: a column's rows in the order sort() gave. */
extern "C" __global__ void gather128(const udfkit_decimal128 *in, const unsigned long long *order,
                                     udfkit_decimal128 *out, unsigned long long n)
{
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        out[i] = in[order[i]];
}
