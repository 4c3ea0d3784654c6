"""Wrong twin of argmax_loop: the comparison is flipped (v < m), so it finds the argmin."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def argmax_loop_kernel(y_ptr, x_ptr, n_cols):
    row = tl.program_id(0)
    m = tl.load(x_ptr + row * n_cols)
    idx = 0
    for i in range(1, n_cols):
        v = tl.load(x_ptr + row * n_cols + i)
        better = v < m
        m = tl.where(better, v, m)
        idx = tl.where(better, i, idx)
    tl.store(y_ptr + row, idx)


KERNEL = "argmax_loop_kernel"
REFERENCE_OP = "argmax_loop"
EXPECT = "refuted"
BUG = "the comparison is flipped: the index of the row's minimum"
