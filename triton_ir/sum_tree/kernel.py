"""Row sum y[i] = sum_j x[i, j] by a loop over column tiles of BLOCK_N = 4 that accumulates a
BLOCK_M x BLOCK_N vector of partial sums, reduced once at the end with tl.sum(acc, axis=1).

Launch, spec, instances and reference data are those of sum (EQUIV, inherited by
generate.py); sum reduces one BLOCK_N = 8 tile directly."""
import triton
import triton.language as tl


@triton.jit
def row_sum_tree_kernel(x_ptr, y_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    total = tl.sum(acc, axis=1)
    tl.store(y_ptr + rows, total, mask=rows < M)


KERNEL = "row_sum_tree_kernel"
CONSTEXPRS = {"BLOCK_M": 2, "BLOCK_N": 4}
EQUIV = "sum"
EXPECT = "verified"
