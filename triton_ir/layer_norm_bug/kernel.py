"""Wrong twin of layer_norm: variance divides by N - 1 (unbiased) instead of N.

Launch, spec, instances and reference data are those of layer_norm (inherited by generate.py)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / (N - 1)
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=mask, other=0.0)
    b = tl.load(B + cols, mask=mask, other=0.0)
    y = xc * rstd * w + b
    tl.store(Y + cols, y, mask=mask)


KERNEL = "layer_norm_fwd_kernel"
REFERENCE_OP = "layer_norm"
EQUIV = "layer_norm"
EXPECT = "refuted"
BUG = "variance divides by N - 1 (unbiased) instead of N"
