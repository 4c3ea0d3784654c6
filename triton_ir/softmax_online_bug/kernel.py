"""Wrong twin of softmax_online: running sum is not rescaled by exp(m_old - m_new) when the max grows.

Launch, spec, instances and reference data are those of softmax_online (inherited by generate.py)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_online_kernel(y_ptr, x_ptr, stride_row, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_row
    y_row = y_ptr + row * stride_row
    m_i = -float("inf")
    l_i = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf"))
        m_new = tl.maximum(m_i, tl.max(x, axis=0))
        l_i = l_i + tl.sum(tl.exp(x - m_new), axis=0)
        m_i = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=-float("inf"))
        y = tl.exp(x - m_i) / l_i
        tl.store(y_row + cols, y, mask=mask)


KERNEL = "softmax_online_kernel"
REFERENCE_OP = "softmax_online"
EQUIV = "softmax_online"
EXPECT = "refuted"
BUG = "running sum is not rescaled by exp(m_old - m_new) when the max grows"
