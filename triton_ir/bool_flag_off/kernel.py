"""Wrong twin of bool_flag: the same kernel with its bool argument bound to false, so the
ReLU is skipped (y = x). A reader that ignored the flag's value, or read `false` as true,
would prove it.

Spec, instances and reference data are those of bool_flag (inherited by generate.py)."""
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
REFERENCE_OP = "bool_flag"
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["N"]},
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "n": "N",
    "apply": False,
}
EXPECT = "refuted"
BUG = "the bool argument is bound to false: no ReLU"
