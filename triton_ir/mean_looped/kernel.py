"""Row mean y[i] = sum_j x[i, j] / N, 2-D tiles of BLOCK_M = 2 rows, by a loop over column
tiles of BLOCK_N = 4 that accumulates a BLOCK_M x BLOCK_N vector of partial sums (as
sum_tree), reduced with tl.sum(acc, axis=1) and divided by N."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def row_mean_looped_kernel(x_ptr, y_ptr, M, N, stride_xm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        acc += tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0)
    mean = tl.sum(acc, axis=1) / N
    tl.store(y_ptr + rows, mean, mask=rows < M)


KERNEL = "row_mean_looped_kernel"
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32", "stride_xm": "i32",
             "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 2, "BLOCK_N": 4}
GRID = ["cdiv(M, 2)"]
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["M", "N"]},
    "y_ptr": {"tensor": "y", "shape": ["M"], "role": "out"},
    "M": "M",
    "N": "N",
    "stride_xm": "N",
}
SPEC = "y = torch.mean(x, dim=1)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}},
    {"name": "ragged", "sizes": {"M": 3, "N": 5}},
]


def reference(inputs, sizes, scalars):
    return {"y": inputs["x"].mean(axis=1)}
