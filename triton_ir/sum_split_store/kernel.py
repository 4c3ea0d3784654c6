"""Size twin of sum, written twice: a 2-D grid of (row block, column tile) programs in
which every program sums its own tile of BLOCK_N = 8 columns and stores that partial to
y[row] with a plain `tl.store` (the author meant `tl.atomic_add` into a zeroed y).

Correct when there is one column tile, N <= 8 (instances N = 8, N = 5): then each y[row]
is written by exactly one program.  For N > 8 every y[row] is written by cdiv(N, 8)
programs holding different partial sums, and which one survives depends on the
schedule.  Launch and reference are those of sum (REFERENCE_OP) except the grid."""
import triton
import triton.language as tl


@triton.jit
def row_sum_split_store_kernel(x_ptr, y_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    partial = tl.sum(x, axis=1)
    tl.store(y_ptr + rows, partial, mask=rows < M)


KERNEL = "row_sum_split_store_kernel"
CONSTEXPRS = {"BLOCK_M": 2, "BLOCK_N": 8}
GRID = ["cdiv(M, 2)", "cdiv(N, 8)"]
REFERENCE_OP = "sum"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}},
    {"name": "ragged", "sizes": {"M": 3, "N": 5}},
]
SIZE_BUG = "each (row block, column tile) program stores its tile's partial sum to y[row] with a plain store: when N > 8 several programs write each y[row] with different partials"
BUG_SIZES = {"M": 3, "N": 13}
