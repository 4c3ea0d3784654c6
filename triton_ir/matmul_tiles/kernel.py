"""Tiled matmul c = a @ b with 32 x 32 output tiles and BLOCK_K = 16: program (i, j) computes
a 32 x 32 tile of c; the K loop runs over k0 = 0, 16, ... < K, rebuilding the operand pointers
from k0 each step and adding each partial product to the accumulator (acc += tl.dot(a, b)).

Launch tensors, sizes, spec, instances and reference data are those of matmul (EQUIV,
inherited by generate.py); the grid is cdiv(M, 32) x cdiv(N, 32)."""
import triton
import triton.language as tl


@triton.jit
def matmul_tiles_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                        stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


KERNEL = "matmul_tiles_kernel"
CONSTEXPRS = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}
GRID = ["cdiv(M, 32)", "cdiv(N, 32)"]
EQUIV = "matmul"
EXPECT = "verified"
