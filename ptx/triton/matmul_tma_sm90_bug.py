"""C = A @ B through TMA descriptors the kernel builds itself, as Triton 3.9 compiles
`tl.make_tensor_descriptor` and an fp16 `tl.dot` for sm_90 (Hopper) (issue 43): the source of
matmul_tma_sm90_bug. Thread 0 writes each descriptor with `tensormap.replace.tile.*` into a zeroed
128-byte tensor-map object in shared memory (global address, rank, box 32 x 64 or
64 x 32, global dims and row stride, element type f16, 64- or 128-byte swizzle), warp 0
copies it to the program's slot of the global scratch (the extra pointer parameter after
the signature's) with `tensormap.cp_fenceproxy` and acquires it with
`fence.proxy.tensormap`; then `cp.async.bulk.tensor.2d` loads the A and B tiles of each K
step through that descriptor into a ring of 3 shared-memory stages, completing on
mbarriers the consumers wait on, and multiplies them with `wgmma.mma_async` m64n64k16 on shared-memory descriptors. One program (4 warps) per
64 x 64 tile of C, K in steps of 32; M, N multiples of 64 and K of 32.
BUG: the A tile of step k is read at column k // 2 (a wrong K offset in the descriptor load)."""
import triton
import triton.language as tl


@triton.jit
def matmul_tma_sm90_bug(a_ptr, b_ptr, c_ptr, M, N, K,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([pid_m * BLOCK_M, k // 2])
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc += tl.dot(a, b)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


KERNEL = "matmul_tma_sm90_bug"
SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
             "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
OPTIONS = {"num_warps": 4, "num_stages": 3}
TARGET = 90
ATTRS = {"a_ptr": 16, "b_ptr": 16, "c_ptr": 16, "M": 16, "N": 16, "K": 16}
GRID = ["cdiv(M, 64)", "cdiv(N, 64)"]
ARGS = {"a_ptr": {"tensor": "A", "shape": ["M", "K"], "dtype": "float16"},
        "b_ptr": {"tensor": "B", "shape": ["K", "N"], "dtype": "float16"},
        "c_ptr": {"tensor": "C", "shape": ["M", "N"], "role": "out"},
        "M": "M", "N": "N", "K": "K"}
INSTANCES = [{"name": "n128_k128", "sizes": {"M": 64, "N": 128, "K": 128}}]
EXPECT = "refuted"
EQUIV = "matmul_f16"
RACE_VERDICT = "SAFE"
ABOUT = "bug twin of matmul_tma_sm90 (A at column k // 2): TMA matmul at sm_90"
BUG = "the A tile of step k is loaded at column k // 2 through the descriptor: wrong from the second K step (K = 64) on"
