"""SwiGLU gate on two inputs: out = silu(a) * b, silu(a) = a * sigmoid(a)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def silu_mul_kernel(out_ptr, a_ptr, b_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    silu_a = a * tl.sigmoid(a)
    tl.store(out_ptr + offs, silu_a * b, mask=mask)


KERNEL = "silu_mul_kernel"
SIGNATURE = {"out_ptr": "*fp32", "a_ptr": "*fp32", "b_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "out_ptr": {"tensor": "out", "shape": ["N"], "role": "out"},
    "a_ptr": {"tensor": "a", "shape": ["N"]},
    "b_ptr": {"tensor": "b", "shape": ["N"]},
    "n": "N",
}
SPEC = "out = torch.nn.functional.silu(a) * b"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 12}},
    {"name": "ragged", "sizes": {"N": 9}},
]


def reference(inputs, sizes, scalars):
    a, b = inputs["a"], inputs["b"]
    return {"out": a / (1.0 + np.exp(-a)) * b}
