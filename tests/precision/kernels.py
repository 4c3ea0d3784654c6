"""Kernels whose arithmetic rounds where the reals do not (compiled by generate.py here):
row means with a running sum in the tensors' own type (f16, bf16) and their f32-accumulator
controls, and a sigmoid derivative whose f32 exp overflows, with its correct control."""
import triton
import triton.language as tl


@triton.jit
def mean_running_kernel(y_ptr, x_ptr, n_cols, BLOCK: tl.constexpr):
    # The running sum is in the input's type: each fp16 lane stops growing at 2048.
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=x_ptr.dtype.element_ty)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0) / n_cols)


@triton.jit
def mean_f32_acc_kernel(y_ptr, x_ptr, n_cols, BLOCK: tl.constexpr):
    # The control: the inputs are widened to f32, summed there, the mean rounded once.
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        acc += x.to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    tl.store(y_ptr + row, mean.to(y_ptr.dtype.element_ty))


@triton.jit
def sigmoid_grad_naive_kernel(y_ptr, x_ptr, n_elements, BLOCK: tl.constexpr):
    # e^x / (1 + e^x)^2: in f32, e^x is inf above x = 88.7 and the quotient NaN.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    e = tl.exp(x)
    tl.store(y_ptr + offs, e / ((1.0 + e) * (1.0 + e)), mask=mask)


@triton.jit
def sigmoid_grad_kernel(y_ptr, x_ptr, n_elements, BLOCK: tl.constexpr):
    # s (1 - s) with s = 1 / (1 + e^-x): e^-x overflows to inf below -88.7, s is 0 there.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    s = 1.0 / (1.0 + tl.exp(-x))
    tl.store(y_ptr + offs, s * (1.0 - s), mask=mask)
