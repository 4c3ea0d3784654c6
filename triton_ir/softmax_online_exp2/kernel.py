"""Row softmax with an online normaliser in base 2, as flash attention writes it.

Scores are scaled by log2(e) once (s = x * 1.4426950408889634), pass 1 keeps the running
max m of s and the running sum l of exp2(s - m), rescaling l by exp2(m_old - m_new);
pass 2 writes exp2(s - m) / l, which is exp(x - max x) / sum exp(x - max x).
Launch, spec, instances and reference are those of softmax_online (EQUIV)."""
import triton
import triton.language as tl


@triton.jit
def softmax_online_exp2_kernel(y_ptr, x_ptr, stride_row, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_row
    y_row = y_ptr + row * stride_row
    log2e = 1.4426950408889634
    m_i = -float("inf")
    l_i = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        s = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")) * log2e
        m_new = tl.maximum(m_i, tl.max(s, axis=0))
        l_i = l_i * tl.math.exp2(m_i - m_new) + tl.sum(tl.math.exp2(s - m_new), axis=0)
        m_i = m_new
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        s = tl.load(x_row + cols, mask=mask, other=-float("inf")) * log2e
        y = tl.math.exp2(s - m_i) / l_i
        tl.store(y_row + cols, y, mask=mask)


KERNEL = "softmax_online_exp2_kernel"
EQUIV = "softmax_online"
EXPECT = "verified"
