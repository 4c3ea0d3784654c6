"""Size twin of sum: a loop over column tiles of BLOCK_N = 4 (as sum_tree) whose trip count is
`N // BLOCK_N` instead of `tl.cdiv(N, BLOCK_N)`, so a ragged last tile is never added.

Correct when N is a multiple of 4 (instances N = 8, N = 12); at any other N the last
N % 4 columns are dropped from every row sum. Launch, spec and reference are those of sum
(REFERENCE_OP); the instances are its own."""
import triton
import triton.language as tl


@triton.jit
def row_sum_loop_kernel(x_ptr, y_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, N // BLOCK_N):
        cols = k * BLOCK_N + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    total = tl.sum(acc, axis=1)
    tl.store(y_ptr + rows, total, mask=rows < M)


KERNEL = "row_sum_loop_kernel"
CONSTEXPRS = {"BLOCK_M": 2, "BLOCK_N": 4}
REFERENCE_OP = "sum"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}},
    {"name": "wide", "sizes": {"M": 3, "N": 12}},
]
SIZE_BUG = "loop trip count N // 4 instead of cdiv(N, 4): the last N % 4 columns are not summed when N % 4 != 0"
BUG_SIZES = {"M": 3, "N": 5}
