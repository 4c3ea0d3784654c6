"""Row softmax with an online (single-pass) normaliser over column tiles of BLOCK.

Pass 1 keeps a running max m and a running sum l of exp(x - m), rescaling l by
exp(m_old - m_new) whenever the max grows; pass 2 writes exp(x - m) / l.
"""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def softmax_online_kernel(y_ptr, x_ptr, stride_row, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_row
    y_row = y_ptr + row * stride_row
    m_i = -float("inf")
    l_i = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf"))
        m_new = tl.maximum(m_i, tl.max(x, axis=0))
        l_i = l_i * tl.exp(m_i - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m_i = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=-float("inf"))
        y = tl.exp(x - m_i) / l_i
        tl.store(y_row + cols, y, mask=mask)


KERNEL = "softmax_online_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "stride_row": "i32", "n_cols": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["M"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["M", "N"], "role": "out"},
    "x_ptr": {"tensor": "x", "shape": ["M", "N"]},
    "stride_row": "N",
    "n_cols": "N",
}
SPEC = "y = torch.softmax(x, dim=-1)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}},
    {"name": "ragged", "sizes": {"M": 3, "N": 10}},
]


def reference(inputs, sizes, scalars):
    x = inputs["x"]
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return {"y": e / e.sum(axis=-1, keepdims=True)}
