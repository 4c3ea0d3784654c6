"""Wrong twin of sum: column mask cols < N - 1 drops the last element of every row.

Launch, spec, instances and reference data are those of sum (inherited by generate.py)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, y_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N - 1)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    total = tl.sum(x, axis=1)
    tl.store(y_ptr + rows, total, mask=rows < M)


KERNEL = "row_sum_kernel"
REFERENCE_OP = "sum"
EQUIV = "sum"
EXPECT = "refuted"
BUG = "column mask cols < N - 1 drops the last element of every row"
