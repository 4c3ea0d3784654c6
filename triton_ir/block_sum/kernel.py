"""One partial sum per block: y[p] = sum_j x[4 p + j], the first pass of a two-pass
reduction, which PyTorch states as a reshape, `x.view(-1, 4).sum(1)`. The launch sizes x
as whole blocks (N = 4 P), where that view exists."""
import triton
import triton.language as tl


@triton.jit
def block_sum_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + pid, tl.sum(x, axis=0))


KERNEL = "block_sum_kernel"
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["P"]
ARGS = {
    "x_ptr": {"tensor": "x", "shape": ["4 * P"]},
    "y_ptr": {"tensor": "y", "shape": ["P"], "role": "out"},
    "n": "4 * P",
}
SPEC = "y = x.view(-1, 4).sum(1)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"P": 3}},
    {"name": "two", "sizes": {"P": 2}},
]


def reference(inputs, sizes, scalars):
    return {"y": inputs["x"].reshape(-1, 4).sum(axis=1)}
