// race: SAFE
// check: VERIFIED
// spec: out = torch.sum(x, dim=-1)
// why: row sum with cg::reduce(tile, v, cg::plus<float>()) per warp, the tile sums
//   through shared memory after block.sync(), then cg::reduce on tile 0.
// launch: block = [128]
// launch: grid = ["B"]
// launch: sizes = { B = 2, N = 256 }
// arg: { tensor = "x", shape = ["B", "N"] }
// arg: { tensor = "out", shape = ["B"], role = "out" }
// arg: "N"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_cg(const float* x, float* out, int n) {
    __shared__ float partial[4];
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<32>(block);
    float v = 0.0f;
    for (int i = block.thread_rank(); i < n; i += block.size())
        v += x[blockIdx.x * n + i];
    v = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        float w = tile.thread_rank() < 4 ? partial[tile.thread_rank()] : 0.0f;
        w = cg::reduce(tile, w, cg::plus<float>());
        if (tile.thread_rank() == 0) out[blockIdx.x] = w;
    }
}
