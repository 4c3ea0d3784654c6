"""Row max y[i] = max_j x[i, j], one program per row, by a loop over column tiles of
BLOCK_N = 4 that keeps a running elementwise maximum `acc = tl.maximum(acc, tile)` (masked
lanes -inf), reduced once at the end with tl.max(acc, axis=0).

Launch, spec, instances and reference data are those of max (EQUIV, inherited by
generate.py); max reduces one BLOCK_N = 8 tile directly."""
import triton
import triton.language as tl


@triton.jit
def row_max_looped_kernel(y_ptr, x_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.full((BLOCK_N,), -float("inf"), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        acc = tl.maximum(acc, x)
    tl.store(y_ptr + row, tl.max(acc, axis=0))


KERNEL = "row_max_looped_kernel"
CONSTEXPRS = {"BLOCK_N": 4}
EQUIV = "max"
EXPECT = "verified"
