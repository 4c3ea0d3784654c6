"""Wrong twin of gelu: cubic term typed as x * x, giving 0.044715 x^2 instead of 0.044715 x^3.

Launch, spec, instances and reference data are those of gelu (inherited by generate.py)."""
import math

import numpy as np
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def gelu_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    SQRT_2_OVER_PI: tl.constexpr = 0.7978845608028654
    inner = SQRT_2_OVER_PI * (x + 0.044715 * x * x)
    y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "gelu_kernel"
REFERENCE_OP = "gelu"
EQUIV = "gelu"
EXPECT = "refuted"
BUG = "cubic term typed as x * x, giving 0.044715 x^2 instead of 0.044715 x^3"
