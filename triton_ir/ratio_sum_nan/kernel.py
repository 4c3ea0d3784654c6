"""Wrong twin of ratio_sum: masked lanes load w with other=0.0, so they add 0 / 0 = NaN.

Every row with N < BLOCK_N is NaN (Triton's CPU interpreter prints nan)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def ratio_sum_kernel(x_ptr, w_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row, tl.sum(x / w, axis=0))


KERNEL = "ratio_sum_kernel"
REFERENCE_OP = "ratio_sum"
EQUIV = "ratio_sum"
EXPECT = "refuted"
BUG = "masked lanes load w with other=0.0: 0 / 0 is NaN in every ragged row"
BUG_GIVES_NAN = True
