// race: SAFE
// check: VERIFIED
// spec: out = torch.sum(x, dim=-1)
// why: row sum: tiled_partition<32>, a shfl_down tree per tile (offsets 16..1), lane 0
//   of each tile stores its sum, block.sync(), thread 0 adds the four.
// launch: block = [128]
// launch: grid = ["B"]
// launch: sizes = { B = 2, N = 128 }
// arg: { tensor = "x", shape = ["B", "N"] }
// arg: { tensor = "out", shape = ["B"], role = "out" }
// arg: "N"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_tile_shfl(const float* x, float* out, int n) {
    __shared__ float warp_sums[4];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float v = x[blockIdx.x * n + block.thread_rank()];
    for (int off = tile.size() / 2; off > 0; off /= 2)
        v += tile.shfl_down(v, off);
    if (tile.thread_rank() == 0)
        warp_sums[tile.meta_group_rank()] = v;
    block.sync();
    if (block.thread_rank() == 0)
        out[blockIdx.x] = warp_sums[0] + warp_sums[1] + warp_sums[2] + warp_sums[3];
}
