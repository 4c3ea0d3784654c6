// Row sum with cooperative groups, step 4: 64 threads, each adds two elements
// (x[i] + x[i + 64]) while loading, then cg::reduce on each of the two warp tiles
// and thread 0 adds the two tile sums after block.sync().
// Block 64, one row of N = 128 per block.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_cg_two_per_thread(const float* __restrict__ x,
                                                    float* __restrict__ out, int n) {
    __shared__ float partial[2];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const float* row = x + blockIdx.x * n;
    unsigned tid = block.thread_rank();
    float v = row[tid] + row[tid + block.size()];
    v = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
    block.sync();
    if (tid == 0) out[blockIdx.x] = partial[0] + partial[1];
}
