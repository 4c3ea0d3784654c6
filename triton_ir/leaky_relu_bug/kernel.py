"""Wrong twin of leaky_relu: slope applied on the positive side (branches of tl.where swapped).

Launch, spec, instances and reference data are those of leaky_relu (inherited by generate.py)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def leaky_relu_kernel(x_ptr, y_ptr, n, NEG_SLOPE: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.where(x >= 0, x * NEG_SLOPE, x)
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "leaky_relu_kernel"
REFERENCE_OP = "leaky_relu"
EQUIV = "leaky_relu"
EXPECT = "refuted"
BUG = "slope applied on the positive side (branches of tl.where swapped)"
