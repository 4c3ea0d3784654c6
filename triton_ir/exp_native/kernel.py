"""Elementwise exponential y = exp(x) with tl.exp (math.exp), blocks of BLOCK = 8.

The second implementation of exp, whose kernel computes exp2(x * log2(e)) in blocks of 4.
Launch, spec, instances and reference data are those of exp (EQUIV, inherited by
generate.py)."""
import triton
import triton.language as tl


@triton.jit
def exp_native_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.exp(x)
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "exp_native_kernel"
CONSTEXPRS = {"BLOCK": 8}
GRID = ["cdiv(N, 8)"]
EQUIV = "exp"
EXPECT = "verified"
