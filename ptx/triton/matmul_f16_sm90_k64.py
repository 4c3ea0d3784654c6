"""matmul_f16_sm90 with K steps of 64: four `wgmma.mma_async.m64n64k16` per step, whose
descriptors advance the start address inside one swizzle atom row; A's 64 x 64 tile and
B's 64 x 64 tile both in the 128-byte swizzle."""
import triton
import triton.language as tl


@triton.jit
def matmul_f16_sm90_k64(a_ptr, b_ptr, c_ptr, M, N, K,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


KERNEL = "matmul_f16_sm90_k64"
SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
             "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}
OPTIONS = {"num_warps": 4, "num_stages": 3}
TARGET = 90  # Hopper: wgmma.mma_async on shared-memory descriptors
# As Triton's launcher specialises 16-byte aligned tensors and sizes that are multiples
# of 16: the tiles' rows are then whole 16-byte chunks, copied with cp.async.
ATTRS = {"a_ptr": 16, "b_ptr": 16, "c_ptr": 16, "M": 16, "N": 16, "K": 16}
GRID = ["cdiv(M, 64)", "cdiv(N, 64)"]
ARGS = {"a_ptr": {"tensor": "A", "shape": ["M", "K"], "dtype": "float16"},
        "b_ptr": {"tensor": "B", "shape": ["K", "N"], "dtype": "float16"},
        "c_ptr": {"tensor": "C", "shape": ["M", "N"], "role": "out"},
        "M": "M", "N": "N", "K": "K"}
INSTANCES = [{"name": "k128", "sizes": {"M": 64, "N": 64, "K": 128}}]
EXPECT = "equivalent"
EQUIV = "matmul_f16"
RACE_VERDICT = "SAFE"
ABOUT = "fp16 tl.dot at sm_90, K steps of 64: four wgmma.mma_async m64n64k16 per step, A and B in the 128-byte swizzle"
CHECKS = [("C = A.float() @ B.float()", "verified")]
