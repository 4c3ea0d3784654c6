"""GeGLU gate with exact (erf) GELU: out = gelu(a) * b, gelu(a) = 0.5 a (1 + erf(a / sqrt(2)))."""
import math

import numpy as np
import triton
import triton.language as tl


@triton.jit
def gelu_mul_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    gelu_a = 0.5 * a * (1.0 + tl.erf(a * 0.7071067811865476))
    tl.store(out_ptr + offs, gelu_a * b, mask=mask)


KERNEL = "gelu_mul_kernel"
SIGNATURE = {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "a_ptr": {"tensor": "a", "shape": ["N"]},
    "b_ptr": {"tensor": "b", "shape": ["N"]},
    "out_ptr": {"tensor": "out", "shape": ["N"], "role": "out"},
    "n": "N",
}
SPEC = "out = torch.nn.functional.gelu(a) * b"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 10}},
]


def reference(inputs, sizes, scalars):
    a, b = inputs["a"], inputs["b"]
    erf = np.vectorize(math.erf)
    return {"out": 0.5 * a * (1.0 + erf(a / math.sqrt(2.0))) * b}
