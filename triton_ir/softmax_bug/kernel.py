"""Wrong twin of softmax: numerator exp(x) is not max-subtracted while the denominator is.

Launch, spec, instances and reference data are those of softmax (inherited by generate.py)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(y_ptr, x_ptr, x_row_stride, y_row_stride, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(tl.exp(z), axis=0)
    y = num / den
    tl.store(y_ptr + row * y_row_stride + cols, y, mask=mask)


KERNEL = "softmax_kernel"
REFERENCE_OP = "softmax"
EQUIV = "softmax"
EXPECT = "refuted"
BUG = "numerator exp(x) is not max-subtracted while the denominator is"
