"""Wrong twin of layer_norm_welford: M2 is updated with the old mean on both sides,
`m2 += delta * delta` instead of `delta * (x - mean_new)`, which overstates the variance
by a factor that depends on the column (it is right only for the first column).
Launch, spec, instances and reference are those of layer_norm (REFERENCE_OP)."""
import triton
import triton.language as tl


@triton.jit
def layer_norm_welford_old_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for j in range(0, N):
        x = tl.load(X + j)
        count = count + 1.0
        delta = x - mean
        mean = mean + delta / count
        m2 = m2 + delta * delta
    var = m2 / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(X + cols, mask=mask, other=0.0)
        w = tl.load(W + cols, mask=mask, other=0.0)
        b = tl.load(B + cols, mask=mask, other=0.0)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y, mask=mask)


KERNEL = "layer_norm_welford_old_kernel"
SIGNATURE = {"X": "*fp32", "Y": "*fp32", "W": "*fp32", "B": "*fp32", "Mean": "*fp32", "Rstd": "*fp32",
             "stride": "i32", "N": "i32", "eps": "fp32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
REFERENCE_OP = "layer_norm"
EQUIV = "layer_norm"
EXPECT = "refuted"
BUG = "M2 is updated with delta * delta (the old mean twice) instead of delta * (x - new mean)"
