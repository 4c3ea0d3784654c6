"""Error kernel: accumulates into the output y (y = y + x) although y is an `out` tensor,
so it reads elements of y that nothing has written."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def accumulate_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    acc = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, acc + x, mask=mask)


KERNEL = "accumulate_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "n": "N",
}
SPEC = "y = x"
EXPECT = "error"
ERROR = "never written"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 6}},
]
