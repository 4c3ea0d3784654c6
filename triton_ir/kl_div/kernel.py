"""Row KL divergence y[i] = sum_j p[i, j] log(p[i, j] / q[i, j]), one program per row.

Masked lanes load p and q as 1.0, so they add 1 * log(1) = 0 (the NaN twin loads 0.0)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def kl_div_kernel(p_ptr, q_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    p = tl.load(p_ptr + row * n_cols + cols, mask=mask, other=1.0)
    q = tl.load(q_ptr + row * n_cols + cols, mask=mask, other=1.0)
    tl.store(y_ptr + row, tl.sum(p * tl.log(p / q), axis=0))


KERNEL = "kl_div_kernel"
SIGNATURE = {"p_ptr": "*fp32", "q_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": "i32",
             "BLOCK_N": "constexpr"}
CONSTEXPRS = {"BLOCK_N": 8}
GRID = ["M"]
ARGS = {
    "p_ptr": {"tensor": "p", "shape": ["M", "N"]},
    "q_ptr": {"tensor": "q", "shape": ["M", "N"]},
    "y_ptr": {"tensor": "y", "shape": ["M"], "role": "out"},
    "n_cols": "N",
}
SPEC = "y = torch.sum(p * torch.log(p / q), dim=1)"
EXPECT = "verified"
# Both instances ragged: the masked lanes are where the NaN twin goes wrong.
INSTANCES = [
    {"name": "ragged", "sizes": {"M": 3, "N": 5}},
    {"name": "ragged7", "sizes": {"M": 2, "N": 7}},
]
DOMAIN = {"p": (0.05, 1.0), "q": (0.05, 1.0)}


def reference(inputs, sizes, scalars):
    p, q = inputs["p"], inputs["q"]
    return {"y": (p * np.log(p / q)).sum(axis=1)}
