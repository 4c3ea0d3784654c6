"""Size twin of block_sum: the load is also masked by `offs < 16`, a capacity left over
from a fixed-size buffer, so blocks past the fourth read zeros.

Correct while N = 4 P <= 16 (its instances P = 3, P = 2); at P = 5 the last partial sum
is 0. Launch, spec and reference are those of block_sum (REFERENCE_OP); the instances
are its own."""
import triton
import triton.language as tl


@triton.jit
def block_sum_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=(offs < n) & (offs < 16), other=0.0)
    tl.store(y_ptr + pid, tl.sum(x, axis=0))


KERNEL = "block_sum_kernel"
REFERENCE_OP = "block_sum"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"P": 3}},
    {"name": "two", "sizes": {"P": 2}},
]
SIZE_BUG = "loads also masked by offs < 16: every block past the fourth sums to 0 (P > 4)"
BUG_SIZES = {"P": 5}
