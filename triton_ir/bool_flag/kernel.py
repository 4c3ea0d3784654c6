"""ReLU behind a runtime bool argument (`apply: i1`, not a constexpr; relu_flag passes an i32), bound to `true` in the launch."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def bool_flag_kernel(x_ptr, y_ptr, n, apply, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if apply:
        x = tl.maximum(x, 0.0)
    tl.store(y_ptr + offs, x, mask=mask)


KERNEL = "bool_flag_kernel"
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "apply": "i1", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "n": "N",
    "apply": True,
}
SPEC = "y = torch.relu(x)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 13}},
]


def reference(inputs, sizes, scalars):
    return {"y": np.maximum(inputs["x"], 0.0)}
