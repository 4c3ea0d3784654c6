"""libm probes: one libdevice/libm call per element, compiled exactly like the suite's
Triton kernels (triton_ir/generate.py).  lift runs each probe's PTX with its input
bound to a candidate term and reads the code as the exact function where the two
terms are identical (src/ptx/libm.rs).  Regenerate with ptx/libm/generate.py."""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def log_probe(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(y_ptr + offs, tl.log(x), mask=mask)


@triton.jit
def sin_probe(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.sin(x), mask=mask)


@triton.jit
def cos_probe(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.cos(x), mask=mask)


@triton.jit
def tanh_probe(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, libdevice.tanh(x), mask=mask)


@triton.jit
def erf_probe(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.erf(x), mask=mask)


PROBES = ["log", "sin", "cos", "tanh", "erf"]
