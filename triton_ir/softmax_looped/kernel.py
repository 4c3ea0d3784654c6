"""Row softmax over column tiles of BLOCK = 4 with an online max and sum (one program per row).

Pass 1 keeps a running max m and a running sum l of exp(x - m), rescaling l by exp(m_old - m_new)
whenever the max grows; pass 2 writes exp(x - m) / l.  Like softmax_online, but on softmax's
launch (argument names, strides, instances N = 8 and N = 5, i.e. two tiles, the second ragged)
so that the pair (softmax, softmax_looped) lines up on one launch.  Launch, spec, instances and
reference data are those of softmax (EQUIV, inherited by generate.py)."""
import triton
import triton.language as tl


@triton.jit
def softmax_looped_kernel(y_ptr, x_ptr, x_row_stride, y_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_row_stride
    y_row = y_ptr + row * y_row_stride
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


KERNEL = "softmax_looped_kernel"
SIGNATURE = {"y_ptr": "*fp32", "x_ptr": "*fp32", "x_row_stride": "i32", "y_row_stride": "i32",
             "n_cols": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
EQUIV = "softmax"
EXPECT = "verified"
