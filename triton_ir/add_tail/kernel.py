"""Size twin of add: y is loaded under the full-blocks mask `offs < (n // BLOCK) * BLOCK`
(meant for an unmasked fast path) instead of `offs < n`, so in a ragged last block y reads
as 0 and z = x there.

Correct when N is a multiple of BLOCK (its instances N = 8, N = 12); at any other N the
tail lanes of z are x instead of x + y. Launch, spec and reference are those of add
(REFERENCE_OP); the instances are its own."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(z_ptr, x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    full = offs < (n_elements // BLOCK) * BLOCK
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=full, other=0.0)
    tl.store(z_ptr + offs, x + y, mask=mask)


KERNEL = "add_kernel"
REFERENCE_OP = "add"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "even3", "sizes": {"N": 12}},
]
SIZE_BUG = "y loaded under offs < (N // 4) * 4: the ragged tail gets z = x (y read as 0) when N % 4 != 0"
BUG_SIZES = {"N": 6}
