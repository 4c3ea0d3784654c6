"""Kernels whose result depends on how max/min treat NaN (compiled by generate.py here).

`tl.maximum`/`tl.minimum` default to `propagate_nan=tl.PropagateNan.NONE`, which Triton
lowers to `arith.maxnumf`/`minnumf` (IEEE maxNum: the non-NaN operand wins); with
`propagate_nan=tl.PropagateNan.ALL` they are `arith.maximumf`/`minimumf` (NaN wins).
`tl.log(x)` is NaN for x < 0, so the two kernels differ exactly there.
"""
import triton
import triton.language as tl


@triton.jit
def log_relu_kernel(y_ptr, x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)
    y = tl.maximum(tl.log(x), 0.0)
    tl.store(y_ptr + offsets, y, mask=mask)


@triton.jit
def log_relu_nan_kernel(y_ptr, x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)
    y = tl.maximum(tl.log(x), 0.0, propagate_nan=tl.PropagateNan.ALL)
    tl.store(y_ptr + offsets, y, mask=mask)


@triton.jit
def sqrt_min_kernel(y_ptr, x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)
    y = tl.minimum(tl.sqrt(x), 1.0)
    tl.store(y_ptr + offsets, y, mask=mask)


@triton.jit
def sqrt_min_nan_kernel(y_ptr, x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)
    y = tl.minimum(tl.sqrt(x), 1.0, propagate_nan=tl.PropagateNan.ALL)
    tl.store(y_ptr + offsets, y, mask=mask)


@triton.jit
def log_or_zero_kernel(y_ptr, x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # `v != v` holds exactly where v is NaN (log of a negative): the NaN test kernels write.
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)
    v = tl.log(x)
    y = tl.where(v != v, 0.0, v)
    tl.store(y_ptr + offsets, y, mask=mask)
