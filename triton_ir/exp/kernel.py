"""Elementwise exponential y = exp(x), computed as exp2(x * log2(e)) as fast kernels do."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def exp_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    LOG2E: tl.constexpr = 1.4426950408889634
    y = tl.exp2(x * LOG2E)
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "exp_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "n": "N",
}
SPEC = "y = torch.exp(x)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 12}},
    {"name": "ragged", "sizes": {"N": 9}},
]


def reference(inputs, sizes, scalars):
    x = inputs["x"]
    return {"y": np.exp(x)}
