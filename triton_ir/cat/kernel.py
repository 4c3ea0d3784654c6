"""Concatenation of two vectors: out[:N1] = a, out[N1:] = b."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def cat_kernel(out_ptr, a_ptr, b_ptr, n1, n2, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    in_a = offs < n1
    in_b = (offs >= n1) & (offs < n1 + n2)
    a = tl.load(a_ptr + offs, mask=in_a, other=0.0)
    b = tl.load(b_ptr + (offs - n1), mask=in_b, other=0.0)
    out = tl.where(in_a, a, b)
    tl.store(out_ptr + offs, out, mask=offs < n1 + n2)


KERNEL = "cat_kernel"
SIGNATURE = {"out_ptr": "*fp32", "a_ptr": "*fp32", "b_ptr": "*fp32", "n1": "i32", "n2": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N1 + N2, 4)"]
ARGS = {
    "out_ptr": {"tensor": "out", "shape": ["N1 + N2"], "role": "out"},
    "a_ptr": {"tensor": "a", "shape": ["N1"]},
    "b_ptr": {"tensor": "b", "shape": ["N2"]},
    "n1": "N1",
    "n2": "N2",
}
SPEC = "out = torch.cat([a, b])"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N1": 4, "N2": 8}},
    {"name": "ragged", "sizes": {"N1": 5, "N2": 6}},
]


def reference(inputs, sizes, scalars):
    return {"out": np.concatenate([inputs["a"], inputs["b"]])}
