"""The bug twin of matmul_f16_sm100: the B tile of step k is loaded from rows k // 2 + rk
instead of k + rk. The first K step (k = 0) is right, so the kernel is C = A @ B at
K = 32 and wrong from K = 64 on (rows 16-47 of B instead of 32-63 in the second step)."""
import triton
import triton.language as tl


@triton.jit
def matmul_f16_sm100_bug(a_ptr, b_ptr, c_ptr, M, N, K,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k // 2 + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


KERNEL = "matmul_f16_sm100_bug"
SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
             "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
OPTIONS = {"num_warps": 4, "num_stages": 3}
TARGET = 100  # Blackwell: tcgen05.mma into tensor memory
# As Triton's launcher specialises 16-byte aligned tensors and sizes that are multiples
# of 16: the tiles' rows are then whole 16-byte chunks, copied with cp.async.
ATTRS = {"a_ptr": 16, "b_ptr": 16, "c_ptr": 16, "M": 16, "N": 16, "K": 16}
GRID = ["cdiv(M, 64)", "cdiv(N, 64)"]
ARGS = {"a_ptr": {"tensor": "A", "shape": ["M", "K"], "dtype": "float16"},
        "b_ptr": {"tensor": "B", "shape": ["K", "N"], "dtype": "float16"},
        "c_ptr": {"tensor": "C", "shape": ["M", "N"], "role": "out"},
        "M": "M", "N": "N", "K": "K"}
INSTANCES = [{"name": "n128_k128", "sizes": {"M": 64, "N": 128, "K": 128}}]
EXPECT = "refuted"
EQUIV = "matmul_f16"
BUG = "the B tile of step k is read from row k // 2: wrong from the second K step (K = 64) on"
RACE_VERDICT = "SAFE"
ABOUT = "bug twin of matmul_f16_sm100 (B rows k // 2 + rk): fp16 tl.dot at sm_100 with tcgen05.mma"
# No refuted [[check]]: tests/it/ptx_tcgen05.rs refutes this twin with `lift equiv`.
CHECKS = []
