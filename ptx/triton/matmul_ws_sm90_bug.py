"""C = A @ B through TMA descriptors the kernel builds itself, with the K loop
warp-specialised, as Triton 3.9 compiles `tl.make_tensor_descriptor`, an fp16 `tl.dot` and
`tl.range(..., warp_specialize=True)` for sm_90 (Hopper) (issue 43): the source of
matmul_ws_sm90_bug. 384 threads, three warpgroups. Warpgroup 0 is the default partition, the
producer: it initialises the mbarriers, writes the two descriptors with
`tensormap.replace.tile.*` in shared memory and copies them to the program's slot of the
global scratch (`tensormap.cp_fenceproxy`), lowers its registers (`setmaxnreg.dec 40`)
and issues the `cp.async.bulk.tensor.2d` loads of each K step into a ring of 3 stages,
each on a "full" mbarrier with `expect_tx`, after waiting on the stage's "empty"
mbarriers. Warpgroups 1 and 2 wait at `barrier.sync 1` for the producer to write one
state byte per warp in shared memory (0 or 1: which partition the warp runs; 2: exit),
raise their registers (`setmaxnreg.inc 232`) and run partition 0 or 1: Triton splits the
128 rows of the tile between them, each waits on its full barriers, multiplies its 64 x 64
half with two `wgmma.mma_async` m64n64k16, meets its own warpgroup at a named barrier
(`bar.sync 2, 128` / `bar.sync 3, 128`) and arrives (count 128) on its empty barriers, then
stores its 64 rows of C. One program per 128 x 64 tile of C, K in steps of 32; M a
multiple of 128, N of 64 and K of 32.
BUG: the A tile of step k is read at column k // 2 (a wrong K offset in the descriptor load)."""
import triton
import triton.language as tl


@triton.jit
def matmul_ws_sm90_bug(a_ptr, b_ptr, c_ptr, M, N, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, warp_specialize=True):
        a = a_desc.load([pid_m * BLOCK_M, k // 2])
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc += tl.dot(a, b)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


KERNEL = "matmul_ws_sm90_bug"
SIGNATURE = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
             "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
CONSTEXPRS = {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}
OPTIONS = {"num_warps": 4, "num_stages": 3}
TARGET = 90
ATTRS = {"a_ptr": 16, "b_ptr": 16, "c_ptr": 16, "M": 16, "N": 16, "K": 16}
GRID = ["cdiv(M, 128)", "cdiv(N, 64)"]
ARGS = {"a_ptr": {"tensor": "A", "shape": ["M", "K"], "dtype": "float16"},
        "b_ptr": {"tensor": "B", "shape": ["K", "N"], "dtype": "float16"},
        "c_ptr": {"tensor": "C", "shape": ["M", "N"], "role": "out"},
        "M": "M", "N": "N", "K": "K"}
INSTANCES = [{"name": "m128_k128", "sizes": {"M": 128, "N": 64, "K": 128}}]
EXPECT = "refuted"
EQUIV = "matmul_f16"
RACE_VERDICT = "SAFE"
ABOUT = "bug twin of matmul_ws_sm90 (A at column k // 2): warp-specialised TMA matmul at sm_90"
BUG = "the A tile of step k is loaded at column k // 2 through the descriptor: wrong from the second K step (K = 64) on"
