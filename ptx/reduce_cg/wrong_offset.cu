// tile_shfl_down whose first shfl_down offset is 8 instead of 16: each tile's
// sum covers only its lanes 0 .. 15, so half of the row is dropped.
// Block 128, one row of N = 128 per block.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_cg_wrong_offset(const float* __restrict__ x,
                                                    float* __restrict__ out, int n) {
    __shared__ float partial[4];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float v = x[blockIdx.x * n + block.thread_rank()];
    // BUG: the first shuffle starts at 8, not 16: lane 0 sums only lanes 0 .. 15
    for (int off = tile.size() / 4; off > 0; off /= 2) v += tile.shfl_down(v, off);
    if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < 4 ? partial[tile.thread_rank()] : 0.0f;
        for (int off = tile.size() / 2; off > 0; off /= 2) v += tile.shfl_down(v, off);
        if (tile.thread_rank() == 0) out[blockIdx.x] = v;
    }
}
