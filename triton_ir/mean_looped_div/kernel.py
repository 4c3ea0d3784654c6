"""Size twin of mean_looped: the row sum is divided by the padded width
`tl.cdiv(N, BLOCK_N) * BLOCK_N` (the number of lanes the loop visited) instead of N.

Correct when N is a multiple of 4 (instances N = 8, N = 12); at any other N every mean is
scaled by N / (cdiv(N, 4) * 4). Launch, spec and reference are those of mean_looped
(REFERENCE_OP); the instances are its own."""
import triton
import triton.language as tl


@triton.jit
def row_mean_looped_div_kernel(x_ptr, y_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    mean = tl.sum(acc, axis=1) / (tl.cdiv(N, BLOCK_N) * BLOCK_N)
    tl.store(y_ptr + rows, mean, mask=rows < M)


KERNEL = "row_mean_looped_div_kernel"
REFERENCE_OP = "mean_looped"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}},
    {"name": "wide", "sizes": {"M": 3, "N": 12}},
]
SIZE_BUG = "mean divided by the padded width cdiv(N, 4) * 4 instead of N: wrong by a factor N / (cdiv(N, 4) * 4) when N % 4 != 0"
BUG_SIZES = {"M": 3, "N": 5}
