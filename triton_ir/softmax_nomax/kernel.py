"""Row softmax WITHOUT max subtraction: y = exp(x) / sum(exp(x)), one program per row, the whole
row in one block (N <= BLOCK_N); masked lanes load -inf so that exp gives 0.

Equal to softmax over the reals (exp(x - m) / sum exp(x - m) = exp(x) / sum exp(x)); fine in
float32 for the reference inputs in [-2, 2].  Launch, spec, instances and reference data are
those of softmax (EQUIV, inherited by generate.py)."""
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(y_ptr, x_ptr, x_row_stride, y_row_stride, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf"))
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    y = num / den
    tl.store(y_ptr + row * y_row_stride + cols, y, mask=mask)


KERNEL = "softmax_kernel"
EQUIV = "softmax"
EXPECT = "verified"
