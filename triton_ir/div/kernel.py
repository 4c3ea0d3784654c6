"""Elementwise division: z = x / y (denominators drawn from [0.5, 2])."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def div_kernel(z_ptr, x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(z_ptr + offs, x / y, mask=mask)


KERNEL = "div_kernel"
SIGNATURE = {"z_ptr": "*fp32", "x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "z_ptr": {"tensor": "z", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "y_ptr": {"tensor": "y", "shape": ["N"]},
    "n": "N",
}
SPEC = "z = x / y"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 10}},
]
DOMAIN = {"x": (-2.0, 2.0), "y": (0.5, 2.0)}


def reference(inputs, sizes, scalars):
    return {"z": inputs["x"] / inputs["y"]}
