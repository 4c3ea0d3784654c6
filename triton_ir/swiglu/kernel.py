"""SwiGLU on a packed input: x has shape [M, 2H]; y = silu(x[:, :H]) * x[:, H:].

2-D grid: axis 0 is the row, axis 1 a block of BLOCK columns of the output.
"""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def swiglu_kernel(x_ptr, y_ptr, stride_x, stride_y, H, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < H
    a = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
    b = tl.load(x_ptr + row * stride_x + H + cols, mask=mask, other=0.0)
    y = a * tl.sigmoid(a) * b
    tl.store(y_ptr + row * stride_y + cols, y, mask=mask)


KERNEL = "swiglu_kernel"
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "stride_x": "i32", "stride_y": "i32", "H": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["M", "cdiv(H, 4)"]
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["M", "2 * H"]},
    "y_ptr": {"tensor": "y", "shape": ["M", "H"], "role": "out"},
    "stride_x": "2 * H",
    "stride_y": "H",
    "H": "H",
}
SPEC = "y = torch.nn.functional.silu(x[:, :H]) * x[:, H:]"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 2, "H": 8}},
    {"name": "ragged", "sizes": {"M": 3, "H": 5}},
]


def reference(inputs, sizes, scalars):
    x = inputs["x"]
    H = sizes["H"]
    a, b = x[:, :H], x[:, H:]
    return {"y": a / (1.0 + np.exp(-a)) * b}
