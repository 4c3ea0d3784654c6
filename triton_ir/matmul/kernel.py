"""Tiled matmul c = a @ b: program (i, j) computes a BLOCK_M x BLOCK_N tile of c, looping over K
in BLOCK_K steps with tl.dot (fp32 inputs, input_precision="ieee", fp32 accumulator)."""
import numpy as np
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_remaining = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_remaining), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_remaining) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptrs, acc, mask=c_mask)


KERNEL = "matmul_kernel"
SIGNATURE = {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
             "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
             "stride_cm": "i32", "stride_cn": "i32",
             "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}
GRID = ["cdiv(M, 16)", "cdiv(N, 16)"]
ARGS = {
    "a_ptr": {"tensor": "a", "shape": ["M", "K"]},
    "b_ptr": {"tensor": "b", "shape": ["K", "N"]},
    "c_ptr": {"tensor": "c", "shape": ["M", "N"], "role": "out"},
    "M": "M",
    "N": "N",
    "K": "K",
    "stride_am": "K",
    "stride_ak": "1",
    "stride_bk": "N",
    "stride_bn": "1",
    "stride_cm": "N",
    "stride_cn": "1",
}
SPEC = "c = a @ b"
EXPECT = "verified"
INSTANCES = [
    {"name": "even", "sizes": {"M": 32, "N": 32, "K": 32}},
    {"name": "ragged", "sizes": {"M": 20, "N": 18, "K": 24}},
]


def reference(inputs, sizes, scalars):
    return {"c": inputs["a"] @ inputs["b"]}
