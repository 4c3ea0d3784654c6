"""Wrong twin of step: x > 0 instead of x >= 0, so it differs from the spec only at x = 0."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def step_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.where(x > 0.0, 1.0, 0.0)
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "step_kernel"
REFERENCE_OP = "step"
EQUIV = "step"
EXPECT = "refuted"
BUG = "x > 0 instead of x >= 0: y is 0 at x = 0, where the spec gives 1"
BUG_REGION = "x == 0"
