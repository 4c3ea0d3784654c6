"""Row sum of a ratio y[i] = sum_j x[i, j] / w[i, j], one program per row (N <= BLOCK_N).

Masked lanes load w with other=1.0, so they add 0 / 1 = 0 (the NaN twin uses 0.0)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def ratio_sum_kernel(x_ptr, w_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + row * n_cols + cols, mask=mask, other=1.0)
    tl.store(y_ptr + row, tl.sum(x / w, axis=0))


KERNEL = "ratio_sum_kernel"
SIGNATURE = {"x_ptr": "*fp32", "w_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": "i32",
             "BLOCK_N": "constexpr"}
CONSTEXPRS = {"BLOCK_N": 8}
GRID = ["M"]
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["M", "N"]},
    "w_ptr": {"tensor": "w", "shape": ["M", "N"]},
    "y_ptr": {"tensor": "y", "shape": ["M"], "role": "out"},
    "n_cols": "N",
}
SPEC = "y = torch.sum(x / w, dim=1)"
EXPECT = "verified"
# Both instances ragged: the masked lanes are where the NaN twin goes wrong.
INSTANCES = [
    {"name": "ragged", "sizes": {"M": 3, "N": 5}},
    {"name": "ragged7", "sizes": {"M": 2, "N": 7}},
]
DOMAIN = {"w": (0.5, 2.0)}


def reference(inputs, sizes, scalars):
    return {"y": (inputs["x"] / inputs["w"]).sum(axis=1)}
