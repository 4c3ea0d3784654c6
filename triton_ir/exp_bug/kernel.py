"""Wrong twin of exp: exp2(x) without the log2(e) scaling, i.e. 2^x instead of e^x.

Launch, spec, instances and reference data are those of exp (inherited by generate.py)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def exp_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    LOG2E: tl.constexpr = 1.4426950408889634
    y = tl.exp2(x)
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "exp_kernel"
REFERENCE_OP = "exp"
EQUIV = "exp"
EXPECT = "refuted"
BUG = "exp2(x) without the log2(e) scaling, i.e. 2^x instead of e^x"
