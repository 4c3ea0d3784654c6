"""Wrong twin of log_softmax: the max is subtracted inside the log-sum-exp but not from x: y = x - log(sum(exp(x - max))).

Launch, spec, instances and reference data are those of log_softmax (inherited by generate.py)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def log_softmax_kernel(x_ptr, y_ptr, stride, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    shifted = x - tl.max(x, axis=0)
    sum_exp = tl.sum(tl.where(mask, tl.exp(shifted), 0.0), axis=0)
    y = x - tl.log(sum_exp)
    tl.store(y_ptr + row * stride + offs, y, mask=mask)


KERNEL = "log_softmax_kernel"
REFERENCE_OP = "log_softmax"
EQUIV = "log_softmax"
EXPECT = "refuted"
BUG = "the max is subtracted inside the log-sum-exp but not from x: y = x - log(sum(exp(x - max)))"
