"""Size twin of scale_looped: the tile loop runs to `N // BLOCK * BLOCK` instead of N
(`range(0, N // BLOCK * BLOCK, BLOCK)`), so a ragged last tile is never loaded or stored.

Correct when N is a multiple of 4 (instances N = 8, N = 12); at any other N the last N % 4
columns of every row of y are never written. Launch, spec and reference are those of
scale_looped (REFERENCE_OP); the instances are its own."""
import triton
import triton.language as tl


@triton.jit
def scale_looped_floor_kernel(y_ptr, x_ptr, N, stride_m, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, N // BLOCK * BLOCK, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * stride_m + cols, mask=mask, other=0.0)
        tl.store(y_ptr + row * stride_m + cols, x * 2.0, mask=mask)


KERNEL = "scale_looped_floor_kernel"
REFERENCE_OP = "scale_looped"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 4, "N": 8}},
    {"name": "wide", "sizes": {"M": 3, "N": 12}},
]
SIZE_BUG = "tile loop bound N // 4 * 4 instead of N: the last N % 4 columns of y are never written when N % 4 != 0"
BUG_SIZES = {"M": 3, "N": 5}
