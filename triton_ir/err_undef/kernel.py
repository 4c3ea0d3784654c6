"""Error kernel: row sum whose masked load has no `other=`, so the masked-off lanes
(undefined values) flow into tl.sum whenever N < BLOCK_N."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def row_sum_noother_kernel(y_ptr, x_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols)
    tl.store(y_ptr + row, tl.sum(x, axis=0))


KERNEL = "row_sum_noother_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "n_cols": "i32", "BLOCK_N": "constexpr"}
CONSTEXPRS = {"BLOCK_N": 8}
GRID = ["M"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["M"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["M", "N"]},
    "n_cols": "N",
}
SPEC = "y = torch.sum(x, dim=1)"
EXPECT = "error"
ERROR = "masked-off"
# only ragged sizes: with N == BLOCK_N no lane is masked off
INSTANCES = [
    {"name": "ragged", "sizes": {"M": 3, "N": 5}},
]
