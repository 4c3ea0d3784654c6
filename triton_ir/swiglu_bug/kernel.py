"""Wrong twin of swiglu: halves swapped: silu applied to the second half and multiplied by the first.

Launch, spec, instances and reference data are those of swiglu (inherited by generate.py)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def swiglu_kernel(x_ptr, y_ptr, stride_x, stride_y, H, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < H
    a = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
    b = tl.load(x_ptr + row * stride_x + H + cols, mask=mask, other=0.0)
    y = b * tl.sigmoid(b) * a
    tl.store(y_ptr + row * stride_y + cols, y, mask=mask)


KERNEL = "swiglu_kernel"
REFERENCE_OP = "swiglu"
EQUIV = "swiglu"
EXPECT = "refuted"
BUG = "halves swapped: silu applied to the second half and multiplied by the first"
