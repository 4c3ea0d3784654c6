// Row sum with cooperative groups, step 3: the library's collective,
// cg::reduce(tile, v, cg::plus<float>()), on each warp tile (every lane gets the
// tile's sum), the four tile sums through shared memory, block.sync(), then
// cg::reduce again on tile 0 (lanes past 4 contribute 0).
// Block 128, one row of N = 128 per block.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_cg_cg_reduce(const float* __restrict__ x,
                                               float* __restrict__ out, int n) {
    __shared__ float partial[4];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float v = x[blockIdx.x * n + block.thread_rank()];
    v = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < 4 ? partial[tile.thread_rank()] : 0.0f;
        v = cg::reduce(tile, v, cg::plus<float>());
        if (tile.thread_rank() == 0) out[blockIdx.x] = v;
    }
}
