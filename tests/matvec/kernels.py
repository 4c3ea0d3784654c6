"""A matrix-vector product, one program per row: y[i] = sum_k w[k] * x[i, k]
(compiled by generate.py here). Its lifted formula is `w @ x.T` with a 1-D `w`."""
import triton
import triton.language as tl


@triton.jit
def matvec_kernel(y_ptr, w_ptr, x_ptr, K, stride_x, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_K)
    mask = cols < K
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row, tl.sum(w * x, axis=0))
