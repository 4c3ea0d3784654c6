"""matmul_f16 with a float16 C: the float32 accumulator is rounded to halves
(`cvt.rn.f16x2.f32`, two to a register) and stored as packed words. The rest as
matmul_f16: C = A @ B on the tensor cores, as Triton compiles an fp16 `tl.dot` for sm_80 (issue
43, item 6): float16 A and B tiles are copied to shared memory with `cp.async`, read
back with `ldmatrix` (B with `.trans`), multiplied by `mma.sync.aligned.m16n8k16.row.col
.f32.f16.f16.f32` into a float32 accumulator, and stored as float32. One program per
32 x 32 tile of C, K in steps of 16; M, N multiples of 32 and K of 16 (no masks)."""
import triton
import triton.language as tl


@triton.jit
def matmul_f16_out(a_ptr, b_ptr, c_ptr, M, N, K,
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
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


KERNEL = "matmul_f16_out"
SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
             "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}
OPTIONS = {"num_warps": 4, "num_stages": 2}
# As Triton's launcher specialises 16-byte aligned tensors and sizes that are multiples
# of 16: the tiles' rows are then whole 16-byte chunks, copied with cp.async.
ATTRS = {"a_ptr": 16, "b_ptr": 16, "c_ptr": 16, "M": 16, "N": 16, "K": 16}
GRID = ["cdiv(M, 32)", "cdiv(N, 32)"]
ARGS = {"a_ptr": {"tensor": "A", "shape": ["M", "K"], "dtype": "float16"},
        "b_ptr": {"tensor": "B", "shape": ["K", "N"], "dtype": "float16"},
        "c_ptr": {"tensor": "C", "shape": ["M", "N"], "role": "out", "dtype": "float16"},
        "M": "M", "N": "N", "K": "K"}
INSTANCES = [{"name": "k32", "sizes": {"M": 32, "N": 32, "K": 32}}]
EXPECT = "equivalent"
EQUIV = "matmul_f16_out"
REFERENCE = True
RACE_VERDICT = "SAFE"
ABOUT = "fp16 tl.dot at sm_80 with a float16 C (cvt.rn.f16x2.f32, packed stores): cp.async tiles, ldmatrix (.trans for B), mma.sync m16n8k16 into an f32 accumulator"
CHECKS = [("C = (A.float() @ B.float()).half()", "verified")]
