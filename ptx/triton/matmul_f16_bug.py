"""The bug twin of matmul_f16: the B tile of step k is loaded from rows k // 2 + rk
instead of k + rk. The first K step (k = 0) is right, so the kernel is C = A @ B at
K = 16 and wrong from K = 32 on (rows 8-23 of B instead of 16-31 in the second step).

matmul_f16: C = A @ B on the tensor cores, as Triton compiles an fp16 `tl.dot` for sm_80 (issue
43, item 6): float16 A and B tiles are copied to shared memory with `cp.async`, read
back with `ldmatrix` (B with `.trans`), multiplied by `mma.sync.aligned.m16n8k16.row.col
.f32.f16.f16.f32` into a float32 accumulator, and stored as float32. One program per
32 x 32 tile of C, K in steps of 16; M, N multiples of 32 and K of 16 (no masks)."""
import triton
import triton.language as tl


@triton.jit
def matmul_f16_bug(a_ptr, b_ptr, c_ptr, M, N, K,
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


KERNEL = "matmul_f16_bug"
SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
             "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}
OPTIONS = {"num_warps": 4, "num_stages": 2}
# As Triton's launcher specialises 16-byte aligned tensors and sizes that are multiples
# of 16: the tiles' rows are then whole 16-byte chunks, copied with cp.async.
ATTRS = {"a_ptr": 16, "b_ptr": 16, "c_ptr": 16, "M": 16, "N": 16, "K": 16}
GRID = ["cdiv(M, 32)", "cdiv(N, 32)"]
ARGS = {"a_ptr": {"tensor": "A", "shape": ["M", "K"], "dtype": "float16"},
        "b_ptr": {"tensor": "B", "shape": ["K", "N"], "dtype": "float16"},
        "c_ptr": {"tensor": "C", "shape": ["M", "N"], "role": "out"},
        "M": "M", "N": "N", "K": "K"}
INSTANCES = [{"name": "k32", "sizes": {"M": 32, "N": 32, "K": 32}}]
EXPECT = "refuted"
EQUIV = "matmul_f16"
BUG = "the B tile of step k is read from row k // 2: wrong from the second K step (K = 32) on"
RACE_VERDICT = "SAFE"
ABOUT = "bug twin of matmul_f16 (B rows k // 2 + rk): fp16 tl.dot at sm_80: cp.async tiles, ldmatrix (.trans for B), mma.sync m16n8k16 into an f32 accumulator"
# No refuted [[check]]: the PTX spec-check harness replays counterexamples of an input
# named x; tests/it/ptx_mma.rs refutes this twin with `lift equiv` instead.
CHECKS = []
