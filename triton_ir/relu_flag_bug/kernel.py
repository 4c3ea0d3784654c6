"""Wrong twin of relu_flag: the launch passes apply_relu = 0, so the kernel copies x."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def relu_flag_kernel(y_ptr, x_ptr, n, apply_relu, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if apply_relu:
        x = tl.maximum(x, 0.0)
    tl.store(y_ptr + offs, x, mask=mask)


KERNEL = "relu_flag_kernel"
REFERENCE_OP = "relu_flag"
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "n": "N",
    "apply_relu": 0,
}
EXPECT = "refuted"
BUG = "the launch's flag is 0: no ReLU is applied"
