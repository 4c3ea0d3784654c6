// race: SAFE
// check: REFUTED
// spec: y = torch.softmax(x, dim=-1)
// why: wrong twin of softmax_warp: the sum reduces only over a (forgets eb), so
//   the row does not sum to one.
// launch: block = [32]
// launch: grid = ["B"]
// launch: sizes = { B = 2, N = 64 }
// arg: { tensor = "x", shape = ["B", "N"] }
// arg: { tensor = "y", shape = ["B", "N"], role = "out" }
// arg: "N"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void softmax_warp_half_sum(const float* x, float* y, int n) {
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    const float* row = x + blockIdx.x * n;
    int l = tile.thread_rank();
    float a = row[l], b = row[l + 32];
    float m = cg::reduce(tile, fmaxf(a, b), cg::greater<float>());
    float ea = expf(a - m), eb = expf(b - m);
    float s = cg::reduce(tile, ea, cg::plus<float>());
    y[blockIdx.x * n + l] = ea / s;
    y[blockIdx.x * n + l + 32] = eb / s;
}
