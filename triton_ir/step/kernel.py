"""Heaviside step y = 1 where x >= 0, else 0 (torch.heaviside(x, 1) spelled with where)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def step_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.where(x >= 0.0, 1.0, 0.0)
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "step_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "n": "N",
}
SPEC = "y = torch.where(x >= 0, 1.0, 0.0)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 13}},
]


def reference(inputs, sizes, scalars):
    return {"y": np.where(inputs["x"] >= 0, 1.0, 0.0)}
