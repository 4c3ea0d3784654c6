"""Wrong twin of kl_div: masked lanes load p and q as 0.0.

They add 0 * log(0 / 0) = NaN, so every row with N < BLOCK_N is NaN."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def kl_div_kernel(p_ptr, q_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    p = tl.load(p_ptr + row * n_cols + cols, mask=mask, other=0.0)
    q = tl.load(q_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row, tl.sum(p * tl.log(p / q), axis=0))


KERNEL = "kl_div_kernel"
REFERENCE_OP = "kl_div"
EQUIV = "kl_div"
EXPECT = "refuted"
BUG = "masked lanes load p = q = 0.0: 0 * log(0 / 0) is NaN in every ragged row"
BUG_GIVES_NAN = True
