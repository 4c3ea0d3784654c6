"""Size twin of sum: a loop over column tiles of BLOCK_N = 8 that advances by BLOCK_N // 2
instead of BLOCK_N (`range(0, N, BLOCK_N // 2)`, tiles `start + tl.arange(0, BLOCK_N)`
masked `cols < N`), so consecutive tiles overlap and their shared columns are summed twice.

Correct when there is one tile, N <= 4 (instances N = 4, N = 3); for N > 4 the columns
4 .. min(N, 8) - 1 (and later overlaps) are counted twice. Launch, spec and reference are
those of sum (REFERENCE_OP); the instances are its own."""
import triton
import triton.language as tl


@triton.jit
def row_sum_overlap_kernel(x_ptr, y_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, N, BLOCK_N // 2):
        cols = start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    total = tl.sum(acc, axis=1)
    tl.store(y_ptr + rows, total, mask=rows < M)


KERNEL = "row_sum_overlap_kernel"
CONSTEXPRS = {"BLOCK_M": 2, "BLOCK_N": 8}
REFERENCE_OP = "sum"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 4}},
    {"name": "ragged", "sizes": {"M": 3, "N": 3}},
]
SIZE_BUG = "tile loop steps by BLOCK_N // 2 = 4 over tiles of 8: when N > 4 the tiles overlap and their shared columns are summed twice"
BUG_SIZES = {"M": 3, "N": 5}
