"""GELU, tanh approximation written with a sigmoid: y = x * sigmoid(2 z),
z = sqrt(2/pi) (x + 0.044715 x^3), since 0.5 (1 + tanh(z)) = sigmoid(2 z).

Same constants as gelu (SQRT_2_OVER_PI = 0.7978845608028654, 0.044715).  Launch, spec,
instances and reference data are those of gelu (EQUIV, inherited by generate.py)."""
import triton
import triton.language as tl


@triton.jit
def gelu_sigmoid_kernel(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    SQRT_2_OVER_PI: tl.constexpr = 0.7978845608028654
    inner = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
    y = x * tl.sigmoid(2.0 * inner)
    tl.store(y_ptr + offs, y, mask=mask)


KERNEL = "gelu_sigmoid_kernel"
EQUIV = "gelu"
EXPECT = "verified"
