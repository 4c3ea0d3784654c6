"""Row entropy y[i] = -sum_j p[i, j] log p[i, j] with p = softmax(x[i, :]), one program per row.

Masked lanes load -inf, so their p is exp(-inf) = 0 and p * log(p) is 0 * -inf = NaN
under IEEE; the kernel drops them with tl.where (the NaN twin does not)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def entropy_kernel(x_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    p = e / tl.sum(e, axis=0)
    plogp = tl.where(mask, p * tl.log(p), 0.0)
    tl.store(y_ptr + row, -tl.sum(plogp, axis=0))


KERNEL = "entropy_kernel"
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n_cols": "i32", "BLOCK_N": "constexpr"}
CONSTEXPRS = {"BLOCK_N": 8}
GRID = ["M"]
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["M", "N"]},
    "y_ptr": {"tensor": "y", "shape": ["M"], "role": "out"},
    "n_cols": "N",
}
SPEC = "y = -torch.sum(torch.softmax(x, dim=1) * torch.log(torch.softmax(x, dim=1)), dim=1)"
EXPECT = "verified"
# Both instances ragged: the masked lanes are where the NaN twin goes wrong.
INSTANCES = [
    {"name": "ragged", "sizes": {"M": 3, "N": 5}},
    {"name": "ragged7", "sizes": {"M": 2, "N": 7}},
]


def reference(inputs, sizes, scalars):
    x = inputs["x"]
    z = x - x.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return {"y": -(np.exp(logp) * logp).sum(axis=1)}
