"""Size twin of argmax_loop: the column loop stops one early (`range(1, n_cols - 1)`), so
the last column is never compared with the running maximum (a tail-only off-by-one).

Correct when N == 1 (instances M = 2 and M = 5, one column: the loop runs no trip either
way); at any N >= 2 a row whose maximum is in its last column gets another index. Launch,
spec and reference are those of argmax_loop (REFERENCE_OP); the instances are its own."""
import triton
import triton.language as tl


@triton.jit
def argmax_loop_kernel(y_ptr, x_ptr, n_cols):
    row = tl.program_id(0)
    m = tl.load(x_ptr + row * n_cols)
    idx = 0
    for i in range(1, n_cols - 1):
        v = tl.load(x_ptr + row * n_cols + i)
        better = v > m
        m = tl.where(better, v, m)
        idx = tl.where(better, i, idx)
    tl.store(y_ptr + row, idx)


KERNEL = "argmax_loop_kernel"
REFERENCE_OP = "argmax_loop"
EXPECT = "verified"
INSTANCES = [
    {"name": "column", "sizes": {"M": 2, "N": 1}},
    {"name": "taller", "sizes": {"M": 5, "N": 1}},
]
SIZE_BUG = "loop bound n_cols - 1: the last column is never compared, wrong when it holds a row's maximum (N >= 2)"
BUG_SIZES = {"M": 16, "N": 4}
