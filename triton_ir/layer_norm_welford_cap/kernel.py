"""Size twin of layer_norm_welford: the running count saturates at 8.0
(`count = tl.minimum(count + 1.0, 8.0)`, as a capped momentum would), so past the eighth
column the "mean" becomes a moving average and M2 stops being the sum of squared
deviations.

Correct while no row has more than 8 columns (instances N = 8 and N = 6); wrong from
N = 9.  Launch, spec and reference are those of layer_norm (REFERENCE_OP); the
instances are its own."""
import triton
import triton.language as tl


@triton.jit
def layer_norm_welford_cap_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for j in range(0, N):
        x = tl.load(X + j)
        count = tl.minimum(count + 1.0, 8.0)
        delta = x - mean
        mean = mean + delta / count
        m2 = m2 + delta * (x - mean)
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


KERNEL = "layer_norm_welford_cap_kernel"
SIGNATURE = {"X": "*fp32", "Y": "*fp32", "W": "*fp32", "B": "*fp32", "Mean": "*fp32", "Rstd": "*fp32",
             "stride": "i32", "N": "i32", "eps": "fp32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
REFERENCE_OP = "layer_norm"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}, "scalars": {"eps": 1e-5}},
    {"name": "ragged", "sizes": {"M": 3, "N": 6}, "scalars": {"eps": 1e-5}},
]
SIZE_BUG = "the running count saturates at 8.0: from N = 9 the mean is a moving average and M2 is not the sum of squared deviations"
BUG_SIZES = {"M": 2, "N": 11}
