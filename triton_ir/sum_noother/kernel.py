"""Row sum over 2-D tiles whose load has no `other=`: the lanes of rows past M are
undefined (Triton leaves them so), but only the rows < M are stored. Padded columns of
valid rows are zeroed by a `tl.where` on the column mask, so every stored sum is defined."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def row_sum_noother_tile_kernel(x_ptr, y_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask)
    x = tl.where(cols[None, :] < N, x, 0.0)
    total = tl.sum(x, axis=1)
    tl.store(y_ptr + rows, total, mask=rows < M)


KERNEL = "row_sum_noother_tile_kernel"
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32", "stride_xm": "i32",
             "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 4, "BLOCK_N": 8}
GRID = ["cdiv(M, 4)"]
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["M", "N"]},
    "y_ptr": {"tensor": "y", "shape": ["M"], "role": "out"},
    "M": "M",
    "N": "N",
    "stride_xm": "N",
}
SPEC = "y = torch.sum(x, dim=1)"
EXPECT = "verified"
# Both instances have padded rows (M not a multiple of BLOCK_M); "ragged" also has
# padded columns.
INSTANCES = [
    {"name": "rows", "sizes": {"M": 6, "N": 8}},
    {"name": "ragged", "sizes": {"M": 3, "N": 5}},
]


def reference(inputs, sizes, scalars):
    return {"y": inputs["x"].sum(axis=1)}
