"""Row log-softmax: y = x - max(x) - log(sum(exp(x - max(x)))), one program per row."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def log_softmax_kernel(x_ptr, y_ptr, stride, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    shifted = x - tl.max(x, axis=0)
    sum_exp = tl.sum(tl.where(mask, tl.exp(shifted), 0.0), axis=0)
    y = shifted - tl.log(sum_exp)
    tl.store(y_ptr + row * stride + offs, y, mask=mask)


KERNEL = "log_softmax_kernel"
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "stride": "i32", "n_cols": "i32", "BLOCK_N": "constexpr"}
CONSTEXPRS = {"BLOCK_N": 16}
GRID = ["M"]
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["M", "N"]},
    "y_ptr": {"tensor": "y", "shape": ["M", "N"], "role": "out"},
    "stride": "N",
    "n_cols": "N",
}
SPEC = "y = torch.log_softmax(x, dim=-1)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 2, "N": 16}},
    {"name": "ragged", "sizes": {"M": 3, "N": 11}},
]


def reference(inputs, sizes, scalars):
    x = inputs["x"]
    s = x - x.max(axis=-1, keepdims=True)
    return {"y": s - np.log(np.exp(s).sum(axis=-1, keepdims=True))}
