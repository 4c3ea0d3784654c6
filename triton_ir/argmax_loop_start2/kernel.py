"""Size twin of argmax_loop: the column loop starts at 2 instead of 1
(`range(2, n_cols)`), so column 1 is never compared with the running maximum.

Correct when N == 1 (instances M = 2 and M = 5, one column: the loop runs no trip either
way); at any N >= 2 a row whose maximum is in column 1 gets another index. Launch, spec
and reference are those of argmax_loop (REFERENCE_OP); the instances are its own."""
import triton
import triton.language as tl


@triton.jit
def argmax_loop_kernel(y_ptr, x_ptr, n_cols):
    row = tl.program_id(0)
    m = tl.load(x_ptr + row * n_cols)
    idx = 0
    for i in range(2, n_cols):
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
SIZE_BUG = "loop from 2 instead of 1: column 1 is never compared, wrong when it holds a row's maximum (N >= 2)"
BUG_SIZES = {"M": 16, "N": 4}
