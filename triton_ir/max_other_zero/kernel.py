"""Wrong twin of max: masked lanes load 0.0 instead of -inf.

The row max is then max(x, 0), wrong exactly on ragged rows whose elements are all negative."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(y_ptr, x_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.max(x, axis=0))


KERNEL = "row_max_kernel"
REFERENCE_OP = "max"
EXPECT = "refuted"
# Ragged instances only: with N = BLOCK_N there are no masked lanes and the twin is right.
INSTANCES = [
    {"name": "ragged", "sizes": {"M": 3, "N": 6}},
    {"name": "ragged5", "sizes": {"M": 2, "N": 5}},
]
BUG = "masked lanes load 0.0, not -inf: a ragged row of negative values gets max 0"
BUG_REGION = "a ragged row whose elements are all negative"
