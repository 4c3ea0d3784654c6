"""RMSNorm: y = x * rsqrt(mean(x^2) + eps) * w, one program per row."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, stride, n_cols, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean_sq = tl.sum(x * x, axis=0) / n_cols
    rrms = tl.rsqrt(mean_sq + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, x * rrms * w, mask=mask)


KERNEL = "rms_norm_kernel"
SIGNATURE = {"x_ptr": "*fp32", "w_ptr": "*fp32", "y_ptr": "*fp32", "stride": "i32", "n_cols": "i32",
             "eps": "fp32", "BLOCK_N": "constexpr"}
CONSTEXPRS = {"BLOCK_N": 16}
GRID = ["M"]
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["M", "N"]},
    "w_ptr": {"tensor": "w", "shape": ["N"]},
    "y_ptr": {"tensor": "y", "shape": ["M", "N"], "role": "out"},
    "stride": "N",
    "n_cols": "N",
    "eps": {"scalar": "eps"},
}
SPEC = "y = x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps) * w"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 2, "N": 16}, "scalars": {"eps": 1e-6}},
    {"name": "ragged", "sizes": {"M": 3, "N": 12}, "scalars": {"eps": 1e-6}},
]


def reference(inputs, sizes, scalars):
    x, w, eps = inputs["x"], inputs["w"], scalars["eps"]
    return {"y": x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * w}
