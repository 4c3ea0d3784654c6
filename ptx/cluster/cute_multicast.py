# expect: SAFE
# why: a cluster of two CTAs (launch(cluster=[2, 1, 1])) running one two-stage mbarrier
#   pipeline over four tiles of x, written with CuTe DSL: CTA 0's producer thread copies
#   each tile once and multicasts it (CopyBulkG2SMulticastOp: cp.async.bulk ...
#   .multicast::cluster with CTA mask 0b11) into the same stage of both CTAs, completing
#   its bytes on each CTA's "full" mbarrier, which each CTA's producer armed with
#   arrive_and_expect_tx; each CTA's consumer warp waits on its own "full" barrier,
#   stores its half of the tile (y = 2 * x) and arrives on the "empty" barrier of both
#   CTAs (mapa + mbarrier.arrive.release.cluster: 64 arrivals a phase), so CTA 0 copies
#   into a stage again only after both consumers released it. The inits are released by
#   fence.mbarrier_init before the relaxed cluster arrive; the last cluster barrier keeps
#   each CTA alive until its peer's last arrivals have landed.
import cutlass
import cutlass.cute as cute
from cutlass._mlir.dialects.nvvm import MemScopeKind
from cutlass.cute.nvgpu import cpasync
from cutlass.memory import SmemAllocator

STAGES = 2
TILE = 32
N_TILES = 4
BYTES = TILE * 4


@cute.kernel
def multicast_kernel(x: cute.Tensor, y: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    rank = cute.arch.make_warp_uniform(cute.arch.block_idx_in_cluster())
    smem = SmemAllocator()
    buf = smem.allocate_tensor(cutlass.Float32, cute.make_layout((TILE, STAGES)), 128)
    full = smem.allocate_array(cutlass.Int64, STAGES, byte_alignment=8)
    empty = smem.allocate_array(cutlass.Int64, STAGES, byte_alignment=8)
    if tidx == 0:
        for s in cutlass.range_constexpr(STAGES):
            cute.arch.mbarrier_init(full + s, 1)
            cute.arch.mbarrier_init(empty + s, 64)
    cute.arch.mbarrier_init_fence()
    cute.arch.cluster_arrive_relaxed()
    cute.arch.cluster_wait()
    atom = cute.make_copy_atom(cpasync.CopyBulkG2SMulticastOp(), cutlass.Float32, num_bits_per_copy=BYTES * 8)
    lane = tidx % 32
    if warp == 0:
        if tidx == 0:
            for i in cutlass.range(N_TILES):
                s = i % STAGES
                phase = (i // STAGES) % 2
                cute.arch.mbarrier_wait(empty + s, phase ^ 1)
                cute.arch.mbarrier_arrive_and_expect_tx(full + s, BYTES)
                if rank == 0:
                    src = cute.make_tensor(x.iterator + i * TILE, cute.make_layout((TILE, 1)))
                    dst = cute.make_tensor(buf.iterator + s * TILE, cute.make_layout((TILE, 1)))
                    cute.copy(atom, src, dst, mbar_ptr=full + s, mcast_mask=cutlass.Int16(3))
    else:
        for i in cutlass.range(N_TILES):
            s = i % STAGES
            phase = (i // STAGES) % 2
            cute.arch.mbarrier_wait(full + s, phase)
            if lane // 16 == rank:
                y[i * TILE + lane] = buf[lane, s] * 2.0
            for r in cutlass.range_constexpr(2):
                cute.arch.mbarrier_arrive(empty + s, r, scope=MemScopeKind.CLUSTER)
    cute.arch.cluster_arrive()
    cute.arch.cluster_wait()


@cute.jit
def multicast(x: cute.Tensor, y: cute.Tensor):
    multicast_kernel(x, y).launch(grid=[2, 1, 1], block=[64, 1, 1], cluster=[2, 1, 1])


ENTRY = multicast
