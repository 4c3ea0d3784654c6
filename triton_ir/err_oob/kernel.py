"""Error kernel: y = 2 * x written WITHOUT a mask.  With N not a multiple of BLOCK the last
program reads (and writes) past the end of the tensors: an out-of-bounds access."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def scale_nomask_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x * 2.0)


KERNEL = "scale_nomask_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "n": "N",
}
SPEC = "y = 2 * x"
EXPECT = "error"
ERROR = "out of bounds"
# only ragged sizes: with N a multiple of 4 the kernel would be correct
INSTANCES = [
    {"name": "ragged", "sizes": {"N": 10}},
    {"name": "ragged1", "sizes": {"N": 5}},
]
