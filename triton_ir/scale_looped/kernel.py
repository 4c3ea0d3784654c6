"""Elementwise y = 2 x over an M x N matrix, one program per row, by a loop over column
tiles of BLOCK = 4 that loads, scales and stores each tile (masked `cols < N`): stores
inside a loop whose trip count cdiv(N, 4) depends on the size."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def scale_looped_kernel(y_ptr, x_ptr, N, stride_m, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * stride_m + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * stride_m + cols, x * 2.0, mask=mask)


KERNEL = "scale_looped_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "N": "i32", "stride_m": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["M"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["M", "N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["M", "N"]},
    "N": "N",
    "stride_m": "N",
}
SPEC = "y = 2 * x"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}},
    {"name": "ragged", "sizes": {"M": 3, "N": 5}},
]


def reference(inputs, sizes, scalars):
    return {"y": 2.0 * inputs["x"]}
