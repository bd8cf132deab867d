"""udfs.py's calls into CUDA C as numba-cuda-mlir spells them: it types only the functions
its own cuda.declare_device declares (udfs.py declares them with numba-cuda's). The code
they call comes from udfs.py's __udfkit_link__ and c_side.cu, as for numba-cuda."""
from numba_cuda_mlir import cuda

ext_scale = cuda.declare_device("ext_scale", "float32(float32)", abi="c")
c_half_gate = cuda.declare_device("c_half_gate", "float16(float16, boolean)", abi="c")


def uses_ext(x):
    return ext_scale(x) + 1.0


def half_gate_twice(h, flag):
    return c_half_gate(h, flag) + c_half_gate(h, not flag)
