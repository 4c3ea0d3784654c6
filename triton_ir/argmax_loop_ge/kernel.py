"""Wrong twin of argmax_loop: the index moves on `v >= m`, so a tie goes to the last index
attaining the row's maximum; PyTorch's argmax (and argmax_loop's `v > m`) takes the first.
Wrong only on rows whose maximum occurs twice, which random inputs miss."""
import triton
import triton.language as tl


@triton.jit
def argmax_loop_kernel(y_ptr, x_ptr, n_cols):
    row = tl.program_id(0)
    m = tl.load(x_ptr + row * n_cols)
    idx = 0
    for i in range(1, n_cols):
        v = tl.load(x_ptr + row * n_cols + i)
        better = v >= m
        m = tl.where(better, v, m)
        idx = tl.where(better, i, idx)
    tl.store(y_ptr + row, idx)


KERNEL = "argmax_loop_kernel"
REFERENCE_OP = "argmax_loop"
EXPECT = "refuted"
BUG = "the index moves on a tie (v >= m): the last index of the row's maximum, not the first"
BUG_REGION = "a row whose maximum occurs more than once"
