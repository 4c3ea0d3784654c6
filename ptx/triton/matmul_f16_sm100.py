"""C = A @ B on Blackwell's tensor cores, as Triton compiles an fp16 `tl.dot` for sm_100
(issue 43, item 6): the source of matmul_f16_sm100. float16 A and B tiles are copied to
shared memory with `cp.async` into a ring of 3 stages (A 64 x 32: 64-byte swizzle,
K-major; B 32 x 64: 128-byte swizzle, N-major) and multiplied by two
`tcgen05.mma.cta_group::1.kind::f16` (M = 64, N = 64, K = 16) per K step, issued by one
elected thread, on shared-memory descriptors into a float32 accumulator in tensor memory
(`tcgen05.alloc` of 64 columns, zeroed by `tcgen05.st`); each step is committed to one of
two mbarriers (`tcgen05.commit`) that all warps wait on (`mbarrier.try_wait.parity`)
before a stage is refilled, and the epilogue reads the accumulator back with
`tcgen05.ld.16x32bx2`. One program (4 warps) per 64 x 64 tile of C, K in steps of 32;
M, N multiples of 64 and K of 32 (no masks). Same source as matmul_f16 (sm_80), so the
two must be equal."""
import triton
import triton.language as tl


@triton.jit
def matmul_f16_sm100(a_ptr, b_ptr, c_ptr, M, N, K,
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


KERNEL = "matmul_f16_sm100"
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
EXPECT = "equivalent"
EQUIV = "matmul_f16"
RACE_VERDICT = "SAFE"
ABOUT = "fp16 tl.dot at sm_100: cp.async ring of 3 stages, tcgen05.mma kind::f16 (M 64, N 64) on swizzled shared-memory descriptors (A 64-byte, B 128-byte) into an f32 accumulator in tensor memory, committed to mbarriers"
CHECKS = [("C = A.float() @ B.float()", "verified")]
