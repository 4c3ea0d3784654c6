"""Wrong twin of sum_noother: no `tl.where` on the column mask, so when N < BLOCK_N the
undefined lanes of the padded columns (a load without `other=`) enter the sums of the
rows that are stored. Read with masked-off lanes as 0 (the NVIDIA backend's zero fill,
`--masked-load zero`) it is a correct row sum."""
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
    total = tl.sum(x, axis=1)
    tl.store(y_ptr + rows, total, mask=rows < M)


KERNEL = "row_sum_noother_tile_kernel"
REFERENCE_OP = "sum_noother"
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
EXPECT = "error"
ERROR = "stores an undefined value"
ZERO_FILL = True
# Ragged columns in both instances (N < BLOCK_N), so undefined lanes reach stored rows.
INSTANCES = [
    {"name": "ragged", "sizes": {"M": 3, "N": 5}},
    {"name": "ragged6", "sizes": {"M": 6, "N": 7}},
]


def reference(inputs, sizes, scalars):
    return {"y": inputs["x"].sum(axis=1)}
