/* The same cases on a GPU: every case evaluated by a kernel thread, the results written as
 * apply.cpp writes them (test_libs.py --gpu compares both with Arrow's). Built by nvcc:
 *     nvcc -std=c++17 -arch=sm_80 -I src/runtime/include tests/decimal_datetime/apply_gpu.cu -o apply_gpu */
#include "apply_io.h"

#include <cuda_runtime.h>

__global__ void apply_all(const test_case *cases, test_result *results, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        results[i] = apply(cases[i]);
}

static int check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s CASES\n", argv[0]);
        return 2;
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::fprintf(stderr, "no GPU\n");
        return 77;
    }
    std::vector<test_case> cases;
    if (!read_cases(argv[1], cases))
        return 1;
    size_t n = cases.size();
    std::vector<test_result> results(n);
    test_case *dc = nullptr;
    test_result *dr = nullptr;
    if (check(cudaMalloc(&dc, n * sizeof *dc), "cudaMalloc") || check(cudaMalloc(&dr, n * sizeof *dr), "cudaMalloc") ||
        check(cudaMemcpy(dc, cases.data(), n * sizeof *dc, cudaMemcpyHostToDevice), "cudaMemcpy"))
        return 1;
    apply_all<<<(unsigned)((n + 127) / 128), 128>>>(dc, dr, n);
    if (check(cudaGetLastError(), "launch") ||
        check(cudaMemcpy(results.data(), dr, n * sizeof *dr, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        return 1;
    for (const test_result &r : results)
        write_result(stdout, r);
    cudaFree(dc);
    cudaFree(dr);
    return 0;
}
