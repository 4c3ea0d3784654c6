"""The same kernel as matmul_ws_sm90 with a 64 x 64 tile (BLOCK_M = 64), as Triton 3.9 compiles
it for sm_90 (issue 43): the source of matmul_ws_sm90_m64. Triton still makes two
consumer partitions (warpgroups 1 and 2, chosen by a state byte per warp the producer
writes to shared memory), but a 64-row tile cannot be split between them (a wgmma is 64
rows): each partition waits on the same full barriers, multiplies the whole 64 x 64 tile
and stores all of it to the same addresses (the TTGIR has two `tt.store`s of one pointer
tensor, `async_task_id` 1 and 2; the SASS from the wheel's ptxas and nvdisasm has two
epilogues of eight `STG.E.128` per thread each). The two warpgroups' stores of C are not
ordered by any barrier: a write-write data race, of equal values, between two
instructions, which lift reports as a RACE (two different store instructions of equal
values are a race in lift's model, not a benign replicated store).
RACE: warpgroups 1 and 2 both store every element of the C tile, unordered."""
import triton
import triton.language as tl


@triton.jit
def matmul_ws_sm90_m64(a_ptr, b_ptr, c_ptr, M, N, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, warp_specialize=True):
        a = a_desc.load([pid_m * BLOCK_M, k])
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc += tl.dot(a, b)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


KERNEL = "matmul_ws_sm90_m64"
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
EXPECT = "race"
EQUIV = "matmul_f16"
RACE_VERDICT = "RACE"
ABOUT = "warp-specialised TMA matmul at sm_90 with a 64-row tile: both consumer warpgroups compute and store the whole tile (a real write-write race of equal values)"
RACE = "warpgroups 1 and 2 (partitions 0 and 1) both store the whole 64 x 64 tile of C with no barrier between them"
