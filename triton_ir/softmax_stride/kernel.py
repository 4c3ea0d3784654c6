"""Size twin of softmax: the row offset of x is `row * BLOCK_N` (the constexpr block) instead
of `row * x_row_stride`.

Correct when N == BLOCK_N (= 8; instances M = 4 and M = 3 with N = 8) or M == 1 (instance
M = 1, N = 5); at M > 1 and N < 8 row r reads x from flat offset 8 r, i.e. other rows'
elements and, for the last rows, past the end of x. Launch, spec and reference are those of
softmax (REFERENCE_OP); the instances are its own."""
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(y_ptr, x_ptr, x_row_stride, y_row_stride, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * BLOCK_N + cols, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    den = tl.sum(num, axis=0)
    y = num / den
    tl.store(y_ptr + row * y_row_stride + cols, y, mask=mask)


KERNEL = "softmax_kernel"
REFERENCE_OP = "softmax"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}},
    {"name": "rows3", "sizes": {"M": 3, "N": 8}},
    {"name": "one_row", "sizes": {"M": 1, "N": 5}},
]
SIZE_BUG = "x row offset row * BLOCK_N instead of row * stride: wrong rows, and reads past x, when M > 1 and N < 8"
BUG_SIZES = {"M": 2, "N": 5}
