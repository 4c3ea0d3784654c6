"""Kernels whose tensors are f16, bf16 or f64 (compiled by generate.py here)."""
import triton
import triton.language as tl


@triton.jit
def scale_kernel(y_ptr, x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, x * 0.1, mask=mask)


@triton.jit
def scale_in_f32_kernel(y_ptr, x_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # The constant is the f32 nearest to 0.1, not the nearest value of the tensors' type.
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = x.to(tl.float32) * 0.1
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)
