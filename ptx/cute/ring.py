# expect: SAFE
# lift: y[128] = 2 * x
# why: a two-stage ring in shared memory between a producer warp and a consumer warp,
#   with cute.arch mbarriers: the producer waits on "empty" with the opposite parity
#   (a fresh barrier's previous phase counts as complete), writes a stage of x and
#   arrives on "full"; the consumer waits on "full", writes 2 * the stage to y and
#   arrives on "empty". Four tiles of 32 floats, each barrier counts 32 arrivals.
import cutlass
import cutlass.cute as cute
from cutlass.memory import SmemAllocator

STAGES = 2
TILE = 32
N_TILES = 4


@cute.kernel
def ring_kernel(x: cute.Tensor, y: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    warp = cute.arch.warp_idx()
    smem = SmemAllocator()
    buf = smem.allocate_tensor(cutlass.Float32, cute.make_layout((TILE, STAGES)), 16)
    full = smem.allocate_array(cutlass.Int64, STAGES, byte_alignment=8)
    empty = smem.allocate_array(cutlass.Int64, STAGES, byte_alignment=8)
    if tidx == 0:
        for s in cutlass.range_constexpr(STAGES):
            cute.arch.mbarrier_init(full + s, 32)
            cute.arch.mbarrier_init(empty + s, 32)
    cute.arch.mbarrier_init_fence()
    cute.arch.sync_threads()
    lane = tidx % 32
    if warp == 0:
        for i in cutlass.range(N_TILES):
            s = i % STAGES
            phase = (i // STAGES) % 2
            cute.arch.mbarrier_wait(empty + s, phase ^ 1)
            buf[lane, s] = x[i * TILE + lane]
            cute.arch.mbarrier_arrive(full + s)
    else:
        for i in cutlass.range(N_TILES):
            s = i % STAGES
            phase = (i // STAGES) % 2
            cute.arch.mbarrier_wait(full + s, phase)
            y[i * TILE + lane] = buf[lane, s] * 2.0
            cute.arch.mbarrier_arrive(empty + s)


@cute.jit
def ring(x: cute.Tensor, y: cute.Tensor):
    ring_kernel(x, y).launch(grid=[1, 1, 1], block=[64, 1, 1])


ENTRY = ring
