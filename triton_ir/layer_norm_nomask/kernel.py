"""Size twin of layer_norm: the centred row is not masked (`xc = x - mean`).

The padded lanes load 0, so each adds (0 - mean)^2 to the variance whenever the row is
shorter than the block (N < 8): right at N == 8, wrong at every shorter row.
"""
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
    xc = x - mean
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=mask, other=0.0)
    b = tl.load(B + cols, mask=mask, other=0.0)
    y = xc * rstd * w + b
    tl.store(Y + cols, y, mask=mask)


KERNEL = "layer_norm_fwd_kernel"
SIGNATURE = {"X": "*fp32", "Y": "*fp32", "W": "*fp32", "B": "*fp32", "Mean": "*fp32", "Rstd": "*fp32",
             "stride": "i32", "N": "i32", "eps": "fp32", "BLOCK_N": "constexpr"}
CONSTEXPRS = {"BLOCK_N": 8}
GRID = ["M"]
ARGS = {
    "X": {"tensor": "x", "shape": ["M", "N"]},
    "Y": {"tensor": "y", "shape": ["M", "N"], "role": "out"},
    "W": {"tensor": "w", "shape": ["N"]},
    "B": {"tensor": "b", "shape": ["N"]},
    "Mean": {"tensor": "mean", "shape": ["M"], "role": "out"},
    "Rstd": {"tensor": "rstd", "shape": ["M"], "role": "out"},
    "stride": "N",
    "N": "N",
    "eps": {"scalar": "eps"},
}
SPEC = ("y = torch.nn.functional.layer_norm(x, (N,), w, b, eps); "
        "mean = torch.mean(x, dim=-1); "
        "rstd = torch.rsqrt(torch.var(x, dim=-1, unbiased=False) + eps)")
REFERENCE_OP = "layer_norm"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}, "scalars": {"eps": 1e-5}},
    {"name": "rows", "sizes": {"M": 3, "N": 8}, "scalars": {"eps": 1e-5}},
]
SIZE_BUG = "variance over the whole block: the padded lanes add (0 - mean)^2 when N < 8"
BUG_SIZES = {"M": 3, "N": 6}


def reference(inputs, sizes, scalars):
    x, w, b, eps = inputs["x"], inputs["w"], inputs["b"], scalars["eps"]
    mean = x.mean(axis=-1)
    var = ((x - mean[:, None]) ** 2).mean(axis=-1)
    rstd = 1.0 / np.sqrt(var + eps)
    y = (x - mean[:, None]) * rstd[:, None] * w + b
    return {"y": y, "mean": mean, "rstd": rstd}
