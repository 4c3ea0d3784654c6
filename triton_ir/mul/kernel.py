"""Elementwise multiplication: z = x * y (one program per BLOCK, pointer increments)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def mul_kernel(z_ptr, x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    block_start = tl.program_id(axis=0) * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x * y
    tl.store(z_ptr + offsets, output, mask=mask)


KERNEL = "mul_kernel"
SIGNATURE = {"z_ptr": "*fp32", "x_ptr": "*fp32", "y_ptr": "*fp32", "n_elements": "i32", "BLOCK_SIZE": "constexpr"}
CONSTEXPRS = {"BLOCK_SIZE": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "z_ptr": {"tensor": "z", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "y_ptr": {"tensor": "y", "shape": ["N"]},
    "n_elements": "N",
}
SPEC = "z = x * y"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 13}},
]


def reference(inputs, sizes, scalars):
    return {"z": inputs["x"] * inputs["y"]}
