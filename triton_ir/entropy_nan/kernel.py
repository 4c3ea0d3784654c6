"""Wrong twin of entropy: p * log(p) is summed over every lane, masked ones included.

A masked lane has p = 0 and log(p) = -inf, so every row with N < BLOCK_N is NaN."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def entropy_kernel(x_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    p = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row, -tl.sum(p * tl.log(p), axis=0))


KERNEL = "entropy_kernel"
REFERENCE_OP = "entropy"
EQUIV = "entropy"
EXPECT = "refuted"
BUG = "masked lanes give p * log(p) = 0 * -inf = NaN: every ragged row is NaN"
BUG_GIVES_NAN = True
