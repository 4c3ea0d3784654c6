"""Size twin of add: the mask is `offs <= n_elements` instead of `offs < n_elements`.

When N is a multiple of BLOCK the extra lane (offs == N) lies in a program that the grid
cdiv(N, 4) does not launch, so the kernel is correct at its instances (N = 8, N = 12); at
any other N the last program reads x[N], y[N] and writes z[N], one element past the end.
Launch, spec and reference are those of add (REFERENCE_OP); the instances are its own."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(z_ptr, x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs <= n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(z_ptr + offs, x + y, mask=mask)


KERNEL = "add_kernel"
REFERENCE_OP = "add"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "even3", "sizes": {"N": 12}},
]
SIZE_BUG = "mask offs <= N: one element past the end of x, y and z is accessed when N % 4 != 0"
BUG_SIZES = {"N": 6}
