"""Elementwise addition: z = x + y."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def add_kernel(z_ptr, x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(z_ptr + offs, x + y, mask=mask)


KERNEL = "add_kernel"
SIGNATURE = {"z_ptr": "*fp32", "x_ptr": "*fp32", "y_ptr": "*fp32", "n_elements": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "z_ptr": {"tensor": "z", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "y_ptr": {"tensor": "y", "shape": ["N"]},
    "n_elements": "N",
}
SPEC = "z = x + y"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 11}},
]


def reference(inputs, sizes, scalars):
    return {"z": inputs["x"] + inputs["y"]}
