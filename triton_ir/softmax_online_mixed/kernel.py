"""Size twin of softmax_online_exp2 that mixes bases: the running sum is rescaled by
exp2(m_old - m_new) while the scores are neither scaled by log2(e) nor exponentiated in
base 2 (`tl.exp(x - m_new)`), so every rescale is off by a power of e/2.

Correct while the row fits one tile, N <= 4 (instances N = 4 and N = 3: the only rescale
multiplies l = 0); wrong from N = 5.  Launch, spec and reference are those of
softmax_online (REFERENCE_OP); the instances are its own."""
import triton
import triton.language as tl


@triton.jit
def softmax_online_mixed_kernel(y_ptr, x_ptr, stride_row, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_row
    y_row = y_ptr + row * stride_row
    m_i = -float("inf")
    l_i = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf"))
        m_new = tl.maximum(m_i, tl.max(x, axis=0))
        l_i = l_i * tl.math.exp2(m_i - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m_i = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=-float("inf"))
        y = tl.exp(x - m_i) / l_i
        tl.store(y_row + cols, y, mask=mask)


KERNEL = "softmax_online_mixed_kernel"
CONSTEXPRS = {"BLOCK": 4}
REFERENCE_OP = "softmax_online"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 4}},
    {"name": "ragged", "sizes": {"M": 3, "N": 3}},
]
SIZE_BUG = "the running sum is rescaled by exp2(m_old - m_new) but summed with exp(x - m_new): from N = 5 every rescale is off"
BUG_SIZES = {"M": 2, "N": 9}
