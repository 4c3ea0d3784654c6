"""Absolute value as an LLM writes it: y = x * sign, sign = tl.where(x < 0, -1, 1) (an integer chosen by data)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def sign_abs_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    sign = tl.where(x < 0, -1, 1)
    y = x * sign
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "sign_abs_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "n": "N",
}
SPEC = "y = torch.abs(x)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 11}},
]


def reference(inputs, sizes, scalars):
    x = inputs["x"]
    return {"y": np.abs(x)}
