"""Leaky ReLU with the slope a runtime f32 argument the launch fixes ({ value = 0.01 })."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def leaky_relu_arg_kernel(x_ptr, y_ptr, n, neg_slope, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.where(x >= 0, x, x * neg_slope)
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "leaky_relu_arg_kernel"
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "neg_slope": "fp32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "n": "N",
    "neg_slope": {"value": 0.01},
}
SPEC = "y = torch.nn.functional.leaky_relu(x, negative_slope=0.01)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 13}},
]


def reference(inputs, sizes, scalars):
    x = inputs["x"]
    # the host passes float32(0.01); the spec rounds 0.01 to float32 as well
    slope = float(np.float32(0.01))
    return {"y": np.where(x >= 0, x, slope * x)}
