"""Elementwise y = x + w on fp16 tensors: the sum is computed in f32 and rounded to f16."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def add_f16_kernel(y_ptr, x_ptr, w_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    y = x.to(tl.float32) + w.to(tl.float32)
    tl.store(y_ptr + offs, y.to(tl.float16), mask=mask)


KERNEL = "add_f16_kernel"
SIGNATURE = {"y_ptr": "*fp16", "x_ptr": "*fp16", "w_ptr": "*fp16", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "w_ptr": {"tensor": "w", "shape": ["N"]},
    "n": "N",
}
SPEC = "y = x + w"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 13}},
]


def reference(inputs, sizes, scalars):
    return {"y": inputs["x"] + inputs["w"]}
