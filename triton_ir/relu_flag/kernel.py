"""ReLU behind a runtime flag the launch fixes: `if apply_relu: x = max(x, 0)` (an scf.if on an i32 parameter)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def relu_flag_kernel(y_ptr, x_ptr, n, apply_relu, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if apply_relu:
        x = tl.maximum(x, 0.0)
    tl.store(y_ptr + offs, x, mask=mask)


KERNEL = "relu_flag_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "n": "i32", "apply_relu": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "n": "N",
    "apply_relu": 1,
}
SPEC = "y = torch.relu(x)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 11}},
]


def reference(inputs, sizes, scalars):
    x = inputs["x"]
    return {"y": np.maximum(x, 0.0)}
