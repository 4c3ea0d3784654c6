"""Row argmax as an LLM writes it: a running max and the index picked by comparing loaded floats."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def argmax_loop_kernel(y_ptr, x_ptr, n_cols):
    row = tl.program_id(0)
    m = tl.load(x_ptr + row * n_cols)
    idx = 0
    for i in range(1, n_cols):
        v = tl.load(x_ptr + row * n_cols + i)
        better = v > m
        m = tl.where(better, v, m)
        idx = tl.where(better, i, idx)
    tl.store(y_ptr + row, idx)


KERNEL = "argmax_loop_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "n_cols": "i32"}
CONSTEXPRS = {}
GRID = ["M"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["M"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["M", "N"]},
    "n_cols": "N",
}
SPEC = "y = torch.argmax(x, dim=1)"
EXPECT = "verified"
INSTANCES = [
    {"name": "small", "sizes": {"M": 2, "N": 4}},
    {"name": "odd", "sizes": {"M": 3, "N": 5}},
]


def reference(inputs, sizes, scalars):
    x = inputs["x"]
    return {"y": np.argmax(x, axis=1).astype(np.float64)}
