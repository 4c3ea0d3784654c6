"""Elementwise subtraction: z = x - y."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def sub_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    z = x - y
    tl.store(z_ptr + offs, z, mask=mask)


KERNEL = "sub_kernel"
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "y_ptr": {"tensor": "y", "shape": ["N"]},
    "z_ptr": {"tensor": "z", "shape": ["N"], "role": "out"},
    "n": "N",
}
SPEC = "z = x - y"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 12}},
    {"name": "ragged", "sizes": {"N": 9}},
]


def reference(inputs, sizes, scalars):
    return {"z": inputs["x"] - inputs["y"]}
