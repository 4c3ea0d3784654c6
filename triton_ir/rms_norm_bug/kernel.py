"""Wrong twin of rms_norm: sum of squares instead of their mean (forgets to divide by n_cols).

Launch, spec, instances and reference data are those of rms_norm (inherited by generate.py)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, stride, n_cols, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean_sq = tl.sum(x * x, axis=0)
    rrms = tl.rsqrt(mean_sq + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, x * rrms * w, mask=mask)


KERNEL = "rms_norm_kernel"
REFERENCE_OP = "rms_norm"
EQUIV = "rms_norm"
EXPECT = "refuted"
BUG = "sum of squares instead of their mean (forgets to divide by n_cols)"
