"""Size twin of softmax_online: the running sum is not rescaled by exp(m_old - m_new) when the
max grows (`l_i = l_i + tl.sum(...)`), so partial sums taken against an older, smaller max
stay too large.

Correct when the row fits one tile of BLOCK = 4 (the loop runs once; instances N = 4 and
N = 3); wrong whenever a later tile raises the max, which random rows do for most N > 4.
Launch, spec and reference are those of softmax_online (REFERENCE_OP); the instances are
its own. It is the wrong twin of the online-softmax summary in src/verify/loops.rs."""
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
        l_i = l_i + tl.sum(tl.exp(x - m_new), axis=0)
        m_i = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=-float("inf"))
        y = tl.exp(x - m_i) / l_i
        tl.store(y_row + cols, y, mask=mask)


KERNEL = "softmax_online_kernel"
REFERENCE_OP = "softmax_online"
EXPECT = "verified"
INSTANCES = [
    {"name": "one_tile", "sizes": {"M": 4, "N": 4}},
    {"name": "ragged", "sizes": {"M": 3, "N": 3}},
]
SIZE_BUG = "running sum not rescaled when a later tile raises the max: wrong once the row spans two tiles (N > 4)"
BUG_SIZES = {"M": 3, "N": 9}
