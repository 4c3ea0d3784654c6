"""Size twin of max: max_looped's running maximum over column tiles of BLOCK_N = 4, but the
loop bound is `n_cols - 1` instead of `n_cols` (`range(0, n_cols - 1, BLOCK_N)`), so when
N % 4 == 1 the last tile, holding only the last column, is never loaded.

Correct when N % 4 != 1 (instances N = 8, 6, 11); at N = 5, 9, ... the last column is left out
of every row max. Launch, spec and reference are those of max (REFERENCE_OP); the instances
are its own."""
import triton
import triton.language as tl


@triton.jit
def row_max_loop_short_kernel(y_ptr, x_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.full((BLOCK_N,), -float("inf"), dtype=tl.float32)
    for start in range(0, n_cols - 1, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        acc = tl.maximum(acc, x)
    tl.store(y_ptr + row, tl.max(acc, axis=0))


KERNEL = "row_max_loop_short_kernel"
CONSTEXPRS = {"BLOCK_N": 4}
REFERENCE_OP = "max"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}},
    {"name": "ragged", "sizes": {"M": 3, "N": 6}},
    {"name": "wide", "sizes": {"M": 2, "N": 11}},
]
SIZE_BUG = "loop bound n_cols - 1 instead of n_cols: when N % 4 == 1 the last column is not in the row max"
BUG_SIZES = {"M": 8, "N": 5}
