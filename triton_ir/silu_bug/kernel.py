"""Wrong twin of silu: sign error in the exponent: x / (1 + exp(x)) instead of x / (1 + exp(-x)).

Launch, spec, instances and reference data are those of silu (inherited by generate.py)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def silu_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = x / (1.0 + tl.exp(x))
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "silu_kernel"
REFERENCE_OP = "silu"
EQUIV = "silu"
EXPECT = "refuted"
BUG = "sign error in the exponent: x / (1 + exp(x)) instead of x / (1 + exp(-x))"
