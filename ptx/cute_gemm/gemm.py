# expect: SAFE
# lift: C[M,N] = A @ B
# why: a Hopper GEMM written like CUTLASS's CuTe DSL dense_gemm example, small: one
#   warpgroup (128 threads) per 64 x 64 tile of C, K in tiles of 32 through a ring of
#   STAGES shared-memory stages; warp 0 fills the ring with TMA loads of A (K-major) and
#   B (N-major) tiles on cutlass.pipeline.PipelineTmaAsync (producer_acquire: wait on
#   "empty", expect_tx the stage's bytes), the warpgroup waits on "full"
#   (consumer_wait), multiplies with wgmma m64n64k16 (warpgroup fence / commit_group /
#   wait_group), releases the stage (consumer_release: one arrive per warp on "empty"),
#   and warp 0 then loads the next K tile into the stage released; C is stored from the
#   f32 accumulators.
import cutlass
import cutlass.cute as cute
import cutlass.pipeline as pipeline
import cutlass.utils as utils
import cutlass.utils.hopper_helpers as sm90_utils
from cutlass.cute.nvgpu import cpasync, warpgroup

STAGES = 2
TILE_M, TILE_N, TILE_K = 64, 64, 32
TRACED = {}  # one stage's shared-memory layouts, for generate.py's check of the launch


@cute.jit
def load_stage(pipe, prod, tma_atom_a, tAgA, tAsA, tma_atom_b, tBgB, tBsB):
    """The producer's step: wait until the stage is empty (expecting its bytes), then
    copy K tile `prod.count` of A and B into it with TMA, completing on its full barrier."""
    pipe.producer_acquire(prod)
    cute.copy(tma_atom_a, tAgA[(None, prod.count)], tAsA[(None, prod.index)],
              tma_bar_ptr=pipe.producer_get_barrier(prod))
    cute.copy(tma_atom_b, tBgB[(None, prod.count)], tBsB[(None, prod.index)],
              tma_bar_ptr=pipe.producer_get_barrier(prod))
    pipe.producer_commit(prod)


@cute.kernel
def gemm_kernel(tma_atom_a: cute.CopyAtom, mA: cute.Tensor, tma_atom_b: cute.CopyAtom, mB: cute.Tensor,
                mC: cute.Tensor, tiled_mma: cute.TiledMma,
                a_smem_layout: cute.ComposedLayout, b_smem_layout: cute.ComposedLayout):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, bidy, _ = cute.arch.block_idx()
    warp_idx = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    if warp_idx == 0:
        cpasync.prefetch_descriptor(tma_atom_a)
        cpasync.prefetch_descriptor(tma_atom_b)

    smem = utils.SmemAllocator()
    bars = smem.allocate_array(cutlass.Int64, 2 * STAGES, byte_alignment=8)
    sA = smem.allocate_tensor(cutlass.Float16, a_smem_layout.outer, 1024, a_smem_layout.inner)
    sB = smem.allocate_tensor(cutlass.Float16, b_smem_layout.outer, 1024, b_smem_layout.inner)

    tx_bytes = cute.size_in_bytes(cutlass.Float16, cute.slice_(a_smem_layout, (None, None, 0))) + \
        cute.size_in_bytes(cutlass.Float16, cute.slice_(b_smem_layout, (None, None, 0)))
    pipe = pipeline.PipelineTmaAsync.create(
        barrier_storage=bars,
        num_stages=STAGES,
        producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, 4),
        tx_count=tx_bytes,
        cta_layout_vmnk=cute.make_layout((1, 1, 1, 1)),
    )

    tile = (TILE_M, TILE_N, TILE_K)
    coord = (bidx, bidy, None)
    gA = cute.local_tile(mA, tile, coord, proj=(1, None, 1))  # (bM, bK, k tiles)
    gB = cute.local_tile(mB, tile, coord, proj=(None, 1, 1))  # (bN, bK, k tiles)
    gC = cute.local_tile(mC, tile, coord, proj=(1, 1, None))  # (bM, bN)

    tAsA, tAgA = cpasync.tma_partition(tma_atom_a, 0, cute.make_layout(1),
                                       cute.group_modes(sA, 0, 2), cute.group_modes(gA, 0, 2))
    tBsB, tBgB = cpasync.tma_partition(tma_atom_b, 0, cute.make_layout(1),
                                       cute.group_modes(sB, 0, 2), cute.group_modes(gB, 0, 2))

    thr_mma = tiled_mma.get_slice(tidx)
    tCsA = thr_mma.partition_A(sA)
    tCsB = thr_mma.partition_B(sB)
    tCrA = tiled_mma.make_fragment_A(tCsA)
    tCrB = tiled_mma.make_fragment_B(tCsB)
    tCgC = thr_mma.partition_C(gC)
    acc = cute.make_rmem_tensor(tCgC.shape, cutlass.Float32)
    cute.arch.sync_threads()

    k_tiles = cute.size(gA, mode=[2])
    k_blocks = cute.size(tCrA, mode=[2])
    prod = pipeline.make_pipeline_state(pipeline.PipelineUserType.Producer, STAGES)
    if warp_idx == 0:
        # Fill the ring; later tiles are loaded as stages are released.
        for k in cutlass.range(cutlass.min(STAGES, k_tiles), unroll=1):
            load_stage(pipe, prod, tma_atom_a, tAgA, tAsA, tma_atom_b, tBgB, tBsB)
            prod.advance()

    tiled_mma.set(warpgroup.Field.ACCUMULATE, False)
    cons = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, STAGES)
    for k in cutlass.range(k_tiles, unroll=1):
        pipe.consumer_wait(cons)
        warpgroup.fence()
        for kb in cutlass.range(k_blocks, unroll_full=True):
            cute.gemm(tiled_mma, acc, tCrA[(None, None, kb, cons.index)], tCrB[(None, None, kb, cons.index)], acc)
            tiled_mma.set(warpgroup.Field.ACCUMULATE, True)
        warpgroup.commit_group()
        warpgroup.wait_group(0)
        pipe.consumer_release(cons)
        cons.advance()
        if warp_idx == 0 and prod.count < k_tiles:
            load_stage(pipe, prod, tma_atom_a, tAgA, tAsA, tma_atom_b, tBgB, tBsB)
            prod.advance()

    cute.autovec_copy(acc, tCgC)


@cute.jit
def run(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor):
    tile = (TILE_M, TILE_N, TILE_K)
    a_layout = utils.LayoutEnum.from_tensor(a)
    b_layout = utils.LayoutEnum.from_tensor(b)
    tiled_mma = sm90_utils.make_trivial_tiled_mma(
        cutlass.Float16, cutlass.Float16, a_layout.sm90_mma_major_mode(), b_layout.sm90_mma_major_mode(),
        cutlass.Float32, (1, 1, 1), tiler_mn=(64, TILE_N))
    a_smem = sm90_utils.make_smem_layout_a(a_layout, tile, cutlass.Float16, STAGES)
    b_smem = sm90_utils.make_smem_layout_b(b_layout, tile, cutlass.Float16, STAGES)
    TRACED["a"] = str(cute.slice_(a_smem, (None, None, 0)))
    TRACED["b"] = str(cute.slice_(b_smem, (None, None, 0)))
    tma_a, tma_ta = cpasync.make_tiled_tma_atom(cpasync.CopyBulkTensorTileG2SOp(), a,
                                                 cute.slice_(a_smem, (None, None, 0)), (TILE_M, TILE_K))
    tma_b, tma_tb = cpasync.make_tiled_tma_atom(cpasync.CopyBulkTensorTileG2SOp(), b,
                                                 cute.slice_(b_smem, (None, None, 0)), (TILE_N, TILE_K))
    grid = (cute.ceil_div(cute.size(c, mode=[0]), TILE_M), cute.ceil_div(cute.size(c, mode=[1]), TILE_N), 1)
    gemm_kernel(tma_a, tma_ta, tma_b, tma_tb, c, tiled_mma, a_smem, b_smem).launch(
        grid=grid, block=[128, 1, 1])


ENTRY = run
