"""Fill with zeros: y = 0 (a kernel with an output only)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def zeros_kernel(y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    zero = tl.zeros([BLOCK], dtype=tl.float32)
    tl.store(y_ptr + offs, zero, mask=offs < n)


KERNEL = "zeros_kernel"
SIGNATURE = {"y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
CONSTEXPRS = {"BLOCK": 4}
GRID = ["cdiv(N, 4)"]
ARGS = {
    "y_ptr": {"tensor": "y", "shape": ["N"], "role": "out"},
    "n": "N",
}
SPEC = "y = torch.zeros(N)"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"N": 8}},
    {"name": "ragged", "sizes": {"N": 10}},
]


def reference(inputs, sizes, scalars):
    return {"y": np.zeros(sizes["N"])}
