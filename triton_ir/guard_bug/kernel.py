"""Wrong twin of guard: the guard is forgotten (y = x), wrong only at x = 0."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def guard_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, x, mask=mask)


KERNEL = "guard_kernel"
REFERENCE_OP = "guard"
EQUIV = "guard"
EXPECT = "refuted"
BUG = "the zero guard is missing: y[i] = 0 where x[i] == 0, the spec gives 1"
BUG_REGION = "x == 0"
