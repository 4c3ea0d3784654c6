# expect: SAFE
# why: a cluster of two CTAs (launch(cluster=[2, 1, 1])) written with CuTe DSL: each CTA
#   initialises an mbarrier for one arrival, the cluster barrier (cute.arch.cluster_arrive
#   + cluster_wait) makes both inits visible cluster-wide, thread 0 of each CTA arrives
#   on its peer's mbarrier (mbarrier_arrive with peer_cta_rank_in_cluster: mapa and a
#   remote mbarrier.arrive.shared::cluster), and every thread waits for phase 0 of its
#   own barrier before it writes y = 2 * x; the last cluster barrier keeps each CTA's
#   barrier alive until its peer's arrival has landed.
import cutlass
import cutlass.cute as cute
from cutlass.memory import SmemAllocator

THREADS = 64


@cute.kernel
def ping_kernel(x: cute.Tensor, y: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    rank = cute.arch.make_warp_uniform(cute.arch.block_idx_in_cluster())
    smem = SmemAllocator()
    bar = smem.allocate_array(cutlass.Int64, 1, byte_alignment=8)
    if tidx == 0:
        cute.arch.mbarrier_init(bar, 1)
    cute.arch.mbarrier_init_fence()
    cute.arch.cluster_arrive()
    cute.arch.cluster_wait()
    if tidx == 0:
        cute.arch.mbarrier_arrive(bar, rank ^ 1)
    cute.arch.mbarrier_wait(bar, 0)
    y[bidx * THREADS + tidx] = x[bidx * THREADS + tidx] * 2.0
    cute.arch.cluster_arrive()
    cute.arch.cluster_wait()


@cute.jit
def ping(x: cute.Tensor, y: cute.Tensor):
    ping_kernel(x, y).launch(grid=[2, 1, 1], block=[THREADS, 1, 1], cluster=[2, 1, 1])


ENTRY = ping
