"""Wrong twin of sign_abs: the integer sign is flipped (tl.where(x <= 0, 1, -1)), so y = -|x|."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def sign_abs_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    sign = tl.where(x <= 0, 1, -1)
    y = x * sign
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "sign_abs_kernel"
REFERENCE_OP = "sign_abs"
EXPECT = "refuted"
BUG = "the sign is flipped: y = -|x|"
