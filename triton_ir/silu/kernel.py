"""SiLU / swish: y = x * sigmoid(x), written as x / (1 + exp(-x))."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def silu_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = x / (1.0 + tl.exp(-x))
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "silu_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "n": "N",
}
SPEC = "y = torch.nn.functional.silu(x)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 11}},
]


def reference(inputs, sizes, scalars):
    x = inputs["x"]
    return {"y": x / (1.0 + np.exp(-x))}
