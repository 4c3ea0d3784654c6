"""matmul_f16 without the launcher's alignment specialisation (tensors or sizes not
known to be multiples of 16, as when K is odd): Triton then loads the float16 tiles one
element at a time (`ld.global.b16`) and stores them to shared memory as halves
(`st.shared.b16`), which `ldmatrix` reads back as 32-bit words of two halves.

The rest as matmul_f16: C = A @ B on the tensor cores, read
back with `ldmatrix` (B with `.trans`), multiplied by `mma.sync.aligned.m16n8k16.row.col
.f32.f16.f16.f32` into a float32 accumulator, and stored as float32. One program per
32 x 32 tile of C, K in steps of 16; M, N multiples of 32 and K of 16 (no masks)."""
import triton
import triton.language as tl


@triton.jit
def matmul_f16_b16(a_ptr, b_ptr, c_ptr, M, N, K,
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


KERNEL = "matmul_f16_b16"
SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
             "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}
OPTIONS = {"num_warps": 4, "num_stages": 2}
GRID = ["cdiv(M, 32)", "cdiv(N, 32)"]
ARGS = {"a_ptr": {"tensor": "A", "shape": ["M", "K"], "dtype": "float16"},
        "b_ptr": {"tensor": "B", "shape": ["K", "N"], "dtype": "float16"},
        "c_ptr": {"tensor": "C", "shape": ["M", "N"], "role": "out"},
        "M": "M", "N": "N", "K": "K"}
INSTANCES = [{"name": "k32", "sizes": {"M": 32, "N": 32, "K": 32}}]
EXPECT = "equivalent"
EQUIV = "matmul_f16"
RACE_VERDICT = "SAFE"
ABOUT = "fp16 tl.dot at sm_80 without alignment: st.shared.b16 halves, ldmatrix (.trans for B), mma.sync m16n8k16 into an f32 accumulator"
CHECKS = [("C = A.float() @ B.float()", "verified")]
