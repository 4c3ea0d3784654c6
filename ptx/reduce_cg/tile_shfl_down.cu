// Row sum with cooperative groups, step 2: the block is split into warp tiles
// (tiled_partition<32>); each tile reduces its 32 values with
// thread_block_tile<32>::shfl_down (offsets 16, 8, 4, 2, 1), lane 0 of each tile
// parks the tile's sum in shared memory, block.sync(), and tile 0 reduces the
// four partial sums the same way.  Block 128, one row of N = 128 per block.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_cg_tile_shfl_down(const float* __restrict__ x,
                                                    float* __restrict__ out, int n) {
    __shared__ float partial[4];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float v = x[blockIdx.x * n + block.thread_rank()];
    for (int off = tile.size() / 2; off > 0; off /= 2) v += tile.shfl_down(v, off);
    if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < 4 ? partial[tile.thread_rank()] : 0.0f;
        for (int off = tile.size() / 2; off > 0; off /= 2) v += tile.shfl_down(v, off);
        if (tile.thread_rank() == 0) out[blockIdx.x] = v;
    }
}
