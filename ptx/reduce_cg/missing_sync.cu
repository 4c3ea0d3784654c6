// tile_shfl_down without the block.sync() between the tiles' stores of their
// partial sums and tile 0's reads of them: lane 0 of tile 1 stores partial[1],
// lane 1 of tile 0 loads it, nothing orders the two (a race).
// Block 128, one row of N = 128 per block.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_cg_missing_sync(const float* __restrict__ x,
                                                    float* __restrict__ out, int n) {
    __shared__ float partial[4];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float v = x[blockIdx.x * n + block.thread_rank()];
    for (int off = tile.size() / 2; off > 0; off /= 2) v += tile.shfl_down(v, off);
    if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
    // BUG: no block.sync(): tile 0 reads partial[1..3] while tiles 1..3 write them
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < 4 ? partial[tile.thread_rank()] : 0.0f;
        for (int off = tile.size() / 2; off > 0; off /= 2) v += tile.shfl_down(v, off);
        if (tile.thread_rank() == 0) out[blockIdx.x] = v;
    }
}
