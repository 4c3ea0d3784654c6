# expect: SAFE
# lift: y[128] = 2 * x
# why: the ring of ring.py written with cutlass.pipeline.PipelineAsync (producer and
#   consumer groups of 32 threads, two stages): producer_acquire / producer_commit
#   around the producer's stage writes, consumer_wait / consumer_release around the
#   consumer's reads, and producer_tail before the producer exits.
import cutlass
import cutlass.cute as cute
import cutlass.pipeline as pipeline
from cutlass.memory import SmemAllocator

STAGES = 2
TILE = 32
N_TILES = 4


@cute.kernel
def pipeline_kernel(x: cute.Tensor, y: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    warp = cute.arch.warp_idx()
    smem = SmemAllocator()
    buf = smem.allocate_tensor(cutlass.Float32, cute.make_layout((TILE, STAGES)), 16)
    bars = smem.allocate_array(cutlass.Int64, 2 * STAGES, byte_alignment=8)
    pipe = pipeline.PipelineAsync.create(
        num_stages=STAGES,
        producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, 32),
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, 32),
        barrier_storage=bars,
    )
    lane = tidx % 32
    if warp == 0:
        state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Producer, STAGES)
        for i in cutlass.range(N_TILES):
            pipe.producer_acquire(state)
            buf[lane, state.index] = x[i * TILE + lane]
            pipe.producer_commit(state)
            state.advance()
        pipe.producer_tail(state)
    else:
        state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, STAGES)
        for i in cutlass.range(N_TILES):
            pipe.consumer_wait(state)
            y[i * TILE + lane] = buf[lane, state.index] * 2.0
            pipe.consumer_release(state)
            state.advance()


@cute.jit
def run(x: cute.Tensor, y: cute.Tensor):
    pipeline_kernel(x, y).launch(grid=[1, 1, 1], block=[64, 1, 1])


ENTRY = run
