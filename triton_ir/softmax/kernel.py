"""Row softmax, one program per row, the whole row in one block (N <= BLOCK_N), max-subtracted."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(y_ptr, x_ptr, x_row_stride, y_row_stride, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    den = tl.sum(num, axis=0)
    y = num / den
    tl.store(y_ptr + row * y_row_stride + cols, y, mask=mask)


KERNEL = "softmax_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "x_row_stride": "i32", "y_row_stride": "i32",
             "n_cols": "i32", "BLOCK_N": "constexpr"}
CONSTEXPRS = {"BLOCK_N": 8}
GRID = ["M"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["M", "N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["M", "N"]},
    "x_row_stride": "N",
    "y_row_stride": "N",
    "n_cols": "N",
}
SPEC = "y = torch.softmax(x, dim=-1)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}},
    {"name": "ragged", "sizes": {"M": 3, "N": 5}},
]


def reference(inputs, sizes, scalars):
    x = inputs["x"]
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return {"y": e / e.sum(axis=-1, keepdims=True)}
